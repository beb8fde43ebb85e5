package lsp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestFunctionSettings: the crdLsp function settings as the registry is
// built from them: relative paths against the workspace folder that holds
// them, a single functions file as a string, defaults for what is unset.
func TestFunctionSettings(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(b, "functions.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := parseSettings([]byte(`{"crdLsp": {"functions": {"fn": "bin/fn", "abs": "/opt/fn", "": "x"}, "functionsFiles": "functions.yaml",
		"functionTimeout": 2.5, "workspaceFunctions": true, "realPatchAndTransform": true, "functionsDocker": true, "allowRemoteFunctions": true,
		"functionsFromPackages": true, "cacheDir": "/tmp/cache", "registries": {"insecure": ["127.0.0.1:5000"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := set.functionSettings([]string{a, b})
	want := fnSettings{
		Executables:  map[string]string{"fn": filepath.Join(a, "bin", "fn"), "abs": "/opt/fn"},
		Files:        []string{filepath.Join(b, "functions.yaml")},
		UseWorkspace: true,
		Timeout:      2500 * time.Millisecond,
		PreferReal:   true,
		Docker:       true,
		AllowRemote:  true,
		FromPackages: true,
		Packages:     pkgClientKey(set),
	}
	if !strings.Contains(want.Packages, "/tmp/cache") || !strings.Contains(want.Packages, "127.0.0.1:5000") {
		t.Errorf("the package client's key %q lacks the cache folder or the registry", want.Packages)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("functionSettings = %+v\nwant %+v", got, want)
	}

	def := defaultSettings().functionSettings(nil)
	if def.UseWorkspace || def.Timeout != defaultFunctionTimeout || len(def.Executables) != 0 || len(def.Files) != 0 || def.PreferReal || def.Docker || def.AllowRemote || def.FromPackages || def.Packages != "" {
		t.Errorf("defaults = %+v", def)
	}
	if _, err := parseSettings([]byte(`{"functionsFiles": 3}`)); err == nil {
		t.Error("a number for functionsFiles was accepted")
	}
	// crdLsp.functions maps names to executables: the switch guessed
	// inside it is pointed to its own setting, another value named.
	for raw, want := range map[string]string{
		`{"crdLsp": {"functions": {"fromPackages": true}}}`: "crdLsp.functions.fromPackages: running Functions from their packages is crdLsp.functionsFromPackages",
		`{"crdLsp": {"functions": {"fn": 3}}}`:              "crdLsp.functions.fn: want the path of an executable",
	} {
		if _, err := parseSettings([]byte(raw)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", raw, err, want)
		}
	}
	if set, err := parseSettings([]byte(`{"crdLsp": {"functions": null}}`)); err != nil || len(set.Functions) != 0 {
		t.Errorf("functions: null: %v, %v", set.Functions, err)
	}
}
