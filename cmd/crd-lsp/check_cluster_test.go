package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryCheckCluster: crd-lsp check takes --extra-resources and
// --context-files as render takes --context. Without them, the workspace's four
// EnvironmentConfigs make the Single selector of single/composition.yaml
// match two (the step fails: an error); given the cluster's
// EnvironmentConfigs instead, it matches one, and what that one lacks
// (region) is reported; a --context-files environment that holds region
// silences that. Before, check refused both flags.
func TestBinaryCheckCluster(t *testing.T) {
	env := filepath.Join("..", "..", "testdata", "render", "environment")
	extra := filepath.Join("..", "..", "testdata", "render", "environment-cluster", "extra-resources.yaml")
	ctx := filepath.Join(t.TempDir(), "environment.yaml")
	if err := os.WriteFile(ctx, []byte("region: eu-west-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{filepath.Join(env, "single", "composition.yaml"), filepath.Join(env, "xrd.yaml")}
	run := func(flags ...string) (int, string) {
		t.Helper()
		code, out, errOut := runBin(t, nil, "", append(append([]string{"check"}, flags...), files...)...)
		if code == 2 {
			t.Fatalf("%v: exit 2: %s", flags, errOut)
		}
		return code, out
	}
	// The workspace's EnvironmentConfigs: check is given only these two
	// files, so the folder's environmentconfigs.yaml is named too.
	code, out, errOut := runBin(t, nil, "", "check", files[0], files[1], filepath.Join(env, "environmentconfigs.yaml"))
	if code != 1 || !strings.Contains(out, `expected exactly one required resource, got 2 ("prod-large", "prod-small"`) {
		t.Errorf("workspace: exit %d\n%s%s", code, out, errOut)
	}
	code, out = run("--extra-resources", extra)
	if code != 0 || !strings.Contains(out, `single/composition.yaml:37:24: warning: spec.forProvider.region is required by Bucket, and only set when region is set in the environment (which EnvironmentConfig(s) "prod" in --extra-resources give without it)`) {
		t.Errorf("--extra-resources: exit %d\n%s", code, out)
	}
	code, out = run("--extra-resources", extra, "--context-files", "apiextensions.crossplane.io/environment="+ctx)
	if code != 0 || !strings.Contains(out, "0 errors, 0 warnings") {
		t.Errorf("--context-files: exit %d\n%s", code, out)
	}
	for _, bad := range [][]string{{"--extra-resources", "does/not/exist.yaml"}, {"--context-files", "no-file"}} {
		if code, _, errOut := runBin(t, nil, "", append(append([]string{"check"}, bad...), files...)...); code != 2 || !strings.Contains(errOut, "crd-lsp check:") {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", bad, code, errOut)
		}
	}
}
