// This file pulls the runtime image a Function package embeds and unpacks
// it into the cache, so that the function's own binary can run without a
// container runtime (the functions Registry's package source).
//
// The layout is Crossplane's, read from github.com/crossplane/crossplane/v2
// v2.2.1 (the Go module proxy's copy):
//   - cmd/crank/xpkg/build.go (buildCmd.GetRuntimeBaseImageOpts): `crossplane
//     xpkg build --embed-runtime-image NAME` (or --embed-runtime-image-tarball)
//     hands the runtime image to the builder as its base (xpkg.WithBase);
//   - internal/xpkg/build.go (Builder.Build): the package is that image with
//     layers appended — its package.yaml layer (xpkg.Layer with
//     PackageAnnotation "base"), then an examples layer ("upbound") when the
//     package has examples — and the base image's config kept (Entrypoint,
//     Cmd, Env, WorkingDir, User), with a label per appended layer;
//   - internal/xpkg/layers.go (Layer, AnnotateLayers): the label is
//     "io.crossplane.xpkg:<layer digest>" in the image config, copied to the
//     layer's "io.crossplane.xpkg" annotation when the package is pushed;
//   - internal/xpkg/client.go (ExtractPackageYAML): the package manager
//     finds package.yaml in the layer annotated "base";
//   - cmd/crank/render/runtime_docker.go (RuntimeDocker.createContainer):
//     `crossplane render` runs the package image with Cmd ["--insecure"],
//     so a function image's Entrypoint is what runs.
//
// So the runtime's layers are the package's layers that carry no
// io.crossplane.xpkg annotation or label, in order; crd-lsp unpacks them
// (rootfs.go) and reads the entrypoint from the image config.

package packages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/flock"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"
)

// FunctionRuntime is a Function package's runtime image, unpacked.
type FunctionRuntime struct {
	Ref     string // the repository, fully qualified, no tag
	Version string // the tag or digest asked for
	// Digest is the manifest (or image index) digest Version resolved to;
	// Image the digest of the image manifest unpacked for Platform.
	Digest, Image string
	Platform      string // "linux/amd64": this machine's
	// Root holds the image's files (crd-lsp's cache: not to be written).
	Root string
	// The image config's process: Entrypoint, Cmd, Env, WorkingDir, User.
	Entrypoint, Cmd, Env []string
	WorkingDir, User     string
	// Executable is the entrypoint's file on this machine, inside Root,
	// as the container would find it (through the image's links, on the
	// image's PATH). "" when there is none: NoRuntime says why.
	Executable string
	// NoRuntime says why the package has nothing to run on this machine
	// (no embedded runtime image, none for this platform, no entrypoint);
	// the package itself was fine.
	NoRuntime string
	// FromCache: nothing was downloaded. Stale is set (a warning *Error)
	// when the registry could not confirm the tag and the cached copy was
	// used.
	FromCache bool
	Stale     error
}

// Name is the reference with the digest that runs: "REPO:TAG@sha256:…".
func (r *FunctionRuntime) Name() string {
	n := r.Ref + refSep(r.Version) + r.Version
	if r.Digest != "" && r.Digest != r.Version {
		n += "@" + r.Digest
	}
	return n
}

// runtimeRef is an index entry: what a reference resolved to for a
// platform, and the image unpacked for it.
type runtimeRef struct {
	Manifest string    `json:"manifest"` // what the reference resolved to
	Image    string    `json:"image"`    // the platform's image manifest
	Checked  time.Time `json:"checked"`  // last resolved with the registry
}

// runtimeRecord is runtime.json, beside an unpacked image's rootfs: what
// was unpacked, and what verifies it when it is used again.
type runtimeRecord struct {
	Version  int    `json:"version"`
	Ref      string `json:"ref"`
	Manifest string `json:"manifest"`
	Image    string `json:"image"`
	Platform string `json:"platform"`
	// Config is the digest of config.json (the image config, verified).
	Config string `json:"config"`
	// Executable is the entrypoint's file, relative to rootfs ("" none),
	// and ExecutableDigest its sha256 when unpacked.
	Executable       string `json:"executable,omitempty"`
	ExecutableDigest string `json:"executableDigest,omitempty"`
	NoRuntime        string `json:"noRuntime,omitempty"`
	Files            int    `json:"files"`
	Bytes            int64  `json:"bytes"`
}

const runtimeRecordVersion = 1

// maxRuntimeLayers bounds an image's layers (Docker stops at 127).
const maxRuntimeLayers = 128

// dockerPath is the PATH a container gets when its image sets none.
const dockerPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// RuntimePlatform is the platform whose image FunctionRuntime unpacks:
// linux on this machine's architecture.
func RuntimePlatform() string { return "linux/" + runtime.GOARCH }

// FunctionRuntime pulls pkg (a Function's spec.package: REPO:TAG or
// REPO@DIGEST) for this machine's platform and unpacks its runtime image
// into the cache, or serves it from there: a digest already unpacked needs
// no network, a tag is resolved with the registry (and, when the registry
// cannot answer, served from the cache with a Stale warning). Every layer
// is verified against its digest before it is used, and unpacked safely
// (rootfs.go); a cached copy is verified again (its config, and its
// executable's digest) before it is served, and unpacked again when it
// does not match.
func (c *Client) FunctionRuntime(ctx context.Context, pkg string) (*FunctionRuntime, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeouts.Pull, &pullDeadlineError{d: c.timeouts.Pull})
	defer cancel()
	repo, extra := splitTag(Qualify(pkg, c.defReg))
	if len(extra) < 2 {
		return nil, &Error{Kind: KindInvalid, Package: repo, Registry: registryOf(repo), Msg: "package " + pkg + " names no tag or digest"}
	}
	version := extra[1:]
	platform := RuntimePlatform()
	key := func(v string) string { return repo + refSep(v) + v + " " + platform }
	name := repo + refSep(version) + version
	ix, err := c.cache.readIndex()
	if err != nil {
		c.logf("package cache: %v", err)
	}
	if strings.HasPrefix(version, "sha256:") {
		if rt, err := c.cachedRuntime(ix.Runtimes[key(version)], repo, version); err == nil {
			return rt, nil
		}
	}
	r, err := c.repository(repo)
	if err != nil {
		return nil, err
	}
	stale := func(e *Error) (*FunctionRuntime, error) {
		rt, cerr := c.cachedRuntime(ix.Runtimes[key(version)], repo, version)
		if cerr != nil {
			return nil, e
		}
		w := *e
		w.Stale, w.Note = true, "using the cached "+rt.Digest
		rt.Stale = &w
		return rt, nil
	}
	desc, err := r.Resolve(ctx, version)
	if err != nil {
		e := classify(causeOf(ctx, err), name, registryOf(repo), "resolving")
		if e.Kind == KindCanceled {
			return nil, e
		}
		return stale(e)
	}
	top := desc.Digest.String()
	rt, err := c.cachedRuntime(ix.Runtimes[key(top)], repo, version)
	if err != nil {
		c.logf("pulling the runtime of %s", name)
		if rt, err = c.pullRuntime(ctx, r, repo, version, top, platform); err != nil {
			var e *Error
			if errors.As(err, &e) && e.Kind != KindCanceled && !strings.HasPrefix(version, "sha256:") {
				return stale(e) // a broken new tag never replaces a good cached one
			}
			return nil, err
		}
	}
	if rt.Image == "" {
		return rt, nil // (no image for this platform: nothing to record)
	}
	now := time.Now().UTC()
	if err := c.cache.update(func(ix *index) {
		ref := runtimeRef{Manifest: top, Image: rt.Image, Checked: now}
		ix.Runtimes[key(version)] = ref
		ix.Runtimes[key(top)] = ref
	}); err != nil {
		c.logf("package cache: %v", err)
	}
	return rt, nil
}

// runtimeDir is where the image manifest img is unpacked.
func (c *Client) runtimeDir(img string) (string, error) {
	d, err := digest.Parse(img)
	if err != nil || d.Algorithm() != digest.SHA256 {
		return "", fmt.Errorf("bad image digest %q", img)
	}
	return filepath.Join(c.cache.dir, "runtimes", d.Encoded()), nil
}

// cachedRuntime serves an unpacked runtime, verified: its config against
// the digest recorded, its executable against the digest it had when it
// was unpacked. A copy that does not verify is removed.
func (c *Client) cachedRuntime(ref runtimeRef, repo, version string) (*FunctionRuntime, error) {
	if ref.Image == "" {
		return nil, errors.New("not cached")
	}
	dir, err := c.runtimeDir(ref.Image)
	if err != nil {
		return nil, err
	}
	rt, err := loadRuntime(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.logf("package cache: the runtime of %s in %s: %v; unpacking it again", repo, dir, err)
			_ = os.RemoveAll(dir)
		}
		return nil, err
	}
	rt.Ref, rt.Version, rt.FromCache = repo, version, true
	return rt, nil
}

// loadRuntime reads and verifies an unpacked runtime's folder.
func loadRuntime(dir string) (*FunctionRuntime, error) {
	b, err := os.ReadFile(filepath.Join(dir, "runtime.json"))
	if err != nil {
		return nil, err
	}
	var rec runtimeRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.Version != runtimeRecordVersion {
		return nil, fmt.Errorf("runtime.json is unreadable (%v)", err)
	}
	cb, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, err
	}
	if got := digest.FromBytes(cb).String(); got != rec.Config {
		return nil, fmt.Errorf("%w: config.json is %s, want %s", errCorrupt, got, rec.Config)
	}
	var cfg ocispec.Image
	if err := json.Unmarshal(cb, &cfg); err != nil {
		return nil, fmt.Errorf("config.json: %w", err)
	}
	rt := runtimeOf(rec, cfg, filepath.Join(dir, "rootfs"))
	if rec.Executable != "" {
		rt.Executable = filepath.Join(rt.Root, filepath.FromSlash(rec.Executable))
		got, err := fileDigest(rt.Executable)
		if err != nil {
			return nil, err
		}
		if got != rec.ExecutableDigest {
			return nil, fmt.Errorf("%w: the entrypoint's file %s is %s, unpacked as %s", errCorrupt, rec.Executable, got, rec.ExecutableDigest)
		}
	}
	return rt, nil
}

func runtimeOf(rec runtimeRecord, cfg ocispec.Image, root string) *FunctionRuntime {
	return &FunctionRuntime{Digest: rec.Manifest, Image: rec.Image, Platform: rec.Platform, Root: root,
		Entrypoint: cfg.Config.Entrypoint, Cmd: cfg.Config.Cmd, Env: cfg.Config.Env, WorkingDir: cfg.Config.WorkingDir, User: cfg.Config.User,
		NoRuntime: rec.NoRuntime}
}

func fileDigest(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// platformError: an image index with no image for this machine.
type platformError struct{ want, have string }

func (e *platformError) Error() string {
	if e.have == "" {
		return "has no image for " + e.want
	}
	return "has no image for " + e.want + " (only " + e.have + ")"
}

// pickRuntime chooses the image for platform ("linux/amd64") in an index.
func pickRuntime(platform string) func([]ocispec.Descriptor) (ocispec.Descriptor, error) {
	wantOS, wantArch, _ := strings.Cut(platform, "/")
	return func(ms []ocispec.Descriptor) (ocispec.Descriptor, error) {
		var have []string
		for _, m := range ms {
			p := m.Platform
			if p == nil || p.OS == "unknown" {
				continue // attestations
			}
			if p.OS == wantOS && p.Architecture == wantArch {
				return m, nil
			}
			have = append(have, p.OS+"/"+p.Architecture)
		}
		return ocispec.Descriptor{}, &platformError{want: platform, have: strings.Join(have, ", ")}
	}
}

// pullRuntime fetches the image of platform that top names, and unpacks
// its runtime layers into the cache (or finds them unpacked by another
// process meanwhile).
func (c *Client) pullRuntime(ctx context.Context, r *remote.Repository, repo, version, top, platform string) (*FunctionRuntime, error) {
	name := repo + refSep(version) + version
	base := &FunctionRuntime{Ref: repo, Version: version, Digest: top, Platform: platform}
	_, img, m, err := c.fetchImageManifest(ctx, r, repo, version, top, pickRuntime(platform))
	var pe *platformError
	if errors.As(err, &pe) {
		base.NoRuntime = "the package " + pe.Error()
		return base, nil
	}
	if err != nil {
		return nil, err
	}
	base.Image = img.String()
	cb, err := c.readConfig(ctx, r, repo, version, m)
	if err != nil {
		return nil, err
	}
	var cfg ocispec.Image
	if err := json.Unmarshal(cb, &cfg); err != nil {
		return nil, invalid(repo, version, fmt.Errorf("image config: %w", err))
	}
	// A package with nothing to run here is recorded too (config.json,
	// runtime.json, no files), so that the cache says so offline.
	layers := runtimeLayers(m, cfg)
	noRuntime := ""
	switch want := strings.SplitN(platform, "/", 2); {
	case (cfg.OS != "" && cfg.OS != want[0]) || (cfg.Architecture != "" && cfg.Architecture != want[1]):
		noRuntime = fmt.Sprintf("its image is for %s/%s, this machine is %s", cfg.OS, cfg.Architecture, platform)
	case len(layers) == 0:
		noRuntime = "the package embeds no runtime image (it was built without crossplane xpkg build --embed-runtime-image): it holds its package.yaml only"
	case len(cfg.Config.Entrypoint) == 0:
		noRuntime = "its image config names no Entrypoint (crossplane render runs a function image with --insecure as its arguments, so it needs one)"
	case len(layers) > maxRuntimeLayers:
		return nil, invalid(repo, version, fmt.Errorf("the image has %d layers, more than %d; refused", len(layers), maxRuntimeLayers))
	}
	if noRuntime != "" {
		layers = nil
	}
	dir, err := c.runtimeDir(base.Image)
	if err != nil {
		return nil, invalid(repo, version, err)
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	// One process unpacks an image; the others wait and use it.
	unlock, err := flock.Lock(dir + ".lock")
	if err != nil {
		return nil, fmt.Errorf("package cache lock: %w", err)
	}
	defer unlock()
	if rt, err := loadRuntime(dir); err == nil {
		rt.Ref, rt.Version = repo, version
		return rt, nil
	}
	_ = os.RemoveAll(dir)
	cleanStale(parent)
	tmp, err := os.MkdirTemp(parent, ".tmp-"+filepath.Base(dir)+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp) // (renamed away when all went well)
	rootfs := filepath.Join(tmp, "rootfs")
	if err := os.Mkdir(rootfs, 0o755); err != nil {
		return nil, err
	}
	u := newUnpacker(rootfs, c.limits)
	start := time.Now()
	for _, l := range layers {
		if err := c.unpackLayer(ctx, r, repo, version, l, u); err != nil {
			return nil, err
		}
	}
	if err := checkLinks(rootfs); err != nil {
		return nil, invalid(repo, version, err)
	}
	rec := runtimeRecord{Version: runtimeRecordVersion, Ref: repo, Manifest: top, Image: base.Image, Platform: platform,
		Config: digest.FromBytes(cb).String(), Files: u.entries, Bytes: u.bytes, NoRuntime: noRuntime}
	if noRuntime != "" {
		// nothing unpacked
	} else if exe, why := findExecutable(rootfs, cfg.Config); why != "" {
		rec.NoRuntime = why
	} else {
		rel, _ := filepath.Rel(rootfs, exe)
		rec.Executable = filepath.ToSlash(rel)
		if rec.ExecutableDigest, err = fileDigest(exe); err != nil {
			return nil, err
		}
	}
	rb, _ := json.MarshalIndent(rec, "", "  ")
	if err := writeAtomic(filepath.Join(tmp, "config.json"), cb); err != nil {
		return nil, err
	}
	if err := writeAtomic(filepath.Join(tmp, "runtime.json"), rb); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, err
	}
	if noRuntime == "" {
		c.logf("unpacked the runtime of %s (%s, %d files, %s) in %s", name, base.Image, u.entries, sizeText(u.bytes), time.Since(start).Round(time.Millisecond))
	}
	rt, err := loadRuntime(dir)
	if err != nil {
		return nil, err
	}
	rt.Ref, rt.Version = repo, version
	return rt, nil
}

// cleanStale removes unpackings a killed process left behind (an hour
// old: one under way is younger, and holds its image's lock).
func cleanStale(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".tmp-") {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// readConfig reads an image's config, verified.
func (c *Client) readConfig(ctx context.Context, r *remote.Repository, repo, version string, m *ocispec.Manifest) ([]byte, error) {
	rc, err := r.Blobs().Fetch(ctx, m.Config)
	if err != nil {
		return nil, c.fetchError(ctx, err, repo, version, "image config "+m.Config.Digest.String(), "the manifest")
	}
	b, err := readVerified(rc, m.Config)
	if err != nil {
		var te *transferError
		if errors.As(err, &te) {
			return nil, c.blobError(ctx, err, repo, version, "image config "+m.Config.Digest.String())
		}
		return nil, invalid(repo, version, fmt.Errorf("image config: %w", err))
	}
	return b, nil
}

// runtimeLayers are the layers of a package that belong to its runtime
// image: those with no io.crossplane.xpkg annotation or config label (the
// package.yaml layer is "base", the examples layer "upbound").
func runtimeLayers(m *ocispec.Manifest, cfg ocispec.Image) []ocispec.Descriptor {
	var out []ocispec.Descriptor
	for _, l := range m.Layers {
		if _, ok := l.Annotations[AnnotationKey]; ok {
			continue
		}
		if _, ok := cfg.Config.Labels[AnnotationKey+":"+l.Digest.String()]; ok {
			continue
		}
		out = append(out, l)
	}
	return out
}

// unpackLayer streams one layer into u while hashing it; a layer whose
// size or digest is not its descriptor's fails the pull (what it wrote is
// in a folder that is then removed).
func (c *Client) unpackLayer(ctx context.Context, r *remote.Repository, repo, version string, d ocispec.Descriptor, u *unpacker) error {
	name := repo + refSep(version) + version
	if err := d.Digest.Validate(); err != nil {
		return invalid(repo, version, fmt.Errorf("layer digest: %w", err))
	}
	if d.Size > c.limits.MaxBlobSize {
		return invalid(repo, version, fmt.Errorf("layer is %d bytes, more than the %d allowed; refused", d.Size, c.limits.MaxBlobSize))
	}
	rc, err := r.Blobs().Fetch(ctx, d)
	if err != nil {
		return c.fetchError(ctx, err, repo, version, "layer blob "+d.Digest.String(), "the manifest")
	}
	defer rc.Close()
	h := d.Digest.Algorithm().Hash()
	cnt := &countReader{r: io.LimitReader(rc, d.Size+1)}
	tee := io.TeeReader(cnt, h)
	uerr := u.apply(tee)
	if cnt.err == nil {
		_, _ = io.Copy(io.Discard, tee) // the rest, for the digest
	}
	if cnt.err != nil {
		return transferFailure(causeOf(ctx, cnt.err), name, registryOf(repo), "layer "+d.Digest.String(), cnt.n, d.Size)
	}
	switch {
	case cnt.n < d.Size:
		return &Error{Kind: KindInvalid, Package: repo, Registry: registryOf(repo),
			Msg: fmt.Sprintf("layer %s of %s was truncated at %d of %d bytes (registry %s ended it early)", d.Digest, name, cnt.n, d.Size, registryOf(repo))}
	case cnt.n > d.Size:
		return invalid(repo, version, fmt.Errorf("layer %s is longer than its %d bytes", d.Digest, d.Size))
	}
	if got := digest.NewDigest(d.Digest.Algorithm(), h); got != d.Digest {
		return invalid(repo, version, fmt.Errorf("layer digest mismatch: content is %s, want %s", got, d.Digest))
	}
	if uerr != nil {
		var ue *unpackError
		if errors.As(uerr, &ue) {
			return invalid(repo, version, fmt.Errorf("layer %s: %w", d.Digest, uerr))
		}
		return fmt.Errorf("unpacking layer %s of %s into the cache: %w", d.Digest, name, uerr)
	}
	return nil
}

// findExecutable finds the entrypoint's file as the container would: a
// path (absolute, or relative to WorkingDir) through the image's links, or
// a bare name on the image's PATH. why says why there is none.
func findExecutable(root string, cfg ocispec.ImageConfig) (exe, why string) {
	if len(cfg.Entrypoint) == 0 {
		return "", "its image config names no Entrypoint"
	}
	entry := cfg.Entrypoint[0]
	wd := cfg.WorkingDir
	if wd == "" {
		wd = "/"
	}
	var candidates []string
	if strings.Contains(entry, "/") {
		candidates = []string{entry}
	} else {
		p := dockerPath
		for _, kv := range cfg.Env {
			if v, ok := strings.CutPrefix(kv, "PATH="); ok {
				p = v
			}
		}
		for _, dir := range strings.Split(p, ":") {
			if strings.HasPrefix(dir, "/") {
				candidates = append(candidates, path.Join(dir, entry))
			}
		}
	}
	why = fmt.Sprintf("its entrypoint %q is not in the image", entry)
	for _, cand := range candidates {
		host, err := resolveIn(root, wd, cand)
		if err != nil {
			continue
		}
		fi, err := os.Stat(host)
		switch {
		case err != nil:
			continue
		case !fi.Mode().IsRegular():
			why = fmt.Sprintf("its entrypoint %q is not a file", entry)
			continue
		case fi.Mode()&0o111 == 0:
			why = fmt.Sprintf("its entrypoint %q is not executable", entry)
			continue
		}
		return host, ""
	}
	return "", why
}
