// Package internal_test enforces ARCHITECTURE.md's import rules: a package
// may import only the internal packages listed for it there, and only
// internal/lsp (and its harness) may import the LSP libraries.
package internal_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/crd-lsp/crd-lsp/"

// allowed mirrors ARCHITECTURE.md's code map.
var allowed = map[string][]string{
	"cmd/crd-lsp":                                {"internal/lsp", "internal/analysis", "internal/composition", "internal/document", "internal/schemas", "internal/workspace", "internal/fieldpath", "internal/packages", "internal/remote", "internal/loader", "internal/functions", "internal/mcp", "internal/overlays", "internal/severity", "internal/fileuri"},
	"internal/fieldpath":                         nil,
	"internal/document":                          {"internal/fieldpath", "internal/jsonnum", "internal/fileuri"},
	"internal/fileuri":                           nil,
	"internal/xcrd":                              nil,
	"internal/schemas":                           {"internal/fieldpath", "internal/xcrd", "internal/severity", "internal/gvk", "internal/structural", "internal/yamlflow", "internal/suggest", "internal/flock", "internal/kubevalidation"},
	"internal/kubevalidation":                    nil,
	"internal/schemas/builtin":                   nil,
	"internal/schemas/builtin/gen":               {"internal/schemas/builtin/internal/generate"},
	"internal/schemas/builtin/internal/generate": {"internal/schemas"},
	"internal/workspace":                         {"internal/schemas", "internal/schemas/builtin"},
	"internal/analysis":                          {"internal/document", "internal/schemas", "internal/fieldpath", "internal/composition", "internal/render", "internal/composite", "internal/functions", "internal/severity", "internal/gvk", "internal/structural", "internal/k8srules", "internal/suggest", "internal/paved", "internal/functions/patchandtransform", "internal/functions/dummy", "internal/functions/environmentconfigs", "internal/functions/gotemplating", "internal/functions/known"},
	"internal/paved":                             {"internal/fieldpath", "internal/jsonnum"},
	"internal/render":                            {"internal/fieldpath", "internal/severity"},
	"internal/composite":                         {"internal/fieldpath", "internal/gvk", "internal/paved"},
	"internal/packages":                          {"internal/severity", "internal/document", "internal/flock"},
	"internal/remote":                            {"internal/packages", "internal/document"},
	"internal/flock":                             nil,
	"internal/rusage":                            nil,
	"internal/packages/xpkgtest":                 nil,
	"internal/composition":                       {"internal/fieldpath", "internal/severity", "internal/gvk", "internal/structural", "internal/functions/patchandtransform"},
	"internal/lsp":                               {"internal/analysis", "internal/composition", "internal/document", "internal/schemas", "internal/workspace", "internal/packages", "internal/remote", "internal/loader", "internal/functions", "internal/overlays", "internal/severity", "internal/fileuri"},
	"internal/loader":                            {"internal/analysis", "internal/composition", "internal/document", "internal/schemas", "internal/workspace", "internal/packages", "internal/remote", "internal/gvk", "internal/functions", "internal/severity", "internal/functions/environmentconfigs", "internal/functions/gotemplating"},
	"internal/mcp":                               {"internal/analysis", "internal/composition", "internal/document", "internal/fieldpath", "internal/functions", "internal/loader", "internal/packages", "internal/workspace", "internal/severity"},
	"internal/lsp/lsptest":                       {"internal/lsp", "internal/corpus", "internal/fileuri", "internal/testfixtures"},
	"internal/corpus":                            nil,
	"internal/testfixtures":                      {"internal/jsonnum"},
	"internal/release":                           nil, // tests only
	"internal/functions":                         {"internal/jsonnum"},
	"internal/functions/fntest":                  {"internal/flock"},
	"internal/functions/conformance":             {"internal/functions", "internal/jsonnum"},
	"internal/functions/patchandtransform":       {"internal/fieldpath", "internal/jsonnum", "internal/paved", "internal/render", "internal/severity", "internal/suggest", "internal/functions"},
	"internal/functions/dummy":                   {"internal/functions", "internal/paved"},
	"internal/functions/environmentconfigs":      {"internal/fieldpath", "internal/paved", "internal/yamlflow", "internal/functions"},
	"internal/functions/gotemplating":            {"internal/functions", "internal/jsonnum", "internal/yamlflow"},
	"internal/functions/autoready":               {"internal/functions"},
	"internal/functions/celfilter":               {"internal/functions"},
	"internal/functions/cue":                     {"internal/functions"},
	"internal/functions/extraresources":          {"internal/functions"},
	"internal/functions/kcl":                     {"internal/functions"},
	"internal/functions/known":                   {"internal/fieldpath", "internal/functions", "internal/functions/autoready", "internal/functions/celfilter", "internal/functions/cue", "internal/functions/dummy", "internal/functions/environmentconfigs", "internal/functions/extraresources", "internal/functions/gotemplating", "internal/functions/kcl", "internal/functions/patchandtransform", "internal/functions/python", "internal/functions/sequencer", "internal/functions/statustransformer", "internal/gvk", "internal/schemas", "internal/severity", "internal/suggest"},
	"internal/functions/python":                  {"internal/functions"},
	"internal/functions/sequencer":               {"internal/functions"},
	"internal/functions/statustransformer":       {"internal/functions"},
	"internal/yamlflow":                          nil,
	"internal/fuzztest":                          nil,
	"internal/referee":                           nil,
	"internal/referee/apiserver":                 nil, // imported only by tests: no non-test package lists it
	"internal/severity":                          nil,
	"internal/gvk":                               nil,
	"internal/suggest":                           nil,
	"internal/jsonnum":                           nil,
	"internal/structural":                        {"internal/fieldpath"},
	"internal/k8srules":                          {"internal/fieldpath", "internal/yamlflow"},
	"internal/kustomize":                         {"internal/document", "internal/fieldpath", "internal/severity", "internal/workspace"},
	"internal/overlays":                          {"internal/analysis", "internal/document", "internal/fieldpath", "internal/kustomize", "internal/loader", "internal/severity"},
	"internal/k8srules/gen":                      {"internal/k8srules/internal/extract"},
	"internal/k8srules/internal/extract":         {"internal/k8srules"},
	// bench tools, not shipped: they judge the built binary from outside.
	"bench/workload":   nil,
	"bench/jsonschema": nil,
	"bench/lspclient":  nil,
	"bench/binsize":    nil,
	"bench/crdbench":   {"bench/workload", "bench/jsonschema", "bench/lspclient", "internal/rusage", "internal/testfixtures"},
}

// onlyFile narrows a rule to one file of its package: the command imports
// the language server only to serve it; check, render and pull read the
// workspace through internal/loader.
var onlyFile = map[string]string{
	"internal/lsp": "cmd/crd-lsp/serve.go",
	"internal/mcp": "cmd/crd-lsp/mcp.go",
}

func TestImportRules(t *testing.T) {
	root := ".."
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if strings.HasPrefix(pkg, "editors") || strings.HasPrefix(pkg, ".") {
			return nil
		}
		if strings.Contains("/"+pkg+"/", "/testdata/") {
			return nil // not part of the module's build (a test function has its own go.mod)
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rules, known := allowed[pkg]
		if !known {
			t.Errorf("%s is not in ARCHITECTURE.md's code map (add it there and here)", pkg)
			return nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if only, ok := onlyFile[strings.TrimPrefix(p, module)]; ok && pkg == filepath.ToSlash(filepath.Dir(only)) && filepath.ToSlash(rel+"/"+filepath.Base(path)) != only {
				t.Errorf("%s imports %s: in %s only %s may", path, p, pkg, only)
			}
			if strings.HasPrefix(p, "go.lsp.dev/") && pkg != "internal/lsp" && pkg != "internal/lsp/lsptest" && !(p == "go.lsp.dev/uri" && pkg == "internal/fileuri") {
				t.Errorf("%s imports %s: only internal/lsp knows LSP", path, p)
			}
			if strings.HasPrefix(p, "k8s.io/client-go/") && pkg != "internal/remote" && !kubeInterfaces(pkg, p) {
				t.Errorf("%s imports %s: only internal/remote reads a live cluster", path, p)
			}
			if strings.HasPrefix(p, "github.com/modelcontextprotocol/") && pkg != "internal/mcp" {
				t.Errorf("%s imports %s: only internal/mcp knows MCP", path, p)
			}
			if strings.HasPrefix(p, "sigs.k8s.io/kustomize/") && pkg != "internal/kustomize" {
				t.Errorf("%s imports %s: only internal/kustomize builds kustomizations", path, p)
			}
			if !strings.HasPrefix(p, module) {
				continue
			}
			target := strings.TrimPrefix(p, module)
			ok := false
			for _, a := range rules {
				ok = ok || a == target
			}
			if !ok {
				t.Errorf("%s imports %s, which ARCHITECTURE.md does not allow for %s", path, target, pkg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// kubeInterfaces: internal/kubevalidation implements two interfaces
// kube-apiserver's registry code takes from client-go (a namespace getter,
// a storage decorator's indexers) with values that contact nothing; it
// may import those packages and no other of client-go.
func kubeInterfaces(pkg, imp string) bool {
	return pkg == "internal/kubevalidation" && (imp == "k8s.io/client-go/kubernetes/typed/core/v1" || imp == "k8s.io/client-go/tools/cache")
}
