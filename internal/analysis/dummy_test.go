package analysis

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/functions/dummy"
)

// TestNativeDummy: function-dummy merges its input's response into the
// request's desired state as proto.Merge does (a named resource replaced
// whole, others passed through, top-level composite fields and context
// keys replaced), and an unknown field or enum value fails the step, as
// protojson's strict decoding does.
func TestNativeDummy(t *testing.T) {
	req := functions.NativeRequest{
		Desired: functions.State{
			Composite: functions.Resource{Object: map[string]any{"status": map[string]any{"a": 1}, "spec": map[string]any{"x": 1}}},
			Resources: map[string]functions.Resource{
				"keep":    {Object: map[string]any{"kind": "ConfigMap"}, Ready: functions.ReadyTrue},
				"replace": {Object: map[string]any{"kind": "Secret", "data": map[string]any{"old": "x"}}},
			},
		},
		Context: map[string]any{"k": "old", "other": "kept"},
	}
	in := map[string]any{"apiVersion": "dummy.fn.crossplane.io/v1beta1", "kind": "Response", "response": map[string]any{
		"desired": map[string]any{
			"composite": map[string]any{"resource": map[string]any{"status": map[string]any{"b": 2}}, "ready": "READY_FALSE"},
			"resources": map[string]any{"replace": map[string]any{"resource": map[string]any{"kind": "Secret"}, "ready": 1}},
		},
		"context": map[string]any{"k": "new"},
		"results": []any{map[string]any{"severity": "SEVERITY_WARNING", "message": "m"}},
	}}
	req.Input = in
	rsp, err := dummy.Native(context.Background(), functions.Step{Input: in}, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := rsp.Desired.Resources["keep"]; got.Ready != functions.ReadyTrue || got.Object["kind"] != "ConfigMap" {
		t.Errorf("keep = %+v", got)
	}
	if got := rsp.Desired.Resources["replace"]; got.Ready != functions.ReadyTrue || !reflect.DeepEqual(got.Object, map[string]any{"kind": "Secret"}) {
		t.Errorf("replace = %+v (want the entry replaced whole)", got)
	}
	if got := rsp.Desired.Composite; !reflect.DeepEqual(got.Object, map[string]any{"status": map[string]any{"b": 2}, "spec": map[string]any{"x": 1}}) || got.Ready != functions.ReadyFalse {
		t.Errorf("composite = %+v", got)
	}
	if !reflect.DeepEqual(rsp.Context, map[string]any{"k": "new", "other": "kept"}) {
		t.Errorf("context = %v", rsp.Context)
	}
	if len(rsp.Results) != 1 || rsp.Results[0].Severity != functions.SeverityWarning {
		t.Errorf("results = %+v", rsp.Results)
	}
	for _, bad := range []map[string]any{
		{"desired": map[string]any{"resources": map[string]any{"r": map[string]any{"resource": map[string]any{}, "readiness": "READY_TRUE"}}}},
		{"desired": map[string]any{"resources": map[string]any{"r": map[string]any{"ready": "TRUE"}}}},
		{"desird": map[string]any{}},
	} {
		in := map[string]any{"apiVersion": "dummy.fn.crossplane.io/v1beta1", "kind": "Response", "response": bad}
		rsp, _ := dummy.Native(context.Background(), functions.Step{Input: in}, functions.NativeRequest{Input: in})
		if len(rsp.Results) != 1 || rsp.Results[0].Severity != functions.SeverityFatal || !strings.HasPrefix(rsp.Results[0].Message, "cannot unmarshal RunFunctionResponse") {
			t.Errorf("%v: results %+v, want one fatal", bad, rsp.Results)
		}
	}
}
