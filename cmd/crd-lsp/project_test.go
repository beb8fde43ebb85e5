package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

// TestProjectFiles: an Upbound project (upbound.yaml) and a Crossplane
// CLI project (crossplane-project.yaml), with no crossplane.yaml and no
// CRDs, are package roots: crd-lsp pull fills the cache from their
// dependencies (a provider pushed to Debian's docker-registry on
// loopback) and check then validates the provider's kinds. Before the
// pull, the unknown kind's message names the project file the workspace
// has.
func TestProjectFiles(t *testing.T) {
	reg := xpkgtest.StartDockerRegistry(t)
	crd, err := os.ReadFile(filepath.Join(corpus(t), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds", "s3.aws.upbound.io_buckets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h := reg.Host
	xpkgtest.Push(t, h, "upbound/provider-aws-s3", "v2.6.0", xpkgtest.XPkg(xpkgtest.Stream(xpkgtest.Meta("Provider", "provider-aws-s3"), crd)))

	bucket := "apiVersion: s3.aws.upbound.io/v1beta1\nkind: Bucket\nmetadata:\n  name: b\nspec:\n  forProvider:\n    region: us-east-1\n    objectLockEnabled: \"yes\"\n"
	for _, tc := range []struct {
		file, text, field string
	}{
		{"upbound.yaml", "apiVersion: meta.dev.upbound.io/v1alpha1\nkind: Project\nmetadata:\n  name: platform\nspec:\n  dependsOn:\n  - provider: " + h + "/upbound/provider-aws-s3\n    version: \">=v2.0.0\"\n  repository: xpkg.upbound.io/acme/platform\n", "dependsOn in upbound.yaml"},
		{"crossplane-project.yaml", "apiVersion: dev.crossplane.io/v1alpha1\nkind: Project\nmetadata:\n  name: platform\nspec:\n  repository: xpkg.crossplane.io/acme/platform\n  dependencies:\n  - type: k8s\n    k8s:\n      version: v1.33.0\n  - type: xpkg\n    xpkg:\n      apiVersion: pkg.crossplane.io/v1\n      kind: Provider\n      package: " + h + "/upbound/provider-aws-s3\n      version: \">=v2.0.0\"\n", "spec.dependencies in crossplane-project.yaml"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir, cache := t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(dir, tc.file), tc.text)
			writeFile(t, filepath.Join(dir, "examples", "bucket.yaml"), bucket)
			writeFile(t, filepath.Join(dir, "examples", "widget.yaml"), "apiVersion: example.org/v1\nkind: Widget\nmetadata:\n  name: w\n")
			f := filepath.Join(dir, "examples", "bucket.yaml")

			_, out, errOut := runCmd(t, "", "check", "--cache-dir", cache, dir)
			if !strings.Contains(out, f+":2:7: warning: no schema for s3.aws.upbound.io/v1beta1 Bucket: it may come from the 1 dependency of "+filepath.Base(tc.file)+" not in the package cache yet") ||
				!strings.Contains(errOut, h+"/upbound/provider-aws-s3") {
				t.Errorf("before the pull: stdout\n%s\nstderr\n%s", out, errOut)
			}
			if strings.Contains(out, tc.file+":") {
				t.Errorf("the project file itself is reported:\n%s", out)
			}

			if code, out, errOut := runCmd(t, "", "pull", "--cache-dir", cache, "--insecure", h, dir); code != 0 {
				t.Fatalf("pull: exit %d\n%s\n%s", code, out, errOut)
			}
			code, out, errOut := runCmd(t, "", "check", "--cache-dir", cache, dir)
			if code != 1 || !strings.Contains(out, f+`:8:24: error: must be of type boolean: "string" [type]`) || strings.Contains(out, "no schema for s3") {
				t.Errorf("after the pull: exit %d, stdout\n%s\nstderr\n%s", code, out, errOut)
			}
			// A kind no dependency ships: the advice names where this
			// project lists its dependencies.
			if want := "no schema for example.org/v1 Widget: add the CRD or XRD that defines it to the workspace, or the package that ships it to " + tc.field; !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		})
	}
}

// TestProjectEmbeddedFunction: a Composition step running a function the
// project embeds (functionRef named as the Crossplane CLI and up name it:
// the DNS label of the repository path, "_" and the function's name) is
// named as that function in the note on the step.
func TestProjectEmbeddedFunction(t *testing.T) {
	xrd := "apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata:\n  name: xapps.example.org\nspec:\n  group: example.org\n  names:\n    kind: XApp\n    plural: xapps\n  versions:\n    - name: v1\n      served: true\n      referenceable: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n"
	comp := "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: apps\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1\n    kind: XApp\n  mode: Pipeline\n  pipeline:\n    - step: compose\n      functionRef:\n        name: acme-platformcompose-resources\n"
	for _, tc := range []struct{ file, text, want string }{
		{"upbound.yaml", "apiVersion: meta.dev.upbound.io/v1alpha1\nkind: Project\nmetadata:\n  name: platform\nspec:\n  repository: xpkg.upbound.io/acme/platform\n",
			`step "compose" runs acme-platformcompose-resources, the function "compose-resources" that upbound.yaml embeds (functions/compose-resources), which crd-lsp cannot run until it is configured`},
		{"crossplane-project.yaml", "apiVersion: dev.crossplane.io/v1alpha1\nkind: Project\nmetadata:\n  name: platform\nspec:\n  repository: xpkg.crossplane.io/acme/platform\n  paths:\n    functions: fns\n  functions:\n  - source: Directory\n    directory:\n      name: compose-resources\n",
			`step "compose" runs acme-platformcompose-resources, the function "compose-resources" that crossplane-project.yaml embeds (fns/compose-resources), which crd-lsp cannot run until it is configured`},
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, tc.file), tc.text)
		writeFile(t, filepath.Join(dir, "apis", "definition.yaml"), xrd)
		writeFile(t, filepath.Join(dir, "apis", "composition.yaml"), comp)
		_, out, errOut := runCmd(t, "", "check", "--cache-dir", t.TempDir(), dir)
		if !strings.Contains(out, filepath.Join(dir, "apis", "composition.yaml")+":11:13: info: "+tc.want) {
			t.Errorf("%s: output lacks %q:\n%s\n%s", tc.file, tc.want, out, errOut)
		}
	}
	// A function the project does not embed keeps its functionRef name.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "upbound.yaml"), "apiVersion: meta.dev.upbound.io/v1alpha1\nkind: Project\nmetadata:\n  name: platform\nspec:\n  repository: xpkg.upbound.io/acme/platform\n")
	writeFile(t, filepath.Join(dir, "apis", "definition.yaml"), xrd)
	writeFile(t, filepath.Join(dir, "apis", "composition.yaml"), strings.Replace(comp, "acme-platformcompose-resources", "acme-platform-other", 1))
	if _, out, _ := runCmd(t, "", "check", "--cache-dir", t.TempDir(), dir); !strings.Contains(out, `step "compose" runs acme-platform-other, which crd-lsp cannot run`) {
		t.Errorf("another function:\n%s", out)
	}
}
