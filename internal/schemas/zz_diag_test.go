package schemas

import (
	"os"
	"path/filepath"
	"testing"
)

func TestZZDiag(t *testing.T) {
	dir := "/work/shared/corpus/crds/provider-aws-full/v2.6.0/crds"
	ents, _ := os.ReadDir(dir)
	bad := 0
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		for _, doc := range splitDocs(b) {
			if _, ok := scanDoc(doc); !ok {
				bad++
				if bad < 3 {
					t.Log(e.Name())
				}
			}
		}
	}
	t.Log("fallbacks", bad)
}
