package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The real binary, on real repositories: a run that decodes every
// definition (cold, filling the decoded cache), a run that reads them all
// from the cache (warm: nothing new is written) and a run without the
// cache report the same findings.
func TestDecodedCacheWarmEqualsCold(t *testing.T) {
	root := filepath.Join(corpus(t), "workspaces")
	for _, name := range []string{"crossplane-e2e", "provider-upjet-azure-examples", "configuration-gcp-database"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			args := []string{"check", "--cache-dir", t.TempDir()}
			if _, err := os.Stat(filepath.Join(dir, "schemas")); err == nil {
				args = append(args, "--schemas", filepath.Join(dir, "schemas"))
			}
			args = append(args, dir)
			cacheDir := t.TempDir()
			env := []string{"CRD_LSP_SCHEMA_CACHE=" + cacheDir}
			_, cold, _ := runBin(t, env, "", args...)
			entries := func() map[string]int64 {
				des, err := os.ReadDir(cacheDir)
				if err != nil {
					t.Fatal(err)
				}
				out := map[string]int64{}
				for _, de := range des {
					if strings.HasPrefix(de.Name(), ".") {
						continue
					}
					fi, err := de.Info()
					if err != nil {
						t.Fatal(err)
					}
					out[de.Name()] = fi.ModTime().UnixNano()
				}
				return out
			}
			afterCold := entries()
			if len(afterCold) == 0 {
				t.Fatal("the cold run left no decoded definitions in the cache")
			}
			_, warm, _ := runBin(t, env, "", args...)
			afterWarm := entries()
			if len(afterWarm) != len(afterCold) {
				t.Errorf("the warm run decoded again: %d entries after it, %d before", len(afterWarm), len(afterCold))
			}
			for k, m := range afterCold {
				if afterWarm[k] != m {
					t.Errorf("the warm run rewrote entry %s", k)
				}
			}
			_, off, _ := runBin(t, []string{"CRD_LSP_SCHEMA_CACHE=off"}, "", args...)
			if !strings.Contains(off, " checked: ") || (!strings.Contains(off, ": error: ") && !strings.Contains(off, ": warning: ")) {
				t.Fatalf("no findings to compare:\n%s", off)
			}
			if cold != off || warm != off {
				t.Errorf("findings differ\nwithout the cache:\n%s\ncold:\n%s\nwarm:\n%s", off, cold, warm)
			}
		})
	}
}
