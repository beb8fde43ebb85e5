package analysis

import (
	"path/filepath"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
)

// TestRDSExcerptAgreesWithUpstream runs the feature tables again with
// provider-upjet-aws v2.6.0's whole RDS Instance CRD from the shared
// corpus (8,519 lines, three full versions) in place of feature_test.go's
// excerpt: every answer must be the same (so the excerpt is what upstream
// says where the cases look), and definitions land on v1beta1's lines of
// the upstream file. It is the one feature test that reads the corpus.
func TestRDSExcerptAgreesWithUpstream(t *testing.T) {
	rds := corpus.File(t, filepath.Join("crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds", "rds.aws.upbound.io_instances.yaml"))
	env, read := newFixture(rds).use(t)
	for _, table := range featureTables(rdsLocations{kind: "rds.yaml:15:11", allocatedStorage: "rds.yaml:79:19", address: "rds.yaml:2273:19"}) {
		t.Run(table.name, func(t *testing.T) { table.run(t, env, read) })
	}
}
