package referee

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// edgeCases is the referee's own CRD and objects: rules the corpus's
// schemas never use (oneOf, anyOf, formats, ranges, nullable, defaults in
// list-map keys, transition rules, embedded resources).
const edgeCases = "testdata/edge"

const crdEndpoint = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// served is a kind at a version the server serves from a created CRD.
type served struct {
	plural     string
	namespaced bool
	schema     map[string]any // the version's openAPIV3Schema
}

// referee judges documents with both crd-lsp and the API server.
type referee struct {
	t      *testing.T
	srv    *apiServer
	env    analysis.Env
	served map[string]served // apiVersion + " " + kind
	// kube: the server is kube-apiserver judging built-in kinds
	// (TestKubeReferee): the core group is served under /api, and a
	// dry run of a name the server already holds (its own bootstrap
	// objects) answers AlreadyExists after validation passed.
	kube bool
}

// judgement is what both said of one document.
type judgement struct {
	doc                  doc
	serverReject         bool
	serverFields         []string // fields the server named (Warn request)
	serverSays           string
	lspReject            bool
	lspFields            []string // fields of crd-lsp's errors
	lspSays              []string
	beyond               []string // crd-lsp's checks beyond the API server (names)
	beyondFields         []string // the fields they name
	lenient              []string // crd-lsp's findings short of an error (names)
	lenientFields        []string
	skipped, unavailable string
	// clusterOnly: every reason the server gave depends on its
	// configuration or state, which crd-lsp cannot know (kube-apiserver:
	// clusterDependent).
	clusterOnly bool
}

func (r *referee) endpoint(obj map[string]any) (string, bool) {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if av == "apiextensions.k8s.io/v1" && kind == "CustomResourceDefinition" {
		return crdEndpoint, true
	}
	s, ok := r.served[av+" "+kind]
	if !ok {
		return "", false
	}
	path := "/apis/" + av
	if !strings.Contains(av, "/") {
		path = "/api/" + av
	}
	if s.namespaced {
		ns := "default"
		if meta, _ := obj["metadata"].(map[string]any); meta != nil {
			if n, _ := meta["namespace"].(string); n != "" {
				ns = n
			}
		}
		path += "/namespaces/" + ns
	}
	return path + "/" + s.plural, true
}

// judge asks both. A document whose kind the server does not serve is
// skipped.
func (r *referee) judge(ctx context.Context, d doc) judgement {
	j := judgement{doc: d}
	ep, ok := r.endpoint(d.obj)
	if !ok {
		j.skipped = "kind not served by a created CRD"
		return j
	}
	// crd-lsp, as a user's file holding this document.
	f := document.Parse(filepath.Join("/referee", strings.ReplaceAll(d.name, "#", "-"))+".yaml", 0, d.text)
	for _, dg := range analysis.Diagnose(ctx, f, r.env) {
		if dg.Severity != severity.Error {
			for _, l := range lenientFindings {
				if l.match(dg) {
					j.lenient = append(j.lenient, l.name)
					j.lenientFields = append(j.lenientFields, dg.Path)
				}
			}
			continue
		}
		if name, ok := beyondCheck(dg, stringAt(d.obj, "kind")); ok {
			j.beyond = append(j.beyond, name)
			j.beyondFields = append(j.beyondFields, dg.Path)
			continue
		}
		j.lspReject = true
		j.lspFields = append(j.lspFields, dg.Path)
		j.lspSays = append(j.lspSays, fmt.Sprintf("%s: %s [%s]", dg.Path, dg.Message, dg.Code))
	}

	// The server, as kubectl sends it.
	body, err := kubectlJSON(d.text)
	if err != nil {
		j.serverReject, j.serverSays = true, "kubectl cannot convert it: "+err.Error()
		return j
	}
	strict, err := r.post(ctx, ep+"?dryRun=All&fieldValidation=Strict", body)
	if err != nil {
		j.unavailable = err.Error()
		return j
	}
	j.serverReject = strict.code >= 300 && !(r.kube && alreadyExists(strict))
	j.serverSays = fmt.Sprintf("%d %s", strict.code, strict.status.Message)
	if !j.serverReject {
		return j
	}
	warn, err := r.post(ctx, ep+"?dryRun=All&fieldValidation=Warn", body)
	if err != nil {
		j.unavailable = err.Error()
		return j
	}
	for _, w := range warn.warnings {
		for _, prefix := range []string{"unknown field ", "duplicate field "} {
			if q, ok := strings.CutPrefix(w, prefix); ok {
				if f, err := strconv.Unquote(q); err == nil {
					j.serverFields = append(j.serverFields, f)
				}
			}
		}
	}
	j.clusterOnly = r.kube && clusterDependent(warn.status)
	generated := stringAt(d.obj, "metadata", "name") == "" && stringAt(d.obj, "metadata", "generateName") != ""
	for _, c := range warn.status.Details.Causes {
		f := c.Field
		if m := nilFieldRE.FindStringSubmatch(c.Message); f == "<nil>" && m != nil {
			f = m[1] // kube-openapi's oneOf/anyOf/allOf/not: the path is in the message
		}
		if r.kube && generated && f == "metadata.name" {
			f = "metadata.generateName" // the name kube-apiserver generated from it
		}
		j.serverFields = append(j.serverFields, f)
	}
	if warn.code >= 300 {
		j.serverSays += fmt.Sprintf("; with fieldValidation=Warn: %d %s", warn.code, warn.status.Message)
	}
	if len(warn.warnings) > 0 {
		j.serverSays += "; warnings: " + strings.Join(warn.warnings, "; ")
	}
	return j
}

// post sends a request, waiting out a kind the server does not serve yet
// (a CRD established a moment ago) and failing on server errors.
func (r *referee) post(ctx context.Context, path string, body []byte) (answer, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		a, err := r.srv.do(ctx, "POST", path, body)
		if err != nil {
			return a, err
		}
		if a.code == 404 && a.status.Reason == "NotFound" && strings.Contains(a.status.Message, "the server could not find the requested resource") && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if r.kube && alreadyExists(a) {
			return a, nil
		}
		if a.code >= 500 || a.code == 404 || a.code == 409 {
			return a, fmt.Errorf("%s: %d %s", path, a.code, a.body)
		}
		return a, nil
	}
}

// alreadyExists: a dry-run create of a name the server holds, answered
// once validation passed (the storage's conflict comes after it).
func alreadyExists(a answer) bool {
	return a.code == 409 && a.status.Reason == "AlreadyExists"
}

// norm writes a field path one way: the server's field.Path renders map
// keys as [key], crd-lsp's fieldpath as .key unless the key has a dot.
func norm(p string) string {
	p = strings.TrimPrefix(p, ".")
	// The server validates a CRD in its internal form, where the schema,
	// subresources and columns of a single version (or of versions that
	// share them) sit at spec.validation, spec.subresources and
	// spec.additionalPrinterColumns.
	p = crdVersionRE.ReplaceAllString(p, "spec.$1")
	p = strings.Replace(p, "spec.schema.", "spec.validation.", 1)
	p = strings.Replace(p, "spec.conversion.webhook.clientConfig", "spec.conversion.webhookClientConfig", 1)
	p = strings.Replace(p, "spec.conversion.webhook.conversionReviewVersions", "spec.conversion.conversionReviewVersions", 1)
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '[' {
			end := strings.IndexByte(p[i:], ']')
			if end > 0 {
				inner := p[i+1 : i+end]
				if _, err := strconv.Atoi(inner); err != nil {
					b.WriteByte('.')
					b.WriteString(strings.Trim(inner, `"`))
					i += end
					continue
				}
			}
		}
		b.WriteByte(p[i])
	}
	// kube-openapi names a list item at the root of what it validates
	// "[0]", and the server appends that as a child: a default's item is
	// default.[0] there, default[0] in crd-lsp.
	return strings.ReplaceAll(b.String(), ".[", "[")
}

var nilFieldRE = regexp.MustCompile(`^Invalid value: "": "([^"]+)" must (?:not )?validate`)

var crdVersionRE = regexp.MustCompile(`^spec\.versions\[\d+\]\.(schema|subresources|additionalPrinterColumns)`)

// related: the same field, or one inside the other (crd-lsp places a
// labels error on the label, the server on the labels map).
func related(a, b string) bool {
	a, b = norm(a), norm(b)
	within := func(x, y string) bool {
		return strings.HasPrefix(x, y) && (len(x) == len(y) || x[len(y)] == '.' || x[len(y)] == '[')
	}
	return a == b || within(a, b) || within(b, a)
}

// disagreement says how the two differ, "" when they agree.
func (j judgement) disagreement() string {
	if j.skipped != "" {
		return ""
	}
	if j.unavailable != "" {
		return "the server could not judge it: " + j.unavailable
	}
	if !j.serverReject {
		if j.lspReject {
			return "crd-lsp rejects it, the API server accepts it"
		}
		return ""
	}
	// The server rejects: crd-lsp must say so, with an error (also one
	// of its checks beyond the server, which may restate the server's
	// finding) or a finding it deliberately keeps short of an error.
	if !j.lspReject && len(j.beyond) == 0 && len(j.lenient) == 0 {
		if j.clusterOnly {
			return ""
		}
		return "the API server rejects it, crd-lsp accepts it"
	}
	named := slices.Concat(j.lspFields, j.beyondFields, j.lenientFields)
	var fields []string
	for _, f := range j.serverFields {
		if f != "" && f != "<nil>" {
			fields = append(fields, f)
		}
	}
	if len(fields) == 0 {
		return "" // a decoding error without causes: the verdict is all there is
	}
	var missed, extra []string
	for _, s := range fields {
		if !slices.ContainsFunc(named, func(l string) bool { return related(s, l) }) && !restated(j.beyond, s) {
			missed = append(missed, s)
		}
	}
	for _, l := range j.lspFields {
		if !slices.ContainsFunc(fields, func(s string) bool { return related(s, l) }) {
			extra = append(extra, l)
		}
	}
	if len(missed)+len(extra) == 0 {
		return ""
	}
	return fmt.Sprintf("fields differ: the server names %q that crd-lsp does not, crd-lsp %q that the server does not", missed, extra)
}

// restated: one of the checks beyond the server that fired says what the
// server reports on field.
func restated(checks []string, field string) bool {
	for _, b := range beyondServer {
		if b.restates != nil && slices.Contains(checks, b.name) && b.restates(norm(field)) {
			return true
		}
	}
	return false
}

func (j judgement) String() string {
	return fmt.Sprintf("%s\n  API server: %s (fields %q)\n  crd-lsp:    %q (beyond the server: %q at %q; short of an error: %q)\n--- document ---\n%s", j.doc.name, j.serverSays, j.serverFields, j.lspSays, j.beyond, j.beyondFields, j.lenient, clip(string(j.doc.text), 3000))
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "\n…"
	}
	return s
}

// judgeAll judges docs on a few workers, in order.
func (r *referee) judgeAll(ctx context.Context, docs []doc) []judgement {
	out := make([]judgement, len(docs))
	parallel(len(docs), func(i int) { out[i] = r.judge(ctx, docs[i]) })
	return out
}

// parallel runs fn(0..n-1) on four workers: the server answers while
// crd-lsp validates.
func parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// report fails the test for every disagreement (the first ones in full)
// and logs the counts.
func report(t *testing.T, what string, js []judgement) {
	t.Helper()
	var judged, rejected, skipped, bad int
	for _, j := range js {
		if j.skipped != "" {
			skipped++
			continue
		}
		judged++
		if j.serverReject {
			rejected++
		}
		if show := os.Getenv("CRD_LSP_REFEREE_SHOW"); show != "" && strings.Contains(j.doc.name, show) {
			t.Logf("%s: %s", what, j)
		}
		if d := j.disagreement(); d != "" {
			bad++
			if bad <= 25 {
				t.Errorf("%s: %s: %s", what, d, j)
			}
		}
	}
	t.Logf("%s: %d judged (%d rejected by the API server), %d disagreements, %d not served here", what, judged, rejected, bad, skipped)
}

// regression is a mutation that once found a disagreement: the
// mutation at index of seed's sequence. name is its description, so that
// a change of the corpus or of the mutator, which shifts the sequence,
// fails loudly instead of quietly testing something else.
type regression struct {
	seed  uint64
	index int
	name  string
	why   string
}

// regressions are judged on every run besides the random seed's.
var regressions = []regression{
	{seed: 4, index: 1891,
		name: "mutation 1891 (crd-schema: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.managementPolicies.items.type = strin) of workspaces/provider-upjet-gcp-examples/schemas/pubsub.gcp.upbound.io_litereservations.yaml",
		why:  "a list default's item: the server names it default.[0]"},
	{seed: 3, index: 5236,
		name: "mutation 5236 (crd-schema: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.managementPolicies.items.enum = [a, 1]) of workspaces/provider-upjet-gcp-examples/schemas/cloudplatform.gcp.upbound.io_folders.yaml",
		why:  "a list default's item: the server names it default.[0]"},
}

// judgeRegressions makes each regression's mutation again and judges it.
func (r *referee) judgeRegressions(t *testing.T, ctx context.Context, objs, crds []doc) []judgement {
	t.Helper()
	start := time.Now()
	var docs []doc
	for _, reg := range regressions {
		m := &mutator{rng: mutationRNG(reg.seed), r: r}
		muts := m.mutations(t, reg.index+1, objs, crds)
		if len(muts) <= reg.index || muts[reg.index].name != reg.name {
			got := "none"
			if len(muts) > reg.index {
				got = muts[reg.index].name
			}
			t.Errorf("regression seed %d mutation %d: the corpus or the mutator changed, it is now %q, not %q (%s): find the case again", reg.seed, reg.index, got, reg.name, reg.why)
			continue
		}
		docs = append(docs, muts[reg.index])
	}
	js := r.judgeAll(ctx, docs)
	report(t, "regression mutations", js)
	t.Logf("%d regression mutations made and judged in %v", len(js), time.Since(start).Round(time.Millisecond))
	return js
}

func mutationRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x7265666572656521))
}

func seed(t *testing.T) uint64 {
	t.Helper()
	s := uint64(time.Now().UnixNano())
	if v := os.Getenv("CRD_LSP_REFEREE_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CRD_LSP_REFEREE_SEED: %v", err)
		}
		s = n
	}
	t.Logf("seed %d (CRD_LSP_REFEREE_SEED=%d replays this run)", s, s)
	return s
}

func mutationCount(t *testing.T) int {
	n := 300
	if v := os.Getenv("CRD_LSP_REFEREE_MUTATIONS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("CRD_LSP_REFEREE_MUTATIONS: %v", err)
		}
	}
	return n
}

// TestReferee compares crd-lsp with a real API server on every CRD and
// custom resource of the corpus it can serve, and on seeded mutations.
func TestReferee(t *testing.T) {
	dir := corpus.Dir(t)
	srv := startServer(t)
	ctx := context.Background()
	rng := mutationRNG(seed(t))

	// The CRDs, one per name (the first folder wins), and the referee's
	// own edge cases.
	var crds []doc
	byName := map[string]bool{}
	for _, folder := range append([]string{edgeCases}, crdFolders...) {
		base := dir
		if folder == edgeCases {
			base = "."
		}
		for _, p := range yamlFiles(t, filepath.Join(base, folder)) {
			for _, d := range docsOf(t, base, p) {
				if d.obj["kind"] != "CustomResourceDefinition" {
					continue
				}
				name := stringAt(d.obj, "metadata", "name")
				if byName[name] {
					continue
				}
				byName[name] = true
				crds = append(crds, d)
			}
		}
	}
	builtins, err := workspace.Builtins(2)
	if err != nil {
		t.Fatal(err)
	}
	var inputs []schemas.FileInput
	for _, d := range crds {
		path := "/referee/crds/" + strings.ReplaceAll(d.name, "/", "_")
		inputs = append(inputs, schemas.FileInput{Source: schemas.Source{Kind: schemas.SourceWorkspace, Name: path, File: path}, Path: path, Content: d.text})
	}
	r := &referee{t: t, srv: srv, served: map[string]served{},
		env: analysis.Env{Workspace: analysis.Workspace{Schemas: builtins.WithFiles(inputs), CrossplaneMajor: 2}, Options: analysis.Options{UnknownKind: severity.Error}}}

	// 1. Every CRD, as a dry run; then the accepted ones for real.
	start := time.Now()
	js := r.judgeAll(ctx, crds)
	report(t, "CRDs", js)
	crdJudgements := js
	var created []string
	var toCreate []doc
	for _, j := range js {
		if j.serverReject {
			continue
		}
		toCreate = append(toCreate, j.doc)
		created = append(created, stringAt(j.doc.obj, "metadata", "name"))
		r.addServed(j.doc.obj)
	}
	errs := make([]error, len(toCreate))
	parallel(len(toCreate), func(i int) {
		body, _ := kubectlJSON(toCreate[i].text)
		_, errs[i] = r.post(ctx, crdEndpoint, body)
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("creating %s: %v", toCreate[i].name, err)
		}
	}
	r.waitEstablished(ctx, created)
	t.Logf("%d CRDs judged, created and established in %v", len(crds), time.Since(start).Round(time.Millisecond))

	// The checks beyond the API server, each on its example.
	assertBeyond(t, ctx, r)

	// 2. Every object of the corpus whose kind is served.
	start = time.Now()
	var objs []doc
	for _, folder := range append([]string{edgeCases}, objectFolders...) {
		base := dir
		if folder == edgeCases {
			base = "."
		}
		for _, p := range yamlFiles(t, filepath.Join(base, folder)) {
			for _, d := range docsOf(t, base, p) {
				if d.obj["kind"] != "CustomResourceDefinition" {
					objs = append(objs, d)
				}
			}
		}
	}
	js = r.judgeAll(ctx, objs)
	report(t, "corpus objects", js)
	t.Logf("objects judged in %v", time.Since(start).Round(time.Millisecond))

	// 3. Seeded mutations of both.
	start = time.Now()
	var servedObjs []doc
	for _, j := range js {
		if j.skipped == "" && j.unavailable == "" {
			servedObjs = append(servedObjs, j.doc)
		}
	}
	m := &mutator{rng: rng, r: r}
	muts := m.mutations(t, mutationCount(t), servedObjs, crds)
	mj := r.judgeAll(ctx, muts)
	report(t, "mutations", mj)
	t.Logf("%d mutations judged in %v", len(muts), time.Since(start).Round(time.Millisecond))
	logMutationKinds(t, mj)

	// 4. The mutations of seeds that once found a disagreement.
	mj = append(mj, r.judgeRegressions(t, ctx, servedObjs, crds)...)

	// Each finding kept short of an error still stands for a rejection.
	for _, l := range lenientFindings {
		seen := false
		for _, j := range slices.Concat(crdJudgements, js, mj) {
			seen = seen || j.serverReject && slices.Contains(j.lenient, l.name)
		}
		if !seen {
			t.Errorf("%q (%s) never met a document the API server rejects: is it still needed?", l.name, l.why)
		}
	}
}

func (r *referee) addServed(crd map[string]any) {
	group := stringAt(crd, "spec", "group")
	kind := stringAt(crd, "spec", "names", "kind")
	plural := stringAt(crd, "spec", "names", "plural")
	namespaced := stringAt(crd, "spec", "scope") == "Namespaced"
	versions, _ := at(crd, "spec", "versions").([]any)
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		if vm == nil || vm["served"] != true {
			continue
		}
		schema, _ := at(vm, "schema", "openAPIV3Schema").(map[string]any)
		r.served[group+"/"+stringAt(vm, "name")+" "+kind] = served{plural: plural, namespaced: namespaced, schema: schema}
	}
}

// waitEstablished waits until every named CRD has condition Established.
func (r *referee) waitEstablished(ctx context.Context, names []string) {
	t := r.t
	deadline := time.Now().Add(3 * time.Minute)
	for {
		a, err := r.srv.do(ctx, "GET", crdEndpoint, nil)
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Items []map[string]any `json:"items"`
		}
		if err := json.Unmarshal(a.body, &list); err != nil {
			t.Fatalf("listing CRDs: %v", err)
		}
		established := map[string]bool{}
		for _, it := range list.Items {
			conds, _ := at(it, "status", "conditions").([]any)
			for _, c := range conds {
				cm, _ := c.(map[string]any)
				if cm["type"] == "Established" && cm["status"] == "True" {
					established[stringAt(it, "metadata", "name")] = true
				}
			}
		}
		var waiting []string
		for _, n := range names {
			if !established[n] {
				waiting = append(waiting, n)
			}
		}
		if len(waiting) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("CRDs not established after 3 minutes: %v", waiting)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func at(v any, path ...string) any {
	for _, p := range path {
		m, _ := v.(map[string]any)
		if m == nil {
			return nil
		}
		v = m[p]
	}
	return v
}

func stringAt(v any, path ...string) string {
	s, _ := at(v, path...).(string)
	return s
}
