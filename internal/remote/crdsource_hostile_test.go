package remote

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

// TestCRDSourceHostileURLs: a CRD source URL that redirects in a loop or
// off loopback, serves a gzip bomb, 1 GB or an HTML page (a github.com
// blob page naming a CRD) fails with the URL named, within seconds and a
// small heap, and nothing is cached.
func TestCRDSourceHostileURLs(t *testing.T) {
	srv := hostileURLs(t)
	for _, tc := range []struct{ path, want string }{
		{"loop", "stopped after 10 redirects"},
		{"away", "192.0.2.1:8080"},
		{"bomb", "larger than 67108864 bytes; refused"},
		{"huge", "larger than 67108864 bytes; refused"},
		{"html", "an HTML page, not YAML"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			pc, err := packages.New(packages.Options{CacheDir: t.TempDir(), CLICacheDir: "-", Timeouts: hostileTimeouts})
			if err != nil {
				t.Fatal(err)
			}
			ref := srv.URL + "/" + tc.path + "/crds.yaml"
			var ferr error
			var got *CRDSource
			peak := bounded(t, time.Minute, func() { got, ferr = FetchCRDs(context.Background(), pc, ref) })
			t.Logf("peak heap %d MiB: %v", peak>>20, ferr)
			if ferr == nil || got != nil || !strings.Contains(ferr.Error(), "CRD source "+ref+": ") || !strings.Contains(ferr.Error(), tc.want) {
				t.Errorf("error %v (source %v), want one naming %s and %q", ferr, got != nil, ref, tc.want)
			}
			if peak > 512<<20 {
				t.Errorf("peak heap %d MiB", peak>>20)
			}
		})
	}
}

// TestHelmChartHostileTar: Helm charts in an OCI registry (in memory, on
// loopback) whose archives hold links into and out of crds/, entries
// climbing out with ../, a decompression bomb, or 10,000 CRDs. Links and
// climbing entries are never read (nothing is written by an entry's name
// either), the bomb (256 MiB of zeros in 256 KiB) stops at the cap with
// the chart named, and 10,000 CRDs in crds/ are read.
func TestHelmChartHostileTar(t *testing.T) {
	host := xpkgtest.MemRegistry(t, nil)
	crd := xpkgtest.CRD("example.org", "Widget", "v1")
	var many bytes.Buffer
	for i := range 10000 {
		fmt.Fprintf(&many, "---\n%s", bytes.ReplaceAll(crd, []byte("widgets.example.org"), fmt.Appendf(nil, "widget%05ds.example.org", i)))
	}
	manyFiles := []xpkgtest.Entry{{Name: "many/Chart.yaml", Body: []byte("name: many\n")}}
	for i := range 9990 {
		manyFiles = append(manyFiles, xpkgtest.Entry{Name: fmt.Sprintf("many/crds/c%05d.yaml", i), Body: []byte("kind: CustomResourceDefinition\n")})
	}
	for _, tc := range []struct {
		name string
		tgz  []byte
		want string // in the error; "" for a chart read, its CRDs then counted
		crds int
	}{
		{"links", xpkgtest.Tar(true,
			xpkgtest.Entry{Name: "links/Chart.yaml", Body: []byte("name: links\n")},
			xpkgtest.Entry{Name: "links/crds/passwd.yaml", Type: tar.TypeSymlink, Linkname: "/etc/passwd"},
			xpkgtest.Entry{Name: "links/crds/hard.yaml", Type: tar.TypeLink, Linkname: "links/crds/widget.yaml"},
			xpkgtest.Entry{Name: "links/crds/up.yaml", Type: tar.TypeSymlink, Linkname: "../../../../etc/shadow"},
			xpkgtest.Entry{Name: "links/crds/widget.yaml", Body: crd},
		), "", 1},
		{"traversal", xpkgtest.Tar(true,
			xpkgtest.Entry{Name: "trav/Chart.yaml", Body: []byte("name: trav\n")},
			xpkgtest.Entry{Name: "../../crds/evil.yaml", Body: crd},
			xpkgtest.Entry{Name: "/trav/crds/abs.yaml", Body: crd},
			xpkgtest.Entry{Name: "trav/crds/../../../etc/cron.d/x.yaml", Body: crd},
			xpkgtest.Entry{Name: "trav/crds/widget.yaml", Body: crd},
		), "", 1},
		{"bomb", xpkgtest.Bomb("bomb/crds/zeros.yaml", 256<<20), "chart archive: more than 64 MiB decompressed; refused", 0},
		{"10,000 CRDs in one file", xpkgtest.Tar(true,
			xpkgtest.Entry{Name: "big/Chart.yaml", Body: []byte("name: big\n")},
			xpkgtest.Entry{Name: "big/crds/all.yaml", Body: many.Bytes()},
		), "", 10000},
		{"10,000 files", xpkgtest.Tar(true, manyFiles...), "", 9990},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tag := "1.0.0"
			repo := "charts/" + strings.ToLower(strings.NewReplacer(" ", "-", ",", "").Replace(tc.name))
			xpkgtest.PushChart(t, host, repo, tag, tc.tgz, `{"name":"x","version":"1.0.0","apiVersion":"v2"}`)
			pc, err := packages.New(packages.Options{CacheDir: t.TempDir(), CLICacheDir: "-", Insecure: []string{host}, Timeouts: hostileTimeouts})
			if err != nil {
				t.Fatal(err)
			}
			ref := "oci://" + host + "/" + repo + ":" + tag
			var got *CRDSource
			var ferr error
			peak := bounded(t, time.Minute, func() { got, ferr = FetchCRDs(context.Background(), pc, ref) })
			t.Logf("%d bytes of chart, peak heap %d MiB: %v", len(tc.tgz), peak>>20, ferr)
			if peak > 512<<20 {
				t.Errorf("peak heap %d MiB", peak>>20)
			}
			if tc.want != "" {
				if ferr == nil || !strings.Contains(ferr.Error(), "CRD source "+ref+": ") || !strings.Contains(ferr.Error(), tc.want) {
					t.Errorf("error %v, want one naming %s and %q", ferr, ref, tc.want)
				}
				return
			}
			if ferr != nil {
				t.Fatal(ferr)
			}
			y := string(got.YAML)
			if n := strings.Count(y, "CustomResourceDefinition"); n != tc.crds {
				t.Errorf("%d CRDs read, want %d", n, tc.crds)
			}
			if strings.Contains(y, "root:") || strings.Contains(y, "evil") {
				t.Errorf("a link or climbing entry was read:\n%.500s", y)
			}
		})
	}
}
