package schemas

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

// The line scan must agree with a real YAML parse on every definition in
// the corpus (CRDs of Kubernetes-style providers, Crossplane, functions).
func TestScanMatchesParse(t *testing.T) {
	if testing.Short() {
		t.Skip("parses the whole corpus")
	}
	root := corpus(t)
	docs, fallbacks := 0, 0
	err := filepath.WalkDir(filepath.Join(root, "crds"), func(path string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, doc := range splitDocs(b) {
			parsed := parseDoc(doc)
			scanned, ok := scanDoc(doc)
			if !ok {
				fallbacks++
				continue
			}
			if parsed == nil {
				if scanned != nil {
					t.Errorf("%s: scan found %+v, parse found nothing", path, scanned)
				}
				continue
			}
			docs++
			if scanned == nil {
				t.Errorf("%s: scan found nothing", path)
				continue
			}
			parsed.text, parsed.docIndex = nil, 0
			if !reflect.DeepEqual(scanned, parsed) {
				t.Errorf("%s:\nscan  %+v\nparse %+v", path, scanned, parsed)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if docs < 2000 || fallbacks > 0 {
		t.Errorf("%d definitions scanned, %d needed a full parse", docs, fallbacks)
	}
	t.Logf("%d definitions, %d fallbacks", docs, fallbacks)
}

func TestScanEdgeCases(t *testing.T) {
	for name, tc := range map[string]struct {
		src  string
		want []scannedVersion
		ok   bool
	}{
		"indented sequence":    {"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n    group: g\n    names:\n        kind: K\n    versions:\n        - name: v1\n          served: false\n        - name: v2\n", []scannedVersion{{"v1", false}, {"v2", true}}, true},
		"quoted and commented": {"apiVersion: \"apiextensions.k8s.io/v1\"\nkind: 'CustomResourceDefinition' # c\nspec:\n  group: g\n  names: {kind: K}\n  versions:\n  - name: v1\n", nil, false},
		"flow versions":        {"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g\n  names:\n    kind: K\n  versions: [{name: v1}]\n", nil, false},
	} {
		t.Run(name, func(t *testing.T) {
			d, ok := scanDoc([]byte(tc.src))
			if ok != tc.ok {
				t.Fatalf("ok = %v", ok)
			}
			if ok && !reflect.DeepEqual(d.versions, tc.want) {
				t.Errorf("versions %+v", d.versions)
			}
			// Whatever the scan does, indexing finds the definition.
			defs := scanDefinitions([]byte(tc.src))
			if len(defs) != 1 || defs[0].group != "g" || defs[0].kindName != "K" {
				t.Errorf("scanDefinitions = %+v", defs)
			}
		})
	}
}

func TestSplitDocs(t *testing.T) {
	for in, want := range map[string][]string{
		"a: 1\n":                        {"a: 1\n"},
		"---\na: 1\n":                   {"", "a: 1\n"},
		"a: 1\n---\nb: 2\n--- # c\nc\n": {"a: 1\n", "b: 2\n", "c\n"},
		"a: ---x\n----\nb\n---":         {"a: ---x\n----\nb\n", ""},
		"a\r\n---\r\nb\r\n":             {"a\r\n", "b\r\n"},
	} {
		var got []string
		for _, d := range splitDocs([]byte(in)) {
			got = append(got, string(d))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("splitDocs(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestXRDScopeAndClaims: spec.scope decides an XR's scope and whether it
// has a claim, as Crossplane v2 reads it; without one, v1 XRDs are
// LegacyCluster (claimable) and v2 XRDs Namespaced (no claims).
func TestXRDScopeAndClaims(t *testing.T) {
	xrd := func(version, scope string) []byte {
		s := ""
		if scope != "" {
			s = "  scope: " + scope + "\n"
		}
		return []byte("apiVersion: apiextensions.crossplane.io/" + version + "\nkind: CompositeResourceDefinition\nmetadata:\n  name: xapps.example.org\nspec:\n  group: example.org\n" + s +
			"  names: {kind: XApp, plural: xapps}\n  claimNames: {kind: App, plural: apps}\n  versions:\n    - name: v1\n      served: true\n      referenceable: true\n      schema:\n        openAPIV3Schema: {type: object}\n")
	}
	for _, c := range []struct {
		version, scope string
		want           Scope
		claim          bool
	}{
		{"v1", "", Cluster, true},
		{"v1", "Namespaced", Namespaced, false},
		{"v1", "LegacyCluster", Cluster, true},
		{"v2", "", Namespaced, false},
		{"v2", "Cluster", Cluster, false},
		{"v2", "LegacyCluster", Cluster, true},
	} {
		st := NewStore().WithFile(Source{Kind: SourceWorkspace}, "xrd.yaml", xrd(c.version, c.scope))
		sch, ok := st.Lookup(GVK{Group: "example.org", Version: "v1", Kind: "XApp"})
		if !ok || sch.Scope != c.want {
			t.Errorf("%s scope %q: XR scope %v (found %v), want %v", c.version, c.scope, sch, ok, c.want)
		}
		if _, claim := st.Lookup(GVK{Group: "example.org", Version: "v1", Kind: "App"}); claim != c.claim {
			t.Errorf("%s scope %q: claim offered %v, want %v", c.version, c.scope, claim, c.claim)
		}
		if want := map[bool]string{true: "App"}[c.claim]; ok && sch.ClaimKind != want {
			t.Errorf("%s scope %q: ClaimKind %q, want %q", c.version, c.scope, sch.ClaimKind, want)
		}
	}
}

// splitDocs splits a YAML stream at "---" lines, line by line: the
// reference scanDefinitions is checked against.
func splitDocs(content []byte) [][]byte {
	var docs [][]byte
	start := 0
	for off := 0; off < len(content); {
		end := bytes.IndexByte(content[off:], '\n')
		if end < 0 {
			end = len(content)
		} else {
			end += off
		}
		if isSeparator(content[off:end]) {
			docs = append(docs, content[start:off])
			start = min(end+1, len(content))
		}
		off = end + 1
	}
	return append(docs, content[start:])
}

// scanDefinitions scans a whole file in one pass, finding the document
// separators as it goes; it indexes exactly what splitting the file first
// and scanning (or parsing) each definition document does, document
// numbers and offsets included.
func TestScanDefinitionsOnePass(t *testing.T) {
	bySplit := func(content []byte) []*definition {
		var out []*definition
		for i, doc := range splitDocs(content) {
			if !bytes.Contains(doc, []byte("ResourceDefinition")) {
				continue
			}
			d, ok := scanDoc(doc)
			if !ok {
				d = parseDoc(doc)
			}
			if d == nil {
				continue
			}
			d.docIndex, d.off, d.text = i, cap(content)-cap(doc), doc
			out = append(out, d)
		}
		return out
	}
	check := func(name string, b []byte) {
		t.Helper()
		got, want := scanDefinitions(b), bySplit(b)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d definitions, want %d", name, len(got), len(want))
			for i := range min(len(got), len(want)) {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("%s #%d:\n%+v\nwant\n%+v", name, i, got[i], want[i])
					break
				}
			}
		}
	}
	widget := stCRD("example.org", "Widget", "Namespaced", "v1", "v2")
	flow := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: gadgets.example.org}\nspec:\n  group: example.org\n  scope: Cluster\n  names: {kind: Gadget, plural: gadgets}\n  versions: [{name: v1, served: true, storage: true}]\n"
	tabbed := strings.Replace(widget, "  group:", "\tgroup:", 1)
	pieces := []string{widget, flow, tabbed, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "# c\n", "", "key: |\n  ---\n  text\n"}
	seps := []string{"---\n", "--- # doc\n", "---\r\n", "----\n", "---"}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 3000 {
		var b []byte
		for range rng.IntN(5) {
			b = append(b, seps[rng.IntN(len(seps))]...)
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		check(fmt.Sprintf("random #%d %q", n, b), b)
	}
	if testing.Short() {
		return
	}
	files := 0
	err := filepath.WalkDir(filepath.Join(corpus(t), "crds"), func(path string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		check(path, b)
		return nil
	})
	if err != nil || files < 2000 {
		t.Fatalf("%d files: %v", files, err)
	}
}

// A definition written as one JSON object (as the live cluster's cache
// writes each CRD) is read by encoding/json directly; it must give what
// the same definition gives written as YAML, for every definition of the
// corpus.
func TestParseDocJSONAgreesWithYAML(t *testing.T) {
	if testing.Short() {
		t.Skip("parses the whole corpus")
	}
	root := corpus(t)
	n := 0
	err := filepath.WalkDir(filepath.Join(root, "crds"), func(path string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, doc := range splitDocs(b) {
			fromYAML := parseDoc(doc)
			if fromYAML == nil {
				continue
			}
			j, err := sigsyaml.YAMLToJSON(doc)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			fromJSON := parseDoc(j)
			if !reflect.DeepEqual(fromJSON, fromYAML) {
				t.Errorf("%s:\nJSON %+v\nYAML %+v", path, fromJSON, fromYAML)
			}
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 2000 {
		t.Errorf("only %d definitions compared", n)
	}
	t.Logf("%d definitions read the same as JSON and as YAML", n)
}

// BenchmarkParseDocJSON: one CRD as a live cluster's cache holds it (a
// JSON object on one line), read for its names and versions.
func BenchmarkParseDocJSON(b *testing.B) {
	doc := []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"buckets.s3.aws.upbound.io","resourceVersion":"7"},"spec":{"group":"s3.aws.upbound.io","names":{"kind":"Bucket","plural":"buckets"},"scope":"Cluster","versions":[{"name":"v1beta1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"description":"Bucket is the Schema for the Buckets API.","type":"object","properties":{"spec":{"type":"object","properties":{"forProvider":{"type":"object","properties":{"region":{"type":"string"},"tags":{"type":"object","additionalProperties":{"type":"string"}}}}}}}}}}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if parseDoc(doc) == nil {
			b.Fatal("not read as a definition")
		}
	}
}
