package release

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// target is one platform a release serves.
type target struct{ goos, goarch, vscode string }

var targets = []target{
	{"linux", "amd64", "linux-x64"}, {"linux", "arm64", "linux-arm64"},
	{"darwin", "amd64", "darwin-x64"}, {"darwin", "arm64", "darwin-arm64"},
	{"windows", "amd64", "win32-x64"}, {"windows", "arm64", "win32-arm64"},
}

// snapshot is what .ci/release.sh left in dist/ (or $CRD_LSP_DIST).
type snapshot struct {
	dir     string
	version string
	commit  string
}

// distDir finds the snapshot, skipping the test without one (failing
// under CI=true, where .ci/run makes it first).
func distDir(t *testing.T) snapshot {
	t.Helper()
	dir := os.Getenv("CRD_LSP_DIST")
	if dir == "" {
		dir = filepath.Join("..", "..", "dist")
	}
	b, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		msg := fmt.Sprintf("no release snapshot in %s (%v): run .ci/release.sh first", dir, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	var meta struct{ Version, Commit string }
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	return snapshot{dir: dir, version: meta.Version, commit: meta.Commit}
}

func (s snapshot) archive(tg target) string {
	ext := ".tar.gz"
	if tg.goos == "windows" {
		ext = ".zip"
	}
	return filepath.Join(s.dir, fmt.Sprintf("crd-lsp_%s_%s_%s%s", s.version, tg.goos, tg.goarch, ext))
}

func (s snapshot) vsix(tg target) string {
	return filepath.Join(s.dir, fmt.Sprintf("crd-lsp_%s_%s.vsix", s.version, tg.vscode))
}

// readArchive returns every regular file of a .tar.gz or .zip by name.
func readArchive(t *testing.T, path string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	if strings.HasSuffix(path, ".zip") || strings.HasSuffix(path, ".vsix") {
		z, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		for _, f := range z.File {
			if f.FileInfo().IsDir() {
				continue
			}
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			files[f.Name] = b
		}
		return files
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = b
	}
	return files
}

// platformOf reads which system and architecture an executable is for,
// from its own headers: ELF, Mach-O or PE.
func platformOf(b []byte) (goos, goarch string) {
	r := bytes.NewReader(b)
	if f, err := elf.NewFile(r); err == nil {
		switch f.Machine {
		case elf.EM_X86_64:
			return "linux", "amd64"
		case elf.EM_AARCH64:
			return "linux", "arm64"
		}
		return "linux", f.Machine.String()
	}
	if f, err := macho.NewFile(r); err == nil {
		switch f.Cpu {
		case macho.CpuAmd64:
			return "darwin", "amd64"
		case macho.CpuArm64:
			return "darwin", "arm64"
		}
		return "darwin", f.Cpu.String()
	}
	if f, err := pe.NewFile(r); err == nil {
		switch f.Machine {
		case pe.IMAGE_FILE_MACHINE_AMD64:
			return "windows", "amd64"
		case pe.IMAGE_FILE_MACHINE_ARM64:
			return "windows", "arm64"
		}
		return "windows", fmt.Sprintf("machine %#x", f.Machine)
	}
	return "unknown", "unknown"
}

func repoFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestArchives: one archive per system and architecture, whose binary is
// built for that system and architecture (read from its headers), with
// the repository's LICENSE, NOTICE, README and the quickstart example.
func TestArchives(t *testing.T) {
	s := distDir(t)
	for _, tg := range targets {
		path := s.archive(tg)
		files := readArchive(t, path)
		top := fmt.Sprintf("crd-lsp_%s_%s_%s/", s.version, tg.goos, tg.goarch)
		exe := top + "crd-lsp"
		if tg.goos == "windows" {
			exe += ".exe"
		}
		bin, ok := files[exe]
		if !ok {
			t.Errorf("%s: no %s among %d files", path, exe, len(files))
			continue
		}
		if goos, goarch := platformOf(bin); goos != tg.goos || goarch != tg.goarch {
			t.Errorf("%s: %s is for %s/%s", path, exe, goos, goarch)
		}
		for _, name := range []string{"LICENSE", "NOTICE", "README.md", "examples/quickstart/composition.yaml"} {
			if got, ok := files[top+name]; !ok || !bytes.Equal(got, repoFile(t, name)) {
				t.Errorf("%s: %s missing or not the repository's", path, top+name)
			}
		}
	}
}

// TestVSIXServers: one .vsix per VS Code platform, declaring that
// platform, whose bundled server is built for it.
func TestVSIXServers(t *testing.T) {
	s := distDir(t)
	for _, tg := range targets {
		path := s.vsix(tg)
		files := readArchive(t, path)
		exe := "extension/bin/" + tg.vscode + "/crd-lsp"
		if tg.goos == "windows" {
			exe += ".exe"
		}
		bin, ok := files[exe]
		if !ok {
			t.Errorf("%s: no bundled server %s", path, exe)
			continue
		}
		if goos, goarch := platformOf(bin); goos != tg.goos || goarch != tg.goarch {
			t.Errorf("%s: its server is for %s/%s", path, goos, goarch)
		}
		if m := string(files["extension.vsixmanifest"]); !strings.Contains(m, `TargetPlatform="`+tg.vscode+`"`) {
			t.Errorf("%s: the manifest does not target %s:\n%.600s", path, tg.vscode, m)
		}
		for name, other := range files {
			if strings.HasPrefix(name, "extension/bin/") && name != exe {
				t.Errorf("%s also bundles %s (%d bytes)", path, name, len(other))
			}
		}
	}
}

// TestChecksums: checksums.txt lists every archive and .vsix, and each
// file's SHA-256 is the one listed.
func TestChecksums(t *testing.T) {
	s := distDir(t)
	f, err := os.Open(filepath.Join(s.dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt line %q", sc.Text())
		}
		listed[name] = sum
	}
	for _, tg := range targets {
		for _, path := range []string{s.archive(tg), s.vsix(tg)} {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
				continue
			}
			sum := sha256.Sum256(b)
			if got := listed[filepath.Base(path)]; got != hex.EncodeToString(sum[:]) {
				t.Errorf("%s: checksums.txt says %q, the file's SHA-256 is %x", filepath.Base(path), got, sum)
			}
		}
	}
}

// TestVersionStamp: the Linux binary of this machine's architecture says
// the snapshot's version and the commit it was built from.
func TestVersionStamp(t *testing.T) {
	s := distDir(t)
	if runtime.GOOS != "linux" {
		t.Skipf("the Linux binary does not run on %s", runtime.GOOS)
	}
	tg := target{"linux", runtime.GOARCH, ""}
	bin := filepath.Join(t.TempDir(), "crd-lsp")
	if err := os.WriteFile(bin, readArchive(t, s.archive(tg))[fmt.Sprintf("crd-lsp_%s_linux_%s/crd-lsp", s.version, runtime.GOARCH)], 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("crd-lsp version: %v", err)
	}
	if len(s.commit) != 40 {
		t.Fatalf("the snapshot records commit %q, not a full commit", s.commit)
	}
	for _, want := range []string{"crd-lsp " + s.version + "\n", "commit: " + s.commit + "\n", "go: go", " linux/" + runtime.GOARCH} {
		if !strings.Contains(string(out), want) {
			t.Errorf("crd-lsp version lacks %q:\n%s", want, out)
		}
	}
	if head, err := exec.Command("git", "-C", "../..", "rev-parse", "HEAD").Output(); err == nil && strings.TrimSpace(string(head)) != s.commit {
		t.Logf("note: the snapshot was built from %s, the work tree is at %s", s.commit, head)
	}
}
