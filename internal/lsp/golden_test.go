package lsp_test

import (
	"path/filepath"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// TestGoldenSchemas validates real objects through the real server against
// built-in schemas and the provider-upjet-aws CRDs of the shared corpus.
func TestGoldenSchemas(t *testing.T) {
	corpus := lsptest.CorpusDir(t)
	lsptest.RunGoldenConfig(t, lsptest.Config{
		Dir: filepath.Join("..", "..", "testdata", "golden", "schemas"),
		Folders: []string{
			filepath.Join(corpus, "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds"),
			filepath.Join(corpus, "crds", "providers", "provider-kubernetes", "v1.2.1", "crds"),
		},
	})
}

// TestGoldenKubernetes checks kube-apiserver's own validation of built-in
// kinds through the real server: issue 32's Deployment and Service, each
// mistake on its line, and a provider-kubernetes Object's manifest.
func TestGoldenKubernetes(t *testing.T) {
	corpus := lsptest.CorpusDir(t)
	lsptest.RunGoldenConfig(t, lsptest.Config{
		Dir:     filepath.Join("..", "..", "testdata", "golden", "kubernetes"),
		Folders: []string{filepath.Join(corpus, "crds", "providers", "provider-kubernetes", "v1.2.1", "crds")},
	})
}

// TestGoldenCrossplaneV2 checks Crossplane-version-specific diagnostics in
// a workspace that targets v2 by default.
func TestGoldenCrossplaneV2(t *testing.T) {
	lsptest.RunGolden(t, filepath.Join("..", "..", "testdata", "golden", "crossplane-v2"))
}

// TestGoldenHover checks hover text through the real server, on corpus
// CRDs and built-in kinds, in list items too.
func TestGoldenHover(t *testing.T) {
	corpus := lsptest.CorpusDir(t)
	lsptest.RunGoldenConfig(t, lsptest.Config{
		Dir:     filepath.Join("..", "..", "testdata", "golden", "hover"),
		Folders: []string{filepath.Join(corpus, "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds")},
	})
}

// TestGoldenCompletion checks completion on incomplete text: an empty
// indented line, a partial key, a key without a value, a new list item,
// in a file whose other documents have syntax errors.
func TestGoldenCompletion(t *testing.T) {
	corpus := lsptest.CorpusDir(t)
	lsptest.RunGoldenConfig(t, lsptest.Config{
		Dir:     filepath.Join("..", "..", "testdata", "golden", "completion"),
		Folders: []string{filepath.Join(corpus, "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds")},
	})
}

// TestGoldenCompositions reproduces the seed design's invalid Composition,
// classic (Crossplane v1 workspace) and Pipeline (v2), on the real
// provider-upjet-aws RDS Instance CRD.
func TestGoldenCompositions(t *testing.T) {
	corpus := lsptest.CorpusDir(t)
	for _, dir := range []string{"compositions-v1", "compositions"} {
		t.Run(dir, func(t *testing.T) {
			lsptest.RunGoldenConfig(t, lsptest.Config{
				Dir:     filepath.Join("..", "..", "testdata", "golden", dir),
				Folders: []string{filepath.Join(corpus, "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds")},
			})
		})
	}
}

// TestGoldenGoTemplating checks function-go-templating inline templates
// through the real server, without running the function: syntax errors,
// plain template documents' schema errors and reads of fields the XR's
// schema lacks at their place inside the block scalars.
func TestGoldenGoTemplating(t *testing.T) {
	lsptest.RunGolden(t, filepath.Join("..", "..", "testdata", "golden", "gotemplating"))
}
