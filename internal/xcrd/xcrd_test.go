package xcrd

import (
	"context"
	corpusdir "github.com/crd-lsp/crd-lsp/internal/corpus"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apivalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	sigsyaml "sigs.k8s.io/yaml"
)

func corpus(t *testing.T) string { return corpusdir.Dir(t) }

func load(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := sigsyaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// valid checks a derived CRD as the API server would on create, and that
// every version's schema is structural.
func valid(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	var internal apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, &internal, nil); err != nil {
		t.Fatal(err)
	}
	if errs := apivalidation.ValidateCustomResourceDefinition(context.Background(), &internal); len(errs) > 0 {
		t.Errorf("%s: %v", crd.Name, errs)
	}
	for _, v := range internal.Spec.Versions {
		val := internal.Spec.Validation // identical per-version schemas are hoisted here
		if v.Schema != nil {
			val = v.Schema
		}
		s, err := structuralschema.NewStructural(val.OpenAPIV3Schema)
		if err != nil {
			t.Fatalf("%s %s: %v", crd.Name, v.Name, err)
		}
		if errs := structuralschema.ValidateStructural(nil, s); len(errs) > 0 {
			t.Errorf("%s %s: %v", crd.Name, v.Name, errs)
		}
	}
}

func prop(t *testing.T, s *apiextensionsv1.JSONSchemaProps, path string) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	cur := *s
	for _, p := range strings.Split(path, ".") {
		next, ok := cur.Properties[p]
		if !ok {
			t.Fatalf("no %s (at %s)", path, p)
		}
		cur = next
	}
	return cur
}

func TestLegacyXRDWithClaim(t *testing.T) {
	c := corpus(t)
	xrd := load(t, filepath.Join(c, "compositions", "upbound-platform-ref-aws", "v0.6.0", "package", "database", "sqlinstance", "definition.yaml"))
	xr, err := ForCompositeResource(xrd)
	if err != nil {
		t.Fatal(err)
	}
	valid(t, xr)
	if xr.Spec.Scope != apiextensionsv1.ClusterScoped || !strings.HasSuffix(xr.Name, "."+xr.Spec.Group) {
		t.Errorf("XR %s scope %s", xr.Name, xr.Spec.Scope)
	}
	root := xr.Spec.Versions[0].Schema.OpenAPIV3Schema
	if got := prop(t, root, "spec.compositionRef.name").Type; got != "string" {
		t.Errorf("spec.compositionRef.name type %q", got)
	}
	prop(t, root, "spec.claimRef.namespace")
	prop(t, root, "spec.writeConnectionSecretToRef.namespace")
	prop(t, root, "spec.parameters") // the user's own field survives
	if len(prop(t, root, "spec.compositionUpdatePolicy").Enum) != 2 {
		t.Error("compositionUpdatePolicy should be an enum of Automatic and Manual")
	}

	claim, err := ForCompositeResourceClaim(xrd)
	if err != nil {
		t.Fatal(err)
	}
	valid(t, claim)
	if claim.Spec.Scope != apiextensionsv1.NamespaceScoped || claim.Spec.Names.Kind == xr.Spec.Names.Kind {
		t.Errorf("claim %s scope %s", claim.Spec.Names.Kind, claim.Spec.Scope)
	}
	croot := claim.Spec.Versions[0].Schema.OpenAPIV3Schema
	prop(t, croot, "spec.compositeDeletePolicy")
	prop(t, croot, "spec.resourceRef.name")
	if _, ok := prop(t, croot, "spec").Properties["claimRef"]; ok {
		t.Error("a claim has no claimRef")
	}
}

func TestModernXRD(t *testing.T) {
	c := corpus(t)
	xrd := load(t, filepath.Join(c, "compositions", "crossplane-docs", "content", "master", "manifests", "get-started", "composition", "xrd.yaml"))
	xr, err := ForCompositeResource(xrd)
	if err != nil {
		t.Fatal(err)
	}
	valid(t, xr)
	if xr.Spec.Scope != apiextensionsv1.NamespaceScoped {
		t.Errorf("v2 XR scope %s, want Namespaced", xr.Spec.Scope)
	}
	root := xr.Spec.Versions[0].Schema.OpenAPIV3Schema
	ml := prop(t, root, "spec.crossplane.compositionSelector.matchLabels")
	if ml.AdditionalProperties == nil || ml.AdditionalProperties.Schema.Type != "string" {
		t.Errorf("matchLabels = %+v", ml)
	}
	if _, ok := prop(t, root, "spec").Properties["compositionRef"]; ok {
		t.Error("a v2 XR keeps compositionRef under spec.crossplane, not spec")
	}
	prop(t, root, "status.crossplane.connectionDetails.lastPublishedTime")
	if _, ok := prop(t, root, "status").Properties["claimConditionTypes"]; ok {
		t.Error("a v2 XR has no claim condition types")
	}
	if _, ok := prop(t, root, "spec.crossplane.resourceRefs").Items.Schema.Properties["namespace"]; ok {
		t.Error("a namespaced XR cannot reference resources in other namespaces")
	}
	if _, err := ForCompositeResourceClaim(xrd); err == nil {
		t.Error("a v2 XRD offered a claim")
	}
}

func TestEveryCorpusXRD(t *testing.T) {
	c := corpus(t)
	n := 0
	filepath.WalkDir(filepath.Join(c, "compositions"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		b, _ := os.ReadFile(p)
		if !strings.Contains(string(b), "kind: CompositeResourceDefinition") {
			return nil
		}
		n++
		xr, err := ForCompositeResource(load(t, p))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		valid(t, xr)
		return nil
	})
	if n < 15 {
		t.Errorf("only %d XRDs found", n)
	}
}

func TestBadInput(t *testing.T) {
	for _, m := range []map[string]any{
		{},
		{"spec": "nope"},
		{"spec": map[string]any{"group": "g", "names": map[string]any{"kind": "K", "plural": "ks"}}},
		{"spec": map[string]any{"group": "g", "names": map[string]any{"kind": "K", "plural": "ks"}, "versions": []any{map[string]any{"schema": 5}}}},
	} {
		if _, err := ForCompositeResource(m); err == nil {
			t.Errorf("%v: no error", m)
		}
	}
}
