// This file unpacks an image's layers into a folder, safely: no entry leaves
// the folder (no absolute paths, no "..", an entry's folders resolved
// through the image's links only inside it), links stay inside it, sizes
// and entry counts are bounded, OCI whiteouts are applied, devices are
// skipped.

package packages

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The OCI image layer whiteouts (image-spec's layer.md): ".wh.NAME"
// deletes NAME of the layers below, ".wh..wh..opq" empties its folder of
// what the layers below put there.
const (
	whiteoutPrefix = ".wh."
	whiteoutOpaque = ".wh..wh..opq"
	// whiteoutMeta prefixes the other names the spec reserves (aufs'
	// hard link folder ".wh..wh.plnk"): not files of the image.
	whiteoutMeta = ".wh..wh."
)

// Bounds of one path in a layer: the kernel's own PATH_MAX, and a depth
// no real image comes near.
const (
	maxPathLen   = 4096
	maxPathDepth = 256
)

// unpacker applies an image's layers, lowest first, to a root folder that
// only it writes.
type unpacker struct {
	root string
	lim  Limits
	// bytes and entries count what every layer so far wrote.
	bytes   int64
	entries int
	// skipped counts entries not created (devices, fifos).
	skipped int
	// layer is what the current layer wrote (every path, and each of its
	// folders): an opaque whiteout or a whiteout keeps it.
	layer map[string]bool
}

func newUnpacker(root string, lim Limits) *unpacker {
	return &unpacker{root: root, lim: lim}
}

// unpackError is a layer that cannot be unpacked safely or within bounds.
type unpackError struct{ msg string }

func (e *unpackError) Error() string { return e.msg }

func refuse(format string, args ...any) error {
	return &unpackError{msg: fmt.Sprintf(format, args...)}
}

// apply unpacks one layer (a tar stream, gzipped or plain) over what the
// layers below left. A zstd layer is refused (crd-lsp reads gzip, as
// `crossplane xpkg build` and docker build write).
func (u *unpacker) apply(r io.Reader) error {
	br := bufio.NewReader(r)
	var content io.Reader = br
	magic, _ := br.Peek(4)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		gz, err := gzip.NewReader(br)
		if err != nil {
			return refuse("layer is not valid gzip: %v", err)
		}
		defer gz.Close()
		content = gz
	case len(magic) == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd:
		return refuse("layer is zstd-compressed; crd-lsp unpacks gzip and plain tar layers only")
	}
	// What is skipped or read as headers is decompressed too: cap the
	// whole stream, not only the files written.
	capped := &capReader{r: content, n: u.lim.MaxRuntimeSize + 64<<20}
	tr := tar.NewReader(capped)
	u.layer = map[string]bool{}
	var whiteouts []string // applied after the layer, so the layer's own entries stay
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if capped.hit {
				return refuse("layer decompresses to more than %s; refused", sizeText(u.lim.MaxRuntimeSize))
			}
			return refuse("layer is not a valid tar archive: %v", err)
		}
		u.entries++
		if u.entries > u.lim.MaxRuntimeEntries {
			return refuse("the image has more than %d files; refused", u.lim.MaxRuntimeEntries)
		}
		name, err := entryName(h.Name)
		if err != nil {
			return err
		}
		if name == "." {
			continue // the root itself
		}
		base := path.Base(name)
		if strings.HasPrefix(base, whiteoutPrefix) {
			if base == whiteoutOpaque || !strings.HasPrefix(base, whiteoutMeta) {
				whiteouts = append(whiteouts, name)
			}
			continue
		}
		if err := u.entry(tr, h, name, capped); err != nil {
			return err
		}
	}
	for _, w := range whiteouts {
		if err := u.whiteout(w); err != nil {
			return err
		}
	}
	return nil
}

// entryName cleans a tar entry name ("./usr/bin/x" → "usr/bin/x"),
// refusing absolute paths, "..", NUL bytes and paths past the bounds.
func entryName(name string) (string, error) {
	if len(name) > maxPathLen {
		return "", refuse("layer entry %.80q… has a path of %d bytes; refused", name, len(name))
	}
	if strings.ContainsRune(name, 0) {
		return "", refuse("layer entry %q has a NUL byte in its path; refused", name)
	}
	n, err := safeName(name)
	if err != nil {
		return "", &unpackError{msg: err.Error()}
	}
	if strings.Count(n, "/") >= maxPathDepth {
		return "", refuse("layer entry %.80q… is more than %d folders deep; refused", name, maxPathDepth)
	}
	return n, nil
}

// entry creates one entry. Its folders are resolved first (resolve), so
// name below is where it lands.
func (u *unpacker) entry(tr *tar.Reader, h *tar.Header, name string, capped *capReader) error {
	switch h.Typeflag {
	case tar.TypeDir, tar.TypeReg, tar.TypeRegA, tar.TypeGNUSparse, tar.TypeSymlink, tar.TypeLink:
	default:
		// Devices and fifos: a container runtime makes its own /dev;
		// crd-lsp creates none. Other types carry nothing to write.
		u.skipped++
		return nil
	}
	name, _, err := u.resolve(name, true)
	if err != nil {
		return err
	}
	host := filepath.Join(u.root, filepath.FromSlash(name))
	switch h.Typeflag {
	case tar.TypeDir:
		fi, err := os.Lstat(host)
		switch {
		case err == nil && fi.IsDir():
		case err == nil:
			// (A link of the layers below included: a folder replaces
			// it, as containerd's applier does.)
			if err := os.RemoveAll(host); err != nil {
				return err
			}
			fallthrough
		default:
			if err := os.Mkdir(host, 0o755); err != nil {
				return err
			}
		}
		// Readable and writable by crd-lsp (to replace and remove it
		// later), never by others.
		if err := os.Chmod(host, os.FileMode(h.Mode).Perm()&0o755|0o700); err != nil {
			return err
		}
	case tar.TypeSymlink:
		target, err := linkTarget(name, h.Linkname)
		if err != nil {
			return err
		}
		if err := makeRoom(host); err != nil {
			return err
		}
		if err := os.Symlink(target, host); err != nil {
			return err
		}
	case tar.TypeLink:
		target, err := entryName(h.Linkname)
		if err != nil || target == "." {
			return refuse("layer entry %q is a hard link to %q, outside the image; refused", h.Name, h.Linkname)
		}
		target, exists, err := u.resolve(target, false)
		if err != nil {
			return err
		}
		src := filepath.Join(u.root, filepath.FromSlash(target))
		fi, err := os.Lstat(src)
		if !exists || err != nil || !fi.Mode().IsRegular() {
			return refuse("layer entry %q is a hard link to %q, which is not a file of the image; refused", h.Name, h.Linkname)
		}
		if err := makeRoom(host); err != nil {
			return err
		}
		if err := os.Link(src, host); err != nil {
			return err
		}
	default: // a file
		if h.Size < 0 || h.Size > u.lim.MaxRuntimeSize-u.bytes {
			return refuse("layer entry %q is %s, past the %s an image may unpack to; refused", h.Name, sizeText(max(h.Size, 0)), sizeText(u.lim.MaxRuntimeSize))
		}
		if err := makeRoom(host); err != nil {
			return err
		}
		f, err := os.OpenFile(host, os.O_WRONLY|os.O_CREATE|os.O_EXCL, os.FileMode(h.Mode).Perm()&0o755|0o400)
		if err != nil {
			return err
		}
		n, err := io.Copy(f, tr)
		u.bytes += n
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			if capped.hit {
				return refuse("layer decompresses to more than %s; refused", sizeText(u.lim.MaxRuntimeSize))
			}
			return refuse("reading layer entry %q: %v", h.Name, err)
		}
		// (The umask may have taken bits off: the image's modes count.)
		if err := os.Chmod(host, os.FileMode(h.Mode).Perm()&0o755|0o400); err != nil {
			return err
		}
	}
	u.wrote(name)
	return nil
}

// wrote records that the current layer wrote name (and so its folders).
func (u *unpacker) wrote(name string) {
	for p := name; p != "."; p = path.Dir(p) {
		if u.layer[p] {
			return
		}
		u.layer[p] = true
	}
}

// resolve finds where an entry named name lands: its folders resolved
// inside the root as a container runtime resolves them when it applies a
// layer (containerd's archive/tar.go, applyNaive: "Split name and
// resolve symlinks for root directory" with fs.RootPath, scoped to the
// root; Docker's pkg/chrootarchive applies layers in a chroot) —
// through the image's links, an absolute target starting at the root and
// ".." stopping at it, so never outside the root — and the missing ones
// created when create is set (else exists is false when one is missing).
// The last element of name is not followed: an entry replaces what is
// there.
func (u *unpacker) resolve(name string, create bool) (resolved string, exists bool, err error) {
	dir := path.Dir(name)
	if dir == "." {
		return name, true, nil
	}
	rel, err := walkIn(u.root, dir, create)
	var ue *unpackError
	switch {
	case errors.Is(err, fs.ErrNotExist) && !create:
		return "", false, nil
	case errors.As(err, &ue):
		return "", false, refuse("layer entry %q: %v; refused", name, err)
	case err != nil:
		return "", false, err
	}
	if fi, err := os.Lstat(filepath.Join(u.root, filepath.FromSlash(rel))); err != nil || !fi.IsDir() {
		return "", false, refuse("layer entry %q is below %q, which is not a folder; refused", name, rel)
	}
	return path.Join(rel, path.Base(name)), true, nil
}

// makeRoom makes room for a new file or link: whatever the layers below
// left there (a link itself, never its target) is removed.
func makeRoom(host string) error {
	if _, err := os.Lstat(host); err == nil {
		return os.RemoveAll(host)
	}
	return nil
}

// whiteout applies a whiteout entry after the layer's other entries: it
// removes what the layers below left, never what this layer wrote.
func (u *unpacker) whiteout(name string) error {
	resolved, exists, err := u.resolve(name, false)
	if err != nil || !exists {
		return err
	}
	dir, base := path.Dir(resolved), path.Base(resolved)
	hostDir := filepath.Join(u.root, filepath.FromSlash(dir))
	if base == whiteoutOpaque {
		return u.opaque(dir, hostDir)
	}
	gone := strings.TrimPrefix(base, whiteoutPrefix)
	if gone == "" || gone == "." || gone == ".." {
		return refuse("layer entry %q whites out %q; refused", name, gone)
	}
	if u.layer[path.Join(dir, gone)] {
		return nil
	}
	return os.RemoveAll(filepath.Join(hostDir, gone))
}

// opaque removes from dir everything the current layer did not write.
func (u *unpacker) opaque(dir, hostDir string) error {
	ents, err := os.ReadDir(hostDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		rel := path.Join(dir, e.Name())
		if !u.layer[rel] {
			if err := os.RemoveAll(filepath.Join(hostDir, e.Name())); err != nil {
				return err
			}
			continue
		}
		if e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
			if err := u.opaque(rel, filepath.Join(hostDir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// linkTarget is the target a symbolic link at name is created with: a
// relative target that stays inside the image as it is, an absolute one
// (which in the container means the image's root) rewritten relative to
// the link, so that on this machine it still points into the image.
func linkTarget(name, target string) (string, error) {
	if target == "" || len(target) > maxPathLen || strings.ContainsRune(target, 0) {
		return "", refuse("layer entry %q is a link with an unusable target; refused", name)
	}
	t := strings.ReplaceAll(target, "\\", "/")
	dir := path.Dir(name)
	if strings.HasPrefix(t, "/") {
		rel, err := filepath.Rel(filepath.FromSlash("/"+dir), filepath.FromSlash(path.Clean(t)))
		if err != nil {
			return "", refuse("layer entry %q links to %q; refused", name, target)
		}
		return rel, nil
	}
	if j := path.Join(dir, t); j == ".." || strings.HasPrefix(j, "../") {
		return "", refuse("layer entry %q links to %q, outside the image; refused", name, target)
	}
	return t, nil
}

// checkLinks resolves every link of the unpacked root as this machine
// will (links through links, ".." after a link): each must stay inside
// the root, or point at nothing. A chain of links inside the image can
// climb above it ("a → .", then "b → a/a/../..") though each looks inside
// on its own.
func checkLinks(root string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		resolved, rerr := filepath.EvalSymlinks(p)
		if rerr != nil {
			return nil // dangling, or a loop: it leads nowhere
		}
		if rel, err := filepath.Rel(realRoot, resolved); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			name, _ := filepath.Rel(root, p)
			target, _ := os.Readlink(p)
			return refuse("the image's link %q (→ %q) leads outside the image; refused", filepath.ToSlash(name), target)
		}
		return nil
	})
}

// resolveIn finds the file p (a path inside the image, absolute or
// relative to dir) names, following links as the container would, and
// returns it as a path on this machine, inside root.
func resolveIn(root, dir, p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		p = path.Join("/", dir, p)
	}
	rel, err := walkIn(root, path.Clean(p), false)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, filepath.FromSlash(rel)), nil
}

// maxLinkHops bounds the links one resolution follows (Linux's own
// bound, MAXSYMLINKS).
const maxLinkHops = 40

// walkIn resolves p (a path inside the image, "/" or "" its root) through
// the image's links as the container sees them: an absolute target starts
// at the image's root, ".." stops at it. It returns the path, relative to
// root ("." for the root itself); every element but the last is a folder
// (else an *unpackError, as is a loop of links). Missing elements are
// created as folders when create is set, else they are an fs.ErrNotExist.
func walkIn(root, p string, create bool) (string, error) {
	var done []string // resolved elements, below the root
	todo := strings.Split(p, "/")
	for hops := 0; len(todo) > 0; {
		seg := todo[0]
		todo = todo[1:]
		switch seg {
		case "", ".":
			continue
		case "..":
			if len(done) > 0 {
				done = done[:len(done)-1]
			}
			continue
		}
		rel := path.Join(append(done, seg)...)
		cur := filepath.Join(root, filepath.FromSlash(rel))
		fi, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist) && create:
			if err := os.Mkdir(cur, 0o755); err != nil {
				return "", err
			}
			done = append(done, seg)
			continue
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink != 0:
			if hops++; hops > maxLinkHops {
				return "", &unpackError{msg: fmt.Sprintf("more than %d links resolving %q", maxLinkHops, p)}
			}
			t, err := os.Readlink(cur)
			if err != nil {
				return "", err
			}
			t = filepath.ToSlash(t)
			if strings.HasPrefix(t, "/") {
				done = nil
			}
			todo = append(strings.Split(t, "/"), todo...)
			continue
		case !fi.IsDir() && hasElement(todo):
			return "", &unpackError{msg: fmt.Sprintf("%q is not a folder", rel)}
		}
		done = append(done, seg)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return path.Join(done...), nil
}

// hasElement says whether a path's remaining elements name anything.
func hasElement(todo []string) bool {
	for _, s := range todo {
		if s != "" && s != "." {
			return true
		}
	}
	return false
}
