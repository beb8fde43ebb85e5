package fntest

import (
	"os"
	"testing"
)

// TestBuild builds (or finds cached) every test function. .ci/run runs it
// before the suite, with a timeout of its own, so that a cold module cache
// costs the suite nothing: go test ./... runs it again, cached, in
// milliseconds.
func TestBuild(t *testing.T) {
	for name, path := range map[string]string{"test function": TestFunction(t), "function-patch-and-transform": PatchAndTransform(t), "function-auto-ready": AutoReady(t), "function-auto-ready (static)": AutoReadyStatic(t)} {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("%s: %s is not an executable (%v)", name, path, err)
		}
		t.Logf("%s: %s", name, path)
	}
}
