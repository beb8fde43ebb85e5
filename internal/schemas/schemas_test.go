package schemas

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// corpus returns the shared corpus directory, skipping the test when it is
// absent (failing under CI=true).
func corpus(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("CRD_LSP_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("corpus not found at %s (set CRD_LSP_CORPUS): %v", dir, err)
		}
		tb.Skipf("corpus not found at %s (set CRD_LSP_CORPUS)", dir)
	}
	return dir
}

const (
	upjetDir    = "crds/providers/provider-upjet-aws-subset/v2.6.0/crds"
	xpDir       = "crds/crossplane/v2.3.4"
	provK8sGlob = "crds/providers/provider-kubernetes/*/crds"
)

func readCorpus(tb testing.TB, rel string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(corpus(tb), rel))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// storeOf indexes corpus files (relative paths) as workspace files.
func storeOf(tb testing.TB, rels ...string) *Store {
	tb.Helper()
	st := NewStore()
	for _, rel := range rels {
		st = st.WithFile(Source{Kind: SourceWorkspace, Name: rel, File: rel}, rel, readCorpus(tb, rel))
	}
	return st
}

// obj decodes YAML the way the API server's decoder does (integers as
// int64).
func obj(tb testing.TB, y string) map[string]any {
	tb.Helper()
	j, err := sigsyaml.YAMLToJSON([]byte(y))
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]any
	if err := utiljson.Unmarshal(j, &m); err != nil {
		tb.Fatal(err)
	}
	return m
}

func lookup(tb testing.TB, st *Store, gvk GVK) *Schema {
	tb.Helper()
	sc, ok := st.Lookup(gvk)
	if !ok {
		tb.Fatalf("no schema for %s", gvk)
	}
	return sc
}

// want is one expected error: exact path, OnKey and code, and a fragment of
// the message.
type want struct {
	path  string
	onKey bool
	code  string
	msg   string
}

func pathOf(segs ...any) fieldpath.Path {
	var p fieldpath.Path
	for _, s := range segs {
		switch s := s.(type) {
		case string:
			p = append(p, fieldpath.Field(s))
		case int:
			p = append(p, fieldpath.Index(s))
		}
	}
	return p
}

func expect(t *testing.T, got []Error, wants ...want) {
	t.Helper()
	for _, w := range wants {
		found := false
		for _, e := range got {
			if e.Path.String() == w.path && e.OnKey == w.onKey && e.Code == w.code && strings.Contains(e.Message, w.msg) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("missing error %+v; got:\n%s", w, dump(got))
		}
	}
	if len(got) != len(wants) {
		t.Errorf("got %d errors, want %d:\n%s", len(got), len(wants), dump(got))
	}
}

func dump(errs []Error) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("  ")
		b.WriteString(e.Path.String())
		if e.OnKey {
			b.WriteString(" (key)")
		}
		b.WriteString(": [" + e.Code + "] " + e.Message + "\n")
	}
	return b.String()
}

var (
	rdsCluster = GVK{Group: "rds.aws.upbound.io", Version: "v1beta3", Kind: "Instance"}
	ec2Inst    = GVK{Group: "ec2.aws.upbound.io", Version: "v1beta2", Kind: "Instance"}
)

var (
	upjetOnce  sync.Once
	upjetStore *Store
)

func upjet(tb testing.TB) *Store {
	tb.Helper()
	corpus(tb)
	upjetOnce.Do(func() {
		upjetStore = storeOf(tb,
			upjetDir+"/rds.aws.upbound.io_instances.yaml",
			upjetDir+"/rds.aws.m.upbound.io_instances.yaml",
			upjetDir+"/ec2.aws.upbound.io_instances.yaml",
			upjetDir+"/s3.aws.upbound.io_buckets.yaml",
			xpDir+"/apiextensions.crossplane.io_compositions.yaml",
		)
	})
	return upjetStore
}

const rdsBase = `apiVersion: rds.aws.upbound.io/v1beta3
kind: Instance
metadata:
  name: db
spec:
  forProvider:
    region: us-east-1
    instanceClass: db.t3.micro
    engine: postgres
`

func TestValidateValidResource(t *testing.T) {
	sc := lookup(t, upjet(t), rdsCluster)
	expect(t, sc.Validate(context.Background(), obj(t, rdsBase)))
}

func TestValidateUnknownField(t *testing.T) {
	sc := lookup(t, upjet(t), rdsCluster)
	got := sc.Validate(context.Background(), obj(t, rdsBase+"    engin: mysql\n"))
	expect(t, got, want{"spec.forProvider.engin", true, "unknown-field", `unknown field "engin"; did you mean "engine"?`})
	if !got[0].Path.Equal(pathOf("spec", "forProvider", "engin")) {
		t.Errorf("path %#v", got[0].Path)
	}
}

func TestValidateWrongType(t *testing.T) {
	sc := lookup(t, upjet(t), rdsCluster)
	got := sc.Validate(context.Background(), obj(t, rdsBase+"    allocatedStorage: big\n"))
	expect(t, got,
		want{"spec.forProvider.allocatedStorage", false, "type", `must be of type number: "string"`},
		// A type error blocks CEL, as in the API server.
		want{"", true, "cel", "were not checked"},
	)
}

func TestValidateEnum(t *testing.T) {
	sc := lookup(t, upjet(t), rdsCluster)
	got := sc.Validate(context.Background(), obj(t, rdsBase+"  deletionPolicy: Keep\n"))
	expect(t, got,
		want{"spec.deletionPolicy", false, "enum", `unsupported value "Keep": supported values: "Orphan", "Delete"`},
		want{"", true, "cel", "were not checked"},
	)
}

func TestValidateRequired(t *testing.T) {
	sc := lookup(t, upjet(t), rdsCluster)
	got := sc.Validate(context.Background(), obj(t, rdsBase+"  writeConnectionSecretToRef:\n    namespace: default\n"))
	expect(t, got,
		want{"spec.writeConnectionSecretToRef", true, "required", `missing required field "name"`},
		want{"", true, "cel", "were not checked"},
	)
}

func TestValidateListIndex(t *testing.T) {
	sc := lookup(t, upjet(t), rdsCluster)
	got := sc.Validate(context.Background(), obj(t, rdsBase+"    vpcSecurityGroupIds: [sg-1, sg-2, 3]\n"))
	expect(t, got,
		want{"spec.forProvider.vpcSecurityGroupIds[2]", false, "type", `must be of type string: "integer"`},
		want{"", true, "cel", "were not checked"},
	)
	if !got[1].Path.Equal(pathOf("spec", "forProvider", "vpcSecurityGroupIds", 2)) {
		t.Errorf("path %#v", got[1].Path)
	}
}

func TestValidateUnknownFieldInThirdListItem(t *testing.T) {
	sc := lookup(t, upjet(t), ec2Inst)
	got := sc.Validate(context.Background(), obj(t, `apiVersion: ec2.aws.upbound.io/v1beta2
kind: Instance
metadata:
  name: vm
spec:
  forProvider:
    region: us-east-1
    ebsBlockDevice:
    - deviceName: /dev/a
    - deviceName: /dev/b
    - deviceName: /dev/c
      volumeSize: large
      volumSize: 3
`))
	expect(t, got,
		want{"spec.forProvider.ebsBlockDevice[2].volumSize", true, "unknown-field", `unknown field "volumSize"; did you mean "volumeSize"?`},
		want{"spec.forProvider.ebsBlockDevice[2].volumeSize", false, "type", `must be of type number: "string"`},
	)
}

// The upjet rule "spec.forProvider.instanceClass is a required parameter"
// reads managementPolicies, which only exists once its default ['*'] is
// applied: it must fail on a resource that does not set it.
func TestValidateCELAfterDefaulting(t *testing.T) {
	sc := lookup(t, upjet(t), rdsCluster)
	noClass := strings.Replace(rdsBase, "    instanceClass: db.t3.micro\n", "", 1)
	got := sc.Validate(context.Background(), obj(t, noClass))
	expect(t, got, want{"spec", true, "cel", "spec.forProvider.instanceClass is a required parameter"})
	if !got[0].Path.Equal(pathOf("spec")) {
		t.Errorf("path %#v", got[0].Path)
	}
	// Observe-only: the rule holds without instanceClass.
	observe := noClass + "  managementPolicies: [Observe]\n"
	expect(t, sc.Validate(context.Background(), obj(t, observe)))
	// The caller's object is not modified by defaulting.
	o := obj(t, noClass)
	sc.Validate(context.Background(), o)
	if _, ok := o["spec"].(map[string]any)["managementPolicies"]; ok {
		t.Error("Validate modified its input")
	}
}

func TestValidateListMapDuplicate(t *testing.T) {
	sc := lookup(t, upjet(t), GVK{Group: "apiextensions.crossplane.io", Version: "v1", Kind: "Composition"})
	got := sc.Validate(context.Background(), obj(t, testfixtures.Composition{Name: "xdb", XRAPIVersion: "example.org/v1", XRKind: "XDB", Steps: `
  - step: a
    functionRef:
      name: fn
  - step: b
    functionRef:
      name: fn
  - step: a
    functionRef:
      name: fn
`}.YAML()))
	expect(t, got, want{"spec.pipeline[2]", false, "duplicate", `duplicate entry {step: a}`})
}

func TestValidateListSetDuplicate(t *testing.T) {
	sc := lookup(t, upjet(t), GVK{Group: "ec2.aws.upbound.io", Version: "v1beta2", Kind: "Instance"})
	got := sc.Validate(context.Background(), obj(t, `apiVersion: ec2.aws.upbound.io/v1beta2
kind: Instance
metadata:
  name: vm
spec:
  forProvider:
    region: us-east-1
    vpcSecurityGroupIds: [a, b, a]
`))
	expect(t, got, want{"spec.forProvider.vpcSecurityGroupIds[2]", false, "duplicate", `duplicate entry "a"`})
}

func TestValidateMetadataName(t *testing.T) {
	sc := lookup(t, upjet(t), rdsCluster)
	got := sc.Validate(context.Background(), obj(t, strings.Replace(rdsBase, "name: db", "name: My_DB", 1)))
	expect(t, got, want{"metadata.name", false, "metadata", `invalid value "My_DB": a lowercase RFC 1123 subdomain`})

	// No name: an error, unless generateName is set.
	got = sc.Validate(context.Background(), obj(t, strings.Replace(rdsBase, "  name: db\n", "  labels: {a: b}\n", 1)))
	expect(t, got,
		want{"metadata", true, "required", `missing required field "name": name or generateName is required`},
		want{"", true, "cel", "were not checked"},
	)
	got = sc.Validate(context.Background(), obj(t, strings.Replace(rdsBase, "  name: db\n", "  generateName: db-\n", 1)))
	expect(t, got)
	got = sc.Validate(context.Background(), obj(t, strings.Replace(rdsBase, "  name: db\n", "  generateName: DB-\n", 1)))
	expect(t, got, want{"metadata.generateName", false, "metadata", "RFC 1123"})
}

func TestValidateLabels(t *testing.T) {
	sc := lookup(t, upjet(t), rdsCluster)
	got := sc.Validate(context.Background(), obj(t, strings.Replace(rdsBase, "  name: db\n",
		"  name: db\n  labels:\n    example.com/ok: 'yes'\n    foo.bar/a b: x\n    c: -bad-\n  annotations:\n    foo.bar/baz: ok\n  lables: {}\n", 1)))
	expect(t, got,
		want{"metadata.labels[foo.bar/a b]", true, "metadata", `invalid value "foo.bar/a b": name part must consist of`},
		want{"metadata.labels.c", false, "metadata", `invalid value "-bad-": a valid label must be`},
		want{"metadata.lables", true, "unknown-field", `did you mean "labels"?`},
	)
	for _, e := range got {
		if e.OnKey && e.Code == "metadata" && !e.Path.Equal(pathOf("metadata", "labels", "foo.bar/a b")) {
			t.Errorf("label key path %#v", e.Path)
		}
	}
}

func TestValidateMetadataDecodeError(t *testing.T) {
	sc := lookup(t, upjet(t), rdsCluster)
	got := sc.Validate(context.Background(), obj(t, strings.Replace(rdsBase, "  name: db\n", "  name: db\n  labels:\n    a: b\n    enabled: true\n", 1)))
	// The API server rejects the request outright; we report the value and
	// validate the rest.
	expect(t, got, want{"metadata.labels.enabled", false, "metadata", "must be of type string, not bool"})
}

func TestValidateNamespaceScope(t *testing.T) {
	st := upjet(t)
	// Cluster scoped: the API server clears a namespace and accepts the
	// object; a warning says it is ignored.
	sc := lookup(t, st, rdsCluster)
	if sc.Scope != Cluster {
		t.Errorf("scope %q", sc.Scope)
	}
	got := sc.Validate(context.Background(), obj(t, strings.Replace(rdsBase, "  name: db\n", "  name: db\n  namespace: default\n", 1)))
	expect(t, got, want{"metadata.namespace", false, "metadata", "ignored: Instance is cluster-scoped, so the API server clears metadata.namespace"})
	for _, e := range got {
		if e.Severity != severity.Warning {
			t.Errorf("%v: severity %v, want a warning", e, e.Severity)
		}
	}
	// Even an invalid one: it is cleared before validation.
	got = sc.Validate(context.Background(), obj(t, strings.Replace(rdsBase, "  name: db\n", "  name: db\n  namespace: Team_A\n", 1)))
	expect(t, got, want{"metadata.namespace", false, "metadata", "ignored: Instance is cluster-scoped"})

	// Namespaced: a missing namespace is fine (kubectl fills it in), a bad
	// one is not.
	ns := lookup(t, st, GVK{Group: "rds.aws.m.upbound.io", Version: "v1beta1", Kind: "Instance"})
	if ns.Scope != Namespaced {
		t.Errorf("scope %q", ns.Scope)
	}
	base := strings.Replace(rdsBase, "rds.aws.upbound.io/v1beta3", "rds.aws.m.upbound.io/v1beta1", 1)
	expect(t, ns.Validate(context.Background(), obj(t, base)))
	got = ns.Validate(context.Background(), obj(t, strings.Replace(base, "  name: db\n", "  name: db\n  namespace: Team_A\n", 1)))
	expect(t, got, want{"metadata.namespace", false, "metadata", "RFC 1123 label"})
}

func TestValidateStatusDroppedOnCreate(t *testing.T) {
	sc := lookup(t, upjet(t), rdsCluster)
	got := sc.Validate(context.Background(), obj(t, rdsBase+"status:\n  atProvider:\n    port: notanumber\n    bogus: 1\n"))
	// The status subresource: status is dropped before validation; only
	// its unknown fields (found while decoding) are reported.
	expect(t, got, want{"status.atProvider.bogus", true, "unknown-field", `unknown field "bogus"`})
}

func TestValidateTypeMeta(t *testing.T) {
	sc := lookup(t, upjet(t), rdsCluster)
	got := sc.Validate(context.Background(), obj(t, strings.Replace(rdsBase, "kind: Instance", "kind: Cluster", 1)))
	expect(t, got, want{"kind", false, "invalid", "must be Instance"})
}

func TestValidateDeterministic(t *testing.T) {
	sc := lookup(t, upjet(t), rdsCluster)
	doc := strings.Replace(rdsBase, "name: db", "name: DB", 1) + "    engin: x\n    port: x\n    tags: {a: 1}\n  deletionPolicy: x\n"
	first := dump(sc.Validate(context.Background(), obj(t, doc)))
	for range 5 {
		if again := dump(sc.Validate(context.Background(), obj(t, doc))); again != first {
			t.Fatalf("not deterministic:\n%s\nvs\n%s", first, again)
		}
	}
}

func TestResolvePaths(t *testing.T) {
	in := obj(t, `
metadata:
  labels:
    foo.bar/baz: x
    "2": y
spec:
  forProvider:
    attribute: [{}, {}, {type: 1}]
  a.b:
    c: 1
  weird]key: 1
`)
	r := &resolver{in: in}
	for s, want := range map[string]fieldpath.Path{
		"spec.forProvider.attribute[2].type": pathOf("spec", "forProvider", "attribute", 2, "type"),
		"metadata.labels[foo.bar/baz]":       pathOf("metadata", "labels", "foo.bar/baz"),
		"metadata.labels.foo.bar/baz":        pathOf("metadata", "labels", "foo.bar/baz"),
		"metadata.labels[2]":                 pathOf("metadata", "labels", "2"),
		"spec.a.b.c":                         pathOf("spec", "a.b", "c"),
		"spec[a.b].c":                        pathOf("spec", "a.b", "c"),
		"spec[weird]key]":                    pathOf("spec", "weird]key"),
		"spec.missing[3].x":                  pathOf("spec", "missing", 3, "x"),
		"":                                   nil,
	} {
		if got := r.resolve(s); !got.Equal(want) {
			t.Errorf("resolve(%q) = %#v, want %#v", s, got, want)
		}
	}
}

func TestXRDSchemas(t *testing.T) {
	xrdV1 := []byte(testfixtures.XRD{APIVersion: "v1", Group: "example.org", Kind: "XDatabase", Plural: "xdatabases", ClaimKind: "Database", ClaimPlural: "databases", Version: "v1alpha1", Schema: `
        description: A Database is a database.
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: string
                enum: [small, large]
            required: [size]
`}.YAML())
	xrdV2 := []byte(testfixtures.XRD{APIVersion: "v2", Group: "example.org", Kind: "XApp", Plural: "xapps", Version: "v1", Schema: `
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer, minimum: 1}
`}.YAML())
	st := NewStore().WithFile(Source{Kind: SourceWorkspace}, "xrd1.yaml", xrdV1).WithFile(Source{Kind: SourceWorkspace}, "xrd2.yaml", xrdV2)
	gvks := st.FileGVKs("xrd1.yaml")
	if len(gvks) != 2 || gvks[0] != (GVK{Group: "example.org", Version: "v1alpha1", Kind: "XDatabase"}) || gvks[1] != (GVK{Group: "example.org", Version: "v1alpha1", Kind: "Database"}) {
		t.Fatalf("FileGVKs = %v", gvks)
	}
	xr := lookup(t, st, GVK{Group: "example.org", Version: "v1alpha1", Kind: "XDatabase"})
	claim := lookup(t, st, GVK{Group: "example.org", Version: "v1alpha1", Kind: "Database"})
	app := lookup(t, st, GVK{Group: "example.org", Version: "v1", Kind: "XApp"})
	if xr.Scope != Cluster || claim.Scope != Namespaced || app.Scope != Namespaced {
		t.Errorf("scopes: XR %s, claim %s, v2 XR %s", xr.Scope, claim.Scope, app.Scope)
	}
	if xr.Description != "A Database is a database." {
		t.Errorf("description %q", xr.Description)
	}

	// The claim gets Crossplane's claim fields (compositionRef …) and the
	// user's schema.
	got := claim.Validate(context.Background(), obj(t, `apiVersion: example.org/v1alpha1
kind: Database
metadata: {name: db, namespace: team}
spec:
  size: medium
  compositionRef: {name: x}
  compositionSelectr: {}
`))
	expect(t, got,
		want{"spec.compositionSelectr", true, "unknown-field", `did you mean "compositionSelector"?`},
		want{"spec.size", false, "enum", `unsupported value "medium": supported values: "small", "large"`},
	)
	got = xr.Validate(context.Background(), obj(t, `apiVersion: example.org/v1alpha1
kind: XDatabase
metadata: {name: db}
spec:
  claimRef: {apiVersion: example.org/v1alpha1, kind: Database, name: db, namespace: team}
`))
	expect(t, got, want{"spec", true, "required", `missing required field "size"`})
	got = app.Validate(context.Background(), obj(t, `apiVersion: example.org/v1
kind: XApp
metadata: {name: a, namespace: default}
spec:
  replicas: 0
  crossplane: {compositionRef: {name: c}}
`))
	expect(t, got, want{"spec.replicas", false, "range", "should be greater than or equal to 1"})
}

func TestMRDIndexed(t *testing.T) {
	mrd := []byte(`apiVersion: apiextensions.crossplane.io/v1alpha1
kind: ManagedResourceDefinition
metadata:
  name: buckets.s3.example.org
spec:
  group: s3.example.org
  names: {kind: Bucket, plural: buckets}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              region: {type: string}
`)
	st := NewStore().WithFile(Source{Kind: SourceWorkspace}, "mrd.yaml", mrd)
	sc := lookup(t, st, GVK{Group: "s3.example.org", Version: "v1", Kind: "Bucket"})
	if sc.Scope != Cluster || sc.Plural != "buckets" || sc.CRDName != "buckets.s3.example.org" {
		t.Errorf("%+v", sc)
	}
	got := sc.Validate(context.Background(), obj(t, "apiVersion: s3.example.org/v1\nkind: Bucket\nmetadata: {name: b}\nspec: {region: 1}\n"))
	expect(t, got, want{"spec.region", false, "type", `must be of type string: "integer"`})
}
