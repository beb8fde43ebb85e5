// This file reads CRD sources (a URL, or a Helm chart in an OCI registry) and
// caches them.

package remote

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/packages"
	"github.com/opencontainers/go-digest"
)

// CRD sources (check --crds, crdLsp.crdSources): CRDs the user names by
// location rather than keeps in the workspace: a YAML file at an http(s)
// URL (a release asset such as cert-manager.crds.yaml), or a Helm chart in
// an OCI registry (oci://host/repo/chart:version), whose crds/ folder and
// templates that are plain CRDs (no template actions) are read. What was
// read is kept in the package cache by digest, with an index from the
// reference to its digest, so it is served offline afterwards.

// HelmChartLayer is the media type of a Helm chart's content layer.
const HelmChartLayer = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"

// maxCRDSource caps a CRD source: the file at a URL, a chart archive, and
// the CRDs read from it.
const maxCRDSource = 64 << 20

// CRDSource is the CRDs read from one source.
type CRDSource struct {
	Ref     string    // as the user named it
	Digest  string    // sha256 of the content read (the YAML file, the chart layer)
	YAML    []byte    // the CRDs, as one YAML stream
	Fetched time.Time // when it was read from Ref
	// Path is where the cache keeps YAML (for definitions).
	Path string
}

type crdSourceEntry struct {
	Digest  string    `json:"digest"` // of YAML in the blob store
	Source  string    `json:"source"` // of what was fetched
	Size    int64     `json:"size"`
	Fetched time.Time `json:"fetched"`
}

func crdIndexPath(c *packages.Client) string {
	return filepath.Join(c.CacheDir(), "crd-sources.json")
}

func readCRDIndex(c *packages.Client) map[string]crdSourceEntry {
	idx := map[string]crdSourceEntry{}
	if b, err := os.ReadFile(crdIndexPath(c)); err == nil {
		_ = json.Unmarshal(b, &idx) // a corrupt index only costs a refetch
	}
	return idx
}

// IsOCIRef reports whether a CRD source names a Helm chart in an OCI
// registry (oci://…) rather than a URL.
func IsOCIRef(ref string) bool { return strings.HasPrefix(ref, "oci://") }

// CachedCRDs serves a CRD source from c's cache, with no network.
func CachedCRDs(c *packages.Client, ref string) (*CRDSource, error) {
	e, ok := readCRDIndex(c)[ref]
	if !ok {
		return nil, &packages.Error{Kind: packages.KindNotCached, Package: ref, Msg: ref + " is not in the cache"}
	}
	b, p, err := c.Blob(e.Digest, e.Size)
	if err != nil {
		return nil, &packages.Error{Kind: packages.KindNotCached, Package: ref, Msg: ref + " is not in the cache", Err: err}
	}
	return &CRDSource{Ref: ref, Digest: e.Source, YAML: b, Fetched: e.Fetched, Path: p}, nil
}

// FetchCRDs reads a CRD source (http(s) URL or oci:// Helm chart) and
// caches what it read in c's cache, through c's registries and
// credentials. When the source cannot be read, a cached copy is served
// along with the error.
func FetchCRDs(ctx context.Context, c *packages.Client, ref string) (*CRDSource, error) {
	ctx, cancel := context.WithTimeout(ctx, c.PullTimeout())
	defer cancel()
	var yml []byte
	var src string
	var err error
	switch {
	case IsOCIRef(ref):
		yml, src, err = fetchChartCRDs(ctx, c, strings.TrimPrefix(ref, "oci://"))
	case strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://"):
		yml, src, err = fetchURL(ctx, c, ref)
	default:
		return nil, fmt.Errorf("CRD source %q: want an http(s) URL or an oci:// Helm chart reference", ref)
	}
	if err != nil {
		if cached, cerr := CachedCRDs(c, ref); cerr == nil {
			return cached, fmt.Errorf("CRD source %s: %w (the cached copy of %s is used)", ref, err, cached.Fetched.Format(time.RFC3339))
		}
		return nil, fmt.Errorf("CRD source %s: %w", ref, err)
	}
	d, p, err := c.PutBlob(yml)
	if err != nil {
		return nil, fmt.Errorf("CRD source %s: caching: %w", ref, err)
	}
	now := time.Now().UTC()
	idx := readCRDIndex(c)
	idx[ref] = crdSourceEntry{Digest: d, Source: src, Size: int64(len(yml)), Fetched: now}
	if b, err := json.Marshal(idx); err == nil {
		_ = packages.WriteAtomic(crdIndexPath(c), b)
	}
	return &CRDSource{Ref: ref, Digest: src, YAML: yml, Fetched: now, Path: p}, nil
}

func fetchURL(ctx context.Context, c *packages.Client, u string) ([]byte, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := c.HTTPClient().Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", errors.New(resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxCRDSource+1))
	if err != nil {
		return nil, "", err
	}
	if len(b) > maxCRDSource {
		return nil, "", fmt.Errorf("larger than %d bytes; refused", maxCRDSource)
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/html" || looksLikeHTML(b) {
		return nil, "", errors.New("an HTML page, not YAML (a web page's URL rather than the raw file's?)")
	}
	if !bytes.Contains(b, []byte("CustomResourceDefinition")) {
		return nil, "", errors.New("holds no CustomResourceDefinition")
	}
	return b, digest.FromBytes(b).String(), nil
}

// fetchChartCRDs pulls a Helm chart's content layer and reads its CRDs.
func fetchChartCRDs(ctx context.Context, c *packages.Client, ref string) ([]byte, string, error) {
	repo, tag, ok := strings.Cut(ref, ":")
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		repo, tag, ok = ref[:i], ref[i+1:], true
	}
	if !ok || tag == "" {
		return nil, "", errors.New("name the chart's version (oci://host/repo/chart:version)")
	}
	data, dgst, err := c.FetchLayer(ctx, repo, tag, HelmChartLayer, "chart", maxCRDSource)
	if errors.Is(err, packages.ErrNoLayer) {
		return nil, "", fmt.Errorf("%s is not a Helm chart (no %s layer)", ref, HelmChartLayer)
	}
	if err != nil {
		return nil, "", err
	}
	yml, err := ChartCRDs(data)
	if err != nil {
		return nil, "", err
	}
	return yml, dgst, nil
}

// ChartCRDs reads the CRDs of a Helm chart archive (.tgz): every YAML
// file of the chart's crds/ folder (Helm installs them as they are), and
// templates that hold a CustomResourceDefinition and no template action.
// Subcharts (charts/…) are not read.
func ChartCRDs(tgz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, fmt.Errorf("chart archive: %w", err)
	}
	tr := tar.NewReader(&capReader{r: zr, left: maxCRDSource})
	type file struct {
		name string
		data []byte
	}
	var files []file
	total := 0
	for entries := 0; ; entries++ {
		if entries > 10000 {
			return nil, errors.New("chart archive: more than 10,000 entries")
		}
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, errTooBig) {
			return nil, fmt.Errorf("chart archive: more than %d MiB decompressed; refused", maxCRDSource>>20)
		}
		if err != nil {
			return nil, fmt.Errorf("chart archive: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := path.Clean(h.Name)
		parts := strings.Split(name, "/")
		if len(parts) < 3 || strings.HasPrefix(name, "/") || (parts[1] != "crds" && parts[1] != "templates") {
			continue
		}
		if ext := path.Ext(name); ext != ".yaml" && ext != ".yml" {
			continue
		}
		b, err := io.ReadAll(tr)
		if errors.Is(err, errTooBig) {
			return nil, fmt.Errorf("chart archive: more than %d MiB decompressed; refused", maxCRDSource>>20)
		}
		if err != nil {
			return nil, fmt.Errorf("chart archive: %w", err)
		}
		total += len(b)
		if total > maxCRDSource {
			return nil, fmt.Errorf("chart archive: more than %d bytes of YAML", maxCRDSource)
		}
		if !bytes.Contains(b, []byte("CustomResourceDefinition")) {
			continue
		}
		if parts[1] == "templates" && bytes.Contains(b, []byte("{{")) {
			continue // rendered by Helm: not a plain CRD
		}
		files = append(files, file{name, b})
	}
	if len(files) == 0 {
		return nil, errors.New("the chart has no CRDs (crds/ folder, or templates that are plain CRDs)")
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	var out bytes.Buffer
	for _, f := range files {
		if out.Len() > 0 {
			out.WriteString("\n---\n")
		}
		out.Write(bytes.TrimSuffix(f.data, []byte("\n")))
	}
	out.WriteString("\n")
	return out.Bytes(), nil
}

var errTooBig = errors.New("over the size cap")

// capReader reads at most left bytes; past them it fails with errTooBig
// (not io.EOF, which a tar reader would report as a truncated archive).
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errTooBig
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
