package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// BenchmarkKeystrokeGoTemplating measures keystroke → diagnostics on a
// real function-go-templating Composition (upbound
// configuration-aws-network v0.23.0's gotpl: 16 composed resources from
// loops and sprig), with nothing configured: crd-lsp renders the template
// in-process twice per version (the smallest XR and the workspace's
// example) and validates every composed resource against the provider's
// CRDs. Each edit writes an invalid literal (a word for a boolean), so
// each version's diagnostics prove the rendering and validation ran.
//
//	go test ./internal/lsp -run '^$' -bench KeystrokeGoTemplating
func BenchmarkKeystrokeGoTemplating(b *testing.B) {
	c := corpus.Dir(b)
	src := filepath.Join(c, "compositions", "upbound-configuration-aws-network", "v0.23.0")
	crds := filepath.Join(c, "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds")
	dir := b.TempDir()
	copyFile := func(from, to string) {
		t, err := os.ReadFile(from)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), t, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	copyFile(filepath.Join(src, "apis", "definition.yaml"), "apis/definition.yaml")
	copyFile(filepath.Join(src, "examples", "gotpl", "network-xr.yaml"), "examples/network-xr.yaml")
	for _, k := range []string{"vpcs", "internetgateways", "subnets", "routetables", "routes", "routetableassociations", "mainroutetableassociations", "securitygroups", "securitygrouprules"} {
		copyFile(filepath.Join(crds, "ec2.aws.upbound.io_"+k+".yaml"), "crds/ec2.aws.upbound.io_"+k+".yaml")
	}
	text, err := os.ReadFile(filepath.Join(src, "apis", "gotpl", "composition.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	e := lsptest.StartInProcess(b, lsptest.Config{Dir: dir})
	e.AwaitSchemas(60 * time.Second)
	const literal = "enableDnsSupport: true"
	if !strings.Contains(string(text), literal) {
		b.Fatal("the template changed")
	}
	e.Open("apis/composition.yaml", string(text))
	if diags := e.AwaitDiagnostics("apis/composition.yaml", 1, 60*time.Second); len(diags) != 0 {
		b.Fatalf("the upstream template has findings: %v", diagLines(diags))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Change("apis/composition.yaml", strings.Replace(string(text), literal, fmt.Sprintf("enableDnsSupport: yes%d", i), 1))
		diags := e.AwaitDiagnostics("apis/composition.yaml", e.Version("apis/composition.yaml"), 60*time.Second)
		if len(diags) == 0 || !strings.Contains(lsptest.Message(diags[0]), "must be of type boolean") {
			b.Fatalf("version %d: %v", e.Version("apis/composition.yaml"), diagLines(diags))
		}
	}
}
