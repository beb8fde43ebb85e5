package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryDeclarativeRules runs `crd-lsp check` on built-in kinds that
// break Kubernetes' declarative validation rules (internal/k8srules),
// which no OpenAPI document states, at a Kubernetes minor whose
// kube-apiserver code crd-lsp does not link (1.36: there the rules stand
// for it): each finding sits on the field, names its path and says it is
// Kubernetes' own validation; the same objects made valid pass.
func TestBinaryDeclarativeRules(t *testing.T) {
	dir := filepath.Join("..", "..", "internal", "k8srules", "testdata")
	code, out, errOut := runBin(t, nil, "", "check", "--kubernetes-version", "1.36", "--output", "json", filepath.Join(dir, "invalid.yaml"))
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
	for _, version := range []string{"1.36", "1.37"} {
		if code, out, errOut := runBin(t, nil, "", "check", "--kubernetes-version", version, filepath.Join(dir, "valid.yaml")); code != 0 {
			t.Errorf("valid.yaml at %s: exit %d, stderr %q\n%s", version, code, errOut, out)
		}
	}
}

// TestBinaryKubeValidation runs `crd-lsp check` at the Kubernetes minor
// whose kube-apiserver code crd-lsp links (the default, 1.37): issue 32's
// Deployment and Service get their five findings, each on its line and
// field, worded as kube-apiserver words them; the declarative rules'
// objects get kube-apiserver's own findings.
func TestBinaryKubeValidation(t *testing.T) {
	type finding struct {
		line, column int
		field, code  string
		says         string
	}
	check := func(path string, want []finding) {
		t.Helper()
		code, out, errOut := runBin(t, nil, "", "check", "--output", "json", path)
		if code != 1 {
			t.Fatalf("%s: exit %d, stderr %q\n%s", path, code, errOut, out)
		}
		var got struct {
			Files []checkedFile `json:"files"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Files) != 1 {
			t.Fatalf("%v\n%s", err, out)
		}
		diags := got.Files[0].Diagnostics
		if len(diags) != len(want) {
			t.Fatalf("%s: want %d findings, got %d:\n%s", path, len(want), len(diags), out)
		}
		for i, w := range want {
			d := diags[i]
			if d.Line != w.line || d.Column != w.column || d.Field != w.field || d.Code != w.code || d.Severity != "error" || !strings.Contains(d.Message, w.says) {
				t.Errorf("%s finding %d: got %d:%d %s [%s] %s %q; want %d:%d %s [%s] …%s…", path, i, d.Line, d.Column, d.Field, d.Code, d.Severity, d.Message, w.line, w.column, w.field, w.code, w.says)
			}
		}
	}
	check(filepath.Join("..", "..", "testdata", "golden", "kubernetes", "issue32.yaml"), []finding{
		{9, 16, "spec.template.metadata.labels", "k8s-validation", "Invalid value: {app: website}: `selector` does not match template `labels`"},
		{15, 47, "spec.template.spec.containers[0].ports[0].protocol", "k8s-validation", `Unsupported value: "udp": supported values: "SCTP", "TCP", "UDP"`},
		{17, 37, "spec.template.spec.containers[0].resources.requests.cpu", "k8s-validation", `Invalid value: "2": must be less than or equal to cpu limit of 1`},
		{19, 16, "spec.template.spec.containers[1].name", "k8s-validation", `Duplicate value: "web"`},
		{26, 18, "spec.ports[0].port", "k8s-validation", "Invalid value: 70000: must be between 1 and 65535, inclusive"},
	})
	check(filepath.Join("..", "..", "internal", "k8srules", "testdata", "invalid.yaml"), []finding{
		{11, 12, "rules[0].verbs", "required", "Required value: [] counts as unset"},
		{17, 10, "handler", "k8s-validation", `Invalid value: "Not_A_Label": a lowercase RFC 1123 label must consist of`},
		{23, 10, "handler", "required", `Required value: "" counts as unset`},
		{36, 9, "spec.devices.requests[1]", "k8s-validation", "Duplicate value: {exactly: {allocationMode: ExactCount"},
		{45, 13, "spec.replicas", "k8s-validation", "Invalid value: -1: must be greater than or equal to 0"},
	})
}
