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
	// YAMLSHA256 is the hex SHA-256 of the crds.yaml this cluster.json was
	// written with: the two files are renamed into place one after the
	// other, so a reader (or a second writer) in between could pair one
	// read's list of resourceVersions with another read's definitions.
	YAMLSHA256 string `json:"crdsSHA256"`
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
	return s.cached(r, nil)
}

// cached is the cluster's cached snapshot; held, when it is byte for byte
// the cached crds.yaml (cluster.json's checksum says), is used instead of
// reading that file again.
func (s ClusterSource) cached(r resolved, held []byte) (*ClusterSnapshot, error) {
	dir, err := s.cacheDir(r)
	if err != nil {
		return nil, err
	}
	snap, err := readSnapshot(dir, held)
	if err != nil {
		return nil, err
	}
	// A snapshot of another context or server (a cache folder copied or
	// shared by hand) is not this cluster's.
	if snap.Context != r.context || snap.Server != r.config.Host {
		return nil, fmt.Errorf("cluster cache %s holds context %q at %s, not %q at %s; the cluster is read again whole", dir, snap.Context, snap.Server, r.context, r.config.Host)
	}
	return snap, nil
}

// readSnapshot reads a cached snapshot, refusing a crds.yaml that is not
// the one its cluster.json was written with (cut short, or written by
// another process between the two renames): a refused cache is read again
// whole at the next refresh. held, if it is that crds.yaml's content,
// stands for the file (a caller already holding the stream does not hold
// it twice: it is the largest thing a cluster's read keeps).
func readSnapshot(dir string, held []byte) (*ClusterSnapshot, error) {
	meta, err := os.ReadFile(filepath.Join(dir, "cluster.json"))
	if err != nil {
		return nil, err
	}
	var snap ClusterSnapshot
	if err := json.Unmarshal(meta, &snap); err != nil {
		return nil, fmt.Errorf("cluster cache %s: %w", dir, err)
	}
	snap.Path = filepath.Join(dir, "crds.yaml")
	if fi, err := os.Stat(snap.Path); err == nil && held != nil && fi.Size() == int64(len(held)) {
		// The file is still there, at its size (a cache whose crds.yaml
		// was removed or cut short is read, refused and written again).
		if sum := sha256.Sum256(held); snap.YAMLSHA256 == hex.EncodeToString(sum[:]) {
			snap.YAML = held
			return &snap, nil
		}
	}
	if snap.YAML, err = os.ReadFile(snap.Path); err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(snap.YAML); snap.YAMLSHA256 != hex.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("cluster cache %s: crds.yaml is not the one cluster.json was written with (cut short, or written by two processes at once); the cluster is read again whole", dir)
	}
	return &snap, nil
}

// ReadCluster reads the cluster's CRDs and version (one request set,
// bounded by the Timeout) and caches them. On failure the error names the
// context and the reason; the cached copy, if any, is returned with it.
func (s ClusterSource) ReadCluster(ctx context.Context) (*ClusterSnapshot, error) {
	return s.ReadClusterHolding(ctx, nil)
}

// ReadClusterHolding is ReadCluster for a caller that holds a cluster's
// crds.yaml already (the loader serves the cached copy): when held is the
// cached stream, it is not read from disk again, and a refresh that finds
// nothing changed returns held itself as the snapshot's YAML. Any other
// held is ignored.
func (s ClusterSource) ReadClusterHolding(ctx context.Context, held []byte) (*ClusterSnapshot, error) {
	r, err := s.resolve()
	if err != nil {
		return nil, err
	}
	// A cached copy that cannot be used (none yet, or refused) is read
	// again whole.
	prev, _ := s.cached(r, held)
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
	sum := sha256.Sum256(snap.YAML)
	snap.YAMLSHA256 = hex.EncodeToString(sum[:])
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
	// open is the only request the cluster sees: a GET. Every answer of
	// the refresh draws on one budget of maxClusterRead bytes; the body
	// returned is cut at what remains of it.
	var budget int64 = maxClusterRead
	open := func(path, accept string) (io.ReadCloser, *answerReader, int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return nil, nil, 0, err
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
				return nil, nil, 0, fmt.Errorf("no answer within %s", timeout)
			}
			return nil, nil, 0, err
		}
		body := &answerReader{r: resp.Body, left: &budget, path: path}
		if resp.StatusCode != http.StatusOK {
			defer resp.Body.Close()
			b, _ := io.ReadAll(io.LimitReader(body, 64<<10))
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
				return nil, nil, 0, fmt.Errorf("unauthorised (401): the kubeconfig's credentials were refused: %s", msg)
			case http.StatusForbidden:
				return nil, nil, 0, fmt.Errorf("forbidden (403): may not read customresourcedefinitions: %s", msg)
			case http.StatusNotFound:
				return nil, nil, http.StatusNotFound, fmt.Errorf("GET %s: %s: %s", path, resp.Status, msg)
			}
			return nil, nil, 0, fmt.Errorf("GET %s: %s: %s", path, resp.Status, msg)
		}
		return resp.Body, body, http.StatusOK, nil
	}
	// readErr words an error met reading an answer's body.
	readErr := func(err error) error {
		if ctx.Err() == context.DeadlineExceeded {
			return fmt.Errorf("no answer within %s", timeout)
		}
		return err
	}
	get := func(path, accept string) ([]byte, int, error) {
		rc, body, code, err := open(path, accept)
		if err != nil {
			return nil, code, err
		}
		defer rc.Close()
		b, err := io.ReadAll(body)
		if err != nil {
			return nil, 0, readErr(err)
		}
		return b, code, nil
	}
	list := func(accept string, each func(crdDoc)) error {
		return listCRDs(func(path string) (io.ReadCloser, io.Reader, error) {
			rc, body, _, err := open(path, accept)
			if err != nil {
				return nil, nil, err
			}
			return rc, body, nil
		}, readErr, each)
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
		if err := list("application/json", func(d crdDoc) { docs[d.name] = d }); err != nil {
			return nil, err
		}
		for n := range docs {
			snap.Downloaded = append(snap.Downloaded, n)
		}
	} else {
		// A cached copy: list the metadata, download what changed.
		var changed []string
		err := list(metadataListAccept, func(d crdDoc) {
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
			if err := list("application/json", func(d crdDoc) {
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

// maxClusterPages caps the pages of one list (pages of 500: a million
// CRDs), against a server whose continue tokens never end.
const maxClusterPages = 2000

// listCRDs lists the CRDs page by page (open GETs a page), passing each
// item on as it is decoded from the stream, never holding a page whole:
// whole documents, or only names and resourceVersions when the server
// answered a PartialObjectMetadataList. A list of another kind, an item
// of another kind, a repeated continue token or more than maxClusterPages
// pages fail the read.
func listCRDs(open func(path string) (io.ReadCloser, io.Reader, error), readErr func(error) error, each func(crdDoc)) error {
	cont := ""
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page == maxClusterPages {
			return fmt.Errorf("the CustomResourceDefinition list: more than %d pages; refused", maxClusterPages)
		}
		q := url.Values{"limit": {"500"}}
		if cont != "" {
			q.Set("continue", cont)
		}
		rc, body, err := open(crdsPath + "?" + q.Encode())
		if err != nil {
			return err
		}
		next, err := decodeList(body, each)
		if err == nil {
			// What follows the list's closing brace (the server's
			// newline) is read, so the connection is reused for the next
			// page rather than torn down mid-answer.
			_, _ = io.Copy(io.Discard, io.LimitReader(body, 4<<10))
		}
		rc.Close()
		if err != nil {
			if ae := (*answerTooLarge)(nil); errors.As(err, &ae) {
				return ae
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = fmt.Errorf("the answer ends early: %w", err)
			}
			return fmt.Errorf("the CustomResourceDefinition list: %w", readErr(err))
		}
		if cont = next; cont == "" {
			return nil
		}
		if seen[cont] {
			return errors.New("the CustomResourceDefinition list: the server repeated a continue token; refused (its pages would never end)")
		}
		seen[cont] = true
	}
}

// decodeList decodes one page of a list from r, item by item, and returns
// its continue token.
func decodeList(r io.Reader, each func(crdDoc)) (string, error) {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return "", err
	}
	var kind, cont string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		switch tok {
		case "kind":
			if err := dec.Decode(&kind); err != nil {
				return "", err
			}
			switch kind {
			case "", "CustomResourceDefinitionList", "PartialObjectMetadataList":
			default:
				return "", fmt.Errorf("the server answered a %s", kind)
			}
		case "metadata":
			var m struct {
				Continue string `json:"continue"`
			}
			if err := dec.Decode(&m); err != nil {
				return "", err
			}
			cont = m.Continue
		case "items":
			tok, err := dec.Token()
			if err != nil {
				return "", err
			}
			if tok == nil {
				continue // "items": null, an empty list
			}
			if tok != json.Delim('[') {
				return "", fmt.Errorf("want '[', found %v", tok)
			}
			for dec.More() {
				var it rawCRD
				if err := dec.Decode(&it); err != nil {
					return "", err
				}
				d, err := it.normalize(kind != "PartialObjectMetadataList" && it.Kind != "PartialObjectMetadata")
				if err != nil {
					return "", err
				}
				each(d)
			}
			if err := expectDelim(dec, ']'); err != nil {
				return "", err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return "", err
			}
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return "", err
	}
	return cont, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	if tok != want {
		return fmt.Errorf("want %q, found %v", want, tok)
	}
	return nil
}

// maxClusterRead caps what one refresh reads from the API server, all
// answers together.
const maxClusterRead = 256 << 20

// answerReader reads an answer's body, drawing on the refresh's budget:
// past it, an answerTooLarge error.
type answerReader struct {
	r    io.Reader
	left *int64
	path string
}

type answerTooLarge struct{ path string }

func (e *answerTooLarge) Error() string {
	return fmt.Sprintf("GET %s: the cluster's answers passed %d MiB in one refresh; refused", e.path, maxClusterRead>>20)
}

func (a *answerReader) Read(p []byte) (int, error) {
	if *a.left <= 0 {
		return 0, &answerTooLarge{a.path}
	}
	if int64(len(p)) > *a.left {
		p = p[:*a.left]
	}
	n, err := a.r.Read(p)
	*a.left -= int64(n)
	return n, err
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
	switch {
	case c.Kind == "" && c.APIVersion == "",
		c.Kind == "CustomResourceDefinition" && c.APIVersion == "apiextensions.k8s.io/v1",
		c.Kind == "PartialObjectMetadata" && !whole:
	default:
		return crdDoc{}, fmt.Errorf("%q is a %s %s, not a CustomResourceDefinition", d.name, c.APIVersion, c.Kind)
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
