package lsp_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// BenchmarkKeystrokeToDiagnostics measures the delay an editor sees from
// a didChange to the publishDiagnostics for that version (including the
// server's 15 ms debounce), on a Deployment validated against the
// built-in schemas.
//
//	go test ./internal/lsp -run '^$' -bench KeystrokeToDiagnostics
func BenchmarkKeystrokeToDiagnostics(b *testing.B) {
	e := lsptest.StartInProcess(b, lsptest.Config{Dir: b.TempDir()})
	e.AwaitSchemas(30 * time.Second)
	base := strings.Repeat("", 0) + `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: %d
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
`
	e.Open("d.yaml", fmt.Sprintf(base, 1))
	e.AwaitDiagnostics("d.yaml", 1, 10*time.Second)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Change("d.yaml", fmt.Sprintf(base, i))
		e.AwaitDiagnostics("d.yaml", e.Version("d.yaml"), 10*time.Second)
	}
}
