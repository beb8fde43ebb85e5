package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryDeclarativeRules runs `crd-lsp check` on built-in kinds that
// break Kubernetes' declarative validation rules (internal/k8srules),
// which no OpenAPI document states: each finding sits on the field, names
// its path and says it is Kubernetes' own validation; the same objects made
// valid pass.
func TestBinaryDeclarativeRules(t *testing.T) {
	dir := filepath.Join("..", "..", "internal", "k8srules", "testdata")
	code, out, errOut := runBin(t, nil, "", "check", "--output", "json", filepath.Join(dir, "invalid.yaml"))
	if code != 1 {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	var got struct {
		Files []checkedFile `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Files) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	want := []struct {
		line, column int
		field, code  string
		says         string
	}{
		{11, 12, "rules[0].verbs", "required", "Required value: [] counts as unset — Kubernetes' own validation for rbac.authorization.k8s.io/v1 Role"},
		{17, 10, "handler", "k8s-validation", "must be a DNS label (k8s-short-name)"},
		{23, 10, "handler", "required", "Required value: \"\" counts as unset — Kubernetes' own validation for node.k8s.io/v1 RuntimeClass"},
		{36, 9, "spec.devices.requests[1]", "k8s-validation", "the same key (name=gpu) as item 0"},
		{45, 13, "spec.replicas", "k8s-validation", "must be greater than or equal to 0 — Kubernetes' own validation for v1 ReplicationController (+k8s:minimum=0, core/v1/types.go:"},
	}
	diags := got.Files[0].Diagnostics
	if len(diags) != len(want) {
		t.Fatalf("want %d findings, got %d:\n%s", len(want), len(diags), out)
	}
	for i, w := range want {
		d := diags[i]
		if d.Line != w.line || d.Column != w.column || d.Field != w.field || d.Code != w.code || d.Severity != "error" || !strings.Contains(d.Message, w.says) {
			t.Errorf("finding %d: got %d:%d %s [%s] %s %q; want %d:%d %s [%s] …%s…", i, d.Line, d.Column, d.Field, d.Code, d.Severity, d.Message, w.line, w.column, w.field, w.code, w.says)
		}
	}
	if code, out, errOut := runBin(t, nil, "", "check", filepath.Join(dir, "valid.yaml")); code != 0 {
		t.Errorf("valid.yaml: exit %d, stderr %q\n%s", code, errOut, out)
	}
}
