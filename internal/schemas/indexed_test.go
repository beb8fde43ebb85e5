package schemas

import (
	"testing"
)

// A file indexed ahead of time and then inserted gives the store WithFile
// gives, replacing what the path defined before, ranked the same.
func TestIndexedFiles(t *testing.T) {
	widget := []byte(stCRD("example.org", "Widget", "Namespaced", "v1"))
	gadget := []byte(stCRD("example.org", "Gadget", "Cluster", "v1"))
	base := NewStore().WithFile(stSrc(SourceWorkspace, "ws"), "ws.yaml", widget)

	st := base.WithFiles([]FileInput{{Indexed: Index(stSrc(SourcePackage, "pkg"), "xpkg://p", append(widget, append([]byte("---\n"), gadget...)...))}})
	if sc, ok := st.Lookup(stWidget); !ok || sc.Path != "xpkg://p" || sc.Source.Kind != SourcePackage {
		t.Errorf("Widget = %+v, want the package's (packages rank first)", sc)
	}
	if sc, ok := st.Lookup(stGadget); !ok || sc.Path != "xpkg://p" || sc.Scope != Cluster {
		t.Errorf("Gadget = %+v", sc)
	}
	if got := st.FileGVKs("xpkg://p"); len(got) != 2 {
		t.Errorf("FileGVKs = %v", got)
	}
	// Replacing the path with an index of other content drops the old kinds.
	st2 := st.WithFiles([]FileInput{{Indexed: Index(stSrc(SourcePackage, "pkg"), "xpkg://p", gadget)}})
	if sc, _ := st2.Lookup(stWidget); sc == nil || sc.Path != "ws.yaml" {
		t.Errorf("after replacing, Widget = %+v, want the workspace's", sc)
	}
	if st2.Len() != 2 || st.Len() != 3 || base.Len() != 1 {
		t.Errorf("Len: %d %d %d, want 2 3 1 (snapshots unchanged)", st2.Len(), st.Len(), base.Len())
	}
	// No definitions: the path is removed.
	if st3 := st2.WithFiles([]FileInput{{Indexed: Index(stSrc(SourcePackage, "pkg"), "xpkg://p", []byte("a: b\n"))}}); st3.Len() != 1 {
		t.Errorf("empty index: Len %d, want 1", st3.Len())
	}
}
