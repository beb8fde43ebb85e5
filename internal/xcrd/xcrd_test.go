package xcrd

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	corpusdir "github.com/crd-lsp/crd-lsp/internal/corpus"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apivalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	crvalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// docs decodes every YAML document of a file as the API server would
// (integers as int64).
func docs(t *testing.T, text string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, part := range strings.Split("\n"+text, "\n---") {
		j, err := sigsyaml.YAMLToJSON([]byte(part))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := utiljson.Unmarshal(j, &m); err != nil {
			t.Fatal(err)
		}
		if m != nil {
			out = append(out, m)
		}
	}
	return out
}

func load(t *testing.T, rel string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpusdir.Dir(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return docs(t, string(b))[0]
}

// valid checks a derived CRD as the API server would on create, and that
// every version's schema is structural.
func valid(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	// As created: the API server defaults the CRD and records its
	// storage version.
	created := crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(created)
	var internal apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(created, &internal, nil); err != nil {
		t.Fatal(err)
	}
	if errs := apivalidation.ValidateCustomResourceDefinition(context.Background(), &internal); len(errs) > 0 {
		t.Errorf("%s: %v", crd.Name, errs)
	}
	for _, v := range crd.Spec.Versions {
		s := structural(t, v.Schema.OpenAPIV3Schema)
		if errs := structuralschema.ValidateStructural(nil, s); len(errs) > 0 {
			t.Errorf("%s %s: %v", crd.Name, v.Name, errs)
		}
	}
}

func internalSchema(t *testing.T, s *apiextensionsv1.JSONSchemaProps) *apiextensions.JSONSchemaProps {
	t.Helper()
	var out apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(s.DeepCopy(), &out, nil); err != nil {
		t.Fatal(err)
	}
	return &out
}

func structural(t *testing.T, s *apiextensionsv1.JSONSchemaProps) *structuralschema.Structural {
	t.Helper()
	st, err := structuralschema.NewStructural(internalSchema(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// at walks a schema: "a.b" are properties, "[]" the items of an array,
// "{}" an object's additionalProperties.
func at(s *apiextensionsv1.JSONSchemaProps, path string) (apiextensionsv1.JSONSchemaProps, bool) {
	cur := *s
	for _, p := range strings.Split(path, ".") {
		switch p {
		case "[]":
			if cur.Items == nil || cur.Items.Schema == nil {
				return cur, false
			}
			cur = *cur.Items.Schema
		case "{}":
			if cur.AdditionalProperties == nil || cur.AdditionalProperties.Schema == nil {
				return cur, false
			}
			cur = *cur.AdditionalProperties.Schema
		default:
			next, ok := cur.Properties[p]
			if !ok {
				return cur, false
			}
			cur = next
		}
	}
	return cur, true
}

func keys(p apiextensionsv1.JSONSchemaProps) []string {
	var out []string
	for k := range p.Properties {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sorted(xs ...string) []string { sort.Strings(xs); return xs }

const (
	sqlXRD  = "compositions/upbound-platform-ref-aws/v0.6.0/package/database/sqlinstance/definition.yaml"
	netXRD  = "compositions/upbound-platform-ref-aws/v0.6.0/package/cluster/network/definition.yaml"
	appXRD  = "compositions/crossplane-docs/content/master/manifests/get-started/composition/xrd.yaml"
	nosqlV1 = "compositions/crossplane-docs/content/v1.20/manifests/getting-started/aws-part-2/nosqls.database.example.com.yaml"
)

var (
	legacyXRSpecV2 = sorted("compositionRef", "compositionSelector", "compositionRevisionRef", "compositionRevisionSelector", "compositionUpdatePolicy", "resourceRefs", "claimRef", "writeConnectionSecretToRef")
	legacyXRSpecV1 = sorted("compositionRef", "compositionSelector", "compositionRevisionRef", "compositionRevisionSelector", "compositionUpdatePolicy", "resourceRefs", "claimRef", "writeConnectionSecretToRef", "publishConnectionDetailsTo")
	modernXRInner  = sorted("compositionRef", "compositionSelector", "compositionRevisionRef", "compositionRevisionSelector", "compositionUpdatePolicy", "resourceRefs")
	claimSpecV2    = sorted("compositionRef", "compositionSelector", "compositionRevisionRef", "compositionRevisionSelector", "compositionUpdatePolicy", "compositeDeletePolicy", "resourceRef", "writeConnectionSecretToRef")
	claimSpecV1    = sorted("compositionRef", "compositionSelector", "compositionRevisionRef", "compositionRevisionSelector", "compositionUpdatePolicy", "compositeDeletePolicy", "resourceRef", "writeConnectionSecretToRef", "publishConnectionDetailsTo")
	legacyStatus   = sorted("conditions", "connectionDetails", "claimConditionTypes")
)

// TestCorpusDerivations checks the derived CRDs of real XRDs field by field.
func TestCorpusDerivations(t *testing.T) {
	type fieldType struct{ path, typ string }
	for _, tc := range []struct {
		name       string
		xrd        string
		claim      bool
		major      int
		crdName    string
		kind       string
		scope      apiextensionsv1.ResourceScope
		categories []string
		// spec and status: Crossplane's properties there (spec.crossplane's
		// for modern XRs), which must appear exactly; user: properties of
		// the XRD's own that must survive.
		crossplaneSpec   []string
		crossplaneStatus []string
		user             []string
		types            []fieldType
		absent           []string
		defaults         map[string]string
	}{{
		name: "v1 XRD, XR, Crossplane v2", xrd: sqlXRD, major: 2,
		crdName: "xsqlinstances.aws.platformref.upbound.io", kind: "XSQLInstance",
		scope: apiextensionsv1.ClusterScoped, categories: []string{"composite"},
		crossplaneSpec: legacyXRSpecV2, crossplaneStatus: legacyStatus,
		user: []string{"spec.parameters.engine", "spec.parameters.storageGB"},
		types: []fieldType{
			{"spec.compositionRef.name", "string"},
			{"spec.compositionSelector.matchLabels.{}", "string"},
			{"spec.claimRef.namespace", "string"},
			{"spec.writeConnectionSecretToRef.namespace", "string"},
			{"spec.resourceRefs.[].namespace", "string"},
			{"spec.compositionUpdatePolicy", "string"},
			{"status.conditions.[].observedGeneration", "integer"},
			{"status.connectionDetails.lastPublishedTime", "string"},
			{"status.claimConditionTypes.[]", "string"},
			{"metadata.name", "string"},
		},
		absent:   []string{"spec.crossplane", "spec.environmentConfigRefs", "status.crossplane"},
		defaults: map[string]string{"spec.compositionUpdatePolicy": `"Automatic"`},
	}, {
		name: "v1 XRD, claim, Crossplane v2", xrd: sqlXRD, claim: true, major: 2,
		crdName: "sqlinstances.aws.platformref.upbound.io", kind: "SQLInstance",
		scope: apiextensionsv1.NamespaceScoped, categories: []string{"claim"},
		crossplaneSpec: claimSpecV2, crossplaneStatus: legacyStatus,
		user: []string{"spec.parameters.engine"},
		types: []fieldType{
			{"spec.resourceRef.name", "string"},
			{"spec.writeConnectionSecretToRef.name", "string"},
			{"spec.compositeDeletePolicy", "string"},
		},
		absent: []string{"spec.claimRef", "spec.writeConnectionSecretToRef.namespace", "spec.crossplane"},
		defaults: map[string]string{
			"spec.compositeDeletePolicy":   `"Background"`,
			"spec.compositionUpdatePolicy": "",
		},
	}, {
		name: "v1 XRD, XR, Crossplane v1.20", xrd: sqlXRD, major: 1,
		crdName: "xsqlinstances.aws.platformref.upbound.io", kind: "XSQLInstance",
		scope: apiextensionsv1.ClusterScoped, categories: []string{"composite"},
		crossplaneSpec: legacyXRSpecV1, crossplaneStatus: legacyStatus,
		user: []string{"spec.parameters.engine"},
		types: []fieldType{
			{"spec.publishConnectionDetailsTo.configRef.name", "string"},
			{"spec.publishConnectionDetailsTo.metadata.labels.{}", "string"},
			{"spec.claimRef.name", "string"},
		},
		absent:   []string{"spec.resourceRefs.[].namespace", "status.conditions.[].observedGeneration"},
		defaults: map[string]string{"spec.compositionUpdatePolicy": `"Automatic"`, "spec.publishConnectionDetailsTo.configRef": `{"name": "default"}`},
	}, {
		name: "v1 XRD, claim, Crossplane v1.20", xrd: sqlXRD, claim: true, major: 1,
		crdName: "sqlinstances.aws.platformref.upbound.io", kind: "SQLInstance",
		scope: apiextensionsv1.NamespaceScoped, categories: []string{"claim"},
		crossplaneSpec: claimSpecV1, crossplaneStatus: legacyStatus,
		user:     []string{"spec.parameters.engine"},
		types:    []fieldType{{"spec.publishConnectionDetailsTo.name", "string"}},
		defaults: map[string]string{"spec.compositeDeletePolicy": `"Background"`},
	}, {
		name: "v1 XRD from the v1.20 docs, claim", xrd: nosqlV1, claim: true, major: 2,
		crdName: "nosqlclaim.database.example.com", kind: "NoSQLClaim",
		scope: apiextensionsv1.NamespaceScoped, categories: []string{"claim"},
		crossplaneSpec: claimSpecV2, crossplaneStatus: legacyStatus,
		user: []string{"spec.location"},
	}, {
		name: "v2 XRD, XR", xrd: appXRD, major: 2,
		crdName: "apps.example.crossplane.io", kind: "App",
		scope: apiextensionsv1.NamespaceScoped, categories: []string{"composite"},
		crossplaneSpec: modernXRInner, crossplaneStatus: []string{"conditions"},
		user: []string{"spec.image", "status.replicas", "status.address"},
		types: []fieldType{
			{"spec.crossplane", "object"},
			{"spec.crossplane.compositionSelector.matchLabels", "object"},
			{"spec.crossplane.compositionSelector.matchLabels.{}", "string"},
			{"spec.crossplane.compositionRevisionSelector.matchLabels.{}", "string"},
			{"spec.crossplane.compositionRef.name", "string"},
			{"spec.crossplane.resourceRefs.[].name", "string"},
			{"status.conditions.[].type", "string"},
		},
		absent: []string{
			"spec.compositionRef", "spec.claimRef", "spec.writeConnectionSecretToRef",
			"spec.crossplane.resourceRefs.[].namespace", "spec.crossplane.claimRef",
			"status.crossplane", "status.connectionDetails", "status.claimConditionTypes",
		},
		defaults: map[string]string{"spec.crossplane.compositionUpdatePolicy": `"Automatic"`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			xrd := load(t, tc.xrd)
			o := Options{CrossplaneMajor: tc.major}
			f := ForCompositeResourceFor
			if tc.claim {
				f = ForCompositeResourceClaimFor
			}
			crd, err := f(xrd, o)
			if err != nil {
				t.Fatal(err)
			}
			valid(t, crd)
			if crd.Name != tc.crdName || crd.Spec.Names.Kind != tc.kind || crd.Spec.Scope != tc.scope {
				t.Errorf("got %s %s %s, want %s %s %s", crd.Name, crd.Spec.Names.Kind, crd.Spec.Scope, tc.crdName, tc.kind, tc.scope)
			}
			if !reflect.DeepEqual(crd.Spec.Names.Categories, tc.categories) {
				t.Errorf("categories %v, want %v", crd.Spec.Names.Categories, tc.categories)
			}
			if crd.Spec.Names.ListKind != tc.kind+"List" {
				t.Errorf("listKind %q", crd.Spec.Names.ListKind)
			}
			for _, v := range crd.Spec.Versions {
				root := v.Schema.OpenAPIV3Schema
				spec, _ := at(root, "spec")
				if inner, ok := at(root, "spec.crossplane"); ok {
					spec = inner
				}
				for _, k := range tc.crossplaneSpec {
					if _, ok := spec.Properties[k]; !ok {
						t.Errorf("%s: no Crossplane spec field %s (have %v)", v.Name, k, keys(spec))
					}
				}
				if inner, ok := at(root, "spec.crossplane"); ok && !reflect.DeepEqual(keys(inner), tc.crossplaneSpec) {
					t.Errorf("%s: spec.crossplane has %v, want exactly %v", v.Name, keys(inner), tc.crossplaneSpec)
				}
				status, _ := at(root, "status")
				for _, k := range tc.crossplaneStatus {
					if _, ok := status.Properties[k]; !ok {
						t.Errorf("%s: no Crossplane status field %s (have %v)", v.Name, k, keys(status))
					}
				}
				for _, p := range tc.user {
					if _, ok := at(root, p); !ok {
						t.Errorf("%s: user field %s lost", v.Name, p)
					}
				}
				for _, ft := range tc.types {
					got, ok := at(root, ft.path)
					if !ok || got.Type != ft.typ {
						t.Errorf("%s: %s type %q (found %v), want %q", v.Name, ft.path, got.Type, ok, ft.typ)
					}
				}
				for _, p := range tc.absent {
					if _, ok := at(root, p); ok {
						t.Errorf("%s: unexpected %s", v.Name, p)
					}
				}
				for p, want := range tc.defaults {
					got, ok := at(root, p)
					if !ok {
						t.Errorf("%s: no %s", v.Name, p)
						continue
					}
					var raw string
					if got.Default != nil {
						raw = string(got.Default.Raw)
					}
					if raw != want {
						t.Errorf("%s: %s default %s, want %s", v.Name, p, raw, want)
					}
				}
				if n, _ := at(root, "metadata.name"); n.MaxLength == nil || *n.MaxLength != 63 {
					t.Errorf("%s: metadata.name maxLength %v", v.Name, n.MaxLength)
				}
			}
		})
	}
}

// TestCrossplaneFieldsExactly pins the sets of fields Crossplane adds per
// shape and version, and the user's clashing fields losing to them.
func TestCrossplaneFieldsExactly(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		apiVersion, scope    string
		major                int
		claim                bool
		wantScope            apiextensionsv1.ResourceScope
		wantSpec, wantStatus []string // beside the user's "mine"
		columns              []string
	}{
		{"v1 legacy on v2", "v1", "", 2, false, apiextensionsv1.ClusterScoped, legacyXRSpecV2, legacyStatus,
			[]string{"MINE:.spec.mine", "SYNCED:.status.conditions[?(@.type=='Synced')].status", "READY:.status.conditions[?(@.type=='Ready')].status", "COMPOSITION:.spec.compositionRef.name", "COMPOSITIONREVISION:.spec.compositionRevisionRef.name", "AGE:.metadata.creationTimestamp"}},
		{"v1 legacy on v1.20", "v1", "", 1, false, apiextensionsv1.ClusterScoped, legacyXRSpecV1, legacyStatus, nil},
		{"v1 XRD scope Namespaced on v2", "v1", "Namespaced", 2, false, apiextensionsv1.NamespaceScoped, []string{"crossplane"}, []string{"conditions"}, nil},
		{"v1 XRD scope Namespaced on v1.20 (no scope then)", "v1", "Namespaced", 1, false, apiextensionsv1.ClusterScoped, legacyXRSpecV1, legacyStatus, nil},
		{"v2 default scope", "v2", "", 2, false, apiextensionsv1.NamespaceScoped, []string{"crossplane"}, []string{"conditions"},
			[]string{"MINE:.spec.mine", "SYNCED:.status.conditions[?(@.type=='Synced')].status", "READY:.status.conditions[?(@.type=='Ready')].status", "COMPOSITION:.spec.crossplane.compositionRef.name", "COMPOSITIONREVISION:.spec.crossplane.compositionRevisionRef.name", "AGE:.metadata.creationTimestamp"}},
		{"v2 Cluster", "v2", "Cluster", 2, false, apiextensionsv1.ClusterScoped, []string{"crossplane"}, []string{"conditions"}, nil},
		{"v2 LegacyCluster (lenient)", "v2", "LegacyCluster", 2, false, apiextensionsv1.ClusterScoped, legacyXRSpecV2, legacyStatus, nil},
		{"claim on v2", "v1", "", 2, true, apiextensionsv1.NamespaceScoped, claimSpecV2, legacyStatus,
			[]string{"MINE:.spec.mine", "SYNCED:.status.conditions[?(@.type=='Synced')].status", "READY:.status.conditions[?(@.type=='Ready')].status", "CONNECTION-SECRET:.spec.writeConnectionSecretToRef.name", "AGE:.metadata.creationTimestamp"}},
		{"claim on v1.20", "v1", "", 1, true, apiextensionsv1.NamespaceScoped, claimSpecV1, legacyStatus, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := testXRD(tc.apiVersion, tc.scope)
			f := ForCompositeResourceFor
			if tc.claim {
				f = ForCompositeResourceClaimFor
			}
			crd, err := f(x, Options{CrossplaneMajor: tc.major})
			if err != nil {
				t.Fatal(err)
			}
			valid(t, crd)
			if crd.Spec.Scope != tc.wantScope {
				t.Errorf("scope %s, want %s", crd.Spec.Scope, tc.wantScope)
			}
			root := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
			// The XRD's own fields: spec.compositionRef is replaced by
			// Crossplane's unless Crossplane's are under spec.crossplane.
			userSpec := []string{"mine", "replicas"}
			if tc.wantSpec[0] == "crossplane" {
				userSpec = append(userSpec, "compositionRef")
			}
			if got, want := keys(root.Properties["spec"]), sorted(append(userSpec, tc.wantSpec...)...); !reflect.DeepEqual(got, want) {
				t.Errorf("spec fields %v, want %v", got, want)
			}
			if got, want := keys(root.Properties["status"]), sorted(append([]string{"mine", "replicas"}, tc.wantStatus...)...); !reflect.DeepEqual(got, want) {
				t.Errorf("status fields %v, want %v", got, want)
			}
			if c, ok := at(root, "spec.crossplane"); ok && !reflect.DeepEqual(keys(c), modernXRInner) {
				t.Errorf("spec.crossplane fields %v", keys(c))
			}
			// The XRD's own compositionRef and conditions lose to Crossplane's.
			if p, _ := at(root, "spec.compositionRef"); (p.Type == "object") != (tc.wantSpec[0] != "crossplane") {
				t.Errorf("spec.compositionRef: %+v", p)
			}
			if p, _ := at(root, "status.conditions"); p.Type != "array" {
				t.Errorf("the XRD's status.conditions survived: %+v", p)
			}
			if tc.columns != nil {
				var got []string
				for _, c := range crd.Spec.Versions[0].AdditionalPrinterColumns {
					got = append(got, c.Name+":"+c.JSONPath)
				}
				if !reflect.DeepEqual(got, tc.columns) {
					t.Errorf("columns\n %v\nwant\n %v", got, tc.columns)
				}
			}
		})
	}
}

// testXRD is a small XRD touching every part of the derivation.
func testXRD(apiVersion, scope string) map[string]any {
	spec := map[string]any{
		"group": "example.org",
		"names": map[string]any{"kind": "XThing", "plural": "xthings", "categories": []any{"mine"}},
		"versions": []any{
			map[string]any{
				"name": "v1alpha1", "served": true, "referenceable": false, "deprecated": true, "deprecationWarning": "gone soon",
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
					"spec": map[string]any{"type": "object", "properties": map[string]any{"mine": map[string]any{"type": "string"}}}}}},
			},
			map[string]any{
				"name": "v1", "served": true, "referenceable": true,
				"additionalPrinterColumns": []any{map[string]any{"name": "MINE", "type": "string", "jsonPath": ".spec.mine"}},
				"subresources":             map[string]any{"scale": map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type":                     "object",
					"description":              "A thing.",
					"x-kubernetes-validations": []any{map[string]any{"rule": "self.metadata.name.size() > 2", "message": "short"}},
					"properties": map[string]any{
						"metadata": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string", "maxLength": int64(30)}}},
						"extra":    map[string]any{"type": "string"},
						"spec": map[string]any{
							"type":                     "object",
							"description":              "The spec.",
							"required":                 []any{"mine"},
							"x-kubernetes-validations": []any{map[string]any{"rule": "self.mine != 'x'"}},
							"properties": map[string]any{
								"mine":           map[string]any{"type": "string"},
								"replicas":       map[string]any{"type": "integer"},
								"compositionRef": map[string]any{"type": "string"},
							},
						},
						"status": map[string]any{
							"type":                                 "object",
							"x-kubernetes-preserve-unknown-fields": true,
							"properties": map[string]any{
								"mine":       map[string]any{"type": "string"},
								"replicas":   map[string]any{"type": "integer"},
								"conditions": map[string]any{"type": "string"},
							},
						},
					},
				}},
			},
		},
	}
	// The second version is the one the table inspects.
	vs := spec["versions"].([]any)
	spec["versions"] = []any{vs[1], vs[0]}
	if scope != "" {
		spec["scope"] = scope
	}
	x := map[string]any{
		"apiVersion": "apiextensions.crossplane.io/" + apiVersion,
		"kind":       "CompositeResourceDefinition",
		"metadata":   map[string]any{"name": "xthings.example.org", "uid": "1234", "labels": map[string]any{"a": "1", "b": "1"}},
		"spec":       spec,
	}
	if scope == "" || scope == "LegacyCluster" {
		spec["claimNames"] = map[string]any{"kind": "Thing", "plural": "things"}
	}
	spec["metadata"] = map[string]any{"labels": map[string]any{"b": "2"}, "annotations": map[string]any{"note": "n"}}
	return x
}

// TestDerivationDetails pins what Crossplane takes from and adds to the XRD
// beside the fields: metadata, versions, root schema.
func TestDerivationDetails(t *testing.T) {
	for _, major := range []int{1, 2} {
		crd, err := ForCompositeResourceFor(testXRD("v1", ""), Options{CrossplaneMajor: major})
		if err != nil {
			t.Fatal(err)
		}
		valid(t, crd)
		if want := map[string]string{"a": "1", "b": "2"}; !reflect.DeepEqual(crd.Labels, want) {
			t.Errorf("labels %v", crd.Labels)
		}
		if want := map[string]string{"note": "n"}; !reflect.DeepEqual(crd.Annotations, want) {
			t.Errorf("annotations %v", crd.Annotations)
		}
		if len(crd.OwnerReferences) != 1 || crd.OwnerReferences[0].UID != "1234" || !*crd.OwnerReferences[0].Controller {
			t.Errorf("owner references %+v", crd.OwnerReferences)
		}
		if want := []string{"mine", "composite"}; !reflect.DeepEqual(crd.Spec.Names.Categories, want) {
			t.Errorf("categories %v", crd.Spec.Names.Categories)
		}
		if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
			t.Errorf("conversion %+v", crd.Spec.Conversion)
		}
		v1, v1a1 := crd.Spec.Versions[0], crd.Spec.Versions[1]
		if !v1.Storage || v1a1.Storage || !v1a1.Deprecated || *v1a1.DeprecationWarning != "gone soon" || !v1a1.Served {
			t.Errorf("versions %+v %+v", v1, v1a1)
		}
		if (v1.Subresources.Scale != nil) != (major == 2) || v1.Subresources.Status == nil {
			t.Errorf("major %d: subresources %+v", major, v1.Subresources)
		}
		root := v1.Schema.OpenAPIV3Schema
		if root.Description != "A thing." || !reflect.DeepEqual(root.Required, []string{"spec"}) {
			t.Errorf("root %q %v", root.Description, root.Required)
		}
		if (len(root.XValidations) == 1) != (major == 2) {
			t.Errorf("major %d: root validations %v", major, root.XValidations)
		}
		if got := keys(*root); !reflect.DeepEqual(got, []string{"apiVersion", "kind", "metadata", "spec", "status"}) {
			t.Errorf("root fields %v (the XRD's other root fields are dropped)", got)
		}
		if n, _ := at(root, "metadata.name"); *n.MaxLength != 30 {
			t.Errorf("metadata.name maxLength %d, want the XRD's lower 30", *n.MaxLength)
		}
		spec, status := root.Properties["spec"], root.Properties["status"]
		if spec.Description != "The spec." || !reflect.DeepEqual(spec.Required, []string{"mine"}) || len(spec.XValidations) != 1 {
			t.Errorf("spec %q %v %v", spec.Description, spec.Required, spec.XValidations)
		}
		if status.XPreserveUnknownFields != nil {
			t.Error("Crossplane does not keep status's x-kubernetes-preserve-unknown-fields")
		}
		if d := spec.Properties["compositionUpdatePolicy"].Default; d == nil || string(d.Raw) != `"Automatic"` {
			t.Errorf("compositionUpdatePolicy default %v", d)
		}
		if c, _ := at(root, "status.conditions.[].observedGeneration"); (c.Type == "integer") != (major == 2) {
			t.Errorf("major %d: observedGeneration %+v", major, c)
		}
	}

	x := testXRD("v2", "")
	x["spec"].(map[string]any)["defaultCompositionUpdatePolicy"] = "Manual"
	crd, err := ForCompositeResource(x)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := at(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, "spec.crossplane.compositionUpdatePolicy"); d.Default == nil || string(d.Default.Raw) != `"Manual"` {
		t.Errorf("compositionUpdatePolicy %+v", d)
	}
	x = testXRD("v1", "")
	x["spec"].(map[string]any)["defaultCompositeDeletePolicy"] = "Foreground"
	claim, err := ForCompositeResourceClaim(x)
	if err != nil {
		t.Fatal(err)
	}
	if claim.Name != "things.example.org" || claim.Spec.Names.Categories[0] != "claim" || claim.OwnerReferences[0].Name != "xthings.example.org" {
		t.Errorf("claim %s %v", claim.Name, claim.Spec.Names.Categories)
	}
	if d, _ := at(claim.Spec.Versions[0].Schema.OpenAPIV3Schema, "spec.compositeDeletePolicy"); d.Default == nil || string(d.Default.Raw) != `"Foreground"` {
		t.Errorf("compositeDeletePolicy %+v", d)
	}
}

func TestEveryCorpusXRD(t *testing.T) {
	c := corpusdir.Dir(t)
	n, claims := 0, 0
	err := filepath.WalkDir(filepath.Join(c, "compositions"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, doc := range docs(t, string(b)) {
			if doc["kind"] != "CompositeResourceDefinition" {
				continue
			}
			n++
			_, offers := doc["spec"].(map[string]any)["claimNames"]
			for _, major := range []int{1, 2} {
				if doc["apiVersion"] == apiV2 && major == 1 {
					continue
				}
				o := Options{CrossplaneMajor: major}
				xr, err := ForCompositeResourceFor(doc, o)
				if err != nil {
					t.Errorf("%s: %v", p, err)
					continue
				}
				valid(t, xr)
				claim, err := ForCompositeResourceClaimFor(doc, o)
				if offers != (err == nil) {
					t.Errorf("%s: claimNames %v, claim error %v", p, offers, err)
				}
				if err == nil {
					claims++
					valid(t, claim)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 17 || claims < 18 {
		t.Errorf("only %d XRDs, %d claims found", n, claims)
	}
}

// TestInstancesValidate validates XRs and claims, from the corpus and with
// every field Crossplane adds, against the derived schemas as the API server
// does (schema validation and pruning): no false errors, no false unknown
// fields; and a legacy field on a v2 XR is reported as unknown.
func TestInstancesValidate(t *testing.T) {
	c := corpusdir.Dir(t)
	read := func(rel string) []map[string]any {
		b, err := os.ReadFile(filepath.Join(c, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return docs(t, string(b))
	}
	fromYAML := func(s string) map[string]any { return docs(t, s)[0] }
	legacyCrossplane := `
  compositionRef: {name: c}
  compositionSelector: {matchLabels: {a: b}}
  compositionRevisionRef: {name: c-1}
  compositionRevisionSelector: {matchLabels: {channel: dev}}
  compositionUpdatePolicy: Manual
  resourceRefs: [{apiVersion: v1, kind: ConfigMap, name: x, namespace: other}]
  claimRef: {apiVersion: aws.platformref.upbound.io/v1alpha1, kind: SQLInstance, namespace: default, name: db}
  writeConnectionSecretToRef: {name: s, namespace: crossplane-system}
status:
  conditions: [{type: Ready, status: "True", reason: Available, lastTransitionTime: "2024-01-01T00:00:00Z", observedGeneration: 2}]
  connectionDetails: {lastPublishedTime: "2024-01-01T00:00:00Z"}
  claimConditionTypes: [Custom]
`
	for _, tc := range []struct {
		name        string
		xrd         string
		claim       bool
		major       int
		objects     []map[string]any
		wantUnknown []string
	}{
		{name: "corpus claim with writeConnectionSecretToRef", xrd: sqlXRD, claim: true, objects: read("compositions/upbound-platform-ref-aws/v0.6.0/examples/mariadb-claim.yaml")[:1]},
		{name: "corpus XR", xrd: netXRD, objects: read("compositions/upbound-platform-ref-aws/v0.6.0/examples/network-xr.yaml")},
		{name: "corpus v2 XR", xrd: appXRD, objects: read("compositions/crossplane-docs/content/master/manifests/get-started/composition/app.yaml")},
		{name: "legacy XR with every Crossplane field", xrd: sqlXRD, objects: []map[string]any{fromYAML(`
apiVersion: aws.platformref.upbound.io/v1alpha1
kind: XSQLInstance
metadata: {name: db-abcde}
spec:
  parameters: {engine: postgres, engineVersion: "13", storageGB: 5, passwordSecretRef: {namespace: default, name: p, key: k}, clusterRef: {id: c}}` + legacyCrossplane)}},
		{name: "v1.20 legacy XR with publishConnectionDetailsTo", xrd: sqlXRD, major: 1, objects: []map[string]any{fromYAML(`
apiVersion: aws.platformref.upbound.io/v1alpha1
kind: XSQLInstance
metadata: {name: db-abcde}
spec:
  parameters: {engine: postgres, engineVersion: "13", storageGB: 5, passwordSecretRef: {namespace: default, name: p, key: k}, clusterRef: {id: c}}
  publishConnectionDetailsTo: {name: s, configRef: {name: vault}, metadata: {labels: {a: b}, type: Opaque}}` + strings.Replace(legacyCrossplane, ", namespace: other", "", 1))},
			// Crossplane v1.20 has no observedGeneration in conditions.
			wantUnknown: []string{"status.conditions[0].observedGeneration"}},
		{name: "claim with every Crossplane field", xrd: sqlXRD, claim: true, objects: []map[string]any{fromYAML(`
apiVersion: aws.platformref.upbound.io/v1alpha1
kind: SQLInstance
metadata: {name: db, namespace: default}
spec:
  parameters: {engine: postgres, engineVersion: "13", storageGB: 5, passwordSecretRef: {namespace: default, name: p, key: k}, clusterRef: {id: c}}
  compositionRef: {name: c}
  compositionSelector: {matchLabels: {a: b}}
  compositionRevisionRef: {name: c-1}
  compositionRevisionSelector: {matchLabels: {channel: dev}}
  compositionUpdatePolicy: Automatic
  compositeDeletePolicy: Foreground
  resourceRef: {apiVersion: aws.platformref.upbound.io/v1alpha1, kind: XSQLInstance, name: db-abcde}
  writeConnectionSecretToRef: {name: s}
status:
  conditions: [{type: Synced, status: "True", reason: ReconcileSuccess, lastTransitionTime: "2024-01-01T00:00:00Z"}]
  connectionDetails: {lastPublishedTime: "2024-01-01T00:00:00Z"}
`)}},
		{name: "v2 XR with every Crossplane field", xrd: appXRD, objects: []map[string]any{fromYAML(`
apiVersion: example.crossplane.io/v1
kind: App
metadata: {name: my-app, namespace: default}
spec:
  image: nginx
  crossplane:
    compositionRef: {name: c}
    compositionSelector: {matchLabels: {a: b}}
    compositionRevisionRef: {name: c-1}
    compositionRevisionSelector: {matchLabels: {channel: dev}}
    compositionUpdatePolicy: Manual
    resourceRefs: [{apiVersion: apps/v1, kind: Deployment, name: my-app}]
status:
  replicas: 2
  conditions: [{type: Ready, status: "True", reason: Available, lastTransitionTime: "2024-01-01T00:00:00Z"}]
`)}},
		{name: "v2 XR with legacy fields", xrd: appXRD, objects: []map[string]any{fromYAML(`
apiVersion: example.crossplane.io/v1
kind: App
metadata: {name: my-app, namespace: default}
spec:
  image: nginx
  compositionRef: {name: c}
  crossplane:
    resourceRefs: [{apiVersion: apps/v1, kind: Deployment, name: my-app, namespace: other}]
status:
  connectionDetails: {lastPublishedTime: "2024-01-01T00:00:00Z"}
`)}, wantUnknown: []string{"spec.compositionRef", "spec.crossplane.resourceRefs[0].namespace", "status.connectionDetails"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := ForCompositeResourceFor
			if tc.claim {
				f = ForCompositeResourceClaimFor
			}
			crd, err := f(load(t, tc.xrd), Options{CrossplaneMajor: tc.major})
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.objects) == 0 {
				t.Fatal("no objects")
			}
			for _, obj := range tc.objects {
				if obj["kind"] != crd.Spec.Names.Kind {
					t.Fatalf("object kind %v, CRD kind %s", obj["kind"], crd.Spec.Names.Kind)
				}
				gv := strings.SplitN(obj["apiVersion"].(string), "/", 2)
				i := slices.IndexFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == gv[1] })
				if gv[0] != crd.Spec.Group || i < 0 {
					t.Fatalf("no version %v in %s", obj["apiVersion"], crd.Name)
				}
				schema := crd.Spec.Versions[i].Schema.OpenAPIV3Schema
				validator, _, err := crvalidation.NewSchemaValidator(internalSchema(t, schema))
				if err != nil {
					t.Fatal(err)
				}
				if errs := crvalidation.ValidateCustomResource(nil, obj, validator); len(errs) > 0 {
					t.Errorf("validation: %v", errs)
				}
				unknown := pruning.PruneWithOptions(obj, structural(t, schema), true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
				if !reflect.DeepEqual(unknown, tc.wantUnknown) {
					t.Errorf("unknown fields %v, want %v", unknown, tc.wantUnknown)
				}
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	good := func() map[string]any { return testXRD("v1", "") }
	with := func(mod func(x map[string]any)) map[string]any { x := good(); mod(x); return x }
	spec := func(x map[string]any) map[string]any { return x["spec"].(map[string]any) }
	for _, tc := range []struct {
		name  string
		xrd   map[string]any
		major int
		want  string
	}{
		{"nil", nil, 0, "no XRD"},
		{"empty", map[string]any{}, 0, "not an XRD"},
		{"spec a string", with(func(x map[string]any) { x["spec"] = "nope" }), 0, "reading the XRD"},
		{"kind", with(func(x map[string]any) { x["kind"] = "Composition" }), 0, "not CompositeResourceDefinition"},
		{"no group", with(func(x map[string]any) { delete(spec(x), "group") }), 0, "no spec.group"},
		{"no versions", with(func(x map[string]any) { delete(spec(x), "versions") }), 0, "no spec.versions"},
		{"versions a map", with(func(x map[string]any) { spec(x)["versions"] = map[string]any{} }), 0, "reading the XRD"},
		{"version without schema", with(func(x map[string]any) { spec(x)["versions"] = []any{map[string]any{"name": "v1"}} }), 0, "spec.versions[0] (v1) has no schema"},
		{"version without name", with(func(x map[string]any) { spec(x)["versions"] = []any{map[string]any{}} }), 0, "spec.versions[0] has no name"},
		{"schema a number", with(func(x map[string]any) {
			spec(x)["versions"] = []any{map[string]any{"name": "v1", "schema": map[string]any{"openAPIV3Schema": 5}}}
		}), 0, "openAPIV3Schema"},
		{"properties a list", with(func(x map[string]any) {
			spec(x)["versions"] = []any{map[string]any{"name": "v1", "schema": map[string]any{"openAPIV3Schema": map[string]any{"properties": []any{1}}}}}
		}), 0, "openAPIV3Schema"},
		{"bad scope", with(func(x map[string]any) { spec(x)["scope"] = "Global" }), 0, `spec.scope "Global"`},
		{"bad policy", with(func(x map[string]any) { spec(x)["defaultCompositionUpdatePolicy"] = "Sometimes" }), 0, "defaultCompositionUpdatePolicy"},
		{"v2 XRD on Crossplane v1", testXRD("v2", ""), 1, "need Crossplane v2"},
		{"major 3", good(), 3, "major version 3"},
		{"NaN", with(func(x map[string]any) { spec(x)["group"] = func() {} }), 0, "reading the XRD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range []func(map[string]any, Options) (*apiextensionsv1.CustomResourceDefinition, error){ForCompositeResourceFor, ForCompositeResourceClaimFor} {
				_, err := f(tc.xrd, Options{CrossplaneMajor: tc.major})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %v, want one containing %q", err, tc.want)
				}
			}
		})
	}
}

func TestNoClaim(t *testing.T) {
	noNames := testXRD("v1", "")
	delete(noNames["spec"].(map[string]any), "claimNames")
	namespaced := testXRD("v1", "Namespaced")
	namespaced["spec"].(map[string]any)["claimNames"] = map[string]any{"kind": "Thing", "plural": "things"}
	clash := testXRD("v1", "")
	clash["spec"].(map[string]any)["claimNames"] = map[string]any{"kind": "XThing", "plural": "things"}
	for _, tc := range []struct {
		name string
		xrd  map[string]any
		want string
	}{
		{"no claimNames", noNames, "no spec.claimNames"},
		{"v1 XRD scope Namespaced", namespaced, "only LegacyCluster"},
		{"v2 XRD with claimNames", testXRD("v2", ""), "only LegacyCluster"},
		{"kind clash", clash, `"XThing" conflicts`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ForCompositeResourceClaim(tc.xrd); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Crossplane v1.20 has no scope, so it derives the claim.
	if _, err := ForCompositeResourceClaimFor(namespaced, Options{CrossplaneMajor: 1}); err != nil {
		t.Errorf("Crossplane v1.20 ignores scope: %v", err)
	}
}
