package analysis

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
)

// TestFeaturesOnUpstreamRDS runs the feature tables again with
// provider-upjet-aws v2.6.0's whole RDS Instance CRD from the shared
// corpus (8,519 lines, three full versions) in place of feature_test.go's
// excerpt: every answer must be the same (so the excerpt is what upstream
// says where the cases look), and definitions land on v1beta1's lines of
// the upstream file.
func TestFeaturesOnUpstreamRDS(t *testing.T) {
	rds, err := os.ReadFile(filepath.Join(corpus.Dir(t), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds", "rds.aws.upbound.io_instances.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	env, read := newFixture(rds).use(t)
	for _, table := range []struct {
		name string
		run  func(*testing.T, Env, FileReader)
	}{
		{"hover", testHover},
		{"hover composition", testHoverComposition},
		{"complete", testComplete},
		{"complete composition", testCompleteComposition},
		{"definition", testDefinition},
		{"references", testReferences},
		{"field path target", testFieldPathTarget},
		{"field path target classic", testFieldPathTargetClassic},
	} {
		t.Run(table.name, func(t *testing.T) { table.run(t, env, read) })
	}
	t.Run("definition composition", func(t *testing.T) {
		testDefinitionComposition(t, env, read, rdsLocations{kind: "rds.yaml:15:11", allocatedStorage: "rds.yaml:79:19", address: "rds.yaml:2273:19"})
	})
}
