package analysis

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	corpusdir "github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// Upjet managed resources as bench/workload generates them for check's
// 1,000-document workload (issue 35): namespaced v2 kinds with CEL rules,
// one with CIDR blocks.
var benchManagedResources = []struct{ name, crd, text string }{
	{"ClusterInstance", "rds.aws.m.upbound.io_clusterinstances.yaml", `apiVersion: rds.aws.m.upbound.io/v1beta1
kind: ClusterInstance
metadata:
  labels:
    bench.crd-lsp.dev/index: "38"
  name: clusterinstance-00038
  namespace: bench
spec:
  forProvider:
    engine: bench-engine
    instanceClass: bench-instance-class
    region: us-east-1
    tags:
      bench: crd-lsp
      index: "38"
`},
	{"TransitGatewayConnectPeer", "ec2.aws.m.upbound.io_transitgatewayconnectpeers.yaml", `apiVersion: ec2.aws.m.upbound.io/v1beta1
kind: TransitGatewayConnectPeer
metadata:
  labels:
    bench.crd-lsp.dev/index: "10"
  name: transitgatewayconnectpeer-00010
  namespace: bench
spec:
  forProvider:
    insideCidrBlocks:
      - 10.0.0.0/16
    peerAddress: bench-peer-address
    region: us-east-1
    tags:
      bench: crd-lsp
      index: "10"
`},
}

// BenchmarkDiagnoseManagedResource is check's cost per document with a
// warm validator (issue 35 item 3): the position-aware parse, the
// conversion to the object kube-openapi reads, the API server's create
// validation (OpenAPI, defaulting, CEL) and the mapping of its findings
// back to the text. Allocations per document are its figure:
//
//	go test ./internal/analysis -run '^$' -bench DiagnoseManagedResource -benchmem
func BenchmarkDiagnoseManagedResource(b *testing.B) {
	st, err := workspace.Builtins(2)
	if err != nil {
		b.Fatal(err)
	}
	for _, mr := range benchManagedResources {
		b.Run(mr.name, func(b *testing.B) {
			p := filepath.Join(corpusdir.Dir(b), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds", mr.crd)
			crd, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			env := Env{Workspace: Workspace{Schemas: st.WithFiles([]schemas.FileInput{{Source: workspace.Source(p), Path: p, Content: crd}}), CrossplaneMajor: 2}}
			text := []byte(mr.text)
			if d := Diagnose(context.Background(), document.Parse("mr.yaml", 1, text), env); len(d) != 0 {
				b.Fatalf("the valid managed resource has findings: %v", d) // and the validator is built
			}
			// The same document with a mistake is found, so the loop below
			// runs the validation rather than skipping it.
			bad := []byte(mr.text + "  bogus: 1\n")
			if d := Diagnose(context.Background(), document.Parse("mr.yaml", 1, bad), env); len(d) != 1 || d[0].Code != "unknown-field" {
				b.Fatalf("want one unknown-field finding, got %v", d)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				f := document.Parse("mr.yaml", int32(i), text)
				if len(Diagnose(context.Background(), f, env)) != 0 {
					b.Fatal("findings on the valid managed resource")
				}
			}
		})
	}
}
