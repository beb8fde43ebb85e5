//go:build linux

// This file decides whether a package's entrypoint can run on this machine,
// outside its container: a statically linked program for this architecture
// can; a script, or a dynamically linked program whose loader, libraries
// or symbol versions this machine lacks, cannot.

package functions

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// platformNote: functions run from their packages here.
func platformNote() string { return "" }

// machines maps GOARCH to the ELF machine its programs are built for.
var machines = map[string]elf.Machine{
	"amd64": elf.EM_X86_64, "386": elf.EM_386, "arm64": elf.EM_AARCH64, "arm": elf.EM_ARM,
	"riscv64": elf.EM_RISCV, "ppc64le": elf.EM_PPC64, "ppc64": elf.EM_PPC64, "s390x": elf.EM_S390,
	"loong64": elf.EM_LOONGARCH, "mips64le": elf.EM_MIPS, "mipsle": elf.EM_MIPS,
}

// hostRunnable says why the program exe (the entrypoint, named entry in
// the image) cannot run on this machine outside its container, or "".
func hostRunnable(exe, entry string) string {
	f, err := os.Open(exe)
	if err != nil {
		return fmt.Sprintf("its entrypoint %s cannot be read: %v", entry, err)
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if bytes.HasPrefix(head, []byte("#!")) {
		line, _, _ := bytes.Cut(head[2:], []byte("\n"))
		interp := strings.TrimSpace(string(line))
		kind := "a script for " + strings.Fields(interp + " ?")[0]
		if base := filepath.Base(strings.Fields(interp + " ?")[0]); base == "sh" || base == "bash" || base == "dash" || base == "ash" {
			kind = "a shell script"
		}
		return fmt.Sprintf("its entrypoint %s is %s, which runs only inside its container, with the image's interpreter and files", entry, kind)
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		return fmt.Sprintf("its entrypoint %s is not a Linux program (neither ELF nor a script)", entry)
	}
	defer ef.Close()
	if want, ok := machines[runtime.GOARCH]; ok && ef.Machine != want {
		return fmt.Sprintf("its entrypoint %s is built for %s, this machine is %s", entry, strings.TrimPrefix(ef.Machine.String(), "EM_"), runtime.GOARCH)
	}
	interp := ""
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			b, err := io.ReadAll(io.LimitReader(p.Open(), 4096))
			if err != nil {
				return fmt.Sprintf("its entrypoint %s has an unreadable program interpreter", entry)
			}
			interp = strings.TrimRight(string(b), "\x00")
		}
	}
	if interp == "" {
		return "" // statically linked
	}
	dynamic := fmt.Sprintf("its entrypoint %s is dynamically linked", entry)
	if fi, err := os.Stat(interp); err != nil || !fi.Mode().IsRegular() {
		return fmt.Sprintf("%s, and its loader %s is not on this machine (it runs only inside its container, with the image's libraries)", dynamic, interp)
	}
	libs, _ := ef.ImportedLibraries()
	dirs := librarySearch(ef, exe)
	found := map[string]string{}
	for _, lib := range libs {
		p := findLibrary(lib, dirs)
		if p == "" {
			return fmt.Sprintf("%s against %s, which this machine lacks (it runs only inside its container, with the image's libraries)", dynamic, lib)
		}
		found[lib] = p
	}
	// Symbol versions: a program linked against a newer glibc than this
	// machine's fails to start ("version `GLIBC_2.38' not found").
	needs, _ := ef.DynamicVersionNeeds()
	for _, need := range needs {
		p := found[need.Name]
		if p == "" {
			continue
		}
		have := definedVersions(p)
		if have == nil {
			continue
		}
		for _, dep := range need.Needs {
			if !have[dep.Dep] {
				return fmt.Sprintf("%s against %s, which needs %s; this machine's %s lacks it (it runs only inside its container, with the image's libraries)", dynamic, need.Name, dep.Dep, p)
			}
		}
	}
	return ""
}

// definedVersions are the symbol versions a shared library defines (nil
// when it cannot be read).
func definedVersions(p string) map[string]bool {
	f, err := elf.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	vs, err := f.DynamicVersions()
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, v := range vs {
		out[v.Name] = true
	}
	return out
}

// librarySearch is where the dynamic loader looks for exe's libraries
// (ld.so(8), in its order, without LD_LIBRARY_PATH: crd-lsp does not
// hand its environment to the function): the program's RPATH or RUNPATH
// ($ORIGIN is its folder, inside the image), the folders /etc/ld.so.conf
// names, and the default ones.
func librarySearch(ef *elf.File, exe string) []string {
	var dirs []string
	for _, tag := range []elf.DynTag{elf.DT_RPATH, elf.DT_RUNPATH} {
		vals, _ := ef.DynString(tag)
		for _, v := range vals {
			for _, d := range strings.Split(v, ":") {
				d = strings.ReplaceAll(strings.ReplaceAll(d, "${ORIGIN}", "$ORIGIN"), "$ORIGIN", filepath.Dir(exe))
				if d != "" {
					dirs = append(dirs, d)
				}
			}
		}
	}
	dirs = append(dirs, ldSoConf("/etc/ld.so.conf", 0)...)
	multiarch := map[string]string{"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu", "386": "i386-linux-gnu", "arm": "arm-linux-gnueabihf",
		"riscv64": "riscv64-linux-gnu", "ppc64le": "powerpc64le-linux-gnu", "s390x": "s390x-linux-gnu"}[runtime.GOARCH]
	for _, d := range []string{"/lib", "/usr/lib", "/lib64", "/usr/lib64"} {
		if multiarch != "" {
			dirs = append(dirs, filepath.Join(d, multiarch))
		}
		dirs = append(dirs, d)
	}
	return slices.Compact(dirs)
}

// ldSoConf reads the folders an ld.so.conf names, following its include
// lines (a few levels deep).
func ldSoConf(file string, depth int) []string {
	f, err := os.Open(file)
	if err != nil || depth > 4 {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "include "); ok {
			for _, pat := range strings.Fields(rest) {
				if !filepath.IsAbs(pat) {
					pat = filepath.Join(filepath.Dir(file), pat)
				}
				matches, _ := filepath.Glob(pat)
				for _, m := range matches {
					out = append(out, ldSoConf(m, depth+1)...)
				}
			}
			continue
		}
		if filepath.IsAbs(line) {
			out = append(out, line)
		}
	}
	return out
}

// findLibrary finds a library the way the loader does: a name with a
// slash is a path; else the first folder that holds it.
func findLibrary(lib string, dirs []string) string {
	if strings.Contains(lib, "/") {
		if _, err := os.Stat(lib); err == nil {
			return lib
		}
		return ""
	}
	for _, d := range dirs {
		p := filepath.Join(d, lib)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}
