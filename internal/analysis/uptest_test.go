package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// TestUptestPlaceholders: with the setting, ${Rand.RFC1123Subdomain} is
// checked as the random subdomain uptest puts there (so a valid name
// around it passes, and an invalid one still fails), and a value with a
// ${data.…} variable is not judged; without it, the text is checked as
// written.
func TestUptestPlaceholders(t *testing.T) {
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	text := `apiVersion: v1
kind: ConfigMap
metadata:
  name: example-${Rand.RFC1123Subdomain}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: Example-${Rand.RFC1123Subdomain}
---
apiVersion: v1
kind: Service
metadata:
  name: s
spec:
  ports:
  - port: ${data.port}
`
	f := document.Parse("file:///w/x.yaml", 1, []byte(text))
	lines := func(on bool) []string {
		var out []string
		for _, d := range Diagnose(context.Background(), f, Env{Workspace: Workspace{Schemas: st}, Options: Options{UptestPlaceholders: on}}) {
			line, _ := f.Mapper.LineCol(d.Span.Start)
			out = append(out, itoa(line)+" "+d.Code)
		}
		return out
	}
	if got := strings.Join(lines(false), ", "); got != "4 metadata, 9 metadata, 17 type" {
		t.Errorf("as written: %s", got)
	}
	if got := strings.Join(lines(true), ", "); got != "9 metadata" {
		t.Errorf("as uptest applies it: %s", got)
	}
}
