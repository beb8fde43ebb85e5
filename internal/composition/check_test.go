package composition

// Table tests of Check, the package's one entry point, and of its two
// engines (walk: fieldPath resolution against a structural schema; flow:
// a value's type through a patch's transforms): a Composition written as
// YAML and the schemas in, every Problem out — path, severity, code,
// message and where inside the string — compared exactly.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// Schema builders: enough of structural schemas for the tables.
func typ(t string) structuralschema.Structural {
	return structuralschema.Structural{Generic: structuralschema.Generic{Type: t}}
}

func object(props map[string]structuralschema.Structural, required ...string) structuralschema.Structural {
	s := typ("object")
	s.Properties = props
	if len(required) > 0 {
		s.ValueValidation = &structuralschema.ValueValidation{Required: required}
	}
	return s
}

func arrayOf(items structuralschema.Structural) structuralschema.Structural {
	s := typ("array")
	s.Items = &items
	return s
}

func mapOf(v structuralschema.Structural) structuralschema.Structural {
	s := typ("object")
	s.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: &v, Bool: true}
	return s
}

// xrSchema is the composite's: parameters in, an address out.
var xrSchema = object(map[string]structuralschema.Structural{
	"spec": object(map[string]structuralschema.Structural{
		"parameters": object(map[string]structuralschema.Structural{
			"region":    typ("string"),
			"storageGB": typ("integer"),
			"tags":      mapOf(typ("string")),
			"zones":     arrayOf(typ("string")),
		}, "storageGB"),
	}),
	"status": object(map[string]structuralschema.Structural{"address": typ("string"), "ready": typ("boolean")}),
})

// bucketSchema is a composed kind's.
var bucketSchema = object(map[string]structuralschema.Structural{
	"spec": object(map[string]structuralschema.Structural{
		"forProvider": object(map[string]structuralschema.Structural{
			"region": typ("string"),
			"size":   typ("integer"),
			"tags":   mapOf(typ("string")),
			"rules":  arrayOf(object(map[string]structuralschema.Structural{"days": typ("integer")})),
		}, "region"),
	}),
	"status": object(map[string]structuralschema.Structural{
		"atProvider": object(map[string]structuralschema.Structural{"arn": typ("string"), "ready": typ("boolean"), "count": typ("integer")}),
	}),
})

// checkEnv serves the two schemas; any other kind has none.
func checkEnv(mode Mode) Env {
	return Env{Mode: mode, Schema: func(g GVK) (*structuralschema.Structural, bool) {
		switch g.Kind {
		case "XDatabase":
			return &xrSchema, true
		case "Bucket":
			return &bucketSchema, true
		}
		return nil, false
	}}
}

// decode reads a Composition as the analysis hands it over: YAML's
// integers as int64.
func decode(t *testing.T, text string) map[string]any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	var norm func(any) any
	norm = func(v any) any {
		switch x := v.(type) {
		case int:
			return int64(x)
		case map[string]any:
			for k, e := range x {
				x[k] = norm(e)
			}
		case []any:
			for i, e := range x {
				x[i] = norm(e)
			}
		}
		return v
	}
	m, _ := norm(v).(map[string]any)
	return m
}

// problems writes one Problem a line: path[ (key)] severity code message
// [@offset in the string] [segment n].
func problems(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s", p.Path)
		if p.OnKey {
			b.WriteString(" (key)")
		}
		fmt.Fprintf(&b, " %s %s %s", p.Severity, p.Code, p.Message)
		if p.InString >= 0 {
			fmt.Fprintf(&b, " @%d", p.InString)
		}
		if p.Segment >= 0 {
			fmt.Fprintf(&b, " segment %d", p.Segment)
		}
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String())
}

// classic wraps patches (YAML list items at 8 spaces, under a Bucket
// base) in a classic Composition of the XDatabase.
func classic(annotation, patches string) string {
	ann := ""
	if annotation != "" {
		ann = "  annotations:\n    crossplane.io/composition-schema-aware-validation-mode: " + annotation + "\n"
	}
	return `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: c
` + ann + `spec:
  compositeTypeRef:
    apiVersion: example.org/v1
    kind: XDatabase
  resources:
    - name: bucket
      base:
        apiVersion: example.org/v1
        kind: Bucket
      patches:
` + patches
}

type checkCase struct {
	name string
	mode Mode
	text string
	want string
}

func runCheck(t *testing.T, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := problems(Check(decode(t, tc.text), checkEnv(tc.mode)))
			if diff := cmp.Diff(strings.TrimSpace(tc.want), got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\ngot:\n%s", diff, got)
			}
		})
	}
}

// TestCheckFieldPaths: fieldPaths resolved against the side each patch
// type reads and writes; findings follow the mode.
func TestCheckFieldPaths(t *testing.T) {
	const p = "        - "
	runCheck(t, []checkCase{
		{name: "paths both sides know", text: classic("", p+"fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.region\n"), want: ""},
		{name: "map key and list index", text: classic("", p+"fromFieldPath: spec.parameters.tags[team]\n          toFieldPath: spec.forProvider.rules[0].days\n          transforms:\n            - type: convert\n              convert: {toType: int64}\n"), want: ""},
		{name: "composite field misspelt", text: classic("", p+"fromFieldPath: spec.parameters.regoin\n          toFieldPath: spec.forProvider.region\n"), want: "spec.resources[0].patches[0].fromFieldPath warning fieldpath-unknown spec.parameters.regoin: field \"regoin\" does not exist per the composite resource's schema segment 2"},
		{name: "composed field misspelt, strict", mode: ModeStrict, text: classic("", p+"fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.regoin\n"), want: "spec.resources[0].patches[0].toFieldPath error fieldpath-unknown spec.forProvider.regoin: field \"regoin\" does not exist per the composed resource's schema segment 2"},
		{name: "the annotation overrides the mode", mode: ModeStrict, text: classic("warn", p+"fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.regoin\n"), want: "spec.resources[0].patches[0].toFieldPath warning fieldpath-unknown spec.forProvider.regoin: field \"regoin\" does not exist per the composed resource's schema segment 2"},
		{name: "ToCompositeFieldPath reads the base, writes the composite", text: classic("", p+"type: ToCompositeFieldPath\n          fromFieldPath: status.atProvider.arn\n          toFieldPath: status.adress\n"), want: "spec.resources[0].patches[0].toFieldPath warning fieldpath-unknown status.adress: field \"adress\" does not exist per the composite resource's schema segment 1"},
		{name: "indexing a non-array", text: classic("", p+"fromFieldPath: spec.parameters.region[0]\n          toFieldPath: spec.forProvider.region\n"), want: "spec.resources[0].patches[0].fromFieldPath warning fieldpath-unknown spec.parameters.region[0]: spec.parameters.region is of type string, not an array that can be indexed per the composite resource's schema"},
		{name: "metadata field that does not exist", text: classic("", p+"fromFieldPath: metadata.lables\n          toFieldPath: spec.forProvider.region\n"), want: "spec.resources[0].patches[0].fromFieldPath warning fieldpath-unknown metadata.lables: field \"lables\" is not part of object metadata per the composite resource's schema"},
		{name: "syntax error positioned in the string", text: classic("", p+"fromFieldPath: spec.parameters..region\n          toFieldPath: spec.forProvider.region\n"), want: "spec.resources[0].patches[0].fromFieldPath error fieldpath-syntax invalid fieldPath: unexpected '.' @16"},
		{name: "combine variables read the composite", text: classic("", p+"type: CombineFromComposite\n          combine:\n            variables:\n              - fromFieldPath: spec.parameters.region\n              - fromFieldPath: spec.parameters.zone\n            strategy: string\n            string: {fmt: \"%s-%s\"}\n          toFieldPath: spec.forProvider.region\n"), want: "spec.resources[0].patches[0].combine.variables[1].fromFieldPath warning fieldpath-unknown spec.parameters.zone: field \"zone\" does not exist per the composite resource's schema segment 2"},
	})
}

// TestCheckPatches: what each patch type needs, patchSets, types through
// transforms, readiness checks and connection details.
func TestCheckPatches(t *testing.T) {
	const p = "        - "
	runCheck(t, []checkCase{
		{name: "FromCompositeFieldPath without fromFieldPath", text: classic("", p+"type: FromCompositeFieldPath\n          toFieldPath: spec.forProvider.region\n"), want: "spec.resources[0].patches[0] (key) error composition-patch a FromCompositeFieldPath patch needs fromFieldPath\n" +
			"spec.resources[0].patches[0].toFieldPath warning patch-type the patch reads an object, but spec.forProvider.region is a string"},
		{name: "unknown patch type", text: classic("", p+"type: FromSomewhere\n          fromFieldPath: spec.parameters.region\n"), want: "spec.resources[0].patches[0].type error composition-patch unknown patch type \"FromSomewhere\""},
		{name: "PatchSet naming no patchSet", text: classic("", p+"type: PatchSet\n          patchSetName: nope\n"), want: "spec.resources[0].patches[0].patchSetName error composition-patch no patchSet named \"nope\""},
		{name: "string into an integer", text: classic("", p+"fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.size\n"), want: "spec.resources[0].patches[0].toFieldPath warning patch-type the patch reads a string, but spec.forProvider.size is an integer"},
		{name: "integer into a string", text: classic("", p+"fromFieldPath: spec.parameters.storageGB\n          toFieldPath: spec.forProvider.region\n"), want: "spec.resources[0].patches[0].toFieldPath warning patch-type the patch reads an integer, but spec.forProvider.region is a string"},
		{name: "convert fixes the type", text: classic("", p+"fromFieldPath: spec.parameters.storageGB\n          toFieldPath: spec.forProvider.region\n          transforms:\n            - type: convert\n              convert: {toType: string}\n"), want: ""},
		{name: "math on a string", text: classic("", p+"fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.size\n          transforms:\n            - type: math\n              math: {multiply: 2}\n"), want: "spec.resources[0].patches[0].transforms[0] (key) warning patch-type the math transform needs a number input, but gets a string"},
		{name: "map transform yields its values' type", text: classic("", p+"fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.size\n          transforms:\n            - type: map\n              map: {eu: 1, us: 2}\n"), want: ""},
		{name: "format that reads two of one value", text: classic("", p+"fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.region\n          transforms:\n            - type: string\n              string: {type: Format, fmt: \"%s-%s\"}\n"), want: "spec.resources[0].patches[0].transforms[0].string.fmt warning composition-transform fmt \"%s-%s\" reads 2 values, and there is only 1 input: the rendered value holds \"%!v(MISSING)\" in place of each missing one"},
		{name: "patchSet used by two resources is reported once", text: `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: c
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XDatabase}
  patchSets:
    - name: common
      patches:
        - fromFieldPath: spec.parameters.regoin
          toFieldPath: spec.forProvider.region
  resources:
    - name: a
      base: {apiVersion: example.org/v1, kind: Bucket}
      patches:
        - {type: PatchSet, patchSetName: common}
    - name: b
      base: {apiVersion: example.org/v1, kind: Bucket}
      patches:
        - {type: PatchSet, patchSetName: common}
`, want: "spec.patchSets[0].patches[0].fromFieldPath warning fieldpath-unknown spec.parameters.regoin: field \"regoin\" does not exist per the composite resource's schema (patchSet common as used by resource \"a\"'s patches[0]) segment 2"},
		{name: "readiness check of the wrong type", text: classic("", p+"fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.region\n      readinessChecks:\n        - type: MatchInteger\n          fieldPath: status.atProvider.arn\n          matchInteger: 1\n"), want: "spec.resources[0].readinessChecks[0].fieldPath warning readiness-type a MatchInteger readiness check needs an integer field, but status.atProvider.arn is a string"},
		{name: "readiness check of an unknown field", text: classic("", p+"fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.region\n      readinessChecks:\n        - type: MatchTrue\n          fieldPath: status.atProvider.redy\n"), want: "spec.resources[0].readinessChecks[0].fieldPath warning fieldpath-unknown status.atProvider.redy: field \"redy\" does not exist per the composed resource's schema segment 2"},
		{name: "connection detail of an unknown field", text: classic("", p+"fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.region\n      connectionDetails:\n        - name: arn\n          fromFieldPath: status.atProvider.ar\n"), want: "spec.resources[0].connectionDetails[0].fromFieldPath warning fieldpath-unknown status.atProvider.ar: field \"ar\" does not exist per the composed resource's schema segment 2"},
		{name: "connection detail without a source", text: classic("", p+"fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.region\n      connectionDetails:\n        - name: arn\n"), want: "spec.resources[0].connectionDetails[0] (key) error composition-connection a connection detail needs a type (FromConnectionSecretKey, FromFieldPath or FromValue)"},
	})
}

// TestCheckMissingSchemas: a base or composite without a schema, per mode.
func TestCheckMissingSchemas(t *testing.T) {
	unknownBase := strings.Replace(classic("", "        - fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.region\n"), "kind: Bucket", "kind: Nope", 1)
	unknownXR := strings.Replace(classic("", "        - fromFieldPath: spec.parameters.region\n          toFieldPath: spec.forProvider.region\n"), "kind: XDatabase", "kind: XNope", 1)
	runCheck(t, []checkCase{
		{name: "unknown base, warn", text: unknownBase, want: "spec.resources[0].base.kind warning composition-schema no schema for example.org/v1 Nope: this resource's patches are not checked against it"},
		{name: "unknown base, loose", mode: ModeLoose, text: unknownBase, want: "spec.resources[0].base.kind warning composition-schema no schema for example.org/v1 Nope: this resource's patches are not checked against it"},
		{name: "unknown base, strict", mode: ModeStrict, text: unknownBase, want: "spec.resources[0].base.kind error composition-schema no schema for example.org/v1 Nope: this resource's patches are not checked against it"},
		{name: "unknown composite, warn", text: unknownXR, want: "spec.compositeTypeRef.kind warning composition-schema no XRD for example.org/v1 XNope in the workspace: patches that read or write the composite resource are not checked"},
		{name: "unknown composite, strict", mode: ModeStrict, text: unknownXR, want: "spec.compositeTypeRef.kind error composition-schema no XRD for example.org/v1 XNope in the workspace: patches that read or write the composite resource are not checked"},
	})
}

// TestWalk: fieldPath resolution against a structural schema.
func TestWalk(t *testing.T) {
	for _, tc := range []struct {
		path, why string
		seg       int
	}{
		{"spec.forProvider.region", "", -1},
		{"spec.forProvider.tags[anything]", "", -1},
		{"spec.forProvider.tags.anything", "", -1},
		{"spec.forProvider.rules[3].days", "", -1},
		{"spec.forProvider.rules[*].days", "", -1},
		{"apiVersion", "", -1},
		{"metadata.labels[app]", "", -1},
		{"metadata.lables", `field "lables" is not part of object metadata`, -1},
		{"spec.forProvider.regoin", `field "regoin" does not exist`, 2},
		{"spec.forProviders.region", `field "forProviders" does not exist`, 1},
		{"spec.forProvider.region.x", `"x" is a field of spec.forProvider.region, which is of type string`, -1},
		{"spec.forProvider.region[0]", "spec.forProvider.region is of type string, not an array that can be indexed", -1},
		{"spec.forProvider.rules[0].weeks", `field "weeks" does not exist`, 4},
	} {
		p, err := fieldpath.Parse(tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		why, seg := walk(&bucketSchema, p)
		if why != tc.why || seg != tc.seg {
			t.Errorf("walk(%s) = %q, %d; want %q, %d", tc.path, why, seg, tc.why, tc.seg)
		}
	}
}

// TestFlow: a value's type through transforms, as P&T passes it.
func TestFlow(t *testing.T) {
	tr := func(s string) []any {
		var v []any
		if err := yaml.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		in, transforms string
		out            string
		at             int
		problem        string
	}{
		{"string", "[]", "string", -1, ""},
		{"integer", "[{type: convert, convert: {toType: string}}]", "string", -1, ""},
		{"string", "[{type: convert, convert: {toType: float64}}]", "number", -1, ""},
		{"integer", "[{type: math, math: {multiply: 2}}]", "integer", -1, ""},
		{"", "[{type: math, math: {multiply: 2}}]", "number", -1, ""},
		{"string", "[{type: math, math: {multiply: 2}}]", "", 0, "the math transform needs a number input, but gets a string"},
		{"string", "[{type: map, map: {a: x, b: y}}]", "string", -1, ""},
		{"string", "[{type: map, map: {a: x, b: 1}}]", "", -1, ""},
		{"integer", "[{type: map, map: {a: x}}]", "", 0, "the map transform needs a string input, but gets an integer"},
		{"string", "[{type: match, match: {}}]", "", -1, ""},
		{"integer", "[{type: string, string: {type: Format, fmt: '%d'}}]", "string", -1, ""},
		{"integer", "[{type: string, string: {type: Convert, convert: ToUpper}}]", "", 0, "the string transform needs a string input, but gets an integer"},
		{"object", "[{type: string, string: {type: Convert, convert: ToJson}}]", "string", -1, ""},
		{"string", "[{type: string, string: {type: Convert, convert: ToAdler32}}]", "integer", -1, ""},
		{"string", "[{type: string, string: {type: Join, join: {separator: ','}}}]", "", 0, "the string transform needs an array input, but gets a string"},
		{"string", "[{type: convert, convert: {toType: int64}}, {type: math, math: {multiply: 2}}, {type: string, string: {type: TrimPrefix, trim: x}}]", "", 2, "the string transform needs a string input, but gets an integer"},
	} {
		out, at, problem := flow(tc.in, tr(tc.transforms))
		if out != tc.out || at != tc.at || problem != tc.problem {
			t.Errorf("flow(%s, %s) = %q, %d, %q; want %q, %d, %q", tc.in, tc.transforms, out, at, problem, tc.out, tc.at, tc.problem)
		}
	}
}

// TestParseMode: the annotation's and the settings' spellings, exactly.
func TestParseMode(t *testing.T) {
	for s, want := range map[string]Mode{"warn": ModeWarn, "loose": ModeLoose, "strict": ModeStrict} {
		if m, ok := ParseMode(s); !ok || m != want || m.String() != s {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, ok)
		}
	}
	for _, s := range []string{"", "Strict", "lax", " warn"} {
		if m, ok := ParseMode(s); ok || m != ModeWarn {
			t.Errorf("ParseMode(%q) = %v, %v; want warn, false", s, m, ok)
		}
	}
}
