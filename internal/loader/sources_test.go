package loader

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/remote"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// parseDir parses the non-test Go files of a folder.
func parseDir(t *testing.T, dir string) map[string]*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*ast.File{}
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = f
	}
	if len(out) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	return out
}

// recvName is the receiver type's name of a method ("" for a function).
func recvName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// TestOneSourceTable holds the schema sources to one shape and one table:
// every Source is listed in sourcesOf; a World's stores and its sources'
// inputs change only in the functions that build them from the table
// (serveCached at load, WithFetched for a fetch) and from the workspace's
// files; the World has no other field of schema inputs and no other
// With* method; front ends only configure sources (internal/remote's
// configuration types), never read one themselves; and the editor starts
// fetches from its one refresher only. A source wired as the four were
// before (a World field, a With* method, a Fetch* function, a front end
// calling internal/remote, a goroutine of its own in the editor) fails
// here.
func TestOneSourceTable(t *testing.T) {
	files := parseDir(t, ".")

	// Types with the Source methods, and the types sourcesOf builds.
	methods := map[string]map[string]bool{}
	listed := map[string]bool{}
	var worldFields []string
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if r := recvName(d); r != "" {
					if methods[r] == nil {
						methods[r] = map[string]bool{}
					}
					methods[r][d.Name.Name] = true
				}
				if d.Name.Name == "sourcesOf" && d.Recv == nil {
					ast.Inspect(d.Body, func(n ast.Node) bool {
						if cl, ok := n.(*ast.CompositeLit); ok {
							if id, ok := cl.Type.(*ast.Ident); ok {
								listed[id.Name] = true
							}
						}
						return true
					})
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					ts, ok := sp.(*ast.TypeSpec)
					if !ok || ts.Name.Name != "World" {
						continue
					}
					for _, fl := range ts.Type.(*ast.StructType).Fields.List {
						if at, ok := fl.Type.(*ast.ArrayType); ok {
							if sel, ok := at.Elt.(*ast.SelectorExpr); ok && sel.Sel.Name == "FileInput" {
								for _, n := range fl.Names {
									worldFields = append(worldFields, n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	var sources []string
	for typ, ms := range methods {
		if ms["Cached"] && ms["Fetch"] && ms["Rank"] && ms["Refresh"] && ms["config"] {
			sources = append(sources, typ)
			if !listed[typ] {
				t.Errorf("%s is a Source but sourcesOf does not list it: every schema source is one row of the table", typ)
			}
		}
	}
	sort.Strings(sources)
	if want := []string{"catalogSource", "clusterSource", "crdSource", "packageSource"}; strings.Join(sources, ",") != strings.Join(want, ",") {
		t.Errorf("Source implementations %v, want %v (a new source: add it here and to ARCHITECTURE.md)", sources, want)
	}
	if len(worldFields) > 0 {
		t.Errorf("World fields %v hold schema inputs: a source's inputs are its Served, in World.served", worldFields)
	}

	// Only these functions assign a World's stores or sources' outcomes.
	builders := map[string]bool{
		"serveCached": true, "WithFetched": true, // the sources
		"buildStores": true, "addMissingStores": true, "withFiles": true, // the workspace's files
		"rebuildForCluster": true, // the built-ins' Kubernetes minor
	}
	allowedWith := map[string]bool{"WithFile": true, "WithDiskFiles": true, "WithFetched": true}
	for path, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := fd.Name.Name
			if recvName(fd) == "World" && strings.HasPrefix(name, "With") && !allowedWith[name] {
				t.Errorf("%s: World.%s: a World changes with a source's fetch only through WithFetched", path, name)
			}
			if fd.Recv == nil && strings.HasPrefix(name, "Fetch") && name != "FetchForCheck" {
				t.Errorf("%s: %s: fetching a source is its Source.Fetch", path, name)
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				as, ok := n.(*ast.AssignStmt)
				if !ok {
					return true
				}
				for _, l := range as.Lhs {
					if ix, ok := l.(*ast.IndexExpr); ok {
						l = ix.X
					}
					if sel, ok := l.(*ast.SelectorExpr); ok && (sel.Sel.Name == "stores" || sel.Sel.Name == "served") && !builders[name] {
						t.Errorf("%s: %s assigns .%s: a World's stores are built from its files and its sources by serveCached and WithFetched only", path, name, sel.Sel.Name)
					}
				}
				return true
			})
		}
	}

	// Front ends configure sources and never read one.
	configOnly := map[string]bool{"Catalog": true, "CatalogOptions": true, "NewCatalog": true, "DefaultCatalogRefresh": true, "ClusterSource": true, "DefaultClusterTimeout": true}
	for _, dir := range []string{"../../cmd/crd-lsp", "../lsp", "../mcp", "../overlays"} {
		for path, f := range parseDir(t, dir) {
			remoteName := ""
			for _, im := range f.Imports {
				if strings.Trim(im.Path.Value, `"`) == "github.com/crd-lsp/crd-lsp/internal/remote" {
					remoteName = "remote"
					if im.Name != nil {
						remoteName = im.Name.Name
					}
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && remoteName != "" && id.Name == remoteName && !configOnly[sel.Sel.Name] {
					t.Errorf("%s: remote.%s: a front end configures a source (loader.Config) and the loader reads it (loader.Source)", path, sel.Sel.Name)
				}
				if (sel.Sel.Name == "refreshPackages" || sel.Sel.Name == "runSource" || sel.Sel.Name == "fetchSource") && filepath.Base(path) != "sources.go" {
					t.Errorf("%s: .%s: the editor starts a source's fetch only from its one refresher (internal/lsp/sources.go, sourcesDueLocked)", path, sel.Sel.Name)
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "loader" {
					return true // (loader.ReadCluster reads render's --extra-resources: no schema source)
				}
				switch sel.Sel.Name {
				case "ReadCluster", "CachedCluster", "FetchCRDs", "CachedCRDs", "Cached":
					t.Errorf("%s: .%s: reading a source is its loader.Source's Cached or Fetch", path, sel.Sel.Name)
				case "Resolve":
					// crd-lsp pull fills the package cache from crossplane.yaml
					// files it finds itself (FindMetas), outside any World.
					if filepath.Base(path) != "pull.go" {
						t.Errorf("%s: .Resolve: packages are fetched through their loader.Source", path)
					}
				}
				return true
			})
		}
	}
}

// TestCatalogSourceFetchedThenCached: a kind nothing defines is not served
// at load while the catalog's cache lacks it; the source's fetch brings
// it (WithFetched, and check's FetchForCheck alike), ranked as a catalog
// schema; a fetch made for another configuration of the source (settings
// replaced since) changes nothing; and the next load serves it from the
// cache with the catalog's server gone.
func TestCatalogSourceFetchedThenCached(t *testing.T) {
	schema, err := os.ReadFile("../remote/testdata/catalog/cert-manager.io/certificate_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/cert-manager.io/certificate_v1.json" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(schema)
	}))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cert.yaml"), []byte("apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: c}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	catalog := func() *remote.Catalog {
		c, err := remote.NewCatalog(remote.CatalogOptions{Locations: []string{srv.URL + "/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"}, CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	load := func(c *remote.Catalog) *World {
		w, _, _, err := Load(context.Background(), Config{Roots: []string{dir}, Catalog: c})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	cert := schemas.GVK{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"}
	servedBy := func(w *World) schemas.SourceKind {
		cands := w.DefaultStore().Candidates(cert)
		if len(cands) == 0 {
			return -100
		}
		return cands[0].Source.Kind
	}

	w := load(catalog())
	if k := servedBy(w); k != -100 {
		t.Fatalf("served at load with an empty cache (source %v)", k)
	}
	f := w.Source(SourceCatalog).Fetch(context.Background(), w)
	if !f.Changes() || len(f.Problems) > 0 {
		t.Fatalf("fetch: %+v", f)
	}
	if k := servedBy(w.WithFetched(f)); k != schemas.SourceCatalog {
		t.Errorf("after the fetch: source %v, want the catalog", k)
	}
	var problems []string
	if k := servedBy(FetchForCheck(context.Background(), w, func(p string) { problems = append(problems, p) })); k != schemas.SourceCatalog || len(problems) > 0 {
		t.Errorf("check's fetch: source %v, problems %v", k, problems)
	}
	other := load(catalog()) // the same locations, another configuration (a reload)
	if got := other.WithFetched(f); got != other {
		t.Error("a fetch made for another configuration of the source changed the World")
	}

	srv.Close()
	if k := servedBy(load(catalog())); k != schemas.SourceCatalog {
		t.Errorf("the next load: source %v, want the catalog's cached answer", k)
	}
}
