// Command binsize says what one package of crd-lsp costs in the built
// binary, import by import (issue 35: the memory targets are dominated by
// the binary's resident file pages, and internal/kubevalidation links
// k8s.io/kubernetes). It reads the import graph (go list -deps -json) and
// the linked symbols (go tool nm -size of a binary with its symbol table)
// and prints, for the package's direct imports, what would leave the
// binary if only that package stopped importing them: packages, and
// machine code bytes (the symbols nm names; type descriptors and strings
// are unnamed rodata, and pclntab grows with the code, ~0.8 byte per byte
// of it here). A bench tool, not shipped.
//
//	binsize [-bin BINARY] [-main ./cmd/crd-lsp] [-pkg IMPORTPATH] [-group NAME=REGEXP]... [-top N]
//
// Without -bin it builds the main package as the release does but keeps
// the symbol table (-trimpath, CGO_ENABLED=0) into a temporary folder.
// Run it from the module root.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

type groupFlag []string

func (g *groupFlag) String() string     { return strings.Join(*g, ",") }
func (g *groupFlag) Set(s string) error { *g = append(*g, s); return nil }

func main() {
	bin := flag.String("bin", "", "the binary, with its symbol table (default: build -main)")
	mainPkg := flag.String("main", "./cmd/crd-lsp", "the main package")
	pkg := flag.String("pkg", "github.com/crd-lsp/crd-lsp/internal/kubevalidation", "the package whose cost is measured")
	top := flag.Int("top", 25, "how many of the heaviest packages linked only through -pkg to list, with an import chain")
	var groups groupFlag
	flag.Var(&groups, "group", "NAME=REGEXP: also cut every direct import of -pkg matching REGEXP at once (repeatable)")
	flag.Parse()
	if err := run(*bin, *mainPkg, *pkg, *top, groups, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "binsize:", err)
		os.Exit(1)
	}
}

func run(bin, mainPkg, pkg string, top int, groups []string, w io.Writer) error {
	out, err := exec.Command("go", "list", "-deps", "-json", mainPkg).Output()
	if err != nil {
		return fmt.Errorf("go list: %w", err)
	}
	g, root, err := readGraph(out)
	if err != nil {
		return err
	}
	if _, ok := g[pkg]; !ok {
		return fmt.Errorf("%s is not linked into %s", pkg, mainPkg)
	}
	if bin == "" {
		dir, err := os.MkdirTemp("", "binsize")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "bin")
		cmd := exec.Command("go", "build", "-trimpath", "-o", bin, mainPkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build: %w", err)
		}
	}
	nm, err := exec.Command("go", "tool", "nm", "-size", bin).Output()
	if err != nil {
		return fmt.Errorf("go tool nm: %w", err)
	}
	code, err := codeBytes(bytes.NewReader(nm))
	if err != nil {
		return err
	}
	if len(code) == 0 {
		return fmt.Errorf("%s has no symbol table (built with -ldflags=-s?)", bin)
	}
	sum := func(ps map[string]bool) (n int) {
		for p := range ps {
			n += code[p]
		}
		return n
	}
	all := g.reach(root, "", nil)
	only := minus(all, g.reach(root, pkg, g[pkg]))
	only[pkg] = true
	fmt.Fprintf(w, "# %s: %d packages, %.1f MB of named machine code\n", mainPkg, len(all), mb(sum(all)))
	fmt.Fprintf(w, "# linked only through %s: %d packages, %.1f MB\n", pkg, len(only), mb(sum(only)))
	fmt.Fprintf(w, "\n# cut one import of %s: what leaves the binary\n%10s %5s  %s\n", filepath.Base(pkg), "code B", "pkgs", "import")
	type row struct {
		name       string
		code, pkgs int
	}
	var rows []row
	zero := 0
	for _, imp := range g[pkg] {
		gone := minus(all, g.reach(root, pkg, []string{imp}))
		if len(gone) == 0 {
			zero++
			continue
		}
		rows = append(rows, row{imp, sum(gone), len(gone)})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].code != rows[j].code {
			return rows[i].code > rows[j].code
		}
		return rows[i].name < rows[j].name
	})
	for _, r := range rows {
		fmt.Fprintf(w, "%10d %5d  %s\n", r.code, r.pkgs, r.name)
	}
	fmt.Fprintf(w, "# %d more imports remove nothing alone (another path links them)\n", zero)
	if len(groups) > 0 {
		fmt.Fprintf(w, "\n# cut a group of imports at once\n%10s %5s  %s\n", "code B", "pkgs", "group")
	}
	for _, gr := range groups {
		name, expr, ok := strings.Cut(gr, "=")
		if !ok {
			return fmt.Errorf("-group %q: want NAME=REGEXP", gr)
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return fmt.Errorf("-group %s: %w", name, err)
		}
		var cut []string
		for _, imp := range g[pkg] {
			if re.MatchString(imp) {
				cut = append(cut, imp)
			}
		}
		gone := minus(all, g.reach(root, pkg, cut))
		fmt.Fprintf(w, "%10d %5d  %s (%d imports)\n", sum(gone), len(gone), name, len(cut))
	}
	heavy := make([]string, 0, len(only))
	for p := range only {
		heavy = append(heavy, p)
	}
	sort.Slice(heavy, func(i, j int) bool {
		if code[heavy[i]] != code[heavy[j]] {
			return code[heavy[i]] > code[heavy[j]]
		}
		return heavy[i] < heavy[j]
	})
	if len(heavy) > top {
		heavy = heavy[:top]
	}
	fmt.Fprintf(w, "\n# heaviest packages linked only through %s, and one shortest import chain\n", filepath.Base(pkg))
	for _, p := range heavy {
		fmt.Fprintf(w, "%10d  %s\n", code[p], strings.Join(g.chain(pkg, p), " <- "))
	}
	return nil
}

func mb(n int) float64 { return float64(n) / 1e6 }

// graph is each package's imports (resolved import paths).
type graph map[string][]string

// readGraph reads go list -deps -json's stream; the root is the one main
// package (go list prints it last).
func readGraph(out []byte) (graph, string, error) {
	g := graph{}
	root := ""
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Name       string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, "", fmt.Errorf("reading go list: %w", err)
		}
		g[p.ImportPath] = p.Imports
		if p.Name == "main" {
			root = p.ImportPath
		}
	}
	if root == "" {
		return nil, "", fmt.Errorf("go list named no main package")
	}
	return g, root, nil
}

// reach is every package reachable from root when from's imports listed
// in cut are removed (and only those edges: other importers keep them).
func (g graph) reach(root, from string, cut []string) map[string]bool {
	skip := map[string]bool{}
	for _, c := range cut {
		skip[c] = true
	}
	seen := map[string]bool{}
	stack := []string{root}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[p] {
			continue
		}
		seen[p] = true
		for _, imp := range g[p] {
			if p == from && skip[imp] {
				continue
			}
			stack = append(stack, imp)
		}
	}
	return seen
}

// chain is a shortest import chain from one package to another, the
// target first.
func (g graph) chain(from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 && prev[to] == "" && to != from {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range g[p] {
			if _, ok := prev[imp]; !ok {
				prev[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	if _, ok := prev[to]; !ok {
		return nil
	}
	var c []string
	for p := to; p != ""; p = prev[p] {
		c = append(c, p)
	}
	return c
}

func minus(a, b map[string]bool) map[string]bool {
	d := map[string]bool{}
	for p := range a {
		if !b[p] {
			d[p] = true
		}
	}
	return d
}

var nmLine = regexp.MustCompile(`^\s*([0-9a-f]+)\s+([0-9]+)\s+(\S)\s+(.*)$`)

// codeBytes sums go tool nm -size's text symbols (T, t) by package.
func codeBytes(r io.Reader) (map[string]int, error) {
	code := map[string]int{}
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		// address size type name; the name may hold spaces (generics).
		f := nmLine.FindStringSubmatch(s.Text())
		if f == nil {
			return nil, fmt.Errorf("nm line %q: not address, size, type, name", s.Text())
		}
		if f[3] != "T" && f[3] != "t" {
			continue
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("nm line %q: %w", s.Text(), err)
		}
		code[symbolPackage(f[4])] += n
	}
	return code, s.Err()
}

// symbolPackage is the import path of a Go symbol's package:
// "k8s.io/api/core/v1.(*Pod).Marshal" → "k8s.io/api/core/v1",
// "sync/atomic.(*Pointer[go.shape.struct {}]).Load" → "sync/atomic".
func symbolPackage(name string) string {
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	slash := strings.LastIndexByte(name, '/')
	if dot := strings.IndexByte(name[slash+1:], '.'); dot >= 0 {
		return name[:slash+1+dot]
	}
	return name
}
