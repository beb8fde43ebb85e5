// This file checks the recorded tables themselves: each is well formed and
// recorded, and the functions the Go module proxy serves still answer
// every case of their tables as recorded, run for real.

package conformance

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/fntest"
)

func allTables(t *testing.T) []*Table {
	t.Helper()
	paths, err := Tables(filepath.Join("..", "..", "functions"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*Table
	for _, p := range paths {
		tb, err := Load(p)
		if err != nil {
			t.Error(err)
			continue
		}
		out = append(out, tb)
	}
	return out
}

func TestTablesAreRecorded(t *testing.T) {
	tables := allTables(t)
	if len(tables) == 0 {
		t.Fatal("no conformance tables found below internal/functions")
	}
	for _, tb := range tables {
		for _, c := range tb.Cases {
			if !c.Recorded() {
				t.Errorf("%s: case %q has no recorded answer (run TestRecord against the real function)", tb.Path, c.Name)
			}
		}
	}
}

// live are the functions the tests can build from the Go module proxy, by
// name and version.
var live = map[string]func(testing.TB) string{
	"function-patch-and-transform@" + fntest.PatchAndTransformVersion: fntest.PatchAndTransform,
	"function-auto-ready@" + fntest.AutoReadyVersion:                  fntest.AutoReady,
}

// TestProxyFunctionsAnswerAsRecorded runs the tables of the functions the
// Go module proxy serves against the real functions again: the recorded
// answers are what those releases answer today.
func TestProxyFunctionsAnswerAsRecorded(t *testing.T) {
	n := 0
	for _, tb := range allTables(t) {
		build, ok := live[tb.Function+"@"+tb.Version]
		if !ok {
			continue
		}
		n++
		t.Run(tb.Function+"@"+tb.Version, func(t *testing.T) {
			bin := build(t)
			reg := functions.New(functions.Config{Executables: map[string]functions.Executable{tb.Function: {Path: bin}}})
			defer reg.Close()
			run, _ := reg.Route(functions.Step{Function: tb.Function})
			for _, c := range tb.Cases {
				a := Call(context.Background(), run, tb.Function, c)
				rsp, _ := Stable(a.Response).(map[string]any)
				got := Case{Response: rsp, Error: Stable(callError(a)).(string), Calls: a.Calls}
				rsp, _ = Stable(c.Response).(map[string]any)
				want := Case{Response: rsp, Error: Stable(c.Error).(string), Calls: c.Calls}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s: case %q: the real function answers otherwise than recorded (-recorded +now):\n%s", tb.Path, c.Name, d)
				}
			}
		})
	}
	if n == 0 {
		t.Skip("no table of a function the Go module proxy serves")
	}
}
