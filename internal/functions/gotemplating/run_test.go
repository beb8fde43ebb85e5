package gotemplating

import (
	"context"
	"strings"
	"testing"
	"time"
)

func inline(tpl string) map[string]any {
	return map[string]any{"apiVersion": "gotemplating.fn.crossplane.io/v1beta1", "kind": "GoTemplate", "source": "Inline",
		"inline": map[string]any{"template": tpl}}
}

func xrData() map[string]any {
	return map[string]any{
		"observed": map[string]any{"composite": map[string]any{"resource": map[string]any{
			"apiVersion": "example.org/v1", "kind": "XR",
			"metadata": map[string]any{"name": "x"},
			"spec":     map[string]any{"region": "eu", "count": int64(3)},
		}}},
		"desired": map[string]any{"composite": map[string]any{"resource": map[string]any{
			"apiVersion": "example.org/v1", "kind": "XR", "status": map[string]any{"kept": "yes", "over": "old"},
		}}},
		"context": map[string]any{"a": map[string]any{"b": "c"}},
	}
}

// TestRunReadsOutput: what the template writes is read as the function
// reads it: composed resources by their annotation (removed), the ready
// annotation, the composite's status merged, meta kinds.
func TestRunReadsOutput(t *testing.T) {
	tpl := `{{ $xr := getCompositeResource . }}
---
apiVersion: s3.example.org/v1
kind: Bucket
metadata:
  annotations:
    {{ setResourceNameAnnotation "bucket" }}
    gotemplating.fn.crossplane.io/ready: "True"
spec:
  region: {{ $xr.spec.region }}
  count: {{ .observed.composite.resource.spec.count }}
{{- range $i := until 2 }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    gotemplating.fn.crossplane.io/composition-resource-name: cm-{{ $i }}
{{- end }}
---
apiVersion: example.org/v1
kind: XR
status:
  over: new
  added: {{ "x" | upper }}
---
apiVersion: meta.gotemplating.fn.crossplane.io/v1alpha1
kind: Context
data:
  a:
    d: e
---
apiVersion: meta.gotemplating.fn.crossplane.io/v1alpha1
kind: CompositeConnectionDetails
data:
  user: {{ "admin" | b64enc }}
---
apiVersion: meta.gotemplating.fn.crossplane.io/v1alpha1
kind: ExtraResources
requirements:
  net:
    apiVersion: v1
    kind: ConfigMap
    matchLabels:
      app: x
---
apiVersion: meta.gotemplating.fn.crossplane.io/v1alpha1
kind: ClaimConditions
conditions:
- type: Custom
  status: "True"
  reason: Fine
  target: CompositeAndClaim
`
	rsp := Run(context.Background(), Request{Input: inline(tpl), Data: xrData()})
	if rsp.Fatal != "" {
		t.Fatalf("fatal: %s\n%s", rsp.Fatal, rsp.Output)
	}
	if len(rsp.Resources) != 3 || rsp.Resources[0].Name != "bucket" || rsp.Resources[1].Name != "cm-0" || rsp.Resources[2].Name != "cm-1" {
		t.Fatalf("resources: %+v", rsp.Resources)
	}
	b := rsp.Resources[0]
	if b.Ready != "True" || lookup(b.Object, "spec", "region") != "eu" || lookup(b.Object, "spec", "count") != int64(3) {
		t.Errorf("bucket: %+v", b)
	}
	if ann := lookup(b.Object, "metadata", "annotations").(map[string]any); len(ann) != 0 {
		t.Errorf("annotations left: %v", ann)
	}
	if !rsp.StatusSet || rsp.Status["kept"] != "yes" || rsp.Status["over"] != "new" || rsp.Status["added"] != "X" {
		t.Errorf("status: %v", rsp.Status)
	}
	if lookup(rsp.Context, "a", "b") != "c" || lookup(rsp.Context, "a", "d") != "e" {
		t.Errorf("context: %v", rsp.Context)
	}
	if string(rsp.ConnectionDetails["user"]) != "admin" {
		t.Errorf("connection details: %v", rsp.ConnectionDetails)
	}
	if len(rsp.Requirements) != 1 || rsp.Requirements[0].MatchLabels["app"] != "x" {
		t.Errorf("requirements: %+v", rsp.Requirements)
	}
	if len(rsp.Conditions) != 1 || rsp.Conditions[0].Target != "CompositeAndClaim" || rsp.Conditions[0].Status != "True" {
		t.Errorf("conditions: %+v", rsp.Conditions)
	}
}

// TestRunFatals: the function's failures, worded as it words them.
func TestRunFatals(t *testing.T) {
	for _, c := range []struct{ tpl, want string }{
		{"apiVersion: v1\nkind: ConfigMap\n", `"ConfigMap" template is missing required "gotemplating.fn.crossplane.io/composition-resource-name" annotation`},
		{"apiVersion: meta.gotemplating.fn.crossplane.io/v1alpha1\nkind: Nope\n", `invalid kind "Nope" for apiVersion`},
		{"{{ fail \"boom\" }}", "cannot execute template: template: manifests:1:3: executing \"manifests\" at <fail \"boom\">: error calling fail: boom"},
		{"{{ if }}", "invalid function input: cannot parse the provided templates: template: manifests:1: missing value for if"},
		{"metadata: {}\n", "Object 'Kind' is missing"},
		{"apiVersion: meta.gotemplating.fn.crossplane.io/v1alpha1\nkind: ClaimConditions\nconditions:\n- type: Ready\n", "cannot set ClaimCondition type: Ready is a reserved Crossplane Condition"},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    gotemplating.fn.crossplane.io/ready: maybe\n", `invalid "gotemplating.fn.crossplane.io/ready" annotation value "maybe"`},
		{"{{ getHostByName \"example.com\" }}", "crd-lsp does not resolve host names"},
		{"{{ env \"HOME\" }}", `function "env" not defined`},
		{`{{ define "a" }}{{ include "a" . }}{{ end }}{{ include "a" . }}`, "rendering template has a nested reference name: a: unable to execute template"},
	} {
		rsp := Run(context.Background(), Request{Input: inline(c.tpl), Data: xrData()})
		if !strings.Contains(rsp.Fatal, c.want) || rsp.Limit {
			t.Errorf("%q: got %q, want %q", c.tpl, rsp.Fatal, c.want)
		}
	}
	rsp := Run(context.Background(), Request{Input: map[string]any{"apiVersion": "gotemplating.fn.crossplane.io/v1beta1", "kind": "GoTemplate", "source": "Inlin"}})
	if rsp.Fatal != "invalid function input: invalid source: Inlin" {
		t.Errorf("source: %q", rsp.Fatal)
	}
}

// TestRunLimits: templates that loop, recurse or grow without bound stop
// at a limit, quickly, with Limit set; never a crash or a hang.
func TestRunLimits(t *testing.T) {
	for _, tpl := range []string{
		`{{ range 1000000000 }}{{ range 1000000000 }}{{ end }}{{ end }}`,
		`{{ define "a" }}{{ template "a" . }}{{ end }}{{ template "a" . }}`,
		`{{ define "a" }}{{ include "b" . }}{{ end }}{{ define "b" }}{{ include "a" . }}{{ end }}{{ include "a" . }}`,
		`{{ range 100000000 }}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{{ end }}`,
		`{{ $s := "xx" }}{{ range until 60 }}{{ $s = print $s $s }}{{ end }}`,
		`{{ $l := list 1 }}{{ range until 60 }}{{ $l = list $l $l }}{{ end }}{{ toJson $l }}`,
		`{{ repeat 1000000000 "abc" }}`,
		`{{ until 1000000000 }}`,
		`{{ untilStep 0 10 0 }}`,
		`{{ seq 1 0 5 }}`,
		`{{ printf "%1000000d%1000000d" 1 2 }}`,
		`{{ indent 100000000 "x" }}`,
		`{{ replace "" "xxxxxxxxxxxxxxxxxxxxxxx" (repeat 100000 "y") }}`,
		`{{ randAlpha 1000000000 }}`,
		strings.Repeat("{{ if true }}", MaxNesting+1) + strings.Repeat("{{ end }}", MaxNesting+1),
		"{{ " + strings.Repeat("(", MaxNesting+1) + "1" + strings.Repeat(")", MaxNesting+1) + " }}",
		"{{ if false }}" + strings.Repeat("{{ else if false }}", MaxNesting+1) + "{{ end }}",
		strings.Repeat("x", MaxTemplateSize+1),
	} {
		start := time.Now()
		rsp := Run(context.Background(), Request{Input: inline(tpl), Data: xrData()})
		name := tpl
		if len(name) > 80 {
			name = name[:80]
		}
		if !rsp.Limit || !strings.Contains(rsp.Fatal, "crd-lsp") {
			t.Errorf("%s: not stopped by a limit: %q", name, rsp.Fatal)
		}
		if d := time.Since(start); testing.Verbose() {
			t.Logf("%s: %s: %s", name, d, rsp.Fatal)
		}
		if d := time.Since(start); d > 4*DefaultTimeout {
			t.Errorf("%s: took %s", name, d)
		}
	}
	// At the limits, templates still run.
	ok := strings.Repeat("{{ if true }}", MaxNesting) + "x" + strings.Repeat("{{ end }}", MaxNesting)
	if le := Bounds(ok, "{{", "}}"); le != nil {
		t.Errorf("nesting %d refused: %v", MaxNesting, le)
	}
}

// TestRunSharedDeadline: a run past the deadline its caller shares with
// the pipeline's other templates stops at its first loop iteration.
func TestRunSharedDeadline(t *testing.T) {
	rsp := Run(context.Background(), Request{Input: inline(`{{ range 3 }}x{{ end }}`), Data: xrData(), Deadline: time.Now().Add(-time.Second)})
	if !rsp.Limit || !strings.Contains(rsp.Fatal, "ran longer than crd-lsp's limit") {
		t.Errorf("got %q", rsp.Fatal)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rsp = Run(ctx, Request{Input: inline(`{{ range 3 }}x{{ end }}`), Data: xrData()})
	if !rsp.Limit || !strings.Contains(rsp.Fatal, "cancelled") {
		t.Errorf("cancelled: %q", rsp.Fatal)
	}
}

// FuzzRun: whatever the template, Run returns (a response or a Fatal
// result), never panics, and stays within its limits.
func FuzzRun(f *testing.F) {
	for _, s := range []string{
		`{{ range $i := until 3 }}---
apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    {{ setResourceNameAnnotation (print "cm-" $i) }}
data:
  x: {{ $i | quote }}
{{ end }}`,
		`{{ define "a" }}{{ include "a" . }}{{ end }}{{ include "a" . }}`,
		`{{ toYaml .observed | fromYaml | toJson }}`,
		`{{ if }}`, `{{ printf "%9999d" 1 }}`, `apiVersion: meta.gotemplating.fn.crossplane.io/v1alpha1
kind: Context
data: {a: {{ .context | toJson }}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tpl string) {
		rsp := Run(context.Background(), Request{Input: inline(tpl), Data: xrData()})
		if len(rsp.Output) > MaxOutput {
			t.Fatalf("output of %d bytes", len(rsp.Output))
		}
	})
}

// TestRunSplitLimits: splitting a long string at every character is
// refused before the parts are built; ordinary splits run.
func TestRunSplitLimits(t *testing.T) {
	long := `(repeat 200000 "ab")`
	for _, tpl := range []string{`{{ splitList "" ` + long + ` }}`, `{{ splitn "" 1000000 ` + long + ` }}`, `{{ regexSplit "" ` + long + ` -1 }}`} {
		if rsp := Run(context.Background(), Request{Input: inline(tpl), Data: xrData()}); !rsp.Limit {
			t.Errorf("%s: %q", tpl, rsp.Fatal)
		}
	}
	rsp := Run(context.Background(), Request{Input: inline(`{{ (splitn "," 2 "a,b,c")._1 }} {{ len (splitList "," "a,b") }}`), Data: xrData()})
	if rsp.Limit || rsp.Output != "b,c 2" {
		t.Errorf("got %q, %q", rsp.Output, rsp.Fatal)
	}
}

// TestRunYAMLError: output that is not YAML fails as the function words
// it: the line in the whole output and in its document, and its text.
func TestRunYAMLError(t *testing.T) {
	tpl := "apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n {{ \"c: d\" }}\n"
	rsp := Run(context.Background(), Request{Input: inline(tpl), Data: xrData()})
	want := "cannot decode manifest: error converting YAML to JSON: yaml: line 7 (document 2, line 4) near: 'a: b': did not find expected key"
	if !strings.HasPrefix(rsp.Fatal, want) {
		t.Errorf("got %q\nwant %q…", rsp.Fatal, want)
	}
}

// TestNonStringAnnotation: a rendered annotation holding an object is
// fatal, worded as the function words it (k8s.io/apimachinery's
// NestedStringMap: Go's %v and %T of the value; recorded at v0.12.2 as
// ready-annotation-unquoted-bool).
func TestNonStringAnnotation(t *testing.T) {
	tpl := `apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    gotemplating.fn.crossplane.io/composition-resource-name: cm
    team: {key: team, tags: [a, b]}
`
	rsp := Run(context.Background(), Request{Input: inline(tpl), Data: xrData()})
	want := `contains non-string value in the map under key "team": map[key:team tags:[a b]] is of the type map[string]interface {}, expected string`
	if !strings.Contains(rsp.Fatal, want) {
		t.Errorf("fatal = %q, want it to contain %q", rsp.Fatal, want)
	}
}
