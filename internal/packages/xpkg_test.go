package packages

import (
	"archive/tar"
	"bytes"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

func TestReadPackageYAMLSafety(t *testing.T) {
	pkg := []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: p\n")
	small := Limits{MaxPackageSize: 1 << 20, MaxLayerSize: 4 << 20, MaxEntries: 50}.withDefaults()
	many := []xpkgtest.Entry{}
	for i := 0; i < 60; i++ {
		many = append(many, xpkgtest.Entry{Name: "f" + strings.Repeat("x", i)})
	}
	many = append(many, xpkgtest.Entry{Name: "package.yaml", Body: pkg})
	cases := []struct {
		name  string
		layer []byte
		want  string // "" = success
	}{
		{"plain", xpkgtest.Tar(true, xpkgtest.Entry{Name: "package.yaml", Body: pkg}), ""},
		{"dot slash, uncompressed", xpkgtest.Tar(false, xpkgtest.Entry{Name: "./package.yaml", Body: pkg}), ""},
		{"dotdot", xpkgtest.Tar(true, xpkgtest.Entry{Name: "../package.yaml", Body: pkg}), "leaves the archive"},
		{"dotdot inside", xpkgtest.Tar(true, xpkgtest.Entry{Name: "a/../../etc/passwd", Body: pkg}, xpkgtest.Entry{Name: "package.yaml", Body: pkg}), "leaves the archive"},
		{"absolute", xpkgtest.Tar(true, xpkgtest.Entry{Name: "/package.yaml", Body: pkg}), "absolute path"},
		{"symlink", xpkgtest.Tar(true, xpkgtest.Entry{Name: "package.yaml", Type: tar.TypeSymlink, Linkname: "/etc/passwd"}), "is a link"},
		{"hardlink", xpkgtest.Tar(true, xpkgtest.Entry{Name: "x", Body: pkg}, xpkgtest.Entry{Name: "package.yaml", Type: tar.TypeLink, Linkname: "x"}), "is a link"},
		{"package.yaml bomb", xpkgtest.Bomb("package.yaml", 2<<20), "more than the 1048576 allowed"},
		{"other entry bomb", xpkgtest.Bomb("filler", 8<<20), "decompresses to more than 4194304 bytes"},
		{"too many entries", xpkgtest.Tar(true, many...), "more than 50 entries"},
		{"no package.yaml", xpkgtest.Tar(true, xpkgtest.Entry{Name: "README", Body: pkg}), "no package.yaml"},
		{"not a tar", []byte("just text, not a tar archive, long enough to not be EOF.............................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................."), "not a valid tar"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readPackageYAML(bytes.NewReader(tc.layer), small)
			if tc.want == "" {
				if err != nil || !bytes.Equal(got, pkg) {
					t.Fatalf("got %q, %v", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	stream := xpkgtest.Stream(
		xpkgtest.Meta("Provider", "provider-widgets"),
		xpkgtest.CRD("widgets.example.org", "Widget", "v1"),
		[]byte("# a comment first\napiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata:\n  name: xnets.example.org\nspec: {}\n"),
		[]byte("apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: hook\n"),
		[]byte("{apiVersion: apiextensions.crossplane.io/v1, kind: Composition, metadata: {name: flow}}\n"),
		[]byte("apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceDefinition\nmetadata:\n  labels:\n    a: b\n  name: mrd.example.org\n...\n"),
	)
	meta, kind, objs, err := split(stream, Limits{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if kind != "Provider" || !bytes.Contains(meta, []byte("name: provider-widgets")) {
		t.Errorf("meta = %q %q", kind, meta)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.Kind+"/"+o.Name)
		if !bytes.Equal(stream[o.Offset:o.Offset+len(o.YAML)], o.YAML) || !bytes.Contains(o.YAML, []byte(o.Kind)) {
			t.Errorf("%s: YAML is not its document: %q", o.Name, o.YAML)
		}
	}
	want := "CustomResourceDefinition/widgets.widgets.example.org CompositeResourceDefinition/xnets.example.org Composition/flow ManagedResourceDefinition/mrd.example.org"
	if strings.Join(got, " ") != want {
		t.Errorf("objects = %v\nwant %s", got, want)
	}
	if _, _, _, err := split(xpkgtest.CRD("a.b", "A", "v1"), Limits{}.withDefaults()); err == nil {
		t.Error("a package.yaml without metadata was accepted")
	}
}
