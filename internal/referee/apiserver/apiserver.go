// Package apiserver starts a real Kubernetes API server for tests: Debian's
// etcd and the standalone apiextensions-apiserver (the root main package of
// k8s.io/apiextensions-apiserver at the version crd-lsp depends on), on
// loopback, with the flags of the module's own integration fixture, a
// throw-away client CA and a system:masters client certificate. It is
// imported only by tests (internal/architecture_test.go).
//
// The server binary is built outside the repository (see .ci/run):
//
//	cd "$(go env GOMODCACHE)/k8s.io/apiextensions-apiserver@v0.37.2" &&
//	  go build -o "${XDG_CACHE_HOME:-$HOME/.cache}/crd-lsp-test/apiextensions-apiserver-v0.37.2" .
//
// CRD_LSP_APIEXTENSIONS_SERVER names another binary. Without etcd or the
// binary the tests skip; under CI=true they fail.
package apiserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Version is the apiextensions-apiserver version of go.mod: the
// referee must judge with the code crd-lsp validates with.
const Version = "v0.37.2"

// Server is a running apiextensions-apiserver backed by its own etcd.
type Server struct {
	// Base is the server's URL (https://127.0.0.1:PORT).
	Base string
	// Client is an HTTP client with the system:masters certificate.
	Client *http.Client
	// CACert, ClientCert and ClientKey are PEM files: the CA the server
	// and client certificates are signed by, and the client's pair.
	CACert, ClientCert, ClientKey string

	stop func()
}

// Need ends the test when a tool is missing: a skip, or a failure in CI.
func Need(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI=true: .ci/run installs etcd-server and builds the server)", args...)
	}
	t.Skipf(format, args...)
}

func serverBinary(t testing.TB) string {
	t.Helper()
	return cachedBinary(t, "CRD_LSP_APIEXTENSIONS_SERVER", "apiextensions-apiserver-"+Version, "apiextensions-apiserver "+Version)
}

// cachedBinary is the binary env names, else name in the user cache
// folder's crd-lsp-test, where .ci/run builds it.
func cachedBinary(t testing.TB, env, name, what string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			Need(t, "no home folder for the server binary: %v", err)
		}
		dir = filepath.Join(home, ".cache")
	}
	p := filepath.Join(dir, "crd-lsp-test", name)
	if _, err := os.Stat(p); err != nil {
		Need(t, "%s not built at %s (see package doc)", what, p)
	}
	return p
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// process starts a command whose output goes to a log file, and stops it
// (by its own pid) when the test ends.
func process(t testing.TB, logName string, name string, args ...string) (func(), string, <-chan struct{}) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), logName)
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(exited)
	}()
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	t.Cleanup(stop)
	return stop, logPath, exited
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// waitReady polls url until it answers 200, the process exits, or a
// minute passes (a start-up that never finishes is a failure, not a hang).
func waitReady(t testing.TB, c *http.Client, url string, exited <-chan struct{}, logPath string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	last := ""
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			t.Fatalf("%s: process exited before it was ready; log:\n%s", url, tail(logPath))
		default:
		}
		resp, err := c.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, body)
		} else {
			last = err.Error()
		}
		select {
		case <-exited:
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("%s not ready after 2 minutes (last answer: %s); log:\n%s", url, last, tail(logPath))
}

// Start starts etcd and the apiextensions-apiserver on loopback,
// with the flags of the module's own test/integration/fixtures/server.go.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := serverBinary(t)
	dir := t.TempDir()
	etcdURL := startEtcd(t, dir)

	pki := newPKI(t, dir)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	// Points nowhere: delegated authentication/authorization and the core
	// informers need one to start (fixtures/server.go does the same).
	writeFile(t, kubeconfig, `apiVersion: v1
kind: Config
clusters:
- cluster:
    server: http://127.1.2.3:12345
  name: integration
contexts:
- context:
    cluster: integration
    user: test
  name: default-context
current-context: default-context
users:
- name: test
  user:
    password: test
    username: test
`)
	port := freePort(t)
	stop, srvLog, srvExited := process(t, "apiserver.log", bin,
		"--etcd-servers", etcdURL, "--etcd-prefix", "/referee",
		"--bind-address", "127.0.0.1", "--secure-port", fmt.Sprint(port),
		"--tls-cert-file", pki.serverCert, "--tls-private-key-file", pki.serverKey,
		"--client-ca-file", pki.caCert,
		"--authentication-skip-lookup",
		"--authentication-kubeconfig", kubeconfig,
		"--authorization-kubeconfig", kubeconfig,
		"--kubeconfig", kubeconfig,
		"--enable-priority-and-fairness=false",
		"--disable-admission-plugins", "NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy,MutatingAdmissionPolicy",
		"-v", "1")
	s := &Server{Base: fmt.Sprintf("https://127.0.0.1:%d", port), Client: pki.client, CACert: pki.caCert, ClientCert: pki.clientCert, ClientKey: pki.clientKey, stop: stop}
	waitReady(t, s.Client, s.Base+"/readyz?exclude=informer-sync", srvExited, srvLog)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("apiserver log (tail):\n%s", tail(srvLog))
		}
	})
	return s
}

// startEtcd starts Debian's etcd on loopback with its data in dir and
// returns its client URL.
func startEtcd(t testing.TB, dir string) string {
	t.Helper()
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		Need(t, "etcd not found (apt-get install etcd-server)")
	}
	clientPort, peerPort := freePort(t), freePort(t)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	_, etcdLog, etcdExited := process(t, "etcd.log", etcd,
		"--name", "referee", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "referee="+peerURL, "--log-level", "warn", "--logger", "zap")
	// Each probe bounded: an etcd that takes the connection and never
	// answers would keep waitReady from reaching its deadline.
	waitReady(t, &http.Client{Timeout: 10 * time.Second}, etcdURL+"/health", etcdExited, etcdLog)
	return etcdURL
}

// KubeVersion is the k8s.io/kubernetes version of go.mod: the
// kube-apiserver that referees built-in kinds runs the code crd-lsp
// links (internal/kubevalidation).
const KubeVersion = "v1.37.2"

// defaultAdmission are the admission plugins kube-apiserver KubeVersion
// enables by default (pkg/kubeapiserver/options/plugins.go
// DefaultOffAdmissionPlugins): StartKube disables them all, so that
// what the server says is its validation, not admission's (defaulting
// and checks that read the cluster: service accounts, quotas, limit
// ranges, namespaces, storage classes, webhooks and policies).
var defaultAdmission = []string{
	"NamespaceLifecycle", "LimitRanger", "ServiceAccount", "DefaultStorageClass",
	"PersistentVolumeClaimResize", "DefaultTolerationSeconds", "MutatingAdmissionWebhook",
	"ValidatingAdmissionWebhook", "ResourceQuota", "StorageObjectInUseProtection",
	"PodGroupProtection", "Priority", "TaintNodesByCondition", "RuntimeClass",
	"CertificateApproval", "CertificateSigning", "ClusterTrustBundleAttest",
	"CertificateSubjectRestriction", "DefaultIngressClass", "PodSecurity",
	"PodTopologyLabels", "MutatingAdmissionPolicy", "ValidatingAdmissionPolicy",
	"NodeDeclaredFeatureValidator", "PodResizeValidator",
}

// StartKube starts etcd and kube-apiserver KubeVersion on loopback, as
// the module's own cmd/kube-apiserver/app/testing/testserver.go starts
// it (a service-account signing key, an issuer, the client CA), with
// every admission plugin it enables by default disabled. The binary is
// CRD_LSP_KUBE_APISERVER, else the user cache folder's
// crd-lsp-test/kube-apiserver-KubeVersion, which .ci/run builds from the
// Go module proxy.
func StartKube(t testing.TB) *Server {
	t.Helper()
	bin := cachedBinary(t, "CRD_LSP_KUBE_APISERVER", "kube-apiserver-"+KubeVersion, "kube-apiserver "+KubeVersion)
	dir := t.TempDir()
	etcdURL := startEtcd(t, dir)
	pki := newPKI(t, dir)
	saKey := filepath.Join(dir, "service-account.key")
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, saKey, string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})))
	port := freePort(t)
	stop, srvLog, srvExited := process(t, "kube-apiserver.log", bin,
		"--etcd-servers", etcdURL, "--etcd-prefix", "/referee",
		"--bind-address", "127.0.0.1", "--secure-port", fmt.Sprint(port),
		"--endpoint-reconciler-type", "none", // the "kubernetes" Service needs a routable address; nothing here uses it
		"--service-cluster-ip-range", "10.0.0.0/16,fd00::/108", // dual-stack: crd-lsp judges Services as on a dual-stack cluster
		"--tls-cert-file", pki.serverCert, "--tls-private-key-file", pki.serverKey,
		"--client-ca-file", pki.caCert,
		"--service-account-issuer", "https://crd-lsp.referee.example",
		"--service-account-key-file", saKey, "--service-account-signing-key-file", saKey,
		"--authorization-mode", "AlwaysAllow",
		"--enable-priority-and-fairness=false",
		"--disable-admission-plugins", strings.Join(defaultAdmission, ","),
		"-v", "1")
	s := &Server{Base: fmt.Sprintf("https://127.0.0.1:%d", port), Client: pki.client, CACert: pki.caCert, ClientCert: pki.clientCert, ClientKey: pki.clientKey, stop: stop}
	waitReady(t, s.Client, s.Base+"/readyz", srvExited, srvLog)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kube-apiserver log (tail):\n%s", tail(srvLog))
		}
	})
	return s
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

type pki struct {
	caCert, serverCert, serverKey, clientCert, clientKey string
	client                                               *http.Client
}

// newPKI makes a throw-away CA, a serving certificate for 127.0.0.1 and a
// system:masters client certificate.
func newPKI(t testing.TB, dir string) pki {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "crd-lsp referee CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	leaf := func(serial int64, tmpl x509.Certificate) ([]byte, *ecdsa.PrivateKey) {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl.SerialNumber = big.NewInt(serial)
		tmpl.NotBefore, tmpl.NotAfter = now.Add(-time.Hour), now.Add(24*time.Hour)
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		der, err := x509.CreateCertificate(rand.Reader, &tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, k
	}
	srvDER, srvKey := leaf(2, x509.Certificate{Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	cliDER, cliKey := leaf(3, x509.Certificate{Subject: pkix.Name{CommonName: "referee", Organization: []string{"system:masters"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})

	certPEM := func(der []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}) }
	keyPEM := func(k *ecdsa.PrivateKey) []byte {
		b, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: b})
	}
	p := pki{caCert: filepath.Join(dir, "ca.crt"), serverCert: filepath.Join(dir, "server.crt"), serverKey: filepath.Join(dir, "server.key")}
	writeFile(t, p.caCert, string(certPEM(caDER)))
	writeFile(t, p.serverCert, string(certPEM(srvDER)))
	writeFile(t, p.serverKey, string(keyPEM(srvKey)))
	p.clientCert, p.clientKey = filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	writeFile(t, p.clientCert, string(certPEM(cliDER)))
	writeFile(t, p.clientKey, string(keyPEM(cliKey)))
	cert, err := tls.X509KeyPair(certPEM(cliDER), keyPEM(cliKey))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	p.client = &http.Client{Timeout: time.Minute, Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{cert}},
		MaxIdleConnsPerHost: 8,
	}}
	return p
}

// Stop stops the API server (etcd stays until the test ends): what a
// client then sees is an unreachable cluster.
func (s *Server) Stop() { s.stop() }

// Kubeconfig writes a kubeconfig at path with a context of that name
// pointing at the server with the client certificate, as kubectl reads it.
func (s *Server) Kubeconfig(t testing.TB, path, context string) {
	t.Helper()
	writeFile(t, path, fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- cluster:
    server: %s
    certificate-authority: %s
  name: %s
contexts:
- context:
    cluster: %s
    user: %s-admin
  name: %s
current-context: %s
users:
- name: %s-admin
  user:
    client-certificate: %s
    client-key: %s
`, s.Base, s.CACert, context, context, context, context, context, context, s.ClientCert, s.ClientKey))
}

// CreateCRD creates the CRD (JSON, or YAML when it does not start with
// "{") on the server and waits until it is Established (the server's own
// condition).
func (s *Server) CreateCRD(t testing.TB, crd string) {
	t.Helper()
	s.CreateCRDs(t, []string{crd})
}

// CreateCRDs creates the CRDs (four at a time) and then waits until each
// is Established.
func (s *Server) CreateCRDs(t testing.TB, crds []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	names := make([]string, len(crds))
	errs := make([]error, len(crds))
	work := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				names[i], errs[i] = s.post(ctx, crds[i])
			}
		}()
	}
	for i := range crds {
		work <- i
	}
	close(work)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range names {
		s.awaitEstablished(t, ctx, name)
	}
}

func (s *Server) post(ctx context.Context, crd string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.Base+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", strings.NewReader(crd))
	req.Header.Set("Content-Type", "application/json")
	if !strings.HasPrefix(strings.TrimSpace(crd), "{") {
		req.Header.Set("Content-Type", "application/yaml")
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		return "", err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("creating the CRD: %s %s", resp.Status, b)
	}
	var name struct {
		Metadata struct{ Name string } `json:"metadata"`
	}
	_ = json.Unmarshal(b, &name)
	return name.Metadata.Name, nil
}

func (s *Server) awaitEstablished(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.Base+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, nil)
		resp, err := s.Client.Do(req)
		if err != nil {
			t.Fatalf("waiting for the CRD %s: %v", name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var st struct {
			Status struct {
				Conditions []struct{ Type, Status string } `json:"conditions"`
			} `json:"status"`
		}
		_ = json.Unmarshal(b, &st)
		for _, c := range st.Status.Conditions {
			if c.Type == "Established" && c.Status == "True" {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("CRD %s not established: %s", name, b)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// PatchCRD applies a JSON patch (RFC 6902) to the named CRD and returns
// its new resourceVersion.
func (s *Server) PatchCRD(t testing.TB, name, patch string) string {
	t.Helper()
	// A bounded request: an answer that never comes fails the test with the
	// CRD's name instead of hanging until go test's timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPatch, s.Base+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, strings.NewReader(patch))
	req.Header.Set("Content-Type", "application/json-patch+json")
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatalf("patching the CRD %s: %v", name, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("patching the CRD %s: %s %s", name, resp.Status, b)
	}
	var md struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(b, &md)
	return md.Metadata.ResourceVersion
}

// Request is one request a Recorder passed on: Bytes is the size of the
// answer's body.
type Request struct {
	Method, Path, RawQuery, Accept string
	Status                         int
	Bytes                          int64
}

type countingWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (c *countingWriter) WriteHeader(code int) { c.status = code; c.ResponseWriter.WriteHeader(code) }

func (c *countingWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	n, err := c.ResponseWriter.Write(b)
	c.n += int64(n)
	return n, err
}

// Recorder is a plain-HTTP reverse proxy on loopback in front of the
// server, passing each request on with the system:masters certificate
// and recording it: a test's kubeconfig points a client at it to see
// every request the client makes.
type Recorder struct {
	URL      string
	mu       sync.Mutex
	idle     *sync.Cond // inflight reached 0
	inflight int
	reqs     []Request
	stalled  bool
	version  string // GET /version's gitVersion ("": passed on)
	t        testing.TB
	late     bool // Requests gave up waiting
}

// ServeVersion makes the recorder answer GET /version itself, as a
// cluster of that release does (gitVersion, e.g. "v1.34.3", with its
// major and minor), while passing every other request on; "" passes
// /version on again (the standalone server says
// "v0.0.0-master+$Format:%H$"). The answer is recorded as any other.
func (r *Recorder) ServeVersion(gitVersion string) {
	r.mu.Lock()
	r.version = gitVersion
	r.mu.Unlock()
}

// versionAnswer is the body of GET /version for gitVersion, in the shape
// of k8s.io/apimachinery/pkg/version.Info.
func versionAnswer(gitVersion string) []byte {
	major, minor := "", ""
	if v := strings.TrimPrefix(gitVersion, "v"); v != gitVersion {
		parts := strings.SplitN(v, ".", 3)
		if len(parts) >= 2 {
			major, minor = parts[0], parts[1]
		}
	}
	b, _ := json.Marshal(map[string]string{
		"major": major, "minor": minor, "gitVersion": gitVersion,
		"gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
		"buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.25.0", "compiler": "gc", "platform": "linux/amd64",
	})
	return b
}

// Stall makes the recorder hold each request without an answer until
// the client gives up (true), or pass them on again (false): a slow
// cluster.
func (r *Recorder) Stall(on bool) {
	r.mu.Lock()
	r.stalled = on
	r.mu.Unlock()
}

// Record starts a Recorder in front of s, stopped when the test ends.
func (s *Server) Record(t testing.TB) *Recorder {
	t.Helper()
	target, err := url.Parse(s.Base)
	if err != nil {
		t.Fatal(err)
	}
	rec := &Recorder{t: t}
	rec.idle = sync.NewCond(&rec.mu)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = s.Client.Transport
	proxy.ErrorLog = log.New(io.Discard, "", 0) // a stopped server answers 502, which the client reports
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.inflight++
		stalled, version := rec.stalled, rec.version
		rec.mu.Unlock()
		cw := &countingWriter{ResponseWriter: w}
		// Counted and recorded however the handler ends: the reverse
		// proxy panics with http.ErrAbortHandler when the client hangs
		// up mid-answer, and a request never counted out would keep
		// Requests waiting for ever.
		defer func() {
			rec.mu.Lock()
			rec.reqs = append(rec.reqs, Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Accept: r.Header.Get("Accept"), Status: cw.status, Bytes: cw.n})
			if rec.inflight--; rec.inflight == 0 {
				rec.idle.Broadcast()
			}
			rec.mu.Unlock()
		}()
		switch {
		case stalled:
			<-r.Context().Done()
		case version != "" && r.Method == http.MethodGet && r.URL.Path == "/version":
			cw.Header().Set("Content-Type", "application/json")
			_, _ = cw.Write(versionAnswer(version))
		default:
			proxy.ServeHTTP(cw, r)
		}
	}), ReadHeaderTimeout: time.Minute}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	rec.URL = "http://" + l.Addr().String()
	return rec
}

// Requests returns the requests recorded so far and forgets them, once
// none is in flight (a client that has its answer may return before the
// recorder has counted it).
// A request still in flight after two minutes fails the test (the
// client has returned; the recorder or the server is stuck).
func (r *Recorder) Requests() []Request {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inflight > 0 {
		timer := time.AfterFunc(2*time.Minute, func() {
			r.mu.Lock()
			r.late = true
			r.idle.Broadcast()
			r.mu.Unlock()
		})
		defer timer.Stop()
		for r.inflight > 0 && !r.late {
			r.idle.Wait()
		}
		if r.late {
			r.late = false
			r.t.Fatalf("recorder: %d request(s) still in flight two minutes after the client returned", r.inflight)
		}
	}
	out := r.reqs
	r.reqs = nil
	return out
}

// Kubeconfig writes a kubeconfig at path with a context of that name
// pointing at the recorder (no credentials: the recorder adds them).
func (r *Recorder) Kubeconfig(t testing.TB, path, context string) {
	t.Helper()
	writeFile(t, path, fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- cluster:
    server: %s
  name: %s
contexts:
- context:
    cluster: %s
    user: %s-user
  name: %s
current-context: %s
users:
- name: %s-user
  user: {}
`, r.URL, context, context, context, context, context, context))
}
