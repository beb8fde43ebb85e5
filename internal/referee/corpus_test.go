package referee

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/document"
)

// doc is one YAML document of the corpus (or a mutation of one).
type doc struct {
	name string // file path and document number, or the mutation
	text []byte // the document alone, as a user's file would hold it
	obj  map[string]any
	mut  string // the mutation's kind, "" for a corpus document
}

// crdFolders hold the CRDs the server serves: provider CRDs with their
// examples, Crossplane's core CRDs, provider-kubernetes and provider-helm,
// function input CRDs.
var crdFolders = []string{
	"crds/crossplane/v2.3.4",
	"crds/providers/provider-kubernetes/v1.2.1",
	"crds/providers/provider-helm/v1.4.0",
	"crds/functions",
	"workspaces/provider-upjet-gcp-examples/schemas",
	"workspaces/provider-upjet-azure-examples/schemas",
	"workspaces/crossplane-e2e/schemas",
}

// objectFolders hold the custom resources: provider examples and
// Crossplane core objects (Compositions, XRDs, Functions, Providers,
// EnvironmentConfigs, Usages, MRDs, …). Documents whose kind no created
// CRD serves (built-in kinds, composites, package metadata) are counted
// and left out: this server serves only CRDs.
var objectFolders = []string{
	"workspaces/provider-upjet-gcp-examples/examples",
	"workspaces/provider-upjet-azure-examples/examples",
	"workspaces/crossplane-e2e",
	"compositions",
}

func yamlFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// docsOf splits a file into its documents, each decoded as kubectl
// decodes it. Documents that are not objects are left out.
func docsOf(t *testing.T, corpusDir, path string) []doc {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(corpusDir, path)
	var out []doc
	for _, d := range document.Parse(path, 0, text).Docs {
		v, err := d.Object()
		m, _ := v.(map[string]any)
		if err != nil || m == nil {
			continue
		}
		out = append(out, doc{name: rel + docSuffix(d.Index), text: text[d.Span.Start:d.Span.End], obj: m})
	}
	return out
}

func docSuffix(i int) string {
	if i == 0 {
		return ""
	}
	return "#" + itoa(i)
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// kubectlJSON converts a document as kubectl does before sending it.
func kubectlJSON(text []byte) ([]byte, error) {
	return yaml.YAMLToJSON(text)
}

// marshal writes an object back as YAML (a mutated document's text).
func marshal(t *testing.T, obj map[string]any) []byte {
	t.Helper()
	b, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
