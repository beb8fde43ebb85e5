// This file fetches remote bases when the user asks for it (check's
// --kustomize-remote, crdLsp.kustomize.allowRemote): the repository is
// cloned with the user's git into a temporary folder crd-lsp removes after
// the build, within the build's time (git is killed past it) and size, and
// kustomize is given the clone's folder in place of the URL.

package kustomize

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// remoteSpec is a remote base as kustomize reads its URL
// (api/internal/git's repospec rules): what git clones, the folder in it,
// the ref.
type remoteSpec struct {
	raw        string
	clone      string // what git fetches: scheme, user, host and the repository's path
	path       string // the kustomization's folder in the repository
	ref        string // "" for HEAD
	submodules bool
}

var remoteUser = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]*@`)

// parseRemote reads a resources, bases or components entry as kustomize
// reads a remote base: an error says it is none kustomize would clone.
func parseRemote(raw string) (remoteSpec, error) {
	s := remoteSpec{raw: raw, submodules: true}
	if filepath.IsAbs(raw) {
		return s, fmt.Errorf("an absolute path, not a URL")
	}
	n, query, _ := strings.Cut(raw, "?")
	if q, err := url.ParseQuery(query); err == nil {
		s.ref = q.Get("version")
		if r := q.Get("ref"); r != "" {
			s.ref = r
		}
		if v := q.Get("submodules"); v != "" {
			if b, err := strconv.ParseBool(v); err == nil {
				s.submodules = b
			}
		}
	}
	if len(n) >= 5 && strings.EqualFold(n[:5], "git::") {
		n = n[5:]
	}
	scheme := ""
	for _, p := range []string{"ssh://", "https://", "http://", "file://"} {
		if len(n) >= len(p) && strings.EqualFold(n[:len(p)], p) {
			scheme, n = p, n[len(p):]
			break
		}
	}
	user := remoteUser.FindString(n)
	n = n[len(user):]
	lower := strings.ToLower(n)
	github := strings.HasPrefix(lower, "github.com/") || strings.HasPrefix(lower, "github.com:")
	scp := scheme == "" && (user != "" || github)
	if scheme == "" && !scp {
		return s, fmt.Errorf("no scheme (https://, ssh://, file://) and not user@host:path")
	}
	var host string
	if scheme == "file://" {
		host, n = scheme, user+n
	} else {
		sep := strings.Index(n, "/")
		if scp {
			if c := strings.Index(n, ":"); sep == -1 || (c > 0 && c < sep) {
				sep = c
			}
		}
		if sep >= 0 {
			host, n = n[:sep+1], n[sep+1:]
		} else {
			host, n = n, ""
		}
		if github {
			if scheme == "ssh://" || user != "" {
				scheme, host = "", "github.com:"
			} else {
				scheme, user, host = "https://", "", "github.com/"
			}
		}
		if host == "" {
			return s, fmt.Errorf("no host")
		}
		host = scheme + user + host
	}
	var repo, path string
	switch i, j, k := strings.Index(n, "_git/"), strings.Index(n, "//"), strings.Index(n, ".git"); {
	case i >= 0:
		parts := strings.Split(n[i+len("_git/"):], "/")
		repo, path = n[:i+len("_git/")]+parts[0], strings.Join(parts[1:], "/")
	case j >= 0:
		repo, path = n[:j], n[j+2:]
	case k >= 0:
		repo, path = n[:k+len(".git")], n[k+len(".git"):]
	case scheme == "file://":
		repo = n
	default:
		parts := strings.Split(n, "/")
		if len(parts) < 2 {
			return s, fmt.Errorf("no repository path (org/repo)")
		}
		repo, path = strings.Join(parts[:2], "/"), strings.Join(parts[2:], "/")
	}
	path = strings.TrimPrefix(path, "/")
	if repo == "" {
		return s, fmt.Errorf("no repository path")
	}
	if c := filepath.Clean(filepath.FromSlash(path)); c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return s, fmt.Errorf("the path leaves the repository")
	}
	s.clone, s.path = host+repo, path
	return s, nil
}

// clones are the remote bases one build fetched: each clone's folder and
// what it was fetched for.
type clones struct {
	ctx     context.Context
	budget  int64 // bytes all clones may hold
	used    int64
	dirs    []string
	bySpec  map[string]string // clone+ref → folder
	byDir   map[string]remoteSpec
	timeout time.Duration
}

// errGitMissing says git is not there to clone with.
var errGitMissing = errors.New("git is not installed (or not on PATH)")

// fetch clones spec (once per repository and ref) and returns the folder
// of the kustomization it names. git runs in the clone's own temporary
// folder, without a terminal to prompt on; past the build's deadline it
// is killed.
func (c *clones) fetch(spec remoteSpec) (string, error) {
	key := spec.clone + "?" + spec.ref
	if dir, ok := c.bySpec[key]; ok {
		return filepath.Join(dir, filepath.FromSlash(spec.path)), nil
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return "", errGitMissing
	}
	dir, err := os.MkdirTemp("", "crd-lsp-remote-")
	if err != nil {
		return "", err
	}
	c.dirs = append(c.dirs, dir)
	run := func(args ...string) error {
		cmd := exec.CommandContext(c.ctx, git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
		// Past the deadline git and its helpers are killed (proc_*.go);
		// a helper that still holds the output is not waited for.
		killGroup(cmd)
		cmd.WaitDelay = time.Second
		out, err := cmd.CombinedOutput()
		if c.ctx.Err() != nil {
			return limitError{fmt.Sprintf("not built: fetching the remote base %q took longer than %s", spec.raw, c.timeout)}
		}
		if err != nil {
			msg := strings.TrimSpace(string(out))
			if len(msg) > 400 {
				msg = msg[:400] + "…"
			}
			if msg == "" {
				msg = err.Error()
			}
			return fmt.Errorf("git %s: %s", args[0], msg)
		}
		return nil
	}
	ref := spec.ref
	if ref == "" {
		ref = "HEAD"
	}
	steps := [][]string{{"init", "--quiet"}, {"remote", "add", "origin", spec.clone}, {"fetch", "--quiet", "--depth=1", spec.clone, ref}, {"checkout", "--quiet", "FETCH_HEAD"}}
	if spec.submodules {
		steps = append(steps, []string{"submodule", "--quiet", "update", "--init", "--recursive", "--depth=1"})
	}
	for _, args := range steps {
		if err := run(args...); err != nil {
			return "", err
		}
	}
	// Its size, before kustomize reads any of it.
	var size int64
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" && d.IsDir() {
			return filepath.SkipDir
		}
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
			size += info.Size()
		}
		if c.used+size > c.budget {
			return limitError{fmt.Sprintf("not built: the remote base %q holds more than %s", spec.raw, workspace.Size(c.budget))}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	c.used += size
	c.bySpec[key] = dir
	c.byDir[dir] = spec
	return filepath.Join(dir, filepath.FromSlash(spec.path)), nil
}

// of is the remote base a path was fetched for, and the path inside its
// repository.
func (c *clones) of(path string) (remoteSpec, string, bool) {
	if c == nil {
		return remoteSpec{}, "", false
	}
	for dir, spec := range c.byDir {
		if workspace.IsUnder(dir, path) {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				rel = path
			}
			return spec, filepath.ToSlash(rel), true
		}
	}
	return remoteSpec{}, "", false
}

// remove deletes every clone.
func (c *clones) remove() {
	if c == nil {
		return
	}
	for _, d := range c.dirs {
		_ = os.RemoveAll(d)
	}
}
