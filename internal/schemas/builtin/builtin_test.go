package builtin

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/schemas/builtin/internal/generate"
)

// defaultCorpusDir is the shared corpus, relative to this package (the
// path go:generate uses); the environment variable CRD_LSP_CORPUS
// overrides it.
const defaultCorpusDir = "../../../../shared/corpus"

// corpus returns the shared corpus folder the tests compare against.
func corpus() string {
	if dir := os.Getenv("CRD_LSP_CORPUS"); dir != "" {
		return dir
	}
	return defaultCorpusDir
}

// bundleOf is set written back as a bundle (generate's layout: each
// document after its separator line), its built documents built.
func bundleOf(t testing.TB, set Set) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, f := range set.Files {
		data, err := f.Text()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		b.WriteString(generate.Separator + f.Name + "\n")
		b.Write(data)
	}
	return b.Bytes()
}

// decode reads a File strictly as a v1 CRD and converts it to the
// internal type, as the API server does on create.
func decode(t testing.TB, f File) (*apiextensionsv1.CustomResourceDefinition, *apiextensions.CustomResourceDefinition) {
	t.Helper()
	var v1 apiextensionsv1.CustomResourceDefinition
	data, err := f.Text()
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	if err := sigsyaml.UnmarshalStrict(data, &v1); err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	if v1.APIVersion != "apiextensions.k8s.io/v1" || v1.Kind != "CustomResourceDefinition" {
		t.Fatalf("%s: %s %s, want a v1 CustomResourceDefinition", f.Name, v1.APIVersion, v1.Kind)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
	var internal apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &internal, nil); err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	return &v1, &internal
}

type gvk struct{ group, version, kind string }

// crds decodes a set, by group-version-kind (one entry per served version).
func crds(t testing.TB, set Set) map[gvk]*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	out := map[gvk]*apiextensionsv1.CustomResourceDefinition{}
	for _, f := range set.Files {
		v1, _ := decode(t, f)
		for _, v := range v1.Spec.Versions {
			k := gvk{v1.Spec.Group, v.Name, v1.Spec.Names.Kind}
			if _, dup := out[k]; dup {
				t.Errorf("%s: %v defined twice", f.Name, k)
			}
			out[k] = v1
		}
	}
	return out
}

func mustSet(t testing.TB, set Set, err error) Set {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Files) == 0 {
		t.Fatalf("set %s %s is empty", set.Name, set.Version)
	}
	return set
}

func TestSets(t *testing.T) {
	k8s, err := Kubernetes()
	mustSet(t, k8s, err)
	xp1, err := Crossplane(1)
	mustSet(t, xp1, err)
	xp2, err := Crossplane(2)
	mustSet(t, xp2, err)
	fns, err := Functions()
	mustSet(t, fns, err)
	for _, c := range []struct {
		set                 Set
		name, version, pref string
		kind                SetKind
		files               int
	}{
		{k8s, "kubernetes", "v1.37", "kubernetes/v1.37/", KindKubernetes, 72},
		{xp1, "crossplane", "v1.20.11", "crossplane/v1.20.11/", KindCrossplane, 16},
		{xp2, "crossplane", "v2.3.4", "crossplane/v2.3.4/", KindCrossplane, 21},
		{fns, "functions", "", "", KindFunctions, 9},
	} {
		if c.set.Name != c.name || c.set.Version != c.version || c.set.Kind != c.kind {
			t.Errorf("set %q %q %d, want %q %q %d", c.set.Name, c.set.Version, c.set.Kind, c.name, c.version, c.kind)
		}
		if len(c.set.Files) != c.files {
			t.Errorf("%s %s: %d files, want %d", c.name, c.version, len(c.set.Files), c.files)
		}
		names := map[string]bool{}
		for _, f := range c.set.Files {
			okName := strings.HasPrefix(f.Name, c.pref)
			if c.kind == KindFunctions {
				// Input CRDs come from crds/functions/ and from the
				// workspaces of the corpus that use them.
				okName = strings.HasPrefix(f.Name, "functions/") || strings.HasPrefix(f.Name, "workspaces-3/")
			}
			if !okName || names[f.Name] {
				t.Errorf("%s: bad or duplicate file name %q", c.name, f.Name)
			}
			names[f.Name] = true
			if len(f.Data) == 0 || f.Data[len(f.Data)-1] != '\n' || cap(f.Data) != len(f.Data) {
				t.Errorf("%s: document not newline-terminated or not capacity-clipped", f.Name)
			}
			if bytes.HasPrefix(f.Data, []byte("---")) || bytes.Contains(f.Data, []byte("\n---\n")) {
				t.Errorf("%s: more than one document", f.Name)
			}
		}
		crds(t, c.set) // every document decodes strictly as a v1 CRD
	}
	if _, err := Crossplane(3); err == nil {
		t.Error("Crossplane(3): no error")
	}
	if _, err := Crossplane(0); err == nil {
		t.Error("Crossplane(0): no error")
	}

	// Callers may not disturb each other through the Files slice.
	a, _ := Kubernetes()
	a.Files[0] = File{}
	if b, _ := Kubernetes(); b.Files[0].Name == "" {
		t.Error("Kubernetes() returns a shared Files slice")
	}
}

// TestKubernetesStructural checks that every synthesised CRD is what the
// API server would accept: a structural schema (NewStructural +
// ValidateStructural) and a valid CRD (ValidateCustomResourceDefinition:
// defaults, list-map keys, formats, root and metadata rules). The API
// server wants a CRD's group to contain a dot and its name to be
// <plural>.<group>, and *.k8s.io groups to carry an approval annotation;
// so the check runs with ".builtin.test" appended to the group (and "core"
// for the empty group), since those rules are not about the schema.
func TestKubernetesStructural(t *testing.T) {
	set, err := Kubernetes()
	mustSet(t, set, err)
	ctx := context.Background()
	for _, f := range set.Files {
		v1, internal := decode(t, f)
		if len(v1.Spec.Versions) != 1 || v1.Spec.Versions[0].Schema == nil || v1.Spec.Versions[0].Schema.OpenAPIV3Schema == nil {
			t.Errorf("%s: want one version with a schema", f.Name)
			continue
		}
		ss, err := structuralschema.NewStructural(internal.Spec.Validation.OpenAPIV3Schema)
		if err != nil {
			t.Errorf("%s: NewStructural: %v", f.Name, err)
			continue
		}
		if errs := structuralschema.ValidateStructural(field.NewPath("openAPIV3Schema"), ss); len(errs) > 0 {
			t.Errorf("%s: not structural: %v", f.Name, errs.ToAggregate())
		}

		if internal.Spec.Group == "" {
			internal.Spec.Group = "core"
		}
		internal.Spec.Group += ".builtin.test"
		internal.Name = internal.Spec.Names.Plural + "." + internal.Spec.Group
		if errs := apiextensionsvalidation.ValidateCustomResourceDefinition(ctx, internal); len(errs) > 0 {
			t.Errorf("%s: invalid CRD: %v", f.Name, errs.ToAggregate())
		}
	}
}

// schemaAt walks properties (and items for "[]") of a v1 schema.
func schemaAt(t *testing.T, s *apiextensionsv1.JSONSchemaProps, path string) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	for _, p := range strings.Split(path, ".") {
		items := strings.HasSuffix(p, "[]")
		p = strings.TrimSuffix(p, "[]")
		next, ok := s.Properties[p]
		if !ok {
			t.Fatalf("no property %q on the way to %s", p, path)
		}
		s = &next
		if items {
			if s.Items == nil || s.Items.Schema == nil {
				t.Fatalf("%s is not a list with an item schema", p)
			}
			s = s.Items.Schema
		}
	}
	return s
}

func rootSchema(t *testing.T, all map[gvk]*apiextensionsv1.CustomResourceDefinition, k gvk) (*apiextensionsv1.CustomResourceDefinition, *apiextensionsv1.JSONSchemaProps) {
	t.Helper()
	crd, ok := all[k]
	if !ok {
		t.Fatalf("no CRD for %v", k)
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == k.version {
			return crd, v.Schema.OpenAPIV3Schema
		}
	}
	t.Fatalf("%v: version not found", k)
	return nil, nil
}

func TestKubernetesSpotChecks(t *testing.T) {
	set, err := Kubernetes()
	all := crds(t, mustSet(t, set, err))

	deploy, s := rootSchema(t, all, gvk{"apps", "v1", "Deployment"})
	if deploy.Spec.Scope != apiextensionsv1.NamespaceScoped || deploy.Spec.Names.Plural != "deployments" || deploy.Spec.Names.Singular != "deployment" || deploy.Spec.Names.ListKind != "DeploymentList" || deploy.Name != "deployments.apps" {
		t.Errorf("Deployment: name %q scope %q names %+v", deploy.Name, deploy.Spec.Scope, deploy.Spec.Names)
	}
	if sub := deploy.Spec.Versions[0].Subresources; sub == nil || sub.Status == nil {
		t.Error("Deployment: no status subresource")
	}
	if md := s.Properties["metadata"]; !reflect.DeepEqual(md, apiextensionsv1.JSONSchemaProps{Type: "object"}) {
		t.Errorf("Deployment metadata = %+v, want {type: object}", md)
	}
	if r := schemaAt(t, s, "spec.replicas"); r.Type != "integer" || r.Format != "int32" || r.Default != nil {
		t.Errorf("spec.replicas: type %q format %q default %v, want integer int32 and no default", r.Type, r.Format, r.Default)
	}
	if !slices.Contains(schemaAt(t, s, "spec").Required, "selector") || !slices.Contains(schemaAt(t, s, "spec").Required, "template") {
		t.Errorf("spec.required = %v", schemaAt(t, s, "spec").Required)
	}
	c := schemaAt(t, s, "spec.template.spec.containers")
	if c.Type != "array" || c.XListType == nil || *c.XListType != "map" || !reflect.DeepEqual(c.XListMapKeys, []string{"name"}) {
		t.Errorf("containers: type %q list-type %v map-keys %v", c.Type, c.XListType, c.XListMapKeys)
	}
	if n := schemaAt(t, s, "spec.template.spec.containers[].name"); n.Type != "string" || n.Default != nil {
		t.Errorf("containers[].name: type %q default %v (a zero default would hide a missing name)", n.Type, n.Default)
	}
	if p := schemaAt(t, s, "spec.template.spec.containers[].ports[].protocol"); p.Default == nil || string(p.Default.Raw) != `"TCP"` {
		t.Errorf("containers[].ports[].protocol default = %v, want TCP", p.Default)
	}
	// Nested ObjectMeta (not a CRD's root) keeps its full schema.
	if l := schemaAt(t, s, "spec.template.metadata.labels"); l.Type != "object" || l.AdditionalProperties == nil || l.AdditionalProperties.Schema.Type != "string" {
		t.Errorf("template.metadata.labels: %+v", l)
	}
	if ts := schemaAt(t, s, "spec.template.metadata.creationTimestamp"); ts.Type != "string" || ts.Format != "date-time" {
		t.Errorf("creationTimestamp: type %q format %q", ts.Type, ts.Format)
	}
	if fv := schemaAt(t, s, "spec.template.metadata.managedFields[].fieldsV1"); fv.Type != "object" || fv.XPreserveUnknownFields == nil || !*fv.XPreserveUnknownFields {
		t.Errorf("fieldsV1 (free-form object): %+v", fv)
	}
	if mu := schemaAt(t, s, "spec.strategy.rollingUpdate.maxUnavailable"); !mu.XIntOrString || mu.Type != "" {
		t.Errorf("maxUnavailable: int-or-string %v type %q", mu.XIntOrString, mu.Type)
	}
	cpu := schemaAt(t, s, "spec.template.spec.containers[].resources.limits").AdditionalProperties.Schema
	if cpu.Type != "" || cpu.XPreserveUnknownFields == nil || cpu.Pattern == "" {
		t.Errorf("resources.limits values (Quantity): %+v", cpu)
	}

	svc, s := rootSchema(t, all, gvk{"", "v1", "Service"})
	if svc.Spec.Scope != apiextensionsv1.NamespaceScoped || svc.Spec.Names.Plural != "services" {
		t.Errorf("Service: scope %q plural %q", svc.Spec.Scope, svc.Spec.Names.Plural)
	}
	if p := schemaAt(t, s, "spec.ports[].port"); p.Type != "integer" || p.Format != "int32" {
		t.Errorf("ports[].port: type %q format %q", p.Type, p.Format)
	}
	if tp := schemaAt(t, s, "spec.ports[].targetPort"); !tp.XIntOrString || tp.Type != "" || tp.Format != "" {
		t.Errorf("ports[].targetPort: int-or-string %v type %q format %q", tp.XIntOrString, tp.Type, tp.Format)
	}
	if ports := schemaAt(t, s, "spec.ports"); ports.XListType == nil || *ports.XListType != "map" || !reflect.DeepEqual(ports.XListMapKeys, []string{"port", "protocol"}) {
		t.Errorf("spec.ports: list-type %v keys %v", ports.XListType, ports.XListMapKeys)
	}

	for _, k := range []gvk{
		{"", "v1", "Namespace"}, {"", "v1", "Node"}, {"", "v1", "PersistentVolume"},
		{"rbac.authorization.k8s.io", "v1", "ClusterRole"}, {"rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"},
		{"apiextensions.k8s.io", "v1", "CustomResourceDefinition"}, {"storage.k8s.io", "v1", "StorageClass"},
	} {
		if crd, _ := rootSchema(t, all, k); crd.Spec.Scope != apiextensionsv1.ClusterScoped {
			t.Errorf("%v: scope %q, want Cluster", k, crd.Spec.Scope)
		}
	}
	for _, k := range []gvk{
		{"", "v1", "ConfigMap"}, {"", "v1", "Secret"}, {"", "v1", "Pod"}, {"batch", "v1", "CronJob"},
		{"networking.k8s.io", "v1", "Ingress"}, {"rbac.authorization.k8s.io", "v1", "Role"},
		{"autoscaling", "v2", "HorizontalPodAutoscaler"}, {"policy", "v1", "PodDisruptionBudget"},
	} {
		if crd, _ := rootSchema(t, all, k); crd.Spec.Scope != apiextensionsv1.NamespaceScoped {
			t.Errorf("%v: scope %q, want Namespaced", k, crd.Spec.Scope)
		}
	}
	if crd, _ := rootSchema(t, all, gvk{"", "v1", "Namespace"}); crd.Spec.Names.Plural != "namespaces" || crd.Name != "namespaces.core" {
		t.Errorf("Namespace: name %q plural %q", crd.Name, crd.Spec.Names.Plural)
	}
	// Not top-level kinds: lists, meta kinds, subresource bodies, other
	// groups' kinds carried by a document.
	for _, k := range []gvk{
		{"apps", "v1", "DeploymentList"}, {"", "v1", "Status"}, {"", "v1", "DeleteOptions"}, {"", "v1", "WatchEvent"},
		{"autoscaling", "v1", "Scale"}, {"policy", "v1", "Eviction"}, {"", "v1", "List"},
	} {
		if _, ok := all[k]; ok {
			t.Errorf("%v should not be a built-in CRD", k)
		}
	}

	// The recursive JSONSchemaProps is cut where it recurs.
	_, s = rootSchema(t, all, gvk{"apiextensions.k8s.io", "v1", "CustomResourceDefinition"})
	oas := schemaAt(t, s, "spec.versions[].schema.openAPIV3Schema")
	if oas.Type != "object" || oas.Properties["type"].Type != "string" {
		t.Errorf("openAPIV3Schema: %+v", oas)
	}
	if p := oas.Properties["properties"].AdditionalProperties.Schema; p.Type != "object" || p.XPreserveUnknownFields == nil || len(p.Properties) != 0 {
		t.Errorf("openAPIV3Schema.properties values (recursion): %+v", p)
	}
}

func TestCrossplaneAndFunctions(t *testing.T) {
	xp2, err := Crossplane(2)
	v2 := crds(t, mustSet(t, xp2, err))
	for _, k := range []gvk{
		{"apiextensions.crossplane.io", "v1", "Composition"},
		{"apiextensions.crossplane.io", "v1", "CompositeResourceDefinition"},
		{"apiextensions.crossplane.io", "v2", "CompositeResourceDefinition"},
		{"pkg.crossplane.io", "v1", "Function"},
		{"pkg.crossplane.io", "v1", "Provider"},
		{"ops.crossplane.io", "v1alpha1", "Operation"},
	} {
		if _, ok := v2[k]; !ok {
			t.Errorf("Crossplane v2 set has no %v", k)
		}
	}
	_, comp := rootSchema(t, v2, gvk{"apiextensions.crossplane.io", "v1", "Composition"})
	if _, ok := comp.Properties["spec"].Properties["resources"]; ok {
		t.Error("v2 Composition has spec.resources (only v1.20 has classic mode)")
	}

	xp1, err := Crossplane(1)
	v1 := crds(t, mustSet(t, xp1, err))
	_, comp = rootSchema(t, v1, gvk{"apiextensions.crossplane.io", "v1", "Composition"})
	if _, ok := comp.Properties["spec"].Properties["resources"]; !ok {
		t.Error("v1.20 Composition has no spec.resources")
	}
	if _, ok := v1[gvk{"apiextensions.crossplane.io", "v2", "CompositeResourceDefinition"}]; ok {
		t.Error("v1.20 set has XRD v2")
	}
	if _, ok := v1[gvk{"pkg.crossplane.io", "v1alpha1", "ControllerConfig"}]; !ok {
		t.Error("v1.20 set has no ControllerConfig")
	}

	fns, err := Functions()
	f := crds(t, mustSet(t, fns, err))
	for _, k := range []gvk{
		{"pt.fn.crossplane.io", "v1beta1", "Resources"},
		{"gotemplating.fn.crossplane.io", "v1beta1", "GoTemplate"},
		{"sequencer.fn.crossplane.io", "v1beta1", "Input"},
		{"cel.fn.crossplane.io", "v1beta1", "Filters"},
		{"krm.kcl.dev", "v1alpha1", "KCLInput"},
		{"environmentconfigs.fn.crossplane.io", "v1beta1", "Input"},
		{"autoready.fn.crossplane.io", "v1beta1", "Input"},
		{"function-status-transformer.fn.crossplane.io", "v1beta1", "StatusTransformation"},
		{"python.fn.crossplane.io", "v1beta1", "Script"},
	} {
		if _, ok := f[k]; !ok {
			t.Errorf("functions set has no %v", k)
		}
	}
}

// TestValidateDeployment builds a validator from the synthesised
// Deployment CRD the way the schema store does and validates objects.
func TestValidateDeployment(t *testing.T) {
	set, err := Kubernetes()
	mustSet(t, set, err)
	var internal *apiextensions.CustomResourceDefinition
	for _, f := range set.Files {
		if strings.HasSuffix(f.Name, "/apis__apps__v1_openapi.json#Deployment") {
			_, internal = decode(t, f)
		}
	}
	if internal == nil {
		t.Fatal("no Deployment")
	}
	schema := internal.Spec.Validation.OpenAPIV3Schema
	if _, err := structuralschema.NewStructural(schema); err != nil {
		t.Fatal(err)
	}
	sv, _, err := validation.NewSchemaValidator(schema)
	if err != nil {
		t.Fatal(err)
	}
	validate := func(doc string) field.ErrorList {
		var obj map[string]any
		if err := sigsyaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		return validation.ValidateCustomResource(nil, obj, sv)
	}
	const valid = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  strategy:
    rollingUpdate: {maxUnavailable: 25%, maxSurge: 1}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
        resources:
          limits: {cpu: 0.5, memory: 128Mi}
          requests: {cpu: 100m}
`
	if errs := validate(valid); len(errs) > 0 {
		t.Errorf("valid Deployment: %v", errs.ToAggregate())
	}
	for _, c := range []struct{ from, to, field string }{
		{"replicas: 3", `replicas: "three"`, "spec.replicas"},
		{"maxSurge: 1", "maxSurge: true", "spec.strategy.rollingUpdate.maxSurge"},
		{"containerPort: 80", "containerPort: http", "spec.template.spec.containers[0].ports[0].containerPort"},
		{"memory: 128Mi", "memory: 128MB!", "spec.template.spec.containers[0].resources.limits.memory"},
		{"labels: {app: web}\n    spec", "labels: [web]\n    spec", "spec.template.metadata.labels"},
	} {
		doc := strings.Replace(valid, c.from, c.to, 1)
		if doc == valid {
			t.Fatalf("%q not in the document", c.from)
		}
		errs := validate(doc)
		found := false
		for _, e := range errs {
			found = found || e.Field == c.field
		}
		if !found {
			t.Errorf("%s: want an error on %s, got %v", c.to, c.field, errs.ToAggregate())
		}
	}
	// A container without its required name.
	errs := validate(strings.Replace(valid, "      - name: web\n        image", "      - image", 1))
	if len(errs) != 1 || errs[0].Type != field.ErrorTypeRequired || errs[0].Field != "spec.template.spec.containers[0].name" {
		t.Errorf("container without name: %v", errs.ToAggregate())
	}
}

// TestGeneratedIsCurrent regenerates the bundles and compares them with
// the committed data/ files (gzipped ones by their content), and checks
// that every older Kubernetes minor rebuilt from its embedded difference
// is that minor's whole bundle. The corpus is ../../../../shared/corpus or
// $CRD_LSP_CORPUS; the k8s.io/kubernetes module folders come from `go mod
// download` (the module cache, else the Go module proxy). Without either
// the test skips, except in CI (CI=true), where the check is mandatory.
func TestGeneratedIsCurrent(t *testing.T) {
	unavailable := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format+" (the check is mandatory with CI=true)", args...)
	}
	corpusDir := corpus()
	if _, err := os.Stat(filepath.Join(corpusDir, "crds")); err != nil {
		unavailable("shared corpus not found at %s: %v", corpusDir, err)
	}
	dirs, err := generate.ModuleDirs(t.Context())
	if err != nil {
		unavailable("the k8s.io/kubernetes module folders are out of reach: %v", err)
	}
	// Regenerate exactly as go generate does, into a temporary folder.
	tmp := t.TempDir()
	if err := generate.Run(corpusDir, dirs, tmp); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("data")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(generate.Files()) {
		t.Errorf("data/ holds %d files, the generator writes %d", len(entries), len(generate.Files()))
	}
	for _, name := range generate.Files() {
		got, err := os.ReadFile(filepath.Join(tmp, name))
		if err != nil {
			t.Fatal(err)
		}
		committed, err := os.ReadFile(filepath.Join("data", name))
		if err != nil {
			t.Errorf("%s: %v (run go generate ./internal/schemas/builtin/)", name, err)
			continue
		}
		if strings.HasSuffix(name, ".gz") {
			got, committed = gunzip(t, got), gunzip(t, committed)
		}
		if bytes.Equal(committed, got) {
			continue
		}
		t.Errorf("%s is stale: run go generate ./internal/schemas/builtin/ (first difference at byte %d)", name, firstDiff(committed, got))
	}

	// The minors built in are the generator's, and each older one,
	// rebuilt from its difference, is its whole bundle.
	var minors []string
	for _, r := range generate.KubernetesReleases {
		minors = append(minors, r.Minor)
	}
	if !slices.Equal(minors, KubernetesMinors) || generate.Newest().Minor != NewestKubernetes {
		t.Errorf("KubernetesMinors %v (newest %s), the generator's %v", KubernetesMinors, NewestKubernetes, minors)
	}
	for _, r := range generate.KubernetesReleases {
		want, err := generate.KubernetesBundle(dirs[r.Module], r.Minor)
		if err != nil {
			t.Fatal(err)
		}
		set, err := KubernetesMinor(r.Minor)
		if err != nil {
			t.Fatal(err)
		}
		if got := bundleOf(t, set); !bytes.Equal(got, want) {
			t.Errorf("Kubernetes %s rebuilt from data/ differs from its bundle (first difference at byte %d)", r.Minor, firstDiff(got, want))
		}
	}

	// Verbatim sets really are verbatim.
	xp, err := Crossplane(2)
	mustSet(t, xp, err)
	for _, f := range xp.Files {
		raw, err := os.ReadFile(filepath.Join(corpusDir, "crds", filepath.FromSlash(f.Name)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.TrimPrefix(raw, []byte("---\n")), f.Data) {
			t.Errorf("%s differs from the corpus file", f.Name)
		}
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// BenchmarkKubernetes measures the first call of Kubernetes(): splitting
// the bundle (later calls are served from memory).
func BenchmarkKubernetes(b *testing.B) {
	var size int
	for b.Loop() {
		set, err := read("kubernetes-v1.37.yaml", kubernetesData, "kubernetes", "v1.37", KindKubernetes)
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		for _, f := range set.Files {
			size += len(f.Data)
		}
	}
	b.ReportMetric(float64(size), "yaml-bytes")
}

// BenchmarkKubernetesCached is the cost of later calls.
func BenchmarkKubernetesCached(b *testing.B) {
	if _, err := Kubernetes(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Kubernetes(); err != nil {
			b.Fatal(err)
		}
	}
}
