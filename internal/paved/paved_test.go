package paved

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// jsonObj and jsonVal decode JSON as our YAML decoder does: integers
// int64, other numbers float64.
var jsonObj, jsonVal = testfixtures.JSONObject, testfixtures.JSONValue

func path(t *testing.T, s string) fieldpath.Path {
	t.Helper()
	p, err := fieldpath.Parse(s)
	if err != nil {
		t.Fatalf("bad path %q: %v", s, err)
	}
	return p
}

// same compares unstructured values including their Go types.
func same(a, b any) bool { return reflect.DeepEqual(a, b) }

func TestIsNotFound(t *testing.T) {
	nf := &notFoundError{"boom"}
	if !IsNotFound(nf) || !IsNotFound(fmt.Errorf("because reasons: %w", nf)) {
		t.Error("a (wrapped) not-found error is not found")
	}
	if IsNotFound(fmt.Errorf("boom")) || IsNotFound(nil) {
		t.Error("another error is not a not-found error")
	}
}

func TestGet(t *testing.T) {
	cases := map[string]struct {
		path, data string
		want       any
		err        string // exact message; "" for success
		notFound   bool
	}{
		"MetadataName":     {path: "metadata.name", data: `{"metadata":{"name":"cool"}}`, want: "cool"},
		"ContainerName":    {path: "spec.containers[0].name", data: `{"spec":{"containers":[{"name":"cool"}]}}`, want: "cool"},
		"NestedArray":      {path: "items[0][1]", data: `{"items":[["a", "b"]]}`, want: "b"},
		"Boolean":          {path: "metadata.ownerRefs[0].controller", data: `{"metadata":{"ownerRefs":[{"controller": true}]}}`, want: true},
		"Integer":          {path: "metadata.version", data: `{"metadata":{"version":2}}`, want: int64(2)},
		"Float":            {path: "metadata.version", data: `{"metadata":{"version":2.5}}`, want: 2.5},
		"Object":           {path: "spec", data: `{"spec":{"a":[1]}}`, want: map[string]any{"a": []any{int64(1)}}},
		"Null":             {path: "spec.a", data: `{"spec":{"a":null}}`, want: nil},
		"BracketedLabel":   {path: "metadata.labels[crossplane.io/claim-name]", data: `{"metadata":{"labels":{"crossplane.io/claim-name":"c"}}}`, want: "c"},
		"QuotedDotted":     {path: "a['x.y']", data: `{"a":{"x.y":1,"x":{"y":2}}}`, want: int64(1)},
		"WildcardIsAField": {path: "a[*]", data: `{"a":{"*":"star"}}`, want: "star"},
		"MetadataNope": {path: "metadata.name", data: `{"metadata":{"nope":"cool"}}`,
			err: "metadata.name: no such field", notFound: true},
		"InsufficientContainers": {path: "spec.containers[1].name", data: `{"spec":{"containers":[{"name":"cool"}]}}`,
			err: "spec.containers[1]: no such element", notFound: true},
		"NotAnArray":    {path: "metadata[1]", data: `{"metadata":{"nope":"cool"}}`, err: "metadata: not an array"},
		"NotAnObject":   {path: "spec.containers[nope].name", data: `{"spec":{"containers":[{"name":"cool"}]}}`, err: "spec.containers: not an object"},
		"FieldOfScalar": {path: "a.b", data: `{"a":"s"}`, err: "a: not an object"},
		"NilParent": {path: "spec.containers[*].name", data: `{"spec":{"containers": null}}`,
			err: "spec.containers: expected map, got nil", notFound: true},
		"IndexOfNull":      {path: "a[0]", data: `{"a":null}`, err: "a: not an array"},
		"WildcardOverList": {path: "a[*]", data: `{"a":[1]}`, err: "a: not an object"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Get(jsonObj(t, tc.data), path(t, tc.path))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Get(%s): want error %q, got %v (value %#v)", tc.path, tc.err, err, got)
				}
				if IsNotFound(err) != tc.notFound {
					t.Errorf("IsNotFound(%v) = %v, want %v", err, !tc.notFound, tc.notFound)
				}
				return
			}
			if err != nil {
				t.Fatalf("Get(%s): %v", tc.path, err)
			}
			if !same(got, tc.want) {
				t.Errorf("Get(%s) = %#v, want %#v", tc.path, got, tc.want)
			}
		})
	}
}

func TestGetRoot(t *testing.T) {
	obj := map[string]any{"a": "b"}
	got, err := Get(obj, nil)
	if err != nil || !same(got, obj) {
		t.Errorf("Get(root) = %#v, %v; want the object", got, err)
	}
}

func TestSet(t *testing.T) {
	cases := map[string]struct {
		data  string
		path  string
		value any
		want  string // the object afterwards
		err   string
	}{
		"MetadataName":             {data: `{"metadata":{"name":"lame"}}`, path: "metadata.name", value: "cool", want: `{"metadata":{"name":"cool"}}`},
		"NonExistentMetadataName":  {data: `{}`, path: "metadata.name", value: "cool", want: `{"metadata":{"name":"cool"}}`},
		"ContainerName":            {data: `{"spec":{"containers":[{"name":"lame"}]}}`, path: "spec.containers[0].name", value: "cool", want: `{"spec":{"containers":[{"name":"cool"}]}}`},
		"NonExistentContainerName": {data: `{}`, path: "spec.containers[0].name", value: "cool", want: `{"spec":{"containers":[{"name":"cool"}]}}`},
		"NewContainer": {data: `{"spec":{"containers":[{"name":"cool"}]}}`, path: "spec.containers[1].name", value: "cooler",
			want: `{"spec":{"containers":[{"name":"cool"},{"name":"cooler"}]}}`},
		"NestedArray":         {data: `{}`, path: "data[0][0]", value: "a", want: `{"data":[["a"]]}`},
		"GrowNestedArray":     {data: `{"data":[["a"]]}`, path: "data[0][1]", value: "b", want: `{"data":[["a","b"]]}`},
		"GrowArrayField":      {data: `{"data":["a"]}`, path: "data[2]", value: "c", want: `{"data":["a",null,"c"]}`},
		"NewListPadded":       {data: `{}`, path: "data[2].x", value: int64(1), want: `{"data":[null,null,{"x":1}]}`},
		"NullElementReplaced": {data: `{"l":[null]}`, path: "l[0].b", value: "x", want: `{"l":[{"b":"x"}]}`},
		"MaxIndex":            {data: `{}`, path: "l[1024]", value: "x"},
		"RejectsHighIndexes": {data: `{"data":["a"]}`, path: "data[1025]", value: "c", want: `{"data":["a"]}`,
			err: "index 1025 is greater than max allowed index 1024"},
		"NotAnArray":  {data: `{"data":{}}`, path: "data[0]", want: `{"data":{}}`, err: "data is not an array"},
		"NotAnObject": {data: `{"data":[]}`, path: "data.name", want: `{"data":[]}`, err: "data is not an object"},
		"NullFieldNotReplaced": {data: `{"a":null}`, path: "a.b", value: "x", want: `{"a":null}`,
			err: "a is not an object"},
		"FieldOfScalar": {data: `{"a":"s"}`, path: "a.b.c", value: "x", want: `{"a":"s"}`, err: "a is not an object"},
		"RootIndex":     {data: `{}`, path: "[0]", value: "x", want: `{}`, err: "the root is not an array"},
		"MapStringString": {data: `{"metadata":{}}`, path: "metadata.labels", value: map[string]string{"cool": "very"},
			want: `{"metadata":{"labels":{"cool":"very"}}}`},
		"IntegralFloatBecomesInt": {data: `{}`, path: "a", value: []any{2.0, 2.5, int64(3)}, want: `{"a":[2,2.5,3]}`},
		"Labels": {data: `{"metadata":{"labels":{"a":"b"}}}`, path: "metadata.labels[crossplane.io/claim-name]", value: "c",
			want: `{"metadata":{"labels":{"a":"b","crossplane.io/claim-name":"c"}}}`},
		"QuotedDotted": {data: `{}`, path: "a['x.y']", value: true, want: `{"a":{"x.y":true}}`},
		"NaN":          {data: `{"a":1}`, path: "a", value: math.NaN(), want: `{"a":1}`, err: "cannot marshal value to JSON: json: unsupported value: NaN"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			obj := jsonObj(t, tc.data)
			err := Set(obj, path(t, tc.path), tc.value)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Set(%s): want error %q, got %v", tc.path, tc.err, err)
				}
			} else if err != nil {
				t.Fatalf("Set(%s): %v", tc.path, err)
			}
			if tc.want == "" {
				return
			}
			if want := jsonObj(t, tc.want); !same(obj, want) {
				t.Errorf("Set(%s):\n got  %#v\n want %#v", tc.path, obj, want)
			}
		})
	}
}

func TestSetMaxIndexGrows(t *testing.T) {
	obj := map[string]any{}
	if err := Set(obj, path(t, "l[1024]"), "x"); err != nil {
		t.Fatal(err)
	}
	l := obj["l"].([]any)
	if len(l) != 1025 || l[1024] != "x" || l[0] != nil {
		t.Errorf("list of %d elements, last %v", len(l), l[len(l)-1])
	}
}

func TestSetCopies(t *testing.T) {
	v := map[string]any{"list": []any{"a"}}
	obj := map[string]any{}
	if err := Set(obj, path(t, "spec"), v); err != nil {
		t.Fatal(err)
	}
	v["list"].([]any)[0] = "changed"
	v["new"] = true
	if want := jsonObj(t, `{"spec":{"list":["a"]}}`); !same(obj, want) {
		t.Errorf("Set shares memory with its value: %#v", obj)
	}
}

func TestSetRoot(t *testing.T) {
	obj := map[string]any{"a": "b"}
	if err := Set(obj, nil, "x"); err != nil || !same(obj, map[string]any{"a": "b"}) {
		t.Errorf("Set(root) = %v, object %#v; want a no-op", err, obj)
	}
}

func TestExpand(t *testing.T) {
	cases := map[string]struct {
		path, data string
		want       []string
		err        string // substring
		notFound   bool
	}{
		"NoWildcardExisting":          {path: "password", data: `{"password":"top-secret"}`, want: []string{"password"}},
		"NoWildcardNonExisting":       {path: "username", data: `{"password":"top-secret"}`},
		"NestedNoWildcardExisting":    {path: "items[0][1]", data: `{"items":[["a", "b"]]}`, want: []string{"items[0][1]"}},
		"NestedNoWildcardNonExisting": {path: "items[0][5]", data: `{"items":[["a", "b"]]}`},
		"NestedArray": {path: "items[*][*]", data: `{"items":[["a", "b", "c"], ["d"]]}`,
			want: []string{"items[0][0]", "items[0][1]", "items[0][2]", "items[1][0]"}},
		"KeysOfMap": {path: "items[*]", data: `{"items":{ "key1": "val1", "key2.as.annotation": "val2"}}`,
			want: []string{"items.key1", "items[key2.as.annotation]"}},
		"ArrayOfObjects": {path: "spec.containers[*][*]", data: `{"spec":{"containers":[{"name":"cool", "image": "latest", "args": ["start", "now"]}]}}`,
			want: []string{"spec.containers[0].args", "spec.containers[0].image", "spec.containers[0].name"}},
		"MultiLayer": {path: "spec.containers[*].args[*]", data: `{"spec":{"containers":[{"name":"cool", "image": "latest", "args": ["start", "now", "debug"]}]}}`,
			want: []string{"spec.containers[0].args[0]", "spec.containers[0].args[1]", "spec.containers[0].args[2]"}},
		"WildcardInTheBeginning": {path: "spec.containers[*].args[1]", data: `{"spec":{"containers":[{"name":"cool", "image": "latest", "args": ["start", "now", "debug"]}]}}`,
			want: []string{"spec.containers[0].args[1]"}},
		"WildcardAtTheEnd": {path: "spec.containers[0].args[*]", data: `{"spec":{"containers":[{"name":"cool", "image": "latest", "args": ["start", "now", "debug"]}]}}`,
			want: []string{"spec.containers[0].args[0]", "spec.containers[0].args[1]", "spec.containers[0].args[2]"}},
		"OnlyExistingLeaves": {path: "spec.containers[*].name", data: `{"spec":{"containers":[{"name":"a"},{"image":"b"},{"name":"c"}]}}`,
			want: []string{"spec.containers[0].name", "spec.containers[2].name"}},
		"MissingFieldBelow":      {path: "metadata.ownerReferences[*].badField", data: `{"metadata":{"ownerReferences":[{"name":"test"},{"name":"test"}]}}`},
		"EmptyList":              {path: "a[*]", data: `{"a":[]}`},
		"NoData":                 {path: "metadata[*]", data: ``},
		"InsufficientContainers": {path: "spec.containers[1].args[*]", data: `{"spec":{"containers":[{"name":"cool"}]}}`},
		"UnexpectedWildcard": {path: "spec.containers[0].name[*]", data: `{"spec":{"containers":[{"name":"cool"}]}}`,
			err: "spec.containers[0].name: unexpected wildcard usage"},
		"NotAnArray":  {path: "metadata[1]", data: `{"metadata":{"nope":"cool"}}`, err: "metadata: not an array"},
		"NotAnObject": {path: "spec.containers[nope].name", data: `{"spec":{"containers":[{"name":"cool"}]}}`, err: "spec.containers: not an object"},
		"NilValue": {path: "spec.containers[*].name", data: `{"spec":{"containers": null}}`,
			err: "wildcard field spec.containers is not found in the path", notFound: true},
		"StarKeyIsNotAWildcard": {path: "a[*].b", data: `{"a":{"*":{"b":1},"c":{"d":1}}}`, want: []string{"a[*].b"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Expand(jsonObj(t, tc.data), path(t, tc.path))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Expand(%s): want error containing %q, got %v", tc.path, tc.err, err)
				}
				if IsNotFound(err) != tc.notFound {
					t.Errorf("IsNotFound(%v) = %v", err, !tc.notFound)
				}
				return
			}
			if err != nil {
				t.Fatalf("Expand(%s): %v", tc.path, err)
			}
			var gs []string
			for _, p := range got {
				gs = append(gs, p.String())
			}
			if fmt.Sprint(gs) != fmt.Sprint(tc.want) {
				t.Errorf("Expand(%s) = %v, want %v", tc.path, gs, tc.want)
			}
		})
	}
}

// TestExpandKeyNamedStar: a key named "*" expands to a field segment, not
// to another wildcard (crossplane-runtime would recurse forever).
func TestExpandKeyNamedStar(t *testing.T) {
	got, err := Expand(jsonObj(t, `{"a":{"*":1}}`), path(t, "a[*]"))
	if err != nil || len(got) != 1 || got[0][1] != fieldpath.Field("*") {
		t.Errorf("Expand = %v, %v", got, err)
	}
}

func TestToFieldPathPolicy(t *testing.T) {
	cases := map[string]MergeOptions{
		"":                              {},
		"Replace":                       {},
		"MergeObjects":                  {Merge: true, KeepMapValues: true},
		"MergeObject":                   {Merge: true, KeepMapValues: true},
		"MergeObjectsAppendArrays":      {Merge: true, KeepMapValues: true, AppendSlice: true},
		"ForceMergeObjects":             {Merge: true},
		"ForceMergeObjectsAppendArrays": {Merge: true, AppendSlice: true},
		"AppendArray":                   {Merge: true, AppendSlice: true},
	}
	for policy, want := range cases {
		got, err := ToFieldPathPolicy(policy)
		if err != nil || got != want {
			t.Errorf("ToFieldPathPolicy(%q) = %+v, %v; want %+v", policy, got, err, want)
		}
	}
	if _, err := ToFieldPathPolicy("Bogus"); err == nil || err.Error() != "invalid patch policy Bogus" {
		t.Errorf("ToFieldPathPolicy(Bogus) error = %v", err)
	}
}

func TestPatchMergeOptions(t *testing.T) {
	cases := map[string]struct {
		patch string
		want  MergeOptions
		err   string
	}{
		"NoPolicy":            {patch: `{}`},
		"NullPolicy":          {patch: `{"policy":null}`},
		"FromOnly":            {patch: `{"policy":{"fromFieldPath":"Required"}}`},
		"MergeObjects":        {patch: `{"policy":{"toFieldPath":"MergeObjects"}}`, want: MergeOptions{Merge: true, KeepMapValues: true}},
		"MergeOptionsIgnored": {patch: `{"policy":{"mergeOptions":{"keepMapValues":true}}}`},
		"Unknown":             {patch: `{"policy":{"toFieldPath":"Nope"}}`, err: "invalid patch policy Nope"},
		"NotAString":          {patch: `{"policy":{"toFieldPath":1}}`, err: "policy.toFieldPath must be a string, not a number"},
		"PolicyNotObject":     {patch: `{"policy":"x"}`, err: "policy must be an object, not a string"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := PatchMergeOptions(jsonObj(t, tc.patch))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("want error %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("PatchMergeOptions = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestLegacyMergeOptions(t *testing.T) {
	cases := map[string]struct {
		mo   string
		want MergeOptions
		err  bool
	}{
		"Absent":   {mo: ``, want: MergeOptions{}},
		"Empty":    {mo: `{}`, want: MergeOptions{Merge: true}},
		"Keep":     {mo: `{"keepMapValues":true}`, want: MergeOptions{Merge: true, KeepMapValues: true}},
		"Append":   {mo: `{"appendSlice":true,"keepMapValues":false}`, want: MergeOptions{Merge: true, AppendSlice: true}},
		"Both":     {mo: `{"appendSlice":true,"keepMapValues":true}`, want: MergeOptions{Merge: true, KeepMapValues: true, AppendSlice: true}},
		"NotABool": {mo: `{"appendSlice":"yes"}`, err: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			if tc.mo != "" {
				m = jsonObj(t, tc.mo)
			}
			got, err := LegacyMergeOptions(m)
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("LegacyMergeOptions = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	policy := func(p string) MergeOptions {
		mo, err := ToFieldPathPolicy(p)
		if err != nil {
			t.Fatal(err)
		}
		return mo
	}
	cases := map[string]struct {
		data  string
		path  string
		value string // JSON
		opts  MergeOptions
		want  string
		err   string // substring
	}{
		// crossplane-runtime's merge tests.
		"ArrayNoMergeOptions": {data: `{"a":"dst"}`, path: "a", value: `["src"]`, want: `{"a":["src"]}`},
		"ArrayNoAppend":       {data: `{"a":["dst"]}`, path: "a", value: `["src"]`, opts: MergeOptions{Merge: true}, want: `{"a":["src"]}`},
		"ArrayAppend":         {data: `{"a":["dst"]}`, path: "a", value: `["src"]`, opts: MergeOptions{Merge: true, AppendSlice: true}, want: `{"a":["dst","src"]}`},
		"ArrayAppendDuplicate": {data: `{"a":["dst","src"]}`, path: "a", value: `["src","src2"]`, opts: MergeOptions{Merge: true, AppendSlice: true},
			want: `{"a":["dst","src","src2"]}`},
		"MapNoMergeOptions": {data: `{"a":{"a":"dst"}}`, path: "a", value: `{"a":"src"}`, want: `{"a":{"a":"src"}}`},
		"MapNoKeep":         {data: `{"a":{"a":"dst"}}`, path: "a", value: `{"a":"src"}`, opts: MergeOptions{Merge: true}, want: `{"a":{"a":"src"}}`},
		"MapKeep":           {data: `{"a":{"a":"dst"}}`, path: "a", value: `{"a":"src"}`, opts: MergeOptions{Merge: true, KeepMapValues: true}, want: `{"a":{"a":"dst"}}`},

		// The toFieldPath policies on a nested object.
		"Replace": {data: `{"s":{"keep":1,"m":{"x":1},"l":[1]}}`, path: "s", value: `{"m":{"y":2},"l":[2]}`, opts: policy("Replace"),
			want: `{"s":{"m":{"y":2},"l":[2]}}`},
		"MergeObjects": {data: `{"s":{"keep":1,"m":{"x":1,"z":"old"},"l":[1]}}`, path: "s", value: `{"keep":9,"m":{"y":2,"z":"new"},"l":[2],"new":true}`, opts: policy("MergeObjects"),
			want: `{"s":{"keep":1,"m":{"x":1,"y":2,"z":"old"},"l":[1],"new":true}}`},
		"MergeObjectsAppendArrays": {data: `{"s":{"keep":1,"l":[1,2]}}`, path: "s", value: `{"keep":9,"l":[2,3]}`, opts: policy("MergeObjectsAppendArrays"),
			want: `{"s":{"keep":1,"l":[1,2,2,3]}}`},
		"ForceMergeObjects": {data: `{"s":{"keep":1,"m":{"x":1,"z":"old"},"l":[1]}}`, path: "s", value: `{"keep":9,"m":{"y":2,"z":"new"},"l":[2]}`, opts: policy("ForceMergeObjects"),
			want: `{"s":{"keep":9,"m":{"x":1,"y":2,"z":"new"},"l":[2]}}`},
		"ForceMergeObjectsAppendArrays": {data: `{"s":{"keep":1,"l":[1]}}`, path: "s", value: `{"keep":9,"l":[1,2]}`, opts: policy("ForceMergeObjectsAppendArrays"),
			want: `{"s":{"keep":9,"l":[1,1,2]}}`},

		// mergo's finer points.
		"KeepFillsEmptyValues": {data: `{"s":{"a":"","b":0,"c":false,"d":[],"e":{},"f":null,"g":"x"}}`, path: "s",
			value: `{"a":"A","b":1,"c":true,"d":[1],"e":{"k":1},"f":"F","g":"G"}`, opts: policy("MergeObjects"),
			want: `{"s":{"a":"A","b":1,"c":true,"d":[1],"e":{"k":1},"f":"F","g":"x"}}`},
		"NullClearsUnlessKeep": {data: `{"s":{"a":1,"b":2}}`, path: "s", value: `{"a":null}`, opts: policy("ForceMergeObjects"),
			want: `{"s":{"a":null,"b":2}}`},
		"NullKeptWithKeep": {data: `{"s":{"a":1}}`, path: "s", value: `{"a":null,"b":null}`, opts: policy("MergeObjects"),
			want: `{"s":{"a":1}}`},
		"ObjectOverScalarKept": {data: `{"s":{"a":"x"}}`, path: "s", value: `{"a":{"b":1}}`, opts: policy("MergeObjects"),
			want: `{"s":{"a":"x"}}`},
		"ObjectOverScalarForced": {data: `{"s":{"a":"x"}}`, path: "s", value: `{"a":{"b":1}}`, opts: policy("ForceMergeObjects"),
			want: `{"s":{"a":{"b":1}}}`},
		"ScalarOverObjectTopLevel": {data: `{"s":{"a":1}}`, path: "s", value: `"x"`, opts: policy("MergeObjects"),
			want: `{"s":{"a":1}}`},
		"NestedAppendKeepsDuplicates": {data: `{"s":{"l":[1]}}`, path: "s", value: `{"l":[1,2]}`, opts: policy("ForceMergeObjectsAppendArrays"),
			want: `{"s":{"l":[1,1,2]}}`},
		"AppendToNonList": {data: `{"s":{"l":"x"}}`, path: "s", value: `{"l":[1]}`, opts: policy("ForceMergeObjectsAppendArrays"),
			want: `{"s":{"l":"x"}}`, err: "cannot append two slices with different type ([]interface {}, string)"},
		"AppendToEmptyString": {data: `{"s":{"l":""}}`, path: "s", value: `{"l":[1]}`, opts: policy("MergeObjectsAppendArrays"),
			want: `{"s":{"l":""}}`, err: "cannot append two slices with different type"},
		"AppendListOverScalarTopLevel": {data: `{"s":"x"}`, path: "s", value: `[1]`, opts: policy("ForceMergeObjectsAppendArrays"),
			want: `{"s":"x"}`, err: "cannot append two slices"},
		"AppendAllDuplicates": {data: `{"l":[1,2]}`, path: "l", value: `[2,1]`, opts: policy("ForceMergeObjectsAppendArrays"),
			want: `{"l":[1,2]}`},
		"MissingDestination": {data: `{}`, path: "s.a[1]", value: `{"x":1}`, opts: policy("MergeObjects"),
			want: `{"s":{"a":[null,{"x":1}]}}`},
		"NullValueReplaces": {data: `{"s":{"a":1}}`, path: "s", value: `null`, opts: policy("MergeObjects"),
			want: `{"s":null}`},
		"PathDoesNotFit": {data: `{"s":"x"}`, path: "s.a", value: `1`, opts: policy("MergeObjects"),
			want: `{"s":"x"}`, err: "s: not an object"},
		"PathDoesNotFitReplace": {data: `{"s":"x"}`, path: "s.a", value: `1`,
			want: `{"s":"x"}`, err: "s is not an object"},
		"HighIndex": {data: `{}`, path: "l[2000]", value: `1`, want: `{}`, err: "greater than max allowed index"},
		// P&T's ValidToFieldPathWithWildcardsAndMergePolicy, one expanded path.
		"AppendDeduplicatesNumbers": {data: `{"allowedGroups":[12345678]}`, path: "allowedGroups", value: `[12345678, 7891234]`,
			opts: policy("ForceMergeObjectsAppendArrays"), want: `{"allowedGroups":[12345678, 7891234]}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			obj := jsonObj(t, tc.data)
			value := jsonVal(t, tc.value)
			before := DeepCopy(value)
			err := Merge(obj, path(t, tc.path), value, tc.opts)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Merge: want error containing %q, got %v", tc.err, err)
				}
			} else if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			if want := jsonObj(t, tc.want); !same(obj, want) {
				t.Errorf("Merge:\n got  %#v\n want %#v", obj, want)
			}
			if !same(value, before) {
				t.Errorf("Merge modified its value: %#v", value)
			}
		})
	}
}

// TestMergeWildcards is P&T's wildcard patch tests: each expanded path is
// merged.
func TestMergeWildcards(t *testing.T) {
	to := jsonObj(t, `{"metadata":{"ownerReferences":[{"name":""},{"name":""}]},
		"spec":{"forProvider":{"accessRules":[
			{"action":"Allow","allowedGroups":[12345678]},
			{"action":"Allow","allowedGroups":[12345678]}]}}}`)
	mo, _ := ToFieldPathPolicy("ForceMergeObjectsAppendArrays")
	for _, w := range []struct {
		path  string
		value any
		opts  MergeOptions
	}{
		{"metadata.ownerReferences[*].name", "test", MergeOptions{}},
		{"spec.forProvider.accessRules[*].allowedGroups", []any{int64(12345678), int64(7891234)}, mo},
	} {
		ps, err := Expand(to, path(t, w.path))
		if err != nil || len(ps) != 2 {
			t.Fatalf("Expand(%s) = %v, %v", w.path, ps, err)
		}
		for _, p := range ps {
			if err := Merge(to, p, w.value, w.opts); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := jsonObj(t, `{"metadata":{"ownerReferences":[{"name":"test"},{"name":"test"}]},
		"spec":{"forProvider":{"accessRules":[
			{"action":"Allow","allowedGroups":[12345678,7891234]},
			{"action":"Allow","allowedGroups":[12345678,7891234]}]}}}`)
	if !same(to, want) {
		t.Errorf("got %#v", to)
	}
}

func TestDeepCopy(t *testing.T) {
	in := map[string]any{"a": []any{map[string]any{"b": int64(1)}, "s", 1.5, nil, true}}
	out := DeepCopy(in).(map[string]any)
	if !same(in, out) {
		t.Fatalf("copy differs: %#v", out)
	}
	out["a"].([]any)[0].(map[string]any)["b"] = "changed"
	out["new"] = 1
	if in["a"].([]any)[0].(map[string]any)["b"] != int64(1) || len(in) != 1 {
		t.Errorf("DeepCopy shares memory: %#v", in)
	}
	if DeepCopy(nil) != nil || DeepCopy("x") != "x" {
		t.Error("scalars are returned as they are")
	}
}
