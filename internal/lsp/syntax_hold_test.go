package lsp_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/lsp"
	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// TestSyntaxErrorHeldWhileTyping: a key typed without its colon yet
// ("forProv") is a syntax error on the line being edited: it is left out
// of the publish that follows the edit and published when the pause ends
// (the test ends it: no sleeps). A syntax error away from the edit is
// published at once.
func TestSyntaxErrorHeldWhileTyping(t *testing.T) {
	var mu sync.Mutex
	var pauses []chan time.Time
	lsp.SetHoldTimer(func(d time.Duration) (<-chan time.Time, func() bool) {
		if d <= 0 {
			t.Errorf("hold of %v", d)
		}
		c := make(chan time.Time, 1)
		mu.Lock()
		pauses = append(pauses, c)
		mu.Unlock()
		return c, func() bool { return true }
	})
	t.Cleanup(func() { lsp.SetHoldTimer(nil) })
	endPause := func() {
		mu.Lock()
		defer mu.Unlock()
		if len(pauses) == 0 {
			t.Fatal("nothing was held")
		}
		pauses[len(pauses)-1] <- time.Now()
	}
	syntax := func(ds []protocol.Diagnostic) []protocol.Diagnostic {
		var out []protocol.Diagnostic
		for _, d := range ds {
			if lsptest.Code(d) == "yaml-syntax" {
				out = append(out, d)
			}
		}
		return out
	}

	e := lsptest.StartInProcess(t, lsptest.Config{Dir: t.TempDir()})
	e.Open("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n")
	e.AwaitDiagnostics("cm.yaml", 1, 20*time.Second)
	// Typing a new key under metadata, before its colon.
	e.Edit("cm.yaml", lsptest.Edit{StartLine: 4, StartChar: 0, EndLine: 4, EndChar: 0, Text: "  forProv\n"})
	if got := syntax(e.AwaitDiagnostics("cm.yaml", 2, 20*time.Second)); len(got) != 0 {
		t.Fatalf("the syntax error on the line being typed was published at once: %+v", got)
	}
	endPause()
	e.Await("the held syntax error after the pause", 20*time.Second, func() bool {
		ds := syntax(e.Diagnostics("cm.yaml"))
		return len(ds) == 1 && ds[0].Range.Start.Line == 4
	})
	if vs := e.PublishedVersions("cm.yaml"); vs[len(vs)-1] != 2 {
		t.Errorf("the held error was published for version %d, want 2", vs[len(vs)-1])
	}

	// An edit elsewhere (line 1): the error on line 4 is not being typed.
	e.Edit("cm.yaml", lsptest.Edit{StartLine: 1, StartChar: 0, EndLine: 1, EndChar: 0, Text: "# a config map\n"})
	if got := syntax(e.AwaitDiagnostics("cm.yaml", 3, 20*time.Second)); len(got) != 1 || got[0].Range.Start.Line != 5 ||
		!strings.Contains(lsptest.Message(got[0]), "could not find expected ':'") {
		t.Errorf("after an edit elsewhere, syntax errors = %+v, want the one on line 5 at once", got)
	}
}
