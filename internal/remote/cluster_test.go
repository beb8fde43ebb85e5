package remote

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestClusterSourceAnswers: a cluster served over TLS on loopback answers
// well, then refuses, then hangs: the first read is cached (CRDs whole,
// TypeMeta set, managedFields and status dropped, resourceVersions
// kept); each failure names the context, server and reason, and returns
// the cached copy.
func TestClusterSourceAnswers(t *testing.T) {
	var mode atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			t.Errorf("%s %s: the cluster is only read", r.Method, r.URL)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer t0k3n" {
			t.Errorf("Authorization %q", got)
		}
		switch mode.Load() {
		case 1:
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`{"kind":"Status","message":"customresourcedefinitions is forbidden: User \"x\" cannot list"}`))
			return
		case 2:
			<-r.Context().Done()
			return
		}
		switch r.URL.Path {
		case "/version":
			w.Write([]byte(`{"gitVersion":"v1.35.1"}`))
		case "/apis/apiextensions.k8s.io/v1/customresourcedefinitions":
			if r.URL.Query().Get("continue") == "" {
				w.Write([]byte(`{"metadata":{"continue":"p2"},"items":[{"metadata":{"name":"zs.example.org","resourceVersion":"7","managedFields":[{"manager":"kubectl"}]},"spec":{"group":"example.org","x-rule":"self.a < self.b"},"status":{"acceptedNames":{}}}]}`))
			} else {
				w.Write([]byte(`{"metadata":{},"items":[{"metadata":{"name":"as.example.org","resourceVersion":"9"},"spec":{"group":"example.org"}}]}`))
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer func() { srv.CloseClientConnections(); srv.Close() }() // Close alone waits for answers in flight
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kc, []byte("apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: \""+srv.URL+"\", insecure-skip-tls-verify: true}\n  name: c\ncontexts:\n- context: {cluster: c, user: u}\n  name: dev-eu\ncurrent-context: dev-eu\nusers:\n- name: u\n  user: {token: t0k3n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := ClusterSource{Kubeconfig: kc, CacheDir: filepath.Join(dir, "cache"), Timeout: 2 * time.Second}
	if _, err := src.CachedCluster(); err == nil {
		t.Fatal("a cache before any read")
	}
	snap, err := src.ReadCluster(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Context != "dev-eu" || snap.Version != "v1.35.1" || len(snap.CRDs) != 2 || snap.CRDs[0] != (ClusterCRD{"as.example.org", "9"}) || snap.CRDs[1] != (ClusterCRD{"zs.example.org", "7"}) {
		t.Errorf("snapshot %+v", snap)
	}
	y := string(snap.YAML)
	for _, want := range []string{`"apiVersion":"apiextensions.k8s.io/v1"`, `"kind":"CustomResourceDefinition"`, `"x-rule":"self.a \u003c self.b"`} {
		if !strings.Contains(y, want) {
			t.Errorf("YAML lacks %s:\n%s", want, y)
		}
	}
	if strings.Contains(y, "managedFields") || strings.Contains(y, "acceptedNames") || strings.Index(y, "as.example.org") > strings.Index(y, "zs.example.org") {
		t.Errorf("YAML:\n%s", y)
	}

	// A refresh from a server that answers the whole list to a request
	// for metadata only: nothing unchanged counts as downloaded.
	again, err := src.ReadCluster(context.Background())
	if err != nil || len(again.Downloaded) != 0 || string(again.YAML) != y {
		t.Errorf("refresh: %v, downloaded %v", err, again.Downloaded)
	}
	snap = again

	mode.Store(1)
	cached, err := src.ReadCluster(context.Background())
	if err == nil || !strings.Contains(err.Error(), `cluster context "dev-eu" (`+srv.URL+`): forbidden (403): may not read customresourcedefinitions: customresourcedefinitions is forbidden`) {
		t.Errorf("forbidden: %v", err)
	}
	if cached == nil || string(cached.YAML) != y || !cached.ReadAt.Equal(snap.ReadAt) {
		t.Errorf("the cached copy is not returned: %+v", cached)
	}

	mode.Store(2)
	src.Timeout = 200 * time.Millisecond
	cached, err = src.ReadCluster(context.Background())
	if err == nil || !strings.Contains(err.Error(), `cluster context "dev-eu" (`+srv.URL+`): no answer within 200ms`) || cached == nil {
		t.Errorf("slow: %v, cached %v", err, cached != nil)
	}

	// A context the kubeconfig lacks is named.
	other := src
	other.Context = "nope"
	if _, err := other.CachedCluster(); err == nil || !strings.Contains(err.Error(), `cluster context "nope": no such context in the kubeconfig`) {
		t.Errorf("unknown context: %v", err)
	}

	// A valid-looking snapshot of another context put in this one's cache
	// folder (copied by hand) is not served as this cluster's.
	meta := filepath.Join(filepath.Dir(snap.Path), "cluster.json")
	b, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(meta, bytes.Replace(b, []byte(`"context": "dev-eu"`), []byte(`"context": "prod-us"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := src.CachedCluster(); err == nil || !strings.Contains(err.Error(), `holds context "prod-us"`) {
		t.Errorf("another context's snapshot: %v", err)
	}
}

// TestClusterRefreshManyChanged: a refresh downloads a few changed CRDs
// by name, but lists the CRDs whole again when more than maxByName
// changed; either way only the changed ones count as downloaded.
func TestClusterRefreshManyChanged(t *testing.T) {
	const n = 40
	var mu sync.Mutex
	rvs := map[string]int{}
	for i := range n {
		rvs[fmt.Sprintf("c%02d.example.org", i)] = 1
	}
	var reqs []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		meta := strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadataList")
		reqs = append(reqs, fmt.Sprintf("%s %s meta=%v", r.Method, r.URL.Path, meta))
		item := func(name string) string {
			if meta {
				return fmt.Sprintf(`{"metadata":{"name":%q,"resourceVersion":"%d"}}`, name, rvs[name])
			}
			return fmt.Sprintf(`{"metadata":{"name":%q,"resourceVersion":"%d"},"spec":{"group":"example.org","rv":%d}}`, name, rvs[name], rvs[name])
		}
		switch {
		case r.URL.Path == "/version":
			w.Write([]byte(`{"gitVersion":"v1.35.0"}`))
		case r.URL.Path == crdsPath:
			kind := "CustomResourceDefinitionList"
			if meta {
				kind = "PartialObjectMetadataList"
			}
			var items []string
			for name := range rvs {
				items = append(items, item(name))
			}
			fmt.Fprintf(w, `{"kind":%q,"metadata":{},"items":[%s]}`, kind, strings.Join(items, ","))
		case strings.HasPrefix(r.URL.Path, crdsPath+"/"):
			w.Write([]byte(item(strings.TrimPrefix(r.URL.Path, crdsPath+"/"))))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kc, []byte("apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: \""+srv.URL+"\", insecure-skip-tls-verify: true}\n  name: c\ncontexts:\n- context: {cluster: c, user: u}\n  name: x\ncurrent-context: x\nusers:\n- name: u\n  user: {token: t}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := ClusterSource{Kubeconfig: kc, CacheDir: filepath.Join(dir, "cache"), Timeout: 10 * time.Second}
	read := func(changed int) (*ClusterSnapshot, []string) {
		t.Helper()
		mu.Lock()
		for i := range changed {
			rvs[fmt.Sprintf("c%02d.example.org", i)]++
		}
		reqs = nil
		mu.Unlock()
		snap, err := src.ReadCluster(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		return snap, reqs
	}
	if snap, r := read(0); len(snap.Downloaded) != n || len(r) != 2 {
		t.Errorf("first read: %d downloaded, requests %v", len(snap.Downloaded), r)
	}
	snap, r := read(2)
	if len(snap.Downloaded) != 2 || len(r) != 4 || r[1] != "GET "+crdsPath+" meta=true" || r[2] != "GET "+crdsPath+"/c00.example.org meta=false" {
		t.Errorf("two changed: downloaded %v, requests %v", snap.Downloaded, r)
	}
	snap, r = read(maxByName + 1)
	if len(snap.Downloaded) != maxByName+1 || len(r) != 3 || r[2] != "GET "+crdsPath+" meta=false" {
		t.Errorf("%d changed: %d downloaded, requests %v", maxByName+1, len(snap.Downloaded), r)
	}
	if !strings.Contains(string(snap.YAML), `"name":"c00.example.org","resourceVersion":"3"`) || !strings.Contains(string(snap.YAML), `"rv":3`) || !strings.Contains(string(snap.YAML), `"name":"c39.example.org","resourceVersion":"1"`) {
		t.Errorf("YAML:\n%s", snap.YAML)
	}
}

// hostileKubeconfig writes a kubeconfig for server (every OS: the hostile
// tests are Unix-only, TestClusterReadHolding is not), context "hostile",
// whose user stanza is user (YAML indented under "user:").
func hostileKubeconfig(t *testing.T, server, user string) string {
	t.Helper()
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: \"" + server + "\", insecure-skip-tls-verify: true}\n  name: c\ncontexts:\n- context: {cluster: c, user: u}\n  name: hostile\ncurrent-context: hostile\nusers:\n- name: u\n  user:\n" + user
	if err := os.WriteFile(kc, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return kc
}
