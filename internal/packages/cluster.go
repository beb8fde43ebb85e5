// This file reads the CRDs a live cluster serves with client-go (kubeconfig as
// kubectl loads it) and caches them.

package packages

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// A live cluster as a schema source: its CustomResourceDefinitions, read
// whole (CEL rules, defaults, list types) with the credentials kubectl
// would use (client-go's kubeconfig loading: certificates, tokens, exec
// plugins), and cached on disk per cluster so they serve offline. The
// cluster is only read: one list of CRDs and the server's version per
// refresh, never a write.

// DefaultClusterTimeout bounds one refresh of a cluster.
const DefaultClusterTimeout = 15 * time.Second

// ClusterSource names a cluster: a kubeconfig (empty: kubectl's rules,
// $KUBECONFIG then ~/.kube/config) and a context in it (empty: its
// current context).
type ClusterSource struct {
	Kubeconfig string
	Context    string
	// CacheDir holds what was read; default DefaultClusterCacheDir().
	CacheDir string
	// Timeout bounds one refresh; default DefaultClusterTimeout.
	Timeout time.Duration
}

// ClusterCRD is one CustomResourceDefinition the cluster serves.
type ClusterCRD struct {
	Name            string `json:"name"`
	ResourceVersion string `json:"resourceVersion"`
}

// ClusterSnapshot is what one read of a cluster found.
type ClusterSnapshot struct {
	Context string       `json:"context"`
	Server  string       `json:"server"`
	Version string       `json:"version"` // the API server's gitVersion, "" if it did not say
	ReadAt  time.Time    `json:"readAt"`
	CRDs    []ClusterCRD `json:"crds"`
	// Path is the cached YAML stream of the CRDs (a file a user may open).
	Path string `json:"-"`
	// YAML is the CRDs, one JSON document each, "---" separated.
	YAML []byte `json:"-"`
}

// DefaultClusterCacheDir is os.UserCacheDir()/crd-lsp/clusters.
func DefaultClusterCacheDir() (string, error) { return userCacheDir("clusters") }

// ClusterError says why a cluster could not be read, naming its context.
type ClusterError struct {
	Context string
	Server  string
	Err     error
}

func (e *ClusterError) Error() string {
	where := "cluster context " + fmt.Sprintf("%q", e.Context)
	if e.Context == "" {
		where = "cluster (current context)"
	}
	if e.Server != "" {
		where += " (" + e.Server + ")"
	}
	return where + ": " + e.Err.Error()
}

func (e *ClusterError) Unwrap() error { return e.Err }

// resolved is the client configuration a ClusterSource names.
type resolved struct {
	context string
	config  *rest.Config
}

// resolve loads the kubeconfig as kubectl does (no network).
func (s ClusterSource) resolve() (resolved, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if s.Kubeconfig != "" {
		rules.ExplicitPath = s.Kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: s.Context})
	raw, err := cc.RawConfig()
	if err != nil {
		return resolved{context: s.Context}, &ClusterError{Context: s.Context, Err: fmt.Errorf("reading the kubeconfig: %w", err)}
	}
	name := s.Context
	if name == "" {
		name = raw.CurrentContext
	}
	if name == "" {
		return resolved{}, &ClusterError{Err: errors.New("the kubeconfig has no current context: name one (--context)")}
	}
	if _, ok := raw.Contexts[name]; !ok {
		return resolved{context: name}, &ClusterError{Context: name, Err: errors.New("no such context in the kubeconfig")}
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		return resolved{context: name}, &ClusterError{Context: name, Err: err}
	}
	return resolved{context: name, config: cfg}, nil
}

// cacheDir is where the cluster's snapshot lives: keyed by its server URL
// and context name.
func (s ClusterSource) cacheDir(r resolved) (string, error) {
	root := s.CacheDir
	if root == "" {
		d, err := DefaultClusterCacheDir()
		if err != nil {
			return "", err
		}
		root = d
	}
	h := sha256.Sum256([]byte(r.config.Host + "\x00" + r.context))
	return filepath.Join(root, clusterDirName(r.context)+"-"+hex.EncodeToString(h[:8])), nil
}

func clusterDirName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	return b.String()
}

// CachedCluster is the cluster's snapshot as last read (no network).
func (s ClusterSource) CachedCluster() (*ClusterSnapshot, error) {
	r, err := s.resolve()
	if err != nil {
		return nil, err
	}
	dir, err := s.cacheDir(r)
	if err != nil {
		return nil, err
	}
	meta, err := os.ReadFile(filepath.Join(dir, "cluster.json"))
	if err != nil {
		return nil, err
	}
	var snap ClusterSnapshot
	if err := json.Unmarshal(meta, &snap); err != nil {
		return nil, fmt.Errorf("cluster cache %s: %w", dir, err)
	}
	snap.Path = filepath.Join(dir, "crds.yaml")
	if snap.YAML, err = os.ReadFile(snap.Path); err != nil {
		return nil, err
	}
	return &snap, nil
}

// ReadCluster reads the cluster's CRDs and version (one request set,
// bounded by the Timeout) and caches them. On failure the error names the
// context and the reason; the cached copy, if any, is returned with it.
func (s ClusterSource) ReadCluster(ctx context.Context) (*ClusterSnapshot, error) {
	r, err := s.resolve()
	if err != nil {
		return nil, err
	}
	snap, err := s.read(ctx, r)
	if err != nil {
		cerr := &ClusterError{Context: r.context, Server: r.config.Host, Err: err}
		cached, _ := s.CachedCluster()
		return cached, cerr
	}
	dir, err := s.cacheDir(r)
	if err == nil {
		err = writeSnapshot(dir, snap)
	}
	if err != nil {
		return snap, fmt.Errorf("caching cluster context %q: %w", r.context, err)
	}
	return snap, nil
}

func writeSnapshot(dir string, snap *ClusterSnapshot) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	meta, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		return err
	}
	snap.Path = filepath.Join(dir, "crds.yaml")
	if err := writeAtomic(snap.Path, snap.YAML); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, "cluster.json"), meta)
}

// maxClusterAnswer caps one answer of the API server.
const maxClusterAnswer = 256 << 20

func (s ClusterSource) read(ctx context.Context, r resolved) (*ClusterSnapshot, error) {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultClusterTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cfg := rest.CopyConfig(r.config)
	cfg.Timeout = 0 // ctx bounds the whole read (a second, equal timer would race it)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(cfg.Host, "/")
	if !strings.Contains(base, "://") {
		base = "https://" + base
	}
	get := func(path string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		if cfg.UserAgent != "" {
			req.Header.Set("User-Agent", cfg.UserAgent)
		} else {
			req.Header.Set("User-Agent", "crd-lsp")
		}
		resp, err := hc.Do(req)
		if err != nil {
			var ne net.Error
			if ctx.Err() == context.DeadlineExceeded || errors.As(err, &ne) && ne.Timeout() {
				return nil, fmt.Errorf("no answer within %s", timeout)
			}
			return nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxClusterAnswer+1))
		if err != nil {
			return nil, err
		}
		if len(b) > maxClusterAnswer {
			return nil, fmt.Errorf("GET %s: answer larger than %d MiB", path, maxClusterAnswer>>20)
		}
		if resp.StatusCode != http.StatusOK {
			var st struct {
				Message string `json:"message"`
			}
			msg := strings.TrimSpace(string(b))
			if json.Unmarshal(b, &st) == nil && st.Message != "" {
				msg = st.Message
			}
			if len(msg) > 300 {
				msg = msg[:300] + "…"
			}
			switch resp.StatusCode {
			case http.StatusUnauthorized:
				return nil, fmt.Errorf("unauthorised (401): the kubeconfig's credentials were refused: %s", msg)
			case http.StatusForbidden:
				return nil, fmt.Errorf("forbidden (403): may not list customresourcedefinitions: %s", msg)
			}
			return nil, fmt.Errorf("GET %s: %s: %s", path, resp.Status, msg)
		}
		return b, nil
	}

	snap := &ClusterSnapshot{Context: r.context, Server: cfg.Host}
	if b, err := get("/version"); err != nil {
		return nil, err
	} else {
		var v struct {
			GitVersion string `json:"gitVersion"`
		}
		_ = json.Unmarshal(b, &v)
		snap.Version = v.GitVersion
	}
	var docs [][]byte
	cont := ""
	for {
		q := url.Values{"limit": {"500"}}
		if cont != "" {
			q.Set("continue", cont)
		}
		b, err := get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions?" + q.Encode())
		if err != nil {
			return nil, err
		}
		var list struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
			Items []map[string]any `json:"items"`
		}
		if err := json.Unmarshal(b, &list); err != nil {
			return nil, fmt.Errorf("the CustomResourceDefinition list: %w", err)
		}
		for _, it := range list.Items {
			it["apiVersion"] = "apiextensions.k8s.io/v1"
			it["kind"] = "CustomResourceDefinition"
			md, _ := it["metadata"].(map[string]any)
			name, rv := "", ""
			if md != nil {
				delete(md, "managedFields")
				name, _ = md["name"].(string)
				rv, _ = md["resourceVersion"].(string)
			}
			delete(it, "status")
			doc, err := json.Marshal(it)
			if err != nil {
				return nil, err
			}
			docs = append(docs, doc)
			snap.CRDs = append(snap.CRDs, ClusterCRD{Name: name, ResourceVersion: rv})
		}
		if cont = list.Metadata.Continue; cont == "" {
			break
		}
	}
	idx := make([]int, len(docs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return snap.CRDs[idx[a]].Name < snap.CRDs[idx[b]].Name })
	var buf bytes.Buffer
	crds := make([]ClusterCRD, 0, len(idx))
	for _, i := range idx {
		buf.WriteString("---\n")
		buf.Write(docs[i])
		buf.WriteByte('\n')
		crds = append(crds, snap.CRDs[i])
	}
	snap.CRDs = crds
	snap.YAML = buf.Bytes()
	snap.ReadAt = time.Now().UTC()
	return snap, nil
}
