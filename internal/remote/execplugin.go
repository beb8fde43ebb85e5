// This file runs a kubeconfig's exec credential plugin within the refresh's
// deadline, reading a bounded answer.

package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// client-go runs an exec plugin (users[].user.exec) with no deadline and
// keeps all it writes on stdout: a plugin waiting for a browser login
// hangs the read for good, one that floods stdout fills memory. crd-lsp
// runs the plugin itself, as kubectl's contract says (the ExecCredential
// request in KUBERNETES_EXEC_INFO, the ExecCredential answer on stdout),
// never interactively (stdin is empty: the editor's stdin is the LSP
// stream), within the refresh's deadline, reading at most
// maxExecCredential bytes of stdout and keeping the tail of stderr for the
// message; the answer's token or client certificate then stand in the
// rest.Config for the plugin.

// maxExecCredential caps what a plugin may write on stdout: an
// ExecCredential is a token or a certificate and key, a few KiB.
const maxExecCredential = 1 << 20

// execStderrTail is how much of a plugin's stderr a message quotes.
const execStderrTail = 2 << 10

// execWaitDelay is how long, once the plugin is killed, the read waits for
// the processes it started to let go of its stdout and stderr.
const execWaitDelay = time.Second

// ExecPluginError says why a kubeconfig's exec credential plugin gave no
// credentials, naming the plugin.
type ExecPluginError struct {
	Command string
	Err     error
}

func (e *ExecPluginError) Error() string {
	return "the kubeconfig's exec credential plugin " + e.Command + ": " + e.Err.Error()
}

func (e *ExecPluginError) Unwrap() error { return e.Err }

// execCredentials runs cfg's exec plugin (if any) and returns a copy of
// cfg that carries its credentials instead.
func execCredentials(ctx context.Context, cfg *rest.Config, timeout time.Duration) (*rest.Config, error) {
	ec := cfg.ExecProvider
	if ec == nil {
		return cfg, nil
	}
	if cfg.BearerToken != "" || cfg.BearerTokenFile != "" || cfg.Username != "" || cfg.Password != "" {
		// As client-go: credentials of the user's own come first, and
		// the plugin is not run.
		out := rest.CopyConfig(cfg)
		out.ExecProvider = nil
		return out, nil
	}
	fail := func(err error) (*rest.Config, error) {
		return nil, &ExecPluginError{Command: ec.Command, Err: err}
	}
	switch ec.PluginPolicy.PolicyType {
	case "", clientcmdapi.PluginPolicyAllowAll:
	default:
		return fail(fmt.Errorf("credential plugin policy %s is not supported", ec.PluginPolicy.PolicyType))
	}
	if ec.InteractiveMode == clientcmdapi.AlwaysExecInteractiveMode {
		return fail(errors.New("it asks for a terminal (interactiveMode: Always), and crd-lsp runs it without one: log in with kubectl first, or set interactiveMode: IfAvailable"))
	}
	switch ec.APIVersion {
	case "client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1":
	default:
		return fail(fmt.Errorf("apiVersion %q: want client.authentication.k8s.io/v1 or v1beta1", ec.APIVersion))
	}
	req := map[string]any{"apiVersion": ec.APIVersion, "kind": "ExecCredential", "spec": map[string]any{"interactive": false}}
	if ec.ProvideClusterInfo {
		cluster := map[string]any{"server": cfg.Host, "insecure-skip-tls-verify": cfg.Insecure}
		if cfg.TLSClientConfig.ServerName != "" {
			cluster["tls-server-name"] = cfg.TLSClientConfig.ServerName
		}
		if len(cfg.CAData) > 0 {
			cluster["certificate-authority-data"] = cfg.CAData
		} else if cfg.CAFile != "" {
			if b, err := os.ReadFile(cfg.CAFile); err == nil {
				cluster["certificate-authority-data"] = b
			}
		}
		req["spec"].(map[string]any)["cluster"] = cluster
	}
	info, err := json.Marshal(req)
	if err != nil {
		return fail(err)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, ec.Command, ec.Args...)
	cmd.Env = os.Environ()
	for _, e := range ec.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	cmd.Env = append(cmd.Env, "KUBERNETES_EXEC_INFO="+string(info))
	cmd.Stdin = nil // empty: never the LSP stream, never a terminal
	stdout := &cappedBuffer{limit: maxExecCredential, full: cancel}
	stderr := &tailBuffer{limit: execStderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = execWaitDelay
	runErr := cmd.Run()
	tail := stderr.String()
	switch {
	case stdout.overflow():
		return fail(fmt.Errorf("wrote more than %d MiB on stdout; an ExecCredential is a few KiB", maxExecCredential>>20))
	case ctx.Err() != nil && runErr != nil:
		return fail(withTail(fmt.Errorf("no credentials within %s; it was stopped (does it wait for a login? log in with kubectl first)", timeout), tail))
	case runErr != nil:
		var ee *exec.Error
		if errors.As(runErr, &ee) && ec.InstallHint != "" {
			return fail(fmt.Errorf("%w\n%s", runErr, ec.InstallHint))
		}
		return fail(withTail(runErr, tail))
	}

	var cred struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Status     *struct {
			Token                 string `json:"token"`
			ClientCertificateData string `json:"clientCertificateData"`
			ClientKeyData         string `json:"clientKeyData"`
		} `json:"status"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &cred); err != nil {
		return fail(withTail(fmt.Errorf("its output is not an ExecCredential: %v", err), tail))
	}
	switch {
	case cred.Kind != "ExecCredential" || cred.APIVersion != ec.APIVersion:
		return fail(fmt.Errorf("answered %s %s, want %s ExecCredential", cred.APIVersion, cred.Kind, ec.APIVersion))
	case cred.Status == nil:
		return fail(errors.New("its ExecCredential has no status"))
	case cred.Status.Token == "" && cred.Status.ClientCertificateData == "" && cred.Status.ClientKeyData == "":
		return fail(errors.New("its ExecCredential holds no token and no client certificate"))
	case (cred.Status.ClientCertificateData == "") != (cred.Status.ClientKeyData == ""):
		return fail(errors.New("its ExecCredential holds a client certificate or key without the other"))
	}
	out := rest.CopyConfig(cfg)
	out.ExecProvider = nil
	if cred.Status.Token != "" {
		out.BearerToken, out.BearerTokenFile = cred.Status.Token, ""
	}
	if cred.Status.ClientCertificateData != "" {
		out.CertData, out.KeyData = []byte(cred.Status.ClientCertificateData), []byte(cred.Status.ClientKeyData)
		out.CertFile, out.KeyFile = "", ""
	}
	return out, nil
}

// withTail adds the end of what the plugin wrote on stderr to err.
func withTail(err error, tail string) error {
	tail = strings.TrimSpace(tail)
	if tail == "" {
		return err
	}
	return fmt.Errorf("%w; it said: %s", err, tail)
}

// cappedBuffer keeps up to limit bytes; past them it calls full (which
// stops the plugin) and refuses more.
type cappedBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	limit int
	over  bool
	full  func()
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.over || c.buf.Len()+len(p) > c.limit {
		if !c.over {
			c.over = true
			c.full()
		}
		return 0, errors.New("stdout over its limit")
	}
	return c.buf.Write(p)
}

func (c *cappedBuffer) overflow() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.over }
func (c *cappedBuffer) Bytes() []byte  { c.mu.Lock(); defer c.mu.Unlock(); return c.buf.Bytes() }

// tailBuffer keeps the last limit bytes written, control characters
// escaped when read.
type tailBuffer struct {
	mu    sync.Mutex
	b     []byte
	limit int
	cut   bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.limit {
		t.b = append(t.b[:0], t.b[len(t.b)-t.limit:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.ToValidUTF8(string(t.b), "?")
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	if t.cut {
		s = "…" + s
	}
	return s
}
