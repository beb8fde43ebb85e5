// This file reads the CRDs a live cluster serves with client-go (kubeconfig as
// kubectl loads it) and caches them.

package remote

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
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/packages"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// A live cluster as a schema source: its CustomResourceDefinitions, read
// whole (CEL rules, defaults, list types) with the credentials kubectl
// would use (client-go's kubeconfig loading: certificates, tokens, exec
// plugins), and cached on disk per cluster so they serve offline. The
// cluster is only read (GET only), never written: one request set per
// refresh. A first read lists the CRDs whole; a refresh with a cached copy
// lists their metadata only (a PartialObjectMetadataList, as client-go's
// metadata client asks for it) and downloads by name only the CRDs whose
// resourceVersion changed, or lists them whole again when many did.

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
	// Downloaded names the CRDs whose definitions this read downloaded:
	// all of them when there was no cached copy, else only those that are
	// new or whose resourceVersion changed (the others are the cached
	// copy's, neither downloaded nor decoded again). Not cached.
	Downloaded []string `json:"-"`
}

// DefaultClusterCacheDir is os.UserCacheDir()/crd-lsp/clusters.
func DefaultClusterCacheDir() (string, error) { return packages.UserCacheDir("clusters") }

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
	prev, _ := s.CachedCluster()
	snap, err := s.read(ctx, r, prev)
	if err != nil {
		cerr := &ClusterError{Context: r.context, Server: r.config.Host, Err: err}
		return prev, cerr
	}
	dir, err := s.cacheDir(r)
	if err == nil {
		err = writeSnapshot(dir, snap, prev)
	}
	if err != nil {
		return snap, fmt.Errorf("caching cluster context %q: %w", r.context, err)
	}
	return snap, nil
}

func writeSnapshot(dir string, snap, prev *ClusterSnapshot) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	meta, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		return err
	}
	snap.Path = filepath.Join(dir, "crds.yaml")
	if prev == nil || prev.Path != snap.Path || !bytes.Equal(prev.YAML, snap.YAML) {
		if err := packages.WriteAtomic(snap.Path, snap.YAML); err != nil {
			return err
		}
	}
	return packages.WriteAtomic(filepath.Join(dir, "cluster.json"), meta)
}

// maxClusterAnswer caps one answer of the API server.
const maxClusterAnswer = 256 << 20

// crdsPath is the API server's collection of CustomResourceDefinitions.
const crdsPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// metadataListAccept asks for a PartialObjectMetadataList (the items'
// metadata only), as client-go's metadata client does; a server that
// cannot answer so answers the whole list (the second choice).
const metadataListAccept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"

// maxByName is how many changed CRDs a refresh downloads one by one; more
// are listed whole again (one paged list costs less than many requests).
const maxByName = 32

func (s ClusterSource) read(ctx context.Context, r resolved, prev *ClusterSnapshot) (*ClusterSnapshot, error) {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultClusterTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cfg, err := execCredentials(ctx, r.config, timeout)
	if err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = 0 // ctx bounds the whole read (a second, equal timer would race it)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	// An API server does not redirect these GETs; following one would
	// hand the kubeconfig's credentials (client-go's transport adds them
	// to every request) to wherever it points.
	hc.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		return fmt.Errorf("the API server redirected to %s; crd-lsp does not follow an API server's redirects", req.URL.Redacted())
	}
	base := strings.TrimSuffix(cfg.Host, "/")
	if !strings.Contains(base, "://") {
		base = "https://" + base
	}
	// get is the only request the cluster sees: a GET.
	get := func(path, accept string) ([]byte, int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return nil, 0, err
		}
		req.Header.Set("Accept", accept)
		if cfg.UserAgent != "" {
			req.Header.Set("User-Agent", cfg.UserAgent)
		} else {
			req.Header.Set("User-Agent", "crd-lsp")
		}
		resp, err := hc.Do(req)
		if err != nil {
			var ne net.Error
			if ctx.Err() == context.DeadlineExceeded || errors.As(err, &ne) && ne.Timeout() {
				return nil, 0, fmt.Errorf("no answer within %s", timeout)
			}
			return nil, 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxClusterAnswer+1))
		if err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				return nil, 0, fmt.Errorf("no answer within %s", timeout)
			}
			return nil, 0, err
		}
		if len(b) > maxClusterAnswer {
			return nil, 0, fmt.Errorf("GET %s: answer larger than %d MiB", path, maxClusterAnswer>>20)
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
				return nil, 0, fmt.Errorf("unauthorised (401): the kubeconfig's credentials were refused: %s", msg)
			case http.StatusForbidden:
				return nil, 0, fmt.Errorf("forbidden (403): may not read customresourcedefinitions: %s", msg)
			case http.StatusNotFound:
				return nil, http.StatusNotFound, fmt.Errorf("GET %s: %s: %s", path, resp.Status, msg)
			}
			return nil, 0, fmt.Errorf("GET %s: %s: %s", path, resp.Status, msg)
		}
		return b, http.StatusOK, nil
	}

	snap := &ClusterSnapshot{Context: r.context, Server: cfg.Host}
	if b, _, err := get("/version", "application/json"); err != nil {
		return nil, err
	} else {
		var v struct {
			GitVersion string `json:"gitVersion"`
		}
		_ = json.Unmarshal(b, &v)
		snap.Version = v.GitVersion
	}

	docs := map[string]crdDoc{} // by name
	var cached map[string]crdDoc
	if prev != nil && prev.Server == cfg.Host {
		cached = prev.docs()
	}
	if cached == nil {
		// No cached copy: list the CRDs whole.
		if err := listCRDs(get, "application/json", func(d crdDoc) { docs[d.name] = d }); err != nil {
			return nil, err
		}
		for n := range docs {
			snap.Downloaded = append(snap.Downloaded, n)
		}
	} else {
		// A cached copy: list the metadata, download what changed.
		var changed []string
		err := listCRDs(get, metadataListAccept, func(d crdDoc) {
			if c, ok := cached[d.name]; ok && c.rv == d.rv && d.rv != "" {
				docs[d.name] = c
				return
			}
			if d.doc != nil { // the server answered the whole list
				docs[d.name] = d
				snap.Downloaded = append(snap.Downloaded, d.name)
				return
			}
			changed = append(changed, d.name)
		})
		if err != nil {
			return nil, err
		}
		if len(changed) > maxByName {
			clear(docs)
			snap.Downloaded = snap.Downloaded[:0]
			if err := listCRDs(get, "application/json", func(d crdDoc) {
				if c, ok := cached[d.name]; ok && c.rv == d.rv && d.rv != "" {
					docs[d.name] = c
				} else {
					docs[d.name] = d
					snap.Downloaded = append(snap.Downloaded, d.name)
				}
			}); err != nil {
				return nil, err
			}
		} else {
			sort.Strings(changed)
			for _, name := range changed {
				b, code, err := get(crdsPath+"/"+url.PathEscape(name), "application/json")
				if code == http.StatusNotFound {
					continue // deleted since the list
				}
				if err != nil {
					return nil, err
				}
				var it rawCRD
				if err := json.Unmarshal(b, &it); err != nil {
					return nil, fmt.Errorf("the CustomResourceDefinition %s: %w", name, err)
				}
				d, err := it.normalize(true)
				if err != nil {
					return nil, fmt.Errorf("the CustomResourceDefinition %s: %w", name, err)
				}
				docs[d.name] = d
				snap.Downloaded = append(snap.Downloaded, d.name)
			}
		}
	}
	names := make([]string, 0, len(docs))
	for n := range docs {
		names = append(names, n)
	}
	sort.Strings(names)
	sort.Strings(snap.Downloaded)
	snap.ReadAt = time.Now().UTC()
	if len(snap.Downloaded) == 0 && prev != nil && len(names) == len(prev.CRDs) {
		same := true
		for i, n := range names {
			same = same && prev.CRDs[i].Name == n
		}
		if same { // nothing changed: the cached stream as it is, no copy
			snap.CRDs = slices.Clone(prev.CRDs)
			snap.YAML = prev.YAML
			return snap, nil
		}
	}
	var buf bytes.Buffer
	snap.CRDs = make([]ClusterCRD, 0, len(names))
	for _, n := range names {
		buf.WriteString("---\n")
		buf.Write(docs[n].doc)
		buf.WriteByte('\n')
		snap.CRDs = append(snap.CRDs, ClusterCRD{Name: n, ResourceVersion: docs[n].rv})
	}
	snap.YAML = buf.Bytes()
	return snap, nil
}

// crdDoc is one CRD of a snapshot: its name, resourceVersion and
// document (nil when only its metadata was listed).
type crdDoc struct {
	name, rv string
	doc      []byte
}

// listCRDs lists the CRDs page by page with that Accept header, passing
// each item on: whole documents, or only names and resourceVersions when
// the server answered a PartialObjectMetadataList.
func listCRDs(get func(path, accept string) ([]byte, int, error), accept string, each func(crdDoc)) error {
	cont := ""
	for {
		q := url.Values{"limit": {"500"}}
		if cont != "" {
			q.Set("continue", cont)
		}
		b, _, err := get(crdsPath+"?"+q.Encode(), accept)
		if err != nil {
			return err
		}
		var list struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
			Items []rawCRD `json:"items"`
		}
		if err := json.Unmarshal(b, &list); err != nil {
			return fmt.Errorf("the CustomResourceDefinition list: %w", err)
		}
		for i := range list.Items {
			d, err := list.Items[i].normalize(list.Kind != "PartialObjectMetadataList")
			if err != nil {
				return fmt.Errorf("the CustomResourceDefinition list: %w", err)
			}
			each(d)
			list.Items[i] = rawCRD{} // its text is in d now
		}
		if cont = list.Metadata.Continue; cont == "" {
			return nil
		}
	}
}

// rawCRD is a CRD as the API server sends it, decoded only as far as the
// cache needs: its spec stays undecoded text, its status is dropped.
type rawCRD struct {
	APIVersion string                     `json:"apiVersion"`
	Kind       string                     `json:"kind"`
	Metadata   map[string]json.RawMessage `json:"metadata"`
	Spec       json.RawMessage            `json:"spec,omitempty"`
}

// normalize is the CRD as the cache keeps it (whole: TypeMeta set, as a
// list's items lack it; managedFields and status dropped), or only its
// name and resourceVersion.
func (c rawCRD) normalize(whole bool) (crdDoc, error) {
	var d crdDoc
	if err := json.Unmarshal(c.Metadata["name"], &d.name); err != nil || d.name == "" {
		return crdDoc{}, errors.New("a CustomResourceDefinition without a name")
	}
	if rv, ok := c.Metadata["resourceVersion"]; ok {
		_ = json.Unmarshal(rv, &d.rv)
	}
	if !whole {
		return d, nil
	}
	delete(c.Metadata, "managedFields")
	c.APIVersion, c.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	doc, err := json.Marshal(c)
	if err != nil {
		return crdDoc{}, err
	}
	d.doc = doc
	return d, nil
}

// docs are the snapshot's CRDs by name (nil when its YAML does not hold
// one document per CRD listed, as read writes it: the cache is then not
// used to skip downloads).
func (s *ClusterSnapshot) docs() map[string]crdDoc {
	out := make(map[string]crdDoc, len(s.CRDs))
	i := 0
	for _, line := range bytes.Split(s.YAML, []byte("\n")) {
		if len(line) == 0 || string(line) == "---" {
			continue
		}
		if i >= len(s.CRDs) || line[0] != '{' || line[len(line)-1] != '}' {
			return nil
		}
		c := s.CRDs[i]
		out[c.Name] = crdDoc{name: c.Name, rv: c.ResourceVersion, doc: line}
		i++
	}
	if i != len(s.CRDs) {
		return nil
	}
	return out
}
