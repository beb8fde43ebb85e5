package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/crd-lsp/crd-lsp/internal/lsp/lsptest"
)

// A finding a workspace is expected to have: a regular expression over the
// output line ("file:line:col: severity: message [code]", file relative to
// the workspace), how many lines it matches, and why the finding is right.
type wantFinding struct {
	re  string
	n   int
	why string
}

// Reasons shared by several workspaces.
const (
	whyOptionalOnly = "true: the Composition sets this required field only from an optional field of the XR; an XR without it (the smallest one its XRD accepts) yields a resource the API server rejects"
	whyNoSchema     = "true: no CRD or XRD for this kind is in the workspace (or its schemas folder); crd-lsp cannot validate it"
	whyUptest       = "true as written: uptest substitutes ${Rand.RFC1123Subdomain} before applying; kubectl apply of the file as it is would be rejected (upjet's examples are uptest templates)"
	whyUpstreamBug  = "true upstream bug: the example does not match its provider's CRD, and the API server would reject it"
	whyE2EInvalid   = "true: a deliberately invalid fixture of Crossplane's e2e suite, which asserts that the API server rejects it"
	whyE2ELeftover  = "true for Crossplane v2 (no crossplane.yaml pins v1): a classic Composition with spec.environment, a leftover the v2.3.4 e2e suite no longer applies"
)

// workspaceFindings lists every error and warning crd-lsp check reports on
// the real repositories of ../shared/corpus/workspaces (verbatim, see each
// SOURCES.md), run as a new user would: `crd-lsp check --schemas schemas .`
// with an empty package cache. Infos are not listed: they say what was not
// rendered or checked (steps crd-lsp cannot run, resources withheld until
// a Required field is set, a packaged CRD's webhook service filled in at
// install).
var workspaceFindings = map[string][]wantFinding{
	"configuration-azure-aks": {
		// The Composition sets no writeConnectionSecretsToNamespace, so
		// Crossplane gives the XR no connection-secret reference: the
		// namespace comes only from one the user sets.
		{`^apis/composition\.yaml:87:30: warning: spec\.writeConnectionSecretToRef\.namespace is required by KubernetesCluster, and only set when spec\.writeConnectionSecretToRef\.namespace is set on the composite resource`, 1, whyOptionalOnly},
		{`^apis/composition\.yaml:(144|171):30: warning: spec\.credentials\.secretRef\.namespace is required by ProviderConfig, and only set when spec\.writeConnectionSecretToRef\.namespace is set`, 2, whyOptionalOnly},
	},
	"configuration-azure-database": {
		// region is optional in the XRD and location required by the
		// Server (hidden before behind a false connection-secret finding).
		{`^apis/(mariadb/composition\.yaml:36|postgresql/composition\.yaml:35):30: warning: spec\.forProvider\.location is required by Server, and only set when spec\.parameters\.region is set`, 2, whyOptionalOnly},
	},
	"configuration-azure-network": {},
	"configuration-caas-gcp": {
		{`^apis/gcp/services/gitops-master/composition\.yaml:80:24: warning: spec\.references\[0\]\.patchesFrom\.name is required by Object, and only set when spec\.gitops\.kubeConfigSecretRef\.name is set`, 1, whyOptionalOnly},
	},
	"configuration-gcp-database": {
		// The secret's name combines metadata.uid with the optional
		// engine: without an engine the combine is skipped, and the
		// resource gets a reference with a namespace but no name.
		{`^apis/composition\.yaml:(107|168):30: warning: spec\.writeConnectionSecretToRef\.name is required by (User|DatabaseInstance), and only set when spec\.parameters\.engine is set`, 2, whyOptionalOnly},
		// databaseVersion is one of the DatabaseInstance's CEL-required
		// parameters: with writeConnectionSecretToRef.name missing the
		// API server skips the rule, but reports it once that is fixed.
		{`^apis/composition\.yaml:183:30: warning: spec\.forProvider\.databaseVersion is required by DatabaseInstance, and only set when spec\.parameters\.engine is set`, 1, whyOptionalOnly},
	},
	"configuration-gcp-gke":     {},
	"configuration-gcp-network": {},
	"platform-ref-gcp": {
		{`^schemas/configuration-app-v0\.11\.0-definition\.yaml:62:27: warning: "decription" is not a JSON schema keyword \(did you mean "description"\?\): Crossplane drops it`, 1,
			"true upstream typo: Crossplane decodes the XRD's schema with encoding/json, which drops the member, so the field has no description"},
	},
	"crossplane-e2e": {
		{`^apiextensions/composition/legacy-propagate-field-removals/setup/functions\.yaml:7:3: error: mapping key "name" already defined at line 6, column 3: kubectl keeps the last value, but the API server rejects YAML with duplicate keys \[duplicate-key\]`, 1,
			"true upstream bug: metadata.name is written twice; kubectl rejects the duplicate key"},
		// function-dummy runs in-process (its input is the response it
		// merges into the desired state), so what it composes is
		// rendered: before, the step was "not configured" and this
		// fixture's point went unseen.
		{`^apiextensions/composition/namespaced-xr-no-cluster-scoped-resource/setup/composition\.yaml:23:23: error: Crossplane cannot apply cluster scoped composed resource "cluster-role-test" \(a ClusterRole\) for a namespaced composite resource`, 1,
			"true: the e2e fixture asserts that Crossplane refuses a namespaced XR composing a ClusterRole"},
		{`^apiextensions/composition/validation/composition-invalid-duplicate-pipeline-steps\.yaml:14:11: error: step name "one" is already used by step 0`, 1, whyE2EInvalid},
		{`^apiextensions/composition/validation/composition-invalid-empty-pipeline\.yaml:10:13: error: should have at least 1 items \[length\]`, 1, whyE2EInvalid},
		{`^apiextensions/composition/validation/composition-invalid-missing-pipeline\.yaml:5:1: error: an array of pipeline steps is required in Pipeline mode \[cel\]`, 1, whyE2EInvalid},
		{`^apiextensions/composition/validation/composition-invalid-missing-secretref\.yaml:15:7: error: credentials with source: Secret need a secretRef`, 1, whyE2EInvalid},
		{`^apiextensions/(mrd|xrd)/validation/(mrd|xrd)-(invalid|valid-updated-invalid)\.yaml:(9|10):3: error: Plural name must be lowercase \[cel\]`, 4, whyE2EInvalid},
		{`^apiextensions/environment/[A-Za-z0-9]+/setup/composition\.yaml:[0-9]+:3: error: mode: Resources was removed in Crossplane v2: .*spec\.environment's selection into a function-environment-configs step`, 6, whyE2ELeftover},
		{`^apiextensions/xrd/subresources/crd-scale\.yaml:[0-9]+:[0-9]+: error: `, 9,
			"true as an object to create: a partial CRD the e2e suite only compares fields against, never applies"},
		{`^apiextensions/xrd/validation/xrd-immutable-updated\.yaml:4:9: error: invalid value "xnopresources\.nop\.example\.org": must be spec\.names\.plural\+"\."\+spec\.group \[xrd\]`, 1,
			whyE2EInvalid + " (its group changed, so the CRD Crossplane derives would be named wrongly)"},
		{`^apiextensions/xrd/validation/xrd-(valid|valid-updated|valid-updated-invalid)\.yaml:8:11: warning: kind XNopResource of nop\.example\.org is also defined, differently, by .* \(in one folder, the file first by name wins\) \[conflicting-definition\]`, 3,
			"true of the folder: three versions of one XRD sit side by side (the e2e suite applies them one after another), so objects of the kind there are validated against the first by name"},
	},
	"function-go-templating": {
		{`^example/(context|environment)/environmentConfigs\.yaml:[0-9]+:13: error: apiextensions\.crossplane\.io/v1alpha1 EnvironmentConfig is not served: built-in crossplane v2\.3\.4 defines EnvironmentConfig only as v1beta1`, 3,
			"true: Crossplane v2 serves EnvironmentConfig only as v1beta1 (the examples target no version, so v2)"},
		{`^example/[A-Za-z/-]+/(xr|functions)\.yaml:[0-9]+:13: error: example\.crossplane\.io/v1beta1 XR is not served: (\.\./)+conditions/xrd\.yaml defines XR only as v1`, 15,
			"true: these examples run with crossplane render and ship no XRD; the only XR definition in the repository, another example's, is v1"},
		{`^example/[A-Za-z/-]+/composition(-real|-wrapper)?\.yaml:[89]:11: warning: no XRD for example\.crossplane\.io/v1beta1 XR in the workspace: the workspace's XRD defines XR only as v1 \[composition-schema\]`, 16,
			"true (issue 22): in a cluster with this repository's only XRD, a Composition for XR v1beta1 is never selected; crossplane render, which these examples are for, needs no XRD, so the finding says which version the XRD serves"},
		{`^example/(extra-resources|functions/getExtraResources|functions/getExtraResourcesFromContext)/extraResources\.yaml:3:7: warning: no schema for s3\.aws\.upbound\.io/v1beta1 Bucket`, 3, whyNoSchema},
		{`^example/context/composition\.yaml:55:25: error: crossplane-contrib-function-go-templating failed: cannot execute template: .* error calling index: index of nil pointer`, 1,
			"true for Crossplane v2: the example's EnvironmentConfigs are v1alpha1, which v2 does not serve, so the environment the template indexes is empty and the step fails"},
		{`^example/functions/getComposedResource/observed\.yaml:2:7: warning: no schema for dbforpostgresql\.azure\.upbound\.io/v1beta1 FlexibleServer`, 1, whyNoSchema},
		{`^example/functions/getResourceCondition/observed\.yaml:2:7: warning: no schema for identity\.openstack\.upbound\.io/v1alpha1 ProjectV3`, 1, whyNoSchema},
	},
	"provider-upjet-azure-examples": {
		{`: error: invalid value "[^"]*\$\{Rand\.RFC1123Subdomain\}[^"]*": a lowercase RFC 1123 subdomain`, 40, whyUptest},
		{`^examples/keyvault/v1beta1/keyvault-all-in-one\.yaml:(11|54|100):1: error: spec\.forProvider\.name is a required parameter \[cel\]`, 3, whyUpstreamBug},
		{`^examples/network/v1beta1/firewallapplicationrulecollection\.yaml:20:15: error: must be of type number: "string"`, 1, whyUpstreamBug},
		{`^examples/network/v1beta1/subnetserviceendpointstoragepolicy\.yaml:2[01]:8: error: (must be of type string: "null"|duplicate entry null)`, 3, whyUpstreamBug},
		{`^examples/network/v1beta2/(frontdoor|frontdoorcustomhttpsconfiguration|frontdoorrulesengine)\.yaml:[0-9]+:[0-9]+: error: (must be of type object: "array"|unknown field "(backendPoolName|forwardingProtocol|responseHeader)")`, 10,
			"true upstream bug: v1beta2 turned these lists into objects; the examples still write lists, and the API server rejects them"},
		{`^examples/storage/v1beta1/encryptionscope\.yaml:11:5: error: unknown field "name"`, 1, whyUpstreamBug},
		{`^examples/storage/v1beta1/(accountcustomermanagedkey|sharefile)\.yaml:6:7: warning: no schema for storage\.azure\.upbound\.io/v1beta1 (AccountCustomerManagedKey|ShareFile)`, 2,
			"true: the workspace's schemas folder holds a subset of the provider's CRDs, without these kinds"},
	},
	"provider-upjet-gcp-examples": {
		{`: error: invalid value "[^"]*\$\{Rand\.RFC1123Subdomain\}[^"]*": a lowercase RFC 1123 subdomain`, 43, whyUptest},
		{`^examples/compute/v1beta1/instancegroupnamedport\.yaml:(14:1: error: spec\.forProvider\.group is a required parameter|16:5: error: unknown field "groupSelector")`, 2, whyUpstreamBug},
		{`^examples/compute/v1beta1/vpntunnel\.yaml:131:7: error: unknown field "region"`, 1, whyUpstreamBug},
	},
}

// TestCheckWorkspaces: on real repositories nobody here wrote, crd-lsp
// check reports exactly the errors and warnings listed above, each for
// a stated reason. A new false finding, or a lost true one, fails.
func TestCheckWorkspaces(t *testing.T) {
	root := filepath.Join(corpus(t), "workspaces")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	seen := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		seen[name] = true
		want, listed := workspaceFindings[name]
		if !listed {
			t.Errorf("workspace %s has no expected findings here: list them, with why each is right", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			args := []string{"check", "--cache-dir", cache}
			if _, err := os.Stat(filepath.Join(dir, "schemas")); err == nil {
				args = append(args, "--schemas", filepath.Join(dir, "schemas"))
			}
			_, out, _ := runCmd(t, "", append(args, dir)...)
			matched := make([]int, len(want))
			var errs, warns int
			for _, line := range strings.Split(out, "\n") {
				line = strings.TrimPrefix(line, dir+string(filepath.Separator))
				isErr, isWarn := strings.Contains(line, ": error: "), strings.Contains(line, ": warning: ")
				if !isErr && !isWarn {
					continue
				}
				if isErr {
					errs++
				} else {
					warns++
				}
				found := false
				for i, w := range want {
					if regexp.MustCompile(w.re).MatchString(line) {
						matched[i]++
						found = true
						break
					}
				}
				if !found {
					t.Errorf("unexpected finding: %s", line)
				}
			}
			wantErrs, wantWarns := 0, 0
			for i, w := range want {
				if matched[i] != w.n {
					t.Errorf("%d findings match %s, want %d (%s)", matched[i], w.re, w.n, w.why)
				}
				if strings.Contains(w.re, ": error: ") {
					wantErrs += w.n
				} else {
					wantWarns += w.n
				}
			}
			if errs != wantErrs || warns != wantWarns {
				t.Errorf("%d errors and %d warnings, want %d and %d", errs, warns, wantErrs, wantWarns)
			}
			if t.Failed() {
				t.Logf("output:\n%s", out)
			}
		})
	}
	for name := range workspaceFindings {
		if !seen[name] {
			t.Errorf("workspace %s is listed but not in the corpus", name)
		}
	}
}

// TestEditorOnWorkspaces: the editor publishes, on the same real
// repositories, what check reports (hints aside) — for every file check
// has findings in and every Composition, up to maxEditorFiles a workspace.
func TestEditorOnWorkspaces(t *testing.T) {
	const maxEditorFiles = 40
	root := filepath.Join(corpus(t), "workspaces")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			flags := []string{"--cache-dir", cache}
			if _, err := os.Stat(filepath.Join(dir, "schemas")); err == nil {
				flags = append(flags, "--schemas", filepath.Join(dir, "schemas"))
			}
			fromCheck := checkFindings(t, dir, flags)
			var paths []string
			for p := range fromCheck {
				paths = append(paths, p)
			}
			_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
					return nil
				}
				rel, _ := filepath.Rel(dir, p)
				if _, listed := fromCheck[rel]; listed {
					return nil
				}
				if b, err := os.ReadFile(p); err == nil && regexp.MustCompile(`(?m)^kind: Composition\s*$`).Match(b) {
					paths = append(paths, rel)
				}
				return nil
			})
			slices.Sort(paths)
			if len(paths) > maxEditorFiles {
				paths = paths[:maxEditorFiles]
			}
			e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, Settings: map[string]any{"cacheDir": cache}})
			e.AwaitSchemas(120 * time.Second)
			for _, p := range paths {
				b, err := os.ReadFile(filepath.Join(dir, p))
				if err != nil {
					t.Fatal(err)
				}
				e.Open(p, string(b))
			}
			e.AwaitIdle(120 * time.Second)
			fromEditor := map[string][]string{}
			for _, p := range paths {
				for _, d := range e.Diagnostics(p) {
					if d.Severity != protocol.DiagnosticSeverityHint {
						fromEditor[p] = append(fromEditor[p], editorFinding(p, d))
					}
				}
			}
			sameFindings(t, paths, fromCheck, fromEditor)
			n := 0
			for _, p := range paths {
				n += len(fromEditor[p])
			}
			t.Logf("%d files, %d findings alike", len(paths), n)
		})
	}
}

// TestCheckUptestPlaceholders: with --uptest-placeholders, the upjet
// providers' examples are checked as uptest applies them: every finding
// on ${Rand.RFC1123Subdomain} (listed above as true only as written) is
// gone, and the upstream bugs remain, the same count as listed.
func TestCheckUptestPlaceholders(t *testing.T) {
	for _, name := range []string{"provider-upjet-azure-examples", "provider-upjet-gcp-examples"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(corpus(t), "workspaces", name)
			_, out, _ := runCmd(t, "", "check", "--cache-dir", t.TempDir(), "--uptest-placeholders", "--schemas", filepath.Join(dir, "schemas"), dir)
			want := 0
			for _, w := range workspaceFindings[name] {
				if w.why != whyUptest {
					want += w.n
				}
			}
			got := 0
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, ": error: ") || strings.Contains(line, ": warning: ") {
					got++
					if strings.Contains(line, "${") {
						t.Errorf("a finding on an uptest variable: %s", line)
					}
				}
			}
			if got != want {
				t.Errorf("%d errors and warnings, want %d (the listed ones less the uptest ones):\n%s", got, want, out)
			}
		})
	}
}
