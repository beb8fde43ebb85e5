package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// TestOperations: Operations' pipelines are checked like a Composition's,
// a CronOperation's schedule is parsed as Crossplane parses it
// (robfig/cron's ParseStandard), a WatchOperation's kind must be served,
// and a functionRef no Function defines is a warning naming those that
// are, when they are all known.
func TestOperations(t *testing.T) {
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	defined := func() ([]string, bool) { return []string{"function-python", "function-auto-ready"}, true }
	pipeline := func(fn string) string {
		return "      mode: Pipeline\n      pipeline:\n      - step: s\n        functionRef: {name: " + fn + "}\n        input: {apiVersion: python.fn.crossplane.io/v1beta1, kind: Script, script: x}\n"
	}
	cron := func(schedule, fn string) string {
		return "apiVersion: ops.crossplane.io/v1alpha1\nkind: CronOperation\nmetadata: {name: c}\nspec:\n  schedule: \"" + schedule + "\"\n  operationTemplate:\n    spec:\n" + pipeline(fn)
	}
	for _, tc := range []struct {
		name, doc string
		defined   func() ([]string, bool)
		want      string
	}{
		{"valid", cron("*/5 * * * *", "function-python"), defined, ""},
		{"descriptor", cron("@hourly", "function-python"), defined, ""},
		{"time zone", cron("TZ=Europe/Berlin 0 6 * * 1-5", "function-python"), defined, ""},
		{"hour out of range", cron("0 25 * * *", "function-python"), defined,
			`5:13 error cron-schedule spec.schedule: cannot parse cron schedule "0 25 * * *": end of range (25) above maximum (23): 25`},
		{"six fields", cron("0 0 0 * * *", "function-python"), defined,
			`5:13 error cron-schedule spec.schedule: cannot parse cron schedule "0 0 0 * * *": expected exactly 5 fields, found 6: [0 0 0 * * *]`},
		{"misspelt function", cron("@daily", "function-pyhton"), defined,
			`11:29 warning function-ref spec.operationTemplate.spec.pipeline[0].functionRef.name: no Function named "function-pyhton" is defined in the workspace or by the package's dependencies (defined: "function-python", "function-auto-ready"; did you mean "function-python"?)`},
		{"functions not all known", cron("@daily", "function-pyhton"), func() ([]string, bool) { return []string{"function-python"}, false }, ""},
		{"watched kind not served", "apiVersion: ops.crossplane.io/v1alpha1\nkind: WatchOperation\nmetadata: {name: w}\nspec:\n  watch: {apiVersion: example.org/v1, kind: XThing}\n  operationTemplate:\n    spec:\n" + pipeline("function-python"), defined,
			`5:45 warning unknown-kind spec.watch.kind: the watched kind: no schema for example.org/v1 XThing`},
		{"watched kind served", "apiVersion: ops.crossplane.io/v1alpha1\nkind: WatchOperation\nmetadata: {name: w}\nspec:\n  watch: {apiVersion: v1, kind: ConfigMap}\n  operationTemplate:\n    spec:\n" + pipeline("function-python"), defined, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := document.Parse("/w/op.yaml", 1, []byte(tc.doc))
			env := Env{Workspace: Workspace{Schemas: st, CrossplaneMajor: 2, DefinedFunctions: tc.defined}, Options: Options{UnknownKind: severity.Warning}}
			var got []string
			for _, d := range Diagnose(context.Background(), f, env) {
				if d.Severity > severity.Warning {
					continue
				}
				line, col := f.Mapper.LineCol(d.Span.Start)
				got = append(got, strings.Join([]string{itoa(line) + ":" + itoa(col), d.Severity.String(), d.Code, d.Path + ":", d.Message}, " "))
			}
			g := strings.Join(got, "\n")
			if tc.want == "" && g != "" || !strings.HasPrefix(g, tc.want) || tc.want != "" && len(got) != 1 {
				t.Errorf("got\n%s\nwant (a prefix of one finding)\n%s", g, tc.want)
			}
		})
	}
}
