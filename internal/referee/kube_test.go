package referee

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/referee/apiserver"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// The kube-apiserver referee: built-in kinds (Deployments, Services,
// ConfigMaps, …) judged by a real kube-apiserver at go.mod's
// k8s.io/kubernetes version, whose validation crd-lsp links
// (internal/kubevalidation).

// kubeFolders of the k8s.io/kubernetes module hold Kubernetes' own
// manifests: e2e and e2e_node test manifests, fixtures, add-ons,
// integration and scheduler_perf test data, kubectl's test data.
var kubeFolders = []string{"test", "cluster", "hack/testdata"}

// virtualKinds are served for create but are requests, not objects
// (reviews, evictions, bindings): a dry run of one asks the server to
// authenticate or authorize something.
var virtualGroups = []string{"authentication.k8s.io", "authorization.k8s.io"}

// startKube starts kube-apiserver (internal/referee/apiserver).
func startKube(t *testing.T) *apiServer {
	t.Helper()
	s := apiserver.StartKube(t)
	return &apiServer{base: s.Base, client: s.Client}
}

// builtinServed is the built-in Kubernetes kinds of st that the server
// serves for create, with their schemas for the mutator.
func builtinServed(t *testing.T, st *schemas.Store) map[string]served {
	t.Helper()
	out := map[string]served{}
	for _, k := range st.Kinds() {
		if k.Source.Kind != schemas.SourceBuiltin || k.Source.Kubernetes == nil || k.Schema == nil {
			continue
		}
		if slices.Contains(virtualGroups, k.GVK.Group) || k.GVK.Kind == "CustomResourceDefinition" {
			continue
		}
		crd, err := k.Schema.CRD()
		if err != nil {
			t.Fatalf("%s: %v", k.GVK, err)
		}
		var schema map[string]any
		for _, v := range crd.Spec.Versions {
			if v.Name == k.GVK.Version && v.Schema != nil {
				b, _ := json.Marshal(v.Schema.OpenAPIV3Schema)
				_ = json.Unmarshal(b, &schema)
				schema, _ = normaliseNumbers(schema).(map[string]any)
			}
		}
		out[k.GVK.APIVersion()+" "+k.GVK.Kind] = served{plural: k.Plural, namespaced: k.Scope == schemas.Namespaced, schema: schema}
	}
	return out
}

// kubeModuleDir is the k8s.io/kubernetes module's folder, fetched as the
// Go command fetches it (never trusting the module cache to hold it).
func kubeModuleDir(t *testing.T) string {
	t.Helper()
	out, err := testfixtures.Output(t, exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes@"+apiserver.KubeVersion), 10*time.Minute) // a cold download of a big module
	if err != nil {
		apiserver.Need(t, "k8s.io/kubernetes %s not available from the Go module proxy: %v", apiserver.KubeVersion, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download: %s", out)
	}
	return mod.Dir
}

// manifestFiles are the YAML and JSON files under root, less vendored
// code, editors' node_modules and hidden folders.
func manifestFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "vendor" || n == "node_modules" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".json") {
			if info, err := d.Info(); err == nil && info.Size() < 2<<20 {
				out = append(out, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// builtinDocs are the documents under each root whose kind r serves,
// each text once.
func (r *referee) builtinDocs(t *testing.T, roots map[string][]string) []doc {
	t.Helper()
	seen := map[string]bool{}
	var out []doc
	for _, base := range sortedKeys(roots) {
		for _, folder := range roots[base] {
			for _, p := range manifestFiles(t, filepath.Join(base, folder)) {
				for _, d := range docsOf(t, base, p) {
					if _, ok := r.served[stringAt(d.obj, "apiVersion")+" "+stringAt(d.obj, "kind")]; !ok || seen[string(d.text)] {
						continue
					}
					seen[string(d.text)] = true
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// TestKubeReferee compares crd-lsp with a real kube-apiserver on every
// built-in object of the shared corpus, this repository's files and
// Kubernetes' own manifests, and on seeded mutations of them: server-side
// dry-run creates, as kubectl sends them, against crd-lsp's diagnostics.
// Verdicts and field paths must agree.
func TestKubeReferee(t *testing.T) {
	dir := corpus.Dir(t)
	srv := startKube(t)
	ctx := context.Background()
	rng := mutationRNG(seed(t))
	st, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	r := &referee{t: t, srv: srv, kube: true, served: builtinServed(t, st),
		env: analysis.Env{Workspace: analysis.Workspace{Schemas: st, CrossplaneMajor: 2}, Options: analysis.Options{UnknownKind: severity.Error}}}

	start := time.Now()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	objs := r.builtinDocs(t, map[string][]string{dir: {"."}, repo: {"."}, kubeModuleDir(t): kubeFolders})
	js := r.judgeAll(ctx, objs)
	report(t, "built-in objects", js)
	judged := 0
	var servedObjs []doc
	for _, j := range js {
		if j.skipped == "" && j.unavailable == "" {
			judged++
			servedObjs = append(servedObjs, j.doc)
		}
	}
	t.Logf("%d built-in objects judged in %v", judged, time.Since(start).Round(time.Millisecond))
	if judged < 1000 {
		t.Errorf("only %d built-in objects judged (want at least 1,000)", judged)
	}
	// kubectl-validate's cases where the server answers otherwise than
	// kubectl-validate records (kubectl_validate_test.go): the server's
	// answer, here.
	for name, want := range serverAnswers {
		file, _, _ := strings.Cut(name, "#")
		found := false
		for _, j := range js {
			if j.doc.name != filepath.Join("internal", "referee", "testdata", "kubectl-validate", "manifests", file) {
				continue
			}
			found = true
			if fields := strings.Join(j.serverFields, ","); j.serverReject != (want.fields != "") || fields != want.fields {
				t.Errorf("%s: kube-apiserver names %q (rejects: %v), serverAnswers says %q (%s)", name, fields, j.serverReject, want.fields, want.why)
			}
		}
		if !found {
			t.Errorf("%s: not judged", name)
		}
	}

	start = time.Now()
	m := &mutator{rng: rng, r: r}
	muts := m.builtinMutations(t, max(mutationCount(t), 300), servedObjs)
	mj := r.judgeAll(ctx, muts)
	report(t, "built-in mutations", mj)
	t.Logf("%d mutations judged in %v", len(muts), time.Since(start).Round(time.Millisecond))
	logMutationKinds(t, mj)
	if len(muts) < 300 {
		t.Errorf("only %d mutations made (want at least 300)", len(muts))
	}
	// What only kube-apiserver's own validation finds: without it (broken
	// on purpose, say) these are disagreements, and this count is 0.
	caught := 0
	for _, j := range slices.Concat(js, mj) {
		if j.serverReject && slices.ContainsFunc(j.lspSays, func(s string) bool { return strings.HasSuffix(s, "[k8s-validation]") }) {
			caught++
		}
	}
	t.Logf("%d rejections crd-lsp finds with kube-apiserver's own validation (code k8s-validation)", caught)
	if caught < 100 {
		t.Errorf("only %d rejections found by kube-apiserver's own validation: is it running?", caught)
	}
}

// builtinMutations are objectMutations and mutations aimed at the rules
// kube-apiserver hand-writes: names and values of the shapes its
// validation refuses, ports and counts out of range, duplicated list
// items, labels that stop matching a selector.
var builtinMutations = append(slices.Clone(objectMutations), []struct {
	kind string
	fn   func(m *mutator, obj map[string]any, ss []site) string
}{
	{"k8s-string", (*mutator).k8sString},
	{"k8s-string", (*mutator).k8sString},
	{"k8s-number", (*mutator).k8sNumber},
	{"k8s-number", (*mutator).k8sNumber},
	{"k8s-absent", (*mutator).k8sAbsent},
	{"k8s-duplicate", (*mutator).k8sDuplicate},
	{"k8s-labels", (*mutator).k8sLabels},
}...)

// builtinMutations makes n mutated documents of objs.
func (m *mutator) builtinMutations(t *testing.T, n int, objs []doc) []doc {
	t.Helper()
	var out []doc
	for tries := 0; len(out) < n && tries < 20*n && len(objs) > 0; tries++ {
		mk := builtinMutations[m.rng.IntN(len(builtinMutations))]
		for range 40 {
			d := objs[m.rng.IntN(len(objs))]
			s, ok := m.r.served[stringAt(d.obj, "apiVersion")+" "+stringAt(d.obj, "kind")]
			if !ok {
				continue
			}
			obj := deepCopy(d.obj).(map[string]any)
			var ss []site
			sites(obj, s.schema, nil, nil, &ss)
			ss = slices.DeleteFunc(ss, func(s site) bool {
				return len(s.path) == 0 || s.path[0] == "apiVersion" || s.path[0] == "kind" || s.path[0] == "status"
			})
			if desc := mk.fn(m, obj, ss); desc != "" {
				out = append(out, doc{name: fmt.Sprintf("mutation %d (%s: %s) of %s", len(out), mk.kind, desc, d.name), text: marshal(t, obj), obj: obj, mut: mk.kind})
				break
			}
		}
	}
	return out
}

// k8sStrings are values of the shapes kube-apiserver's hand-written
// rules refuse somewhere: empty, upper case, underscores, a leading
// dash, lower-case enum values, paths, spaces, a long string.
var k8sStrings = []string{"", "Upper", "a_b", "-x", "udp", "always", "../x", "a b", "x/y/z", "1.5", "*", strings.Repeat("a", 254)}

func (m *mutator) k8sString(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool { _, isString := s.value.(string); return s.present && isString })
	if !ok {
		return ""
	}
	return place(obj, s, k8sStrings[m.rng.IntN(len(k8sStrings))])
}

var k8sNumbers = []int64{-1, 0, 1, 65536, 70000, 1 << 31}

func (m *mutator) k8sNumber(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool { _, isInt := s.value.(int64); return s.present && isInt })
	if !ok {
		return ""
	}
	return place(obj, s, k8sNumbers[m.rng.IntN(len(k8sNumbers))])
}

// k8sAbsent sets an optional string or integer field the object leaves
// out: a value the rules of its neighbours may refuse.
func (m *mutator) k8sAbsent(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool {
		t := typeOf(s.schema)
		return !s.present && (t == "string" || t == "integer") && len(s.path) > 1
	})
	if !ok {
		return ""
	}
	if typeOf(s.schema) == "integer" {
		return place(obj, s, k8sNumbers[m.rng.IntN(len(k8sNumbers))])
	}
	return place(obj, s, k8sStrings[m.rng.IntN(len(k8sStrings))])
}

// k8sDuplicate repeats a list's first item: names, ports, keys unique
// in a list are the hand-written rules' business, not always the
// schema's.
func (m *mutator) k8sDuplicate(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool { l, isList := s.value.([]any); return s.present && isList && len(l) > 0 })
	if !ok {
		return ""
	}
	l := s.value.([]any)
	return place(obj, s, append(slices.Clone(l), deepCopy(l[0])))
}

// k8sLabels changes a label of a pod template, or a selector's: the two
// must match.
func (m *mutator) k8sLabels(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool {
		if !s.present || len(s.path) < 2 {
			return false
		}
		last, _ := s.path[len(s.path)-1].(string)
		_, isMap := s.value.(map[string]any)
		return isMap && (last == "labels" || last == "matchLabels" || last == "selector" && s.path[0] == "spec" && len(s.path) == 2)
	})
	if !ok {
		return ""
	}
	labels := s.value.(map[string]any)
	keys := sortedKeys(labels)
	if len(keys) == 0 {
		return place(obj, s, map[string]any{"referee": "x"})
	}
	k := keys[m.rng.IntN(len(keys))]
	if m.rng.IntN(2) == 0 {
		set(obj, append(slices.Clone(s.path), k), nil, true)
		return fmt.Sprintf("remove %s.%s", s, k)
	}
	return place(obj, site{path: append(slices.Clone(s.path), k)}, "referee-changed")
}

// clusterReasons are what kube-apiserver's Service storage says when an
// allocation fails: it depends on the cluster's service CIDRs and node
// port range (flags) and on what is allocated already, which crd-lsp
// cannot know; docs/known-limits.md lists them.
var clusterReasons = []string{
	"provided IP is not in the valid range",
	"provided port is not in the valid range",
	"provided IP is already allocated",
	"provided port is already allocated",
	"not configured on this cluster",
	"this cluster is not configured for dual-stack services",
}

// clusterDependent: every cause of the server's answer is one of
// clusterReasons.
func clusterDependent(st status) bool {
	causes := st.Details.Causes
	if len(causes) == 0 {
		return false
	}
	for _, c := range causes {
		if !slices.ContainsFunc(clusterReasons, func(r string) bool { return strings.Contains(c.Message, r) }) {
			return false
		}
	}
	return true
}
