package analysis

import (
	"reflect"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/functions"
)

// TestXRConditions: the rendered composite's conditions as crossplane
// render sets them (v2.2.1 cmd/crank/render/render.go): Ready from the
// desired composite's and resources' readiness, then the functions'
// conditions but for system types.
func TestXRConditions(t *testing.T) {
	at := conditionTime
	for _, tc := range []struct {
		name string
		out  functions.Output
		want []any
	}{
		{"all ready", functions.Output{Stopped: -1, Desired: functions.State{Resources: map[string]functions.Resource{"a": {Ready: functions.ReadyTrue}}}},
			[]any{map[string]any{"type": "Ready", "status": "True", "reason": "Available", "lastTransitionTime": at}}},
		{"unready resources, four", functions.Output{Stopped: -1, Desired: functions.State{Resources: map[string]functions.Resource{"d": {}, "c": {}, "b": {Ready: functions.ReadyFalse}, "a": {}}}},
			[]any{map[string]any{"type": "Ready", "status": "False", "reason": "Creating", "lastTransitionTime": at, "message": "Unready resources: a, b, c, and 1 more"}}},
		{"composite not ready, function conditions", functions.Output{Stopped: -1, Desired: functions.State{Composite: functions.Resource{Ready: functions.ReadyFalse}},
			Steps: []functions.StepResult{{Conditions: []functions.Condition{{Type: "Synced", Status: "False"}, {Type: "DatabaseReady", Status: "False", Reason: "Waiting", Message: "db"}}}}},
			[]any{map[string]any{"type": "Ready", "status": "False", "reason": "Creating", "lastTransitionTime": at},
				map[string]any{"type": "DatabaseReady", "status": "False", "reason": "Waiting", "message": "db", "lastTransitionTime": at}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd := Rendering{Pipeline: &tc.out}
			rd.XR = map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "Unknown"}}}}
			xrConditions(&rd)
			got := rd.XR["status"].(map[string]any)["conditions"]
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("conditions\n got %v\nwant %v", got, tc.want)
			}
		})
	}
	rd := Rendering{Pipeline: &functions.Output{Stopped: 0}}
	rd.XR = map[string]any{}
	if xrConditions(&rd); rd.XR["status"] != nil {
		t.Errorf("a failed pipeline sets no conditions: %v", rd.XR)
	}
}
