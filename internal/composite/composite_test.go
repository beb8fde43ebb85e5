package composite

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// A v1 XRD with a claim, schema defaults, and a Composition that names a
// connection-secret namespace: Crossplane v1's (and v2's legacy) shape.
var legacyXRD = testfixtures.XRD{APIVersion: "v1", Group: "example.org", Kind: "XDatabase", Plural: "xdatabases", ClaimKind: "Database", ClaimPlural: "databases", Version: "v1alpha1", Schema: `
        type: object
        properties:
          spec:
            type: object
            required: [parameters]
            properties:
              parameters:
                type: object
                required: [size]
                properties:
                  size: {type: string, enum: [small, large]}
                  region: {type: string}
                  deletionPolicy: {type: string, default: Delete}
                  providerConfigName: {type: string, default: default}
`}.YAML()

// A v2 XRD (namespaced by default): Crossplane's fields under
// spec.crossplane, no connection secret.
var modernXRD = testfixtures.XRD{APIVersion: "v2", Group: "example.org", Kind: "XApp", Plural: "xapps", Version: "v1", Schema: `
        type: object
        properties:
          spec:
            type: object
            properties:
              image: {type: string}
              replicas: {type: integer, default: 2}
`}.YAML()

const composition = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: databases
spec:
  writeConnectionSecretsToNamespace: crossplane-system
  compositeTypeRef: {apiVersion: example.org/v1alpha1, kind: XDatabase}
  mode: Pipeline
  pipeline: []
`

func definition(t *testing.T, xrd string, gvk schemas.GVK) Definition {
	t.Helper()
	st := schemas.NewStore().WithFile(schemas.Source{Kind: schemas.SourceWorkspace}, "xrd.yaml", []byte(xrd))
	xr, ok := st.Lookup(gvk)
	if !ok {
		t.Fatalf("no %s", gvk)
	}
	def := Definition{APIVersion: gvk.APIVersion(), Kind: gvk.Kind, ClaimKind: xr.ClaimKind, Legacy: xr.LegacyXR, Namespaced: xr.Scope == schemas.Namespaced}
	var err error
	if def.XR, err = xr.Structural(); err != nil {
		t.Fatal(err)
	}
	if def.ClaimKind != "" {
		claim, _ := st.Lookup(schemas.GVK{Group: gvk.Group, Version: gvk.Version, Kind: def.ClaimKind})
		if def.Claim, err = claim.Structural(); err != nil {
			t.Fatal(err)
		}
	}
	return def
}

func object(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFromClaim(t *testing.T) {
	def := definition(t, legacyXRD, schemas.GVK{Group: "example.org", Version: "v1alpha1", Kind: "XDatabase"})
	if !def.Legacy || def.ClaimKind != "Database" || def.Namespaced {
		t.Fatalf("definition = %+v", def)
	}
	claim := object(t, `apiVersion: example.org/v1alpha1
kind: Database
metadata:
  name: db
  namespace: team-a
  labels: {team: a, app.kubernetes.io/name: db}
  annotations: {kubectl.kubernetes.io/last-applied-configuration: "{}", note: kept}
spec:
  parameters: {size: small}
  compositionUpdatePolicy: Manual
  compositionRevisionRef: {name: databases-abc1234}
  compositeDeletePolicy: Foreground
  writeConnectionSecretToRef: {name: db-conn}
  resourceRef: {apiVersion: example.org/v1alpha1, kind: XDatabase, name: db-old}
`)
	xr, origin := FromExample(def, object(t, composition), claim)
	if origin != FromClaim {
		t.Errorf("origin = %v", origin)
	}
	uid := UID(def, map[string]any{"name": "db-xxxxx"})
	want := object(t, `apiVersion: example.org/v1alpha1
kind: XDatabase
metadata:
  name: db-xxxxx
  generateName: db-
  uid: `+uid+`
  finalizers: [composite.apiextensions.crossplane.io]
  labels:
    team: a
    crossplane.io/claim-name: db
    crossplane.io/claim-namespace: team-a
    crossplane.io/composite: db-xxxxx
  annotations: {note: kept}
spec:
  parameters: {size: small, deletionPolicy: Delete, providerConfigName: default}
  compositionUpdatePolicy: Manual
  compositionRevisionRef: {name: databases-abc1234}
  compositionRef: {name: databases}
  claimRef: {apiVersion: example.org/v1alpha1, kind: Database, name: db, namespace: team-a}
  writeConnectionSecretToRef: {name: `+uid+`, namespace: crossplane-system}
`)
	if d := cmp.Diff(want, xr); d != "" {
		t.Errorf("XR for the claim (-want +got):\n%s", d)
	}
	// The claim itself is not modified.
	if _, ok := claim["spec"].(map[string]any)["writeConnectionSecretToRef"]; !ok {
		t.Error("the claim was modified")
	}
	if p := claim["spec"].(map[string]any)["parameters"].(map[string]any); len(p) != 1 {
		t.Errorf("the claim's parameters were defaulted in place: %v", p)
	}
}

func TestFromXRKeepsItsOwnFields(t *testing.T) {
	def := definition(t, legacyXRD, schemas.GVK{Group: "example.org", Version: "v1alpha1", Kind: "XDatabase"})
	xr, origin := FromExample(def, object(t, composition), object(t, `apiVersion: example.org/v1alpha1
kind: XDatabase
metadata:
  name: db
  namespace: ignored
  uid: 11111111-2222-3333-4444-555555555555
  labels: {crossplane.io/composite: parent-xr}
spec:
  parameters: {size: large, deletionPolicy: Orphan}
  writeConnectionSecretToRef: {name: mine, namespace: apps}
`))
	if origin != FromXR {
		t.Errorf("origin = %v", origin)
	}
	want := object(t, `apiVersion: example.org/v1alpha1
kind: XDatabase
metadata:
  name: db
  uid: 11111111-2222-3333-4444-555555555555
  finalizers: [composite.apiextensions.crossplane.io]
  labels: {crossplane.io/composite: parent-xr}
spec:
  parameters: {size: large, deletionPolicy: Orphan, providerConfigName: default}
  compositionRef: {name: databases}
  compositionUpdatePolicy: Automatic
  writeConnectionSecretToRef: {name: mine, namespace: apps}
`)
	if d := cmp.Diff(want, xr); d != "" {
		t.Errorf("prepared XR (-want +got):\n%s", d)
	}
}

func TestModernXRWritesNoConnectionSecret(t *testing.T) {
	def := definition(t, modernXRD, schemas.GVK{Group: "example.org", Version: "v1", Kind: "XApp"})
	if def.Legacy || !def.Namespaced {
		t.Fatalf("definition = %+v", def)
	}
	comp := object(t, composition)
	xr, _ := FromExample(def, comp, object(t, "apiVersion: example.org/v1\nkind: XApp\nmetadata:\n  name: app\nspec:\n  image: nginx\n"))
	want := object(t, `apiVersion: example.org/v1
kind: XApp
metadata:
  name: app
  namespace: default
  uid: `+UID(def, map[string]any{"name": "app", "namespace": "default"})+`
  finalizers: [composite.apiextensions.crossplane.io]
  labels: {crossplane.io/composite: app}
spec:
  image: nginx
  replicas: 2
  crossplane:
    compositionRef: {name: databases}
`)
	// The API server defaults what exists: spec.crossplane does not until
	// the reconciler selects the Composition, so no compositionUpdatePolicy.
	want["spec"].(map[string]any)["replicas"] = int64(2)
	if d := cmp.Diff(want, xr); d != "" {
		t.Errorf("prepared XR (-want +got):\n%s", d)
	}
}

// UID matches crossplane render's: a SHA-1 UUID of "group/version,
// Kind=kind", namespace and name, separated by NUL bytes.
func TestUID(t *testing.T) {
	def := Definition{APIVersion: "example.org/v1", Kind: "XApp"}
	a := UID(def, map[string]any{"name": "app", "namespace": "default"})
	if a != UID(def, map[string]any{"name": "app", "namespace": "default"}) || a == UID(def, map[string]any{"name": "app", "namespace": "other"}) {
		t.Errorf("UID is not a function of the GVK, namespace and name: %s", a)
	}
	// Known value (computed independently with Python's uuid.uuid5 over the
	// nil namespace).
	if want := "254f7216-f047-52a2-8f5a-9625173e3cdd"; a != want {
		t.Errorf("UID = %s, want %s", a, want)
	}
}

func TestSynthesizedClaimableXR(t *testing.T) {
	def := definition(t, legacyXRD, schemas.GVK{Group: "example.org", Version: "v1alpha1", Kind: "XDatabase"})
	xr := Synthesize(def, object(t, composition))
	md := xr["metadata"].(map[string]any)
	spec := xr["spec"].(map[string]any)
	if md["generateName"] != ClaimName+"-" || md["labels"].(map[string]any)["crossplane.io/claim-name"] != ClaimName {
		t.Errorf("metadata = %v", md)
	}
	if p := spec["parameters"].(map[string]any); p["size"] != "small" || p["deletionPolicy"] != "Delete" || p["region"] != nil {
		t.Errorf("parameters = %v: the required field gets its first enum value, defaults apply, optional fields stay unset", p)
	}
	if ref := spec["writeConnectionSecretToRef"].(map[string]any); ref["name"] != md["uid"] || ref["namespace"] != "crossplane-system" {
		t.Errorf("writeConnectionSecretToRef = %v", ref)
	}
	if ref := spec["claimRef"].(map[string]any); ref["kind"] != "Database" || ref["name"] != ClaimName {
		t.Errorf("claimRef = %v", ref)
	}
}
