package packages

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// tarEntry is one entry of a test layer.
type tarEntry struct {
	name, body, link string
	typ              byte
	mode             int64
	size             int64 // when not len(body) (a lying header)
}

func layerOf(gz bool, es ...tarEntry) []byte {
	var buf bytes.Buffer
	var zw *gzip.Writer
	var w io.Writer = &buf
	if gz {
		zw = gzip.NewWriter(&buf)
		w = zw
	}
	tw := tar.NewWriter(w)
	for _, e := range es {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: e.mode, ModTime: time.Unix(0, 0)}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			panic(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				panic(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	if zw != nil {
		zw.Close()
	}
	return buf.Bytes()
}

// unpackAll applies layers to a fresh root inside a folder of its own
// (whose other files a mistake would reach), then checks the links.
func unpackAll(t *testing.T, lim Limits, layers ...[]byte) (string, error) {
	t.Helper()
	outer := t.TempDir()
	if err := os.WriteFile(filepath.Join(outer, "outside"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(outer, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(filepath.Join(outer, "outside")); err != nil || string(b) != "keep" {
			t.Errorf("a file beside the root was touched: %q, %v", b, err)
		}
		ents, _ := os.ReadDir(outer)
		if len(ents) != 2 {
			t.Errorf("the unpacking wrote beside its root: %v", ents)
		}
	})
	u := newUnpacker(root, lim.withDefaults())
	for _, l := range layers {
		if err := u.apply(bytes.NewReader(l)); err != nil {
			return root, err
		}
	}
	return root, checkLinks(root)
}

func wantRefused(t *testing.T, err error, words string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), words) {
		t.Errorf("got %v, want an error saying %q", err, words)
	}
}

// TestUnpackRefusesEscapes: no layer writes outside the root, through
// names, links or hard links, however it is built.
func TestUnpackRefusesEscapes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		layer []byte
		words string
	}{
		{"dot-dot", layerOf(true, tarEntry{name: "../outside", body: "x"}), "leaves the archive"},
		{"dot-dot inside", layerOf(true, tarEntry{name: "usr/../../outside", body: "x"}), "leaves the archive"},
		{"absolute", layerOf(true, tarEntry{name: "/etc/passwd", body: "x"}), "absolute path"},
		{"link out", layerOf(true, tarEntry{name: "up", typ: tar.TypeSymlink, link: "../outside"}), "outside the image"},
		{"link far out", layerOf(true, tarEntry{name: "a/b/up", typ: tar.TypeSymlink, link: "../../../../etc"}), "outside the image"},
		{"hard link out", layerOf(true, tarEntry{name: "h", typ: tar.TypeLink, link: "../outside"}), "outside the image"},
		{"hard link to nothing", layerOf(true, tarEntry{name: "h", typ: tar.TypeLink, link: "missing"}), "not a file of the image"},
		// The link's folder resolves inside the image: its root, where
		// there is no "outside".
		{"hard link through a link", layerOf(true,
			tarEntry{name: "l", typ: tar.TypeSymlink, link: "/"},
			tarEntry{name: "h", typ: tar.TypeLink, link: "l/../outside"}), "outside the image"},
		{"hard link through a link to the root", layerOf(true,
			tarEntry{name: "l", typ: tar.TypeSymlink, link: "/"},
			tarEntry{name: "h", typ: tar.TypeLink, link: "l/outside"}), "not a file of the image"},
		// Each link looks inside the image on its own; together they climb
		// above it (a → ., then b → a/a/../.. resolves to the root's parent
		// on this machine). An entry written through b lands inside the
		// root (resolved as the container resolves it, ".." stopping at the
		// root), and the image is refused for b.
		{"chain of links", layerOf(true,
			tarEntry{name: "a", typ: tar.TypeSymlink, link: "."},
			tarEntry{name: "b", typ: tar.TypeSymlink, link: "a/a/../.."},
			tarEntry{name: "b/outside", body: "x"},
			tarEntry{name: "b/b/new", body: "x"}), "leads outside the image"},
		{"below a file", layerOf(true,
			tarEntry{name: "f", body: "x"},
			tarEntry{name: "f/x", body: "x"}), `is below "f", which is not a folder`},
		{"below a link to a file", layerOf(true,
			tarEntry{name: "f", body: "x"},
			tarEntry{name: "l", typ: tar.TypeSymlink, link: "/f"},
			tarEntry{name: "l/x", body: "x"}), `is below "f", which is not a folder`},
		{"deep below a file", layerOf(true,
			tarEntry{name: "f", body: "x"},
			tarEntry{name: "f/g/x", body: "x"}), `"f/g/x": "f" is not a folder`},
		{"a loop of links", layerOf(true,
			tarEntry{name: "a", typ: tar.TypeSymlink, link: "b"},
			tarEntry{name: "b", typ: tar.TypeSymlink, link: "a"},
			tarEntry{name: "a/x", body: "x"}), "more than 40 links"},
		{"whiteout of the parent", layerOf(true, tarEntry{name: ".wh...", body: ""}), "whites out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := unpackAll(t, Limits{}, tc.layer)
			wantRefused(t, err, tc.words)
		})
	}
}

// TestUnpackBombs: sizes and counts are bounded before they are written.
func TestUnpackBombs(t *testing.T) {
	lim := Limits{MaxRuntimeSize: 1 << 20, MaxRuntimeEntries: 100}
	t.Run("a big file", func(t *testing.T) {
		_, err := unpackAll(t, lim, bombLayer("zeros", 2<<20))
		wantRefused(t, err, "past the 1 MiB an image may unpack to")
	})
	t.Run("many files over the layers", func(t *testing.T) {
		var es []tarEntry
		for i := range 60 {
			es = append(es, tarEntry{name: "f" + strings.Repeat("x", i), body: "x"})
		}
		_, err := unpackAll(t, lim, layerOf(true, es...), layerOf(true, es...))
		wantRefused(t, err, "more than 100 files")
	})
	t.Run("bytes over the layers", func(t *testing.T) {
		half := strings.Repeat("y", 600<<10)
		_, err := unpackAll(t, lim, layerOf(true, tarEntry{name: "a", body: half}), layerOf(true, tarEntry{name: "b", body: half}))
		wantRefused(t, err, "past the 1 MiB")
	})
	t.Run("zstd", func(t *testing.T) {
		_, err := unpackAll(t, lim, []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0})
		wantRefused(t, err, "zstd")
	})
	t.Run("deep", func(t *testing.T) {
		_, err := unpackAll(t, lim, layerOf(true, tarEntry{name: strings.Repeat("d/", 300) + "f", body: "x"}))
		wantRefused(t, err, "folders deep")
	})
}

// bombLayer is a gzipped tar of one file of size zero bytes.
func bombLayer(name string, size int64) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	_ = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Typeflag: tar.TypeReg, Size: size})
	_, _ = tw.Write(make([]byte, size))
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// TestUnpackLayers: layers apply over each other as a container runtime
// applies them: later files win, whiteouts and opaque folders remove what
// the layers below left (never the layer's own files), absolute links are
// made relative to the root, modes are kept without setuid or group and
// world write, devices are not created.
func TestUnpackLayers(t *testing.T) {
	lower := layerOf(true,
		tarEntry{name: "./", typ: tar.TypeDir, mode: 0o755},
		tarEntry{name: "usr/bin/function", body: "old", mode: 0o755},
		tarEntry{name: "etc/gone", body: "x"},
		tarEntry{name: "etc/kept", body: "x"},
		tarEntry{name: "opt/old/a", body: "x"},
		tarEntry{name: "opt/old/b", body: "x"},
		tarEntry{name: "var/run", typ: tar.TypeSymlink, link: "/run"},
		tarEntry{name: "dev/null", typ: tar.TypeChar},
	)
	upper := layerOf(true,
		tarEntry{name: "usr/bin/function", body: "new", mode: 0o4777},
		tarEntry{name: "etc/.wh.gone"},
		tarEntry{name: "opt/old/.wh..wh..opq"},
		tarEntry{name: "opt/old/c", body: "x"},
		tarEntry{name: "bin", typ: tar.TypeSymlink, link: "usr/bin"},
		tarEntry{name: "usr/local/bin/fn", typ: tar.TypeLink, link: "usr/bin/function"},
		tarEntry{name: "run/.wh.nothing-here"},
	)
	root, err := unpackAll(t, Limits{}, lower, upper)
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}
	for p, want := range map[string]string{"usr/bin/function": "new", "bin/function": "new", "usr/local/bin/fn": "new", "etc/kept": "x", "opt/old/c": "x"} {
		if got := read(p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	for _, p := range []string{"etc/gone", "opt/old/a", "opt/old/b", "dev/null"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s is there", p)
		}
	}
	if l, _ := os.Readlink(filepath.Join(root, "var", "run")); l != "../run" {
		t.Errorf("var/run → %q, want ../run (the absolute /run made relative)", l)
	}
	if fi, _ := os.Stat(filepath.Join(root, "usr", "bin", "function")); fi == nil || fi.Mode().Perm() != 0o755 || fi.Mode()&os.ModeSetuid != 0 {
		t.Errorf("mode %v, want -rwxr-xr-x", fi.Mode())
	}
	// The entrypoint is found as the container finds it.
	cfgExe := func(entry string, env ...string) (string, string) {
		return findExecutable(root, ociConfig(entry, env...))
	}
	if exe, why := cfgExe("/bin/function"); why != "" || exe != filepath.Join(root, "usr", "bin", "function") {
		t.Errorf("/bin/function: %q, %q", exe, why)
	}
	if exe, why := cfgExe("fn", "PATH=/usr/local/bin"); why != "" || exe != filepath.Join(root, "usr", "local", "bin", "fn") {
		t.Errorf("fn on PATH: %q, %q", exe, why)
	}
	if _, why := cfgExe("/etc/kept"); !strings.Contains(why, "not executable") {
		t.Errorf("/etc/kept: %q", why)
	}
	if _, why := cfgExe("python3"); !strings.Contains(why, `"python3" is not in the image`) {
		t.Errorf("python3: %q", why)
	}
}

// TestUnpackThroughLinks: an entry whose folder is a link of the layers
// below lands where the link leads, inside the image, as a container
// runtime applies it (containerd resolves an entry's folder with
// fs.RootPath): a merged-/usr base (lib → usr/lib) and a layer writing
// lib/… without folder entries of its own; a link to the image's root; a
// whiteout through the link. A folder entry over a link replaces the link,
// as containerd's applier does.
func TestUnpackThroughLinks(t *testing.T) {
	base := layerOf(true,
		tarEntry{name: "usr/lib/", typ: tar.TypeDir, mode: 0o755},
		tarEntry{name: "lib", typ: tar.TypeSymlink, link: "usr/lib"},
		tarEntry{name: "lib64", typ: tar.TypeSymlink, link: "/usr/lib"},
		tarEntry{name: "top", typ: tar.TypeSymlink, link: "/"},
		tarEntry{name: "alias", typ: tar.TypeSymlink, link: "opt"},
	)
	libs := layerOf(true,
		tarEntry{name: "lib/x86_64-linux-gnu/libc.so.6", body: "libc"},
		tarEntry{name: "lib64/ld-linux-x86-64.so.2", body: "ld"},
		tarEntry{name: "top/etc/passwd", body: "passwd"},
		tarEntry{name: "lib/x86_64-linux-gnu/libgone.so", body: "gone"},
		tarEntry{name: "lib/rel", typ: tar.TypeSymlink, link: "../share"},
		tarEntry{name: "alias/", typ: tar.TypeDir, mode: 0o755},
		tarEntry{name: "alias/own", body: "own"},
	)
	whiteout := layerOf(true, tarEntry{name: "lib/x86_64-linux-gnu/.wh.libgone.so"})
	root, err := unpackAll(t, Limits{}, base, libs, whiteout)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"usr/lib/x86_64-linux-gnu/libc.so.6": "libc", "usr/lib/ld-linux-x86-64.so.2": "ld", "etc/passwd": "passwd", "alias/own": "own",
	} {
		if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p))); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", p, b, err, want)
		}
	}
	if l, err := os.Readlink(filepath.Join(root, "lib")); err != nil || l != "usr/lib" {
		t.Errorf("lib → %q, %v: the link of the layer below is gone", l, err)
	}
	if fi, err := os.Lstat(filepath.Join(root, "alias")); err != nil || !fi.IsDir() {
		t.Errorf("alias: a folder entry over a link: %v, %v", fi, err)
	}
	if _, err := os.Lstat(filepath.Join(root, "usr", "lib", "x86_64-linux-gnu", "libgone.so")); err == nil {
		t.Error("the whiteout through the link left libgone.so")
	}
	// A relative link is relative to where it landed.
	if l, err := os.Readlink(filepath.Join(root, "usr", "lib", "rel")); err != nil || l != "../share" {
		t.Errorf("usr/lib/rel → %q, %v", l, err)
	}
}

func ociConfig(entry string, env ...string) ocispec.ImageConfig {
	return ocispec.ImageConfig{Entrypoint: []string{entry}, Env: env}
}
