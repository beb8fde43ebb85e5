package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corpusdir "github.com/crd-lsp/crd-lsp/internal/corpus"
)

func corpus(t testing.TB) string { return corpusdir.Dir(t) }

// TestCheckQuickstart is the README's first command: exact lines, summary
// and exit status, offline with built-in schemas.
func TestCheckQuickstart(t *testing.T) {
	code, out, errOut := runCmd(t, "", "check", filepath.Join("..", "..", "examples", "quickstart"))
	if code != 1 {
		t.Fatalf("exit %d, want 1 (errors found); stderr %s", code, errOut)
	}
	p := filepath.Join("..", "..", "examples", "quickstart", "resources.yaml")
	for _, want := range []string{
		p + `:6:1: error: missing required field "engine" [required]`,
		p + `:7:3: error: unknown field "engin"; did you mean "engine"? [unknown-field]`,
		p + `:8:14: error: must be of type integer: "string" [type]`,
		p + `:12:7: error: duplicate entry`,
		p + `:18:9: error: invalid value "Reports_DB": a lowercase RFC 1123 subdomain`,
		p + `:19:1: error: mysql databases are limited to 1000 GiB [cel]`,
		p + `:28:13: error: must be of type integer: "string" [type]`,
		filepath.Join("..", "..", "examples", "quickstart", "composition.yaml") + `:25:15: error: spec.selector is required by Deployment, but neither the base nor any patch sets it [render-required]`,
		filepath.Join("..", "..", "examples", "quickstart", "composition.yaml") + `:37:35: warning: spec.replica: field "replica" does not exist per the composed resource's schema; did you mean "replicas"? [fieldpath-unknown]`,
		filepath.Join("..", "..", "examples", "quickstart", "composition.yaml") + `:50:30: warning: the patch reads a string, but spec.ports[0].port is an integer [patch-type]`,
		"4 files checked: 8 errors, 2 warnings, 1 info",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCheckJSONAndStdin(t *testing.T) {
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\ndata:\n  a: b\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n    - port: http\n"
	code, out, errOut := runCmd(t, doc, "check", "--output", "json", "-")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Files []struct {
			Path        string
			Diagnostics []jsonDiagnostic
		}
		Summary summary
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	if len(res.Files) != 1 || res.Files[0].Path != "<stdin>" || res.Summary.Errors != 1 {
		t.Fatalf("result = %+v", res)
	}
	d := res.Files[0].Diagnostics[0]
	if d.Line != 14 || d.Column != 13 || d.Severity != "error" || d.Code != "type" {
		t.Errorf("diagnostic = %+v, want 14:13 type error on the port", d)
	}
	// A clean input exits 0.
	if code, out, _ := runCmd(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n", "check", "-"); code != 0 || !strings.Contains(out, "1 file checked: 0 errors") {
		t.Errorf("clean stdin: exit %d, %q", code, out)
	}
}

// TestCheckCorpusCompositions validates every Composition, XRD, example XR
// and claim of the shared corpus with the corpus CRDs: no errors, and only
// warnings that are right:
//
//   - P&T's own examples ship XRs and Compositions without an XRD (4);
//
//   - configuration-aws-lb-controller composes an XPodIdentity whose package
//     is not in the corpus (1);
//
//   - platform-ref-aws v1.4.0 patches status.oidcProvider, which its XRD's
//     status does not declare, into spec.parameters.oidcProvider, which the
//     XAWSLBController of the lb-controller v0.3.0 it depends on does not
//     have (2): a real bug upstream that Crossplane would not report;
//
//   - rendered with the smallest valid XR, composed resources miss required
//     fields that patches set only from optional XR fields (12): a Helm
//     Release's set[].valueFrom.secretKeyRef name/namespace come only from
//     the optional passwordSecretRef (configuration-app, platform-ref-aws
//     v0.6.0). An XR without those fields yields resources the API server
//     rejects. (Connection-secret namespaces patched from the XR's
//     writeConnectionSecretToRef are set: Crossplane fills that reference
//     in from the Composition's writeConnectionSecretsToNamespace.)
//
// The 11 info notes are go-templating steps, which crd-lsp cannot run (2),
// resources withheld until a Required fromFieldPath is set (5), and XRDs
// that two versions of one configuration define differently (4: each
// version's files use its own).
func TestCheckCorpusCompositions(t *testing.T) {
	c := corpus(t)
	code, out, errOut := runCmd(t, "", "check",
		"--schemas", filepath.Join(c, "crds", "providers"),
		"--schemas", filepath.Join(c, "crds", "functions"),
		filepath.Join(c, "compositions"))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	// No info says a go-templating step "cannot run until configured"
	// (crossplane-docs' templated composition, aws-network's gotpl): they
	// are rendered in-process, and what they compose validates.
	if !strings.Contains(out, "76 files checked: 0 errors, 20 warnings, 9 info") {
		t.Errorf("summary:\n%s", out)
	}
	expected := []string{
		"function-patch-and-transform/v0.10.8/example",
		"XPodIdentity",
		`status.oidcProvider: field "oidcProvider" does not exist per the composite resource's schema`,
		`spec.parameters.oidcProvider: field "oidcProvider" does not exist per the composed resource's schema`,
		`.valueFrom.secretKeyRef.namespace is required by Release, and only set when spec.parameters.passwordSecretRef.namespace is set`,
		`.valueFrom.secretKeyRef.name is required by Release, and only set when spec.parameters.passwordSecretRef.name is set`,
		`.valueFrom.secretKeyRef.namespace is required by Release, and only set when spec.passwordSecretRef.namespace is set`,
		`.valueFrom.secretKeyRef.name is required by Release, and only set when spec.passwordSecretRef.name is set`,
		// A real typo upstream (v0.11.0's XRD): Crossplane drops it, so
		// the field has no description.
		`"decription" is not a JSON schema keyword (did you mean "description"?)`,
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.Contains(line, ": warning: ") {
			continue
		}
		ok := false
		for _, e := range expected {
			ok = ok || strings.Contains(line, e)
		}
		if !ok {
			t.Errorf("unexpected warning: %s", line)
		}
	}
}

// TestCheckCrossplaneYAML: check reports crossplane.yaml problems as the
// editor does: constraint syntax on the version, a missing version on the
// entry, a YAML syntax error once.
func TestCheckCrossplaneYAML(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) {
		if err := os.WriteFile(filepath.Join(dir, "crossplane.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: x\nspec:\n  dependsOn:\n    - provider: xpkg.crossplane.io/crossplane-contrib/provider-nop\n      version: \">=v0.2.0 <<\"\n    - configuration: foo\n")
	code, out, _ := runCmd(t, "", "check", "--cache-dir", t.TempDir(), dir)
	p := filepath.Join(dir, "crossplane.yaml")
	for _, want := range []string{
		p + `:8:16: error: invalid version constraint ">=v0.2.0 <<"`,
		p + `:9:7: error: version is required for xpkg.crossplane.io/foo`,
		"1 file checked: 2 errors, 0 warnings, 0 info",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	write("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: x\nspec:\n  dependsOn:\n    - function: [broken\n")
	if _, out, _ := runCmd(t, "", "check", "--cache-dir", t.TempDir(), dir); !strings.Contains(out, "1 file checked: 1 error") || !strings.Contains(out, "[yaml-syntax]") {
		t.Errorf("a YAML syntax error is reported once:\n%s", out)
	}
}

// TestNotCachedNotice: dependencies the package cache lacks are said in
// one line on stderr, and only when a finding may come from them: a
// workspace whose kinds its own files (or --schemas) define gets none
// (before issue 22, one line per dependency, always).
func TestNotCachedNotice(t *testing.T) {
	dir := t.TempDir()
	meta := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata: {name: c}\nspec:\n  dependsOn:\n" +
		"  - provider: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: v0.4.0\n" +
		"  - function: xpkg.crossplane.io/crossplane-contrib/function-kcl\n    version: v0.11.0\n"
	if err := os.WriteFile(filepath.Join(dir, "crossplane.yaml"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	cm := filepath.Join(dir, "cm.yaml")
	if err := os.WriteFile(cm, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	if _, _, stderr := runCmd(t, "", "check", "--cache-dir", cache, dir); strings.Contains(stderr, "package cache") {
		t.Errorf("kinds all known, yet:\n%s", stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "nop.yaml"), []byte("apiVersion: nop.crossplane.io/v1alpha1\nkind: NopResource\nmetadata: {name: a}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, stderr := runCmd(t, "", "check", "--cache-dir", cache, dir)
	if n := strings.Count(stderr, "package cache"); n != 1 || !strings.Contains(stderr, "crd-lsp check: 2 dependencies are not in the package cache (xpkg.crossplane.io/crossplane-contrib/provider-nop, xpkg.crossplane.io/crossplane-contrib/function-kcl): 1 finding names a kind that may come from them; run crd-lsp pull") {
		t.Errorf("stderr:\n%s", stderr)
	}
}
