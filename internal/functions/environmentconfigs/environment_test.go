package environmentconfigs

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/corpus"
)

func obj(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// ec is an EnvironmentConfig named name with labels (k=v,...) and data.
func ec(t *testing.T, name, labels, data string) map[string]any {
	t.Helper()
	m := obj(t, "apiVersion: apiextensions.crossplane.io/v1beta1\nkind: EnvironmentConfig\nmetadata: {name: "+name+"}\ndata: "+data)
	if labels != "" {
		ls := map[string]any{}
		for _, kv := range strings.Split(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			ls[k] = v
		}
		m["metadata"].(map[string]any)["labels"] = ls
	}
	return m
}

func input(t *testing.T, spec string) map[string]any {
	return obj(t, "apiVersion: environmentconfigs.fn.crossplane.io/v1beta1\nkind: Input\nspec:\n"+spec)
}

var xr = map[string]any{"apiVersion": "example.org/v1", "kind": "XR", "metadata": map[string]any{"labels": map[string]any{"stage": "prod", "n": int64(3)}},
	"spec": map[string]any{"region": "eu"}}

func TestResolveFunction(t *testing.T) {
	cfgs := []map[string]any{
		ec(t, "b-prod", "stage=prod", "{a: {x: b}, prio: 2, only: b}"),
		ec(t, "a-prod", "stage=prod", "{a: {x: a, y: a}, prio: 1}"),
		ec(t, "dev", "stage=dev", "{a: {x: dev}}"),
		ec(t, "mixed", "kind=mixed", "{prio: two}"),
		ec(t, "eu", "region=eu", "{region: europe}"),
	}
	mixed := ec(t, "mixed2", "kind=mixed", "{prio: 1}")
	nodata := obj(t, "apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: EnvironmentConfig\nmetadata: {name: nodata}")
	tests := []struct {
		name     string
		spec     string
		prior    string
		configs  []map[string]any
		opts     Options
		want     string // the environment, YAML
		selected []string
		fail     string // a part of the failure's message
		failAt   string // its path
		certain  bool
		unknown  string
	}{
		{name: "reference by default type", spec: "  environmentConfigs: [{ref: {name: dev}}]",
			want: "{apiVersion: internal.crossplane.io/v1alpha1, kind: Environment, a: {x: dev}}", selected: []string{"dev"}},
		{name: "reference not found, required", spec: "  environmentConfigs: [{type: Reference, ref: {name: nope}}]",
			fail: `Required environment config "nope" not found (none of the 5 EnvironmentConfigs known is named so)`, failAt: "spec.environmentConfigs[0].ref.name"},
		{name: "reference not found, complete set", spec: "  environmentConfigs: [{type: Reference, ref: {name: nope}}]", opts: Options{Complete: true},
			fail: `Required environment config "nope" not found`, certain: true},
		{name: "reference not found, optional", spec: "  policy: {resolution: Optional}\n  environmentConfigs: [{ref: {name: nope}}, {ref: {name: dev}}]",
			want: "{apiVersion: internal.crossplane.io/v1alpha1, kind: Environment, a: {x: dev}}", selected: []string{"dev"}, unknown: `no EnvironmentConfig known is named "nope"`},
		{name: "single selector, label from the composite", spec: "  environmentConfigs: [{type: Selector, selector: {matchLabels: [{key: region, valueFromFieldPath: spec.region}]}}]",
			want: "{apiVersion: internal.crossplane.io/v1alpha1, kind: Environment, region: europe}", selected: []string{"eu"}},
		{name: "single selector matching two", spec: "  environmentConfigs: [{type: Selector, selector: {matchLabels: [{key: stage, type: Value, value: prod}]}}]",
			fail: `expected exactly one required resource, got 2 ("a-prod", "b-prod" with the labels stage=prod among the 5 EnvironmentConfigs known)`, failAt: "spec.environmentConfigs[0].selector", certain: true},
		{name: "single selector matching none", spec: "  environmentConfigs: [{type: Selector, selector: {mode: Single, matchLabels: [{key: stage, type: Value, value: qa}]}}]",
			fail: "expected exactly one required resource, got 0 (none of the 5 EnvironmentConfigs known has the labels stage=qa)", failAt: "spec.environmentConfigs[0].selector"},
		{name: "multiple sorted by name, later wins", spec: "  environmentConfigs: [{type: Selector, selector: {mode: Multiple, matchLabels: [{key: stage, valueFromFieldPath: 'metadata.labels[stage]'}]}}]",
			want: "{apiVersion: internal.crossplane.io/v1alpha1, kind: Environment, a: {x: b, y: a}, prio: 2, only: b}", selected: []string{"a-prod", "b-prod"}},
		{name: "multiple sorted by a number, maxMatch", spec: "  environmentConfigs: [{type: Selector, selector: {mode: Multiple, maxMatch: 1, sortByFieldPath: data.prio, matchLabels: [{key: stage, type: Value, value: prod}]}}]",
			want: "{apiVersion: internal.crossplane.io/v1alpha1, kind: Environment, a: {x: a, y: a}, prio: 1}", selected: []string{"a-prod"}},
		{name: "minMatch not reached", spec: "  environmentConfigs: [{type: Selector, selector: {mode: Multiple, minMatch: 3, matchLabels: [{key: stage, type: Value, value: prod}]}}]",
			fail: "expected at least 3 required resources, got 2", failAt: "spec.environmentConfigs[0].selector.minMatch"},
		{name: "sorting mixed types", spec: "  environmentConfigs: [{type: Selector, selector: {mode: Multiple, sortByFieldPath: data.prio, matchLabels: [{key: kind, type: Value, value: mixed}]}}]",
			configs: append(cfgs[:len(cfgs):len(cfgs)], mixed), fail: "cannot sort values of different types", certain: true},
		{name: "multiple matching none is no failure", spec: "  environmentConfigs: [{type: Selector, selector: {mode: Multiple, matchLabels: [{key: stage, type: Value, value: qa}]}}]",
			want: "{apiVersion: internal.crossplane.io/v1alpha1, kind: Environment}", unknown: "none of the 5"},
		{name: "required label missing from the composite", spec: "  environmentConfigs: [{type: Selector, selector: {matchLabels: [{key: zone, valueFromFieldPath: spec.zone}]}}]",
			fail: `cannot get value from field path "spec.zone": spec.zone: no such field`, failAt: "spec.environmentConfigs[0].selector.matchLabels[0].valueFromFieldPath", certain: true},
		{name: "label not a string", spec: "  environmentConfigs: [{type: Selector, selector: {matchLabels: [{key: n, valueFromFieldPath: 'metadata.labels[n]'}]}}]",
			fail: "not a string", certain: true},
		{name: "required label missing from a synthesised composite", spec: "  environmentConfigs: [{type: Selector, selector: {matchLabels: [{key: zone, valueFromFieldPath: spec.zone}]}}]",
			opts: Options{Synthesized: true}, want: "{}", unknown: "synthesised"},
		{name: "optional label missing: nothing requested, nothing merged", spec: "  defaultData: {d: 1}\n  environmentConfigs: [{type: Selector, selector: {matchLabels: [{key: zone, valueFromFieldPath: spec.zone, fromFieldPathPolicy: Optional}]}}]",
			prior: "{p: 1}", want: "{p: 1}"},
		{name: "no environmentConfigs: defaultData ignored", spec: "  defaultData: {d: 1}", prior: "{p: 1}", want: "{p: 1}"},
		{name: "merge order: configs over prior over defaultData", spec: "  defaultData: {a: {x: default, z: default}, d: default, p: default}\n  environmentConfigs: [{ref: {name: dev}}]",
			prior: "{apiVersion: internal.crossplane.io/v1alpha1, kind: Environment, p: prior, a: {x: prior}}",
			want:  "{apiVersion: internal.crossplane.io/v1alpha1, kind: Environment, a: {x: dev, z: default}, d: default, p: prior}", selected: []string{"dev"}},
		{name: "toFieldPath", spec: "  environmentConfigs: [{ref: {name: eu}, toFieldPath: 'regions.eu'}, {ref: {name: dev}}]",
			want: "{apiVersion: internal.crossplane.io/v1alpha1, kind: Environment, regions: {eu: {region: europe}}, a: {x: dev}}", selected: []string{"eu", "dev"}},
		{name: "config without data", spec: "  environmentConfigs: [{ref: {name: nodata}}]", configs: []map[string]any{nodata},
			fail: `cannot get data from environment config "nodata"`, certain: true},
		{name: "no configs known", spec: "  environmentConfigs: [{ref: {name: dev}}]", configs: []map[string]any{}, prior: "{p: 1}", want: "{p: 1}", unknown: "the workspace holds none"},
		{name: "a label that is not a string matches nothing", spec: "  environmentConfigs: [{type: Selector, selector: {matchLabels: [{key: num, type: Value, value: '3'}]}}]",
			configs: []map[string]any{obj(t, "apiVersion: apiextensions.crossplane.io/v1beta1\nkind: EnvironmentConfig\nmetadata: {name: num, labels: {num: 3}}\ndata: {a: b}")}, opts: Options{Complete: true},
			fail: `none of the 1 EnvironmentConfig known has the labels num=3`, certain: true},
		{name: "no configs, complete set", spec: "  environmentConfigs: [{ref: {name: dev}}]", configs: []map[string]any{}, opts: Options{Complete: true}, fail: "not found", certain: true},
		{name: "unknown mode", spec: "  environmentConfigs: [{type: Selector, selector: {mode: Some, matchLabels: [{key: stage, type: Value, value: prod}]}}]",
			fail: `unknown selector mode "Some"`, failAt: "spec.environmentConfigs[0].selector.mode", certain: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.Configs = cfgs
			if tc.configs != nil {
				opts.Configs = tc.configs
			}
			var prior map[string]any
			if tc.prior != "" {
				prior = obj(t, tc.prior)
			}
			in := input(t, tc.spec)
			before := obj(t, "x: 1")
			before["in"] = in
			res := ResolveFunction(in, xr, prior, opts)
			checkResult(t, res, tc.want, tc.selected, tc.fail, tc.failAt, tc.certain, tc.unknown)
		})
	}
}

func checkResult(t *testing.T, res Result, want string, selected []string, fail, failAt string, certain bool, unknown string) {
	t.Helper()
	if fail != "" {
		if res.Failure == nil {
			t.Fatalf("no failure, want %q; environment %v", fail, res.Environment)
		}
		if !strings.Contains(res.Failure.Message, fail) {
			t.Errorf("failure %q, want it to contain %q", res.Failure.Message, fail)
		}
		if failAt != "" && res.Failure.Path.String() != failAt {
			t.Errorf("failure at %s, want %s", res.Failure.Path, failAt)
		}
		if res.Failure.Certain != certain {
			t.Errorf("certain %v, want %v", res.Failure.Certain, certain)
		}
		return
	}
	if res.Failure != nil {
		t.Fatalf("failure %q", res.Failure.Message)
	}
	var w map[string]any
	if err := yaml.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gotJSON, _ := yaml.Marshal(res.Environment)
	wantJSON, _ := yaml.Marshal(w)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("environment:\n%s\nwant:\n%s", gotJSON, wantJSON)
	}
	if !reflect.DeepEqual(res.Selected, selected) {
		t.Errorf("selected %v, want %v", res.Selected, selected)
	}
	if !strings.Contains(res.Unknown, unknown) || (unknown == "") != (res.Unknown == "") {
		t.Errorf("unknown %q, want %q", res.Unknown, unknown)
	}
}

func TestResolveClassic(t *testing.T) {
	cfgs := []map[string]any{
		ec(t, "example-environment-1", "", "{complex: {a: b, c: {d: e, f: '1'}}}"),
		ec(t, "example-environment-2", "stage=prod", "{priority: 2, complex: {c: {f: '2'}}}"),
		ec(t, "example-environment-3", "stage=prod", "{priority: 1, complex: {c: {f: '3'}}}"),
	}
	tests := []struct {
		name     string
		spec     string
		opts     Options
		want     string
		selected []string
		fail     string
		failAt   string
		certain  bool
		unknown  string
	}{
		{name: "ref then single selector", spec: "environmentConfigs: [{ref: {name: example-environment-1}}, {type: Selector, selector: {matchLabels: [{key: stage, valueFromFieldPath: 'metadata.labels[stage]'}]}}]",
			fail: "only 1 EnvironmentConfig can be selected in Single mode, found: 2", failAt: "environmentConfigs[1].selector", certain: true},
		{name: "multiple by priority, maxMatch 1", spec: "environmentConfigs: [{ref: {name: example-environment-1}}, {type: Selector, selector: {mode: Multiple, maxMatch: 1, sortByFieldPath: data.priority, matchLabels: [{key: stage, valueFromFieldPath: 'metadata.labels[stage]'}]}}]",
			want: "{apiVersion: internal.crossplane.io/v1alpha1, kind: Environment, complex: {a: b, c: {d: e, f: '3'}}, priority: 1}", selected: []string{"example-environment-1", "example-environment-3"}},
		{name: "multiple, all, defaultData under them", spec: "defaultData: {complex: {a: default, g: default}}\nenvironmentConfigs: [{ref: {name: example-environment-1}}, {type: Selector, selector: {mode: Multiple, sortByFieldPath: data.priority, matchLabels: [{key: stage, type: Value, value: prod}]}}]",
			want: "{apiVersion: internal.crossplane.io/v1alpha1, kind: Environment, complex: {a: b, g: default, c: {d: e, f: '2'}}, priority: 2}", selected: []string{"example-environment-1", "example-environment-3", "example-environment-2"}},
		{name: "optional resolution skips a missing ref", spec: "policy: {resolution: Optional}\nenvironmentConfigs: [{ref: {name: example-environment-1}}, {ref: {name: nope}}]", opts: Options{Complete: true},
			want: "{apiVersion: internal.crossplane.io/v1alpha1, kind: Environment, complex: {a: b, c: {d: e, f: '1'}}}", selected: []string{"example-environment-1"}},
		{name: "required ref missing", spec: "environmentConfigs: [{ref: {name: nope}}]",
			fail: `EnvironmentConfig "nope" not found`, failAt: "environmentConfigs[0].ref.name"},
		{name: "sorting a missing field fails", spec: "environmentConfigs: [{type: Selector, selector: {mode: Multiple, sortByFieldPath: data.nope, matchLabels: [{key: stage, type: Value, value: prod}]}}]",
			fail: "data.nope: no such field", certain: true},
		{name: "single selector whose optional labels are all missing lists nothing", spec: "environmentConfigs: [{type: Selector, selector: {matchLabels: [{key: zone, valueFromFieldPath: spec.zone, fromFieldPathPolicy: Optional}]}}]",
			opts: Options{Complete: true}, fail: "found: 0", certain: true},
		{name: "label value printed with %v", spec: "environmentConfigs: [{type: Selector, selector: {matchLabels: [{key: stage, valueFromFieldPath: 'metadata.labels[n]'}]}}]",
			fail: "none of the 3 EnvironmentConfigs known has the labels stage=3"},
		{name: "label from an object says so in YAML", spec: "environmentConfigs: [{type: Selector, selector: {matchLabels: [{key: stage, valueFromFieldPath: metadata}]}}]",
			fail: "none of the 3 EnvironmentConfigs known has the labels stage=map[labels:map[n:3 stage:prod]] (metadata is an object, {labels: {\"n\": 3, stage: prod}}, which Crossplane turns into Go's form: no label value can hold it)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.Configs = cfgs
			res := ResolveClassic(obj(t, tc.spec), xr, opts)
			checkResult(t, res, tc.want, tc.selected, tc.fail, tc.failAt, tc.certain, tc.unknown)
		})
	}
}

// TestInputsUnchanged: resolving never writes into its inputs.
func TestInputsUnchanged(t *testing.T) {
	cfg := ec(t, "a", "stage=prod", "{a: {x: 1}}")
	in := input(t, "  defaultData: {a: {y: 2}}\n  environmentConfigs: [{ref: {name: a}}]")
	prior := obj(t, "{a: {z: 3}}")
	snap := func() string { b, _ := yaml.Marshal([]any{cfg, in, prior}); return string(b) }
	before := snap()
	res := ResolveFunction(in, xr, prior, Options{Configs: []map[string]any{cfg}})
	res.Environment["a"].(map[string]any)["x"] = "changed"
	if after := snap(); after != before {
		t.Errorf("inputs changed:\n%s\nwas:\n%s", after, before)
	}
}

// TestAsServed: one EnvironmentConfig of a name (the first), at v1beta1,
// the originals untouched.
func TestAsServed(t *testing.T) {
	old := obj(t, "apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: EnvironmentConfig\nmetadata: {name: a}\ndata: {x: 1}")
	got := AsServed([]map[string]any{old, ec(t, "a", "", "{x: 2}"), ec(t, "b", "", "{}"), {"kind": "Secret"}})
	if len(got) != 2 || got[0]["apiVersion"] != ServedVersion || got[0]["data"].(map[string]any)["x"] != float64(1) || old["apiVersion"] != "apiextensions.crossplane.io/v1alpha1" {
		t.Errorf("AsServed: %v (original %v)", got, old)
	}
}

// TestGoTemplatingExamples resolves the function-environment-configs
// steps of function-go-templating's own examples (shared corpus) with
// their EnvironmentConfigs (v1alpha1): the environment holds what the
// go-templating step after it reads (.context, source: Environment).
func TestGoTemplatingExamples(t *testing.T) {
	root := filepath.Join(corpus.Dir(t), "workspaces", "function-go-templating", "example")
	docs := func(p string) []map[string]any {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var out []map[string]any
		for _, part := range strings.Split("\n"+string(b), "\n---") {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(part), &m); err != nil {
				t.Fatal(err)
			}
			if m != nil {
				out = append(out, m)
			}
		}
		return out
	}
	for example, want := range map[string][]string{"environment": {"template", "complex"}, "context": {"complex"}} {
		t.Run(example, func(t *testing.T) {
			comp := docs(filepath.Join(root, example, "composition.yaml"))[0]
			step := comp["spec"].(map[string]any)["pipeline"].([]any)[0].(map[string]any)
			input := step["input"].(map[string]any)
			if !IsFunctionInput(input) {
				t.Fatalf("step 0 input %v", input["apiVersion"])
			}
			xr := docs(filepath.Join(root, example, "xr.yaml"))[0]
			res := ResolveFunction(input, xr, nil, Options{Configs: docs(filepath.Join(root, example, "environmentConfigs.yaml")), From: "in the example"})
			if res.Failure != nil || res.Unknown != "" || len(res.Selected) == 0 {
				t.Fatalf("result %+v", res)
			}
			for _, k := range want {
				if res.Environment[k] == nil {
					t.Errorf("the environment lacks %s: %v", k, res.Environment)
				}
			}
			if res.Environment["kind"] != Kind {
				t.Errorf("kind %v", res.Environment["kind"])
			}
		})
	}
}

// TestResolveFunctionToFieldPathOrder: the function merges the groups of
// EnvironmentConfigs with different toFieldPaths in a Go map's order
// (fn.go:364 at v0.7.1), so where they overlap the environment differs
// from run to run and crd-lsp says it cannot know it; where they do not,
// the environment is known.
func TestResolveFunctionToFieldPathOrder(t *testing.T) {
	cfgs := []map[string]any{ec(t, "a", "", "{net: {cidr: a}}"), ec(t, "b", "", "{cidr: b}"), ec(t, "c", "", "{zone: c}")}
	overlap := ResolveFunction(input(t, "  environmentConfigs:\n  - {ref: {name: a}}\n  - {ref: {name: b}, toFieldPath: net}\n"), xr, nil, Options{Configs: cfgs, Complete: true})
	if overlap.Failure != nil || !strings.Contains(overlap.Unknown, "random order") {
		t.Errorf("overlapping groups: unknown %q, failure %v", overlap.Unknown, overlap.Failure)
	}
	apart := ResolveFunction(input(t, "  environmentConfigs:\n  - {ref: {name: a}}\n  - {ref: {name: c}, toFieldPath: other}\n"), xr, nil, Options{Configs: cfgs, Complete: true})
	if apart.Failure != nil || apart.Unknown != "" {
		t.Errorf("groups apart: unknown %q, failure %v", apart.Unknown, apart.Failure)
	}
}
