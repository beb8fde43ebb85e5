package referee

import (
	"bytes"
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
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serverVersion is the apiextensions-apiserver version of go.mod: the
// referee must judge with the code crd-lsp validates with.
const serverVersion = "v0.37.2"

// apiServer is a running apiextensions-apiserver backed by its own etcd.
type apiServer struct {
	base   string
	client *http.Client
}

// need ends the test when a tool is missing: a skip, or a failure in CI.
func need(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI=true: .ci/run installs etcd-server and builds the server)", args...)
	}
	t.Skipf(format, args...)
}

func serverBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CRD_LSP_APIEXTENSIONS_SERVER"); p != "" {
		return p
	}
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			need(t, "no home folder for the server binary: %v", err)
		}
		dir = filepath.Join(home, ".cache")
	}
	p := filepath.Join(dir, "crd-lsp-test", "apiextensions-apiserver-"+serverVersion)
	if _, err := os.Stat(p); err != nil {
		need(t, "apiextensions-apiserver %s not built at %s (see package doc)", serverVersion, p)
	}
	return p
}

func freePort(t *testing.T) int {
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
func process(t *testing.T, logName string, name string, args ...string) (*exec.Cmd, string, <-chan struct{}) {
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
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	return cmd, logPath, exited
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
func waitReady(t *testing.T, c *http.Client, url string, exited <-chan struct{}, logPath string) {
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

// startServer starts etcd and the apiextensions-apiserver on loopback,
// with the flags of the module's own test/integration/fixtures/server.go.
func startServer(t *testing.T) *apiServer {
	t.Helper()
	bin := serverBinary(t)
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		need(t, "etcd not found (apt-get install etcd-server)")
	}
	dir := t.TempDir()

	clientPort, peerPort := freePort(t), freePort(t)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	_, etcdLog, etcdExited := process(t, "etcd.log", etcd,
		"--name", "referee", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "referee="+peerURL, "--log-level", "warn", "--logger", "zap")
	waitReady(t, http.DefaultClient, etcdURL+"/health", etcdExited, etcdLog)

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
	_, srvLog, srvExited := process(t, "apiserver.log", bin,
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
	s := &apiServer{base: fmt.Sprintf("https://127.0.0.1:%d", port), client: pki.client}
	waitReady(t, s.client, s.base+"/readyz?exclude=informer-sync", srvExited, srvLog)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("apiserver log (tail):\n%s", tail(srvLog))
		}
	})
	return s
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

type pki struct {
	caCert, serverCert, serverKey string
	client                        *http.Client
}

// newPKI makes a throw-away CA, a serving certificate for 127.0.0.1 and a
// system:masters client certificate.
func newPKI(t *testing.T, dir string) pki {
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

// status is the part of a metav1.Status the referee reads.
type status struct {
	Status  string `json:"status"`
	Code    int    `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Details struct {
		Causes []struct {
			Type    string `json:"reason"`
			Message string `json:"message"`
			Field   string `json:"field"`
		} `json:"causes"`
	} `json:"details"`
}

// answer is the server's reply to one request.
type answer struct {
	code     int
	status   status
	warnings []string
	body     []byte
}

func (s *apiServer) do(ctx context.Context, method, path string, body []byte) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, bytes.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	a := answer{code: resp.StatusCode, body: b}
	if resp.StatusCode >= 300 {
		_ = json.Unmarshal(b, &a.status)
	}
	for _, w := range resp.Header.Values("Warning") {
		a.warnings = append(a.warnings, warningText(w))
	}
	return a, nil
}

// warningText is the text of an RFC 7234 warning header: 299 - "text".
func warningText(h string) string {
	h = strings.TrimPrefix(h, "299 - ")
	if len(h) >= 2 && h[0] == '"' {
		var b strings.Builder
		for i := 1; i < len(h); i++ {
			switch h[i] {
			case '\\':
				if i+1 < len(h) {
					i++
					b.WriteByte(h[i])
				}
			case '"':
				return b.String()
			default:
				b.WriteByte(h[i])
			}
		}
		return b.String()
	}
	return h
}
