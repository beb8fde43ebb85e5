package workspace

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestChainsawUses(t *testing.T) {
	dir := filepath.FromSlash("/repo/tests/backend")
	test := `apiVersion: chainsaw.kyverno.io/v1alpha1
kind: Test
metadata:
  name: backend
spec:
  steps:
    - try:
        - apply:
            file: ../common/install.yaml
        - assert:
            file: assert-*.yaml
        - patch:
            file: scaling.yaml
            template: false
        - script:
            content: kubectl get all
      catch:
        - error:
            file: errors.yaml
      finally:
        - apply:
            file: https://example.com/remote.yaml
---
apiVersion: chainsaw.kyverno.io/v1alpha1
kind: Test
metadata:
  name: plain
spec:
  template: false
  steps:
    - try:
        - create:
            file: create.yaml
`
	if !IsChainsawTest(Headers([]byte(test))) {
		t.Fatal("a chainsaw Test file is not recognised")
	}
	got := ChainsawUses(filepath.Join(dir, "chainsaw-test.yaml"), []byte(test))
	want := []ChainsawUse{
		{Pattern: filepath.FromSlash("/repo/tests/common/install.yaml"), Op: "apply", Templated: true},
		{Pattern: filepath.Join(dir, "assert-*.yaml"), Op: "assert", Templated: true},
		{Pattern: filepath.Join(dir, "scaling.yaml"), Op: "patch", Templated: false},
		{Pattern: filepath.Join(dir, "errors.yaml"), Op: "error", Templated: true},
		{Pattern: filepath.Join(dir, "create.yaml"), Op: "create", Templated: false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("uses:\n%+v\nwant\n%+v", got, want)
	}
	if got := ChainsawUses("/x/t.yaml", []byte("apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nspec: [\n")); got != nil {
		t.Errorf("an unparsable Test uses %+v", got)
	}
}
