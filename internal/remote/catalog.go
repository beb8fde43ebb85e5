// This file serves kinds' schemas from schema catalogs (kubeconform location
// templates), cached with a refresh age.

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
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/packages"
)

// Schema catalogs: the convention of kubeconform's -schema-location and of
// the public CRD catalogs (datreeio/CRDs-catalog,
// CustomResourceDefinition/catalog): a location template such as
// https://host/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json
// names one JSON Schema per kind and version, converted from the kind's
// CRD. A Catalog expands the templates the user configured for a kind,
// fetches the first that answers, keeps it in a cache folder and serves
// it from there afterwards (offline). What it returns is a CRD document
// wrapping the JSON Schema, for the schema store.

// CatalogOptions configure a Catalog.
type CatalogOptions struct {
	// Locations are the templates, tried in order: http(s) URLs, file
	// URLs or plain paths (absolute; relative ones are taken as given).
	Locations []string
	// CacheDir holds fetched schemas; default DefaultCatalogCacheDir().
	CacheDir string
	// Refresh is how old a cached answer (a schema or "not there") may be
	// before Fetch asks again; zero means DefaultCatalogRefresh, negative
	// never. Cached serves any age.
	Refresh time.Duration
	// Timeouts bound the requests (Connect and Answer; Pull bounds one
	// kind's fetch over all locations).
	Timeouts packages.Timeouts
	// MaxSize caps one schema file (default 16 MiB).
	MaxSize int64
}

// DefaultCatalogRefresh is how long a fetched catalog answer is used
// before it is asked again.
const DefaultCatalogRefresh = 24 * time.Hour

// DefaultCatalogCacheDir is os.UserCacheDir()/crd-lsp/catalogs.
func DefaultCatalogCacheDir() (string, error) { return packages.UserCacheDir("catalogs") }

// Catalog serves kinds' schemas from schema catalogs.
type Catalog struct {
	opts   CatalogOptions
	tmpls  []*template.Template
	client *http.Client
}

// CatalogSchema is one kind's schema from a catalog.
type CatalogSchema struct {
	// URL is the expanded location it came from.
	URL string
	// Fetched is when it was read from URL.
	Fetched time.Time
	// CRD is a CustomResourceDefinition (YAML) serving the kind at its
	// version with the catalog's schema.
	CRD []byte
}

// NewCatalog checks the location templates.
func NewCatalog(opts CatalogOptions) (*Catalog, error) {
	if opts.CacheDir == "" {
		d, err := DefaultCatalogCacheDir()
		if err != nil {
			return nil, err
		}
		opts.CacheDir = d
	}
	if opts.Refresh == 0 {
		opts.Refresh = DefaultCatalogRefresh
	}
	if opts.MaxSize <= 0 {
		opts.MaxSize = 16 << 20
	}
	opts.Timeouts = opts.Timeouts.WithDefaults()
	c := &Catalog{opts: opts, client: &http.Client{Transport: packages.NewTransport(opts.Timeouts)}}
	for _, loc := range opts.Locations {
		t, err := template.New(loc).Option("missingkey=error").Parse(loc)
		if err != nil {
			return nil, fmt.Errorf("schema catalog %q: %w", loc, err)
		}
		c.tmpls = append(c.tmpls, t)
	}
	return c, nil
}

// Locations are the configured templates.
func (c *Catalog) Locations() []string { return c.opts.Locations }

// catalogVars are the template variables of kubeconform's schema
// locations.
type catalogVars struct {
	NormalizedKubernetesVersion string
	StrictSuffix                string
	ResourceKind                string
	ResourceAPIVersion          string
	Group                       string
	KindSuffix                  string
}

// Expand is each location template expanded for a kind at a version.
func (c *Catalog) Expand(group, version, kind string) ([]string, error) {
	kindSuffix := "-" + version
	if group != "" {
		kindSuffix = "-" + strings.Split(group, ".")[0] + "-" + version
	}
	vars := catalogVars{NormalizedKubernetesVersion: "master", StrictSuffix: "-strict", ResourceKind: strings.ToLower(kind), ResourceAPIVersion: version, Group: group, KindSuffix: kindSuffix}
	var out []string
	for _, t := range c.tmpls {
		var b strings.Builder
		if err := t.Execute(&b, vars); err != nil {
			return nil, fmt.Errorf("schema catalog %q: %w", t.Name(), err)
		}
		out = append(out, b.String())
	}
	return out, nil
}

// cacheEntry is what the cache keeps of one expanded location: the schema
// (or that there was none) and when it was fetched.
type cacheEntry struct {
	URL     string          `json:"url"`
	Fetched time.Time       `json:"fetched"`
	Missing bool            `json:"missing,omitempty"`
	Schema  json.RawMessage `json:"schema,omitempty"`
}

func (c *Catalog) entryPath(u string) string {
	sum := sha256.Sum256([]byte(u))
	return filepath.Join(c.opts.CacheDir, hex.EncodeToString(sum[:])+".json")
}

func (c *Catalog) readEntry(u string) (cacheEntry, bool) {
	var e cacheEntry
	b, err := os.ReadFile(c.entryPath(u))
	if err != nil || json.Unmarshal(b, &e) != nil || e.URL != u {
		return cacheEntry{}, false // absent or corrupt: asked again
	}
	return e, true
}

// isRemote reports whether a location is fetched over HTTP.
func isRemote(loc string) bool {
	return strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://")
}

// Cached is the kind's schema as the cache holds it (and file locations
// say), with no network; false when no location has it.
func (c *Catalog) Cached(group, version, kind string) (CatalogSchema, bool) {
	urls, err := c.Expand(group, version, kind)
	if err != nil {
		return CatalogSchema{}, false
	}
	for _, u := range urls {
		if !isRemote(u) {
			if s, ok, _ := c.readLocal(u, group, version, kind); ok {
				return s, true
			}
			continue
		}
		if e, ok := c.readEntry(u); ok && !e.Missing {
			if crd, err := catalogCRD(group, version, kind, u, e.Schema); err == nil {
				return CatalogSchema{URL: u, Fetched: e.Fetched, CRD: crd}, true
			}
		}
	}
	return CatalogSchema{}, false
}

// ErrNotInCatalog says that no location has a schema for the kind.
var ErrNotInCatalog = errors.New("no schema catalog has this kind")

// Fetch is the kind's schema from the first location that has it: from the
// cache while fresh, else fetched (and cached; a location that has no
// such file is remembered as such for the refresh period too). A location
// that cannot be reached serves its stale cached copy. Errors name the
// location and the reason; ErrNotInCatalog when every location answered
// that it has no such schema.
func (c *Catalog) Fetch(ctx context.Context, group, version, kind string) (CatalogSchema, error) {
	urls, err := c.Expand(group, version, kind)
	if err != nil {
		return CatalogSchema{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeouts.Pull)
	defer cancel()
	var errs []error
	for _, u := range urls {
		if !isRemote(u) {
			s, ok, err := c.readLocal(u, group, version, kind)
			if ok {
				return s, nil
			}
			if err != nil {
				errs = append(errs, err)
			}
			continue
		}
		e, cached := c.readEntry(u)
		if cached && (c.opts.Refresh < 0 || time.Since(e.Fetched) < c.opts.Refresh) {
			if e.Missing {
				continue
			}
			crd, err := catalogCRD(group, version, kind, u, e.Schema)
			if err == nil {
				return CatalogSchema{URL: u, Fetched: e.Fetched, CRD: crd}, nil
			}
		}
		body, found, err := c.get(ctx, u)
		if err != nil {
			if cached && !e.Missing {
				if crd, cerr := catalogCRD(group, version, kind, u, e.Schema); cerr == nil {
					return CatalogSchema{URL: u, Fetched: e.Fetched, CRD: crd}, nil // stale, kept
				}
			}
			errs = append(errs, err)
			continue
		}
		now := time.Now().UTC()
		if !found {
			c.writeEntry(cacheEntry{URL: u, Fetched: now, Missing: true})
			continue
		}
		crd, err := catalogCRD(group, version, kind, u, body)
		if err != nil {
			errs = append(errs, fmt.Errorf("schema catalog %s: %w", u, err))
			continue
		}
		c.writeEntry(cacheEntry{URL: u, Fetched: now, Schema: body})
		return CatalogSchema{URL: u, Fetched: now, CRD: crd}, nil
	}
	if len(errs) > 0 {
		return CatalogSchema{}, errors.Join(errs...)
	}
	return CatalogSchema{}, ErrNotInCatalog
}

func (c *Catalog) writeEntry(e cacheEntry) {
	b, err := json.Marshal(e)
	if err == nil {
		_ = packages.WriteAtomic(c.entryPath(e.URL), b) // a cache that cannot be written only costs a refetch
	}
}

// get fetches u: found false for 404/410 (the catalog has no such file).
func (c *Catalog) get(ctx context.Context, u string) ([]byte, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, fmt.Errorf("schema catalog %s: %w", u, err)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, false, fmt.Errorf("schema catalog %s: %w", u, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return nil, false, nil
	case resp.StatusCode != http.StatusOK:
		return nil, false, fmt.Errorf("schema catalog %s: %s", u, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxSize+1))
	if err != nil {
		return nil, false, fmt.Errorf("schema catalog %s: %w", u, err)
	}
	if int64(len(b)) > c.opts.MaxSize {
		return nil, false, fmt.Errorf("schema catalog %s: larger than %d bytes", u, c.opts.MaxSize)
	}
	return b, true, nil
}

// readLocal reads a file location (file:// URL or path): ok false with no
// error when the file does not exist.
func (c *Catalog) readLocal(loc, group, version, kind string) (CatalogSchema, bool, error) {
	p := document.FilePath(loc)
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return CatalogSchema{}, false, nil
	}
	if err != nil {
		return CatalogSchema{}, false, fmt.Errorf("schema catalog %s: %w", loc, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return CatalogSchema{}, false, fmt.Errorf("schema catalog %s: not a regular file", loc)
	}
	b, err := io.ReadAll(io.LimitReader(f, c.opts.MaxSize+1))
	if err != nil {
		return CatalogSchema{}, false, fmt.Errorf("schema catalog %s: %w", loc, err)
	}
	if int64(len(b)) > c.opts.MaxSize {
		return CatalogSchema{}, false, fmt.Errorf("schema catalog %s: larger than %d bytes", loc, c.opts.MaxSize)
	}
	crd, err := catalogCRD(group, version, kind, loc, b)
	if err != nil {
		return CatalogSchema{}, false, fmt.Errorf("schema catalog %s: %w", loc, err)
	}
	return CatalogSchema{URL: loc, Fetched: st.ModTime(), CRD: crd}, true, nil
}

// CatalogAnnotation marks a CRD made from a catalog's JSON Schema; its
// value is the location the schema came from.
const CatalogAnnotation = "crd-lsp.io/schema-catalog"

// catalogCRD wraps a catalog's JSON Schema into a CRD serving exactly the
// kind at the version: JSON Schema keywords the CRD schema dialect lacks
// are dropped, type lists become nullable types, and additionalProperties
// false (what openapi2jsonschema adds for strictness) is left to the
// validator's unknown-field check, which reports the same fields.
func catalogCRD(group, version, kind, from string, schemaJSON []byte) ([]byte, error) {
	var schema map[string]any
	if looksLikeHTML(schemaJSON) {
		return nil, errors.New("an HTML page, not a JSON Schema (a web page's URL rather than the raw file's?)")
	}
	if err := json.Unmarshal(schemaJSON, &schema); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %w", err)
	}
	root := sanitizeSchema(schema)
	root["type"] = "object"
	if props, ok := root["properties"].(map[string]any); ok {
		props["metadata"] = map[string]any{"type": "object"}
	}
	plural := strings.ToLower(kind) + "s"
	name := plural
	if group != "" {
		name += "." + group
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": name, "annotations": map[string]any{CatalogAnnotation: from}},
		"spec": map[string]any{
			"group": group,
			"names": map[string]any{"kind": kind, "listKind": kind + "List", "plural": plural, "singular": strings.ToLower(kind)},
			// A catalog does not say the scope: Namespaced asks nothing
			// of an object's metadata that Cluster would not.
			"scope": "Namespaced",
			"versions": []any{map[string]any{
				"name": version, "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": root},
			}},
		},
	}
	return yaml.Marshal(crd)
}

// schemaKeys are the keywords a CRD's openAPIV3Schema accepts (besides
// x-kubernetes-* extensions).
var schemaKeys = map[string]bool{
	"description": true, "type": true, "format": true, "title": true, "default": true,
	"maximum": true, "exclusiveMaximum": true, "minimum": true, "exclusiveMinimum": true,
	"maxLength": true, "minLength": true, "pattern": true, "maxItems": true, "minItems": true,
	"uniqueItems": true, "multipleOf": true, "enum": true, "maxProperties": true, "minProperties": true,
	"required": true, "items": true, "allOf": true, "oneOf": true, "anyOf": true, "not": true,
	"properties": true, "additionalProperties": true, "nullable": true, "example": true,
}

func sanitizeSchema(s map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		if schemaKeys[k] || strings.HasPrefix(k, "x-kubernetes-") {
			out[k] = v
		}
	}
	if ts, ok := out["type"].([]any); ok {
		var types []string
		for _, t := range ts {
			if t == "null" {
				out["nullable"] = true
			} else if str, ok := t.(string); ok {
				types = append(types, str)
			}
		}
		sort.Strings(types)
		delete(out, "type")
		switch {
		case len(types) == 1:
			out["type"] = types[0]
		case len(types) == 2 && types[0] == "integer" && types[1] == "string":
			out["x-kubernetes-int-or-string"] = true
		case len(types) > 1:
			out["x-kubernetes-preserve-unknown-fields"] = true
		}
	}
	if _, ref := s["$ref"]; ref && out["type"] == nil && out["x-kubernetes-preserve-unknown-fields"] == nil && out["x-kubernetes-int-or-string"] == nil {
		// A reference a CRD schema cannot hold (catalogs inline theirs;
		// a hand-written schema may point anywhere, itself included):
		// anything is accepted there, never a reading the schema does
		// not say.
		out["x-kubernetes-preserve-unknown-fields"] = true
	}
	if props, ok := out["properties"].(map[string]any); ok {
		np := make(map[string]any, len(props))
		for k, v := range props {
			if m, ok := v.(map[string]any); ok {
				np[k] = sanitizeSchema(m)
			}
		}
		out["properties"] = np
	}
	switch ap := out["additionalProperties"].(type) {
	case bool:
		delete(out, "additionalProperties")
		if ap && out["properties"] == nil && out["x-kubernetes-preserve-unknown-fields"] == nil {
			out["x-kubernetes-preserve-unknown-fields"] = true
		}
	case map[string]any:
		if out["properties"] != nil {
			delete(out, "additionalProperties")
		} else {
			out["additionalProperties"] = sanitizeSchema(ap)
		}
	}
	if it, ok := out["items"].(map[string]any); ok {
		out["items"] = sanitizeSchema(it)
	} else if _, isList := out["items"].([]any); isList {
		delete(out, "items") // tuple items: no CRD equivalent
		out["x-kubernetes-preserve-unknown-fields"] = true
	}
	intOrString := out["x-kubernetes-int-or-string"] == true
	for _, k := range []string{"allOf", "oneOf", "anyOf"} {
		if list, ok := out[k].([]any); ok {
			nl := make([]any, 0, len(list))
			for _, v := range list {
				if m, ok := v.(map[string]any); ok {
					nl = append(nl, junctor(sanitizeSchema(m), intOrString))
				}
			}
			out[k] = nl
		}
	}
	if n, ok := out["not"].(map[string]any); ok {
		out["not"] = junctor(sanitizeSchema(n), false)
	}
	return out
}

// junctor drops from a branch of anyOf, oneOf, allOf or not what a
// structural schema allows only outside them (types, descriptions,
// defaults, nullability, extensions): a catalog schema keeps the value
// checks of its branches, never a stricter reading. The int-or-string
// pattern (anyOf integer, string) keeps its types.
func junctor(s map[string]any, intOrString bool) map[string]any {
	for _, k := range []string{"description", "default", "nullable", "additionalProperties", "title"} {
		delete(s, k)
	}
	if !intOrString {
		delete(s, "type")
	}
	for k := range s {
		if strings.HasPrefix(k, "x-kubernetes-") {
			delete(s, k)
		}
	}
	for _, k := range []string{"properties"} {
		if props, ok := s[k].(map[string]any); ok {
			for n, v := range props {
				if m, ok := v.(map[string]any); ok {
					props[n] = junctor(m, false)
				}
			}
		}
	}
	if it, ok := s["items"].(map[string]any); ok {
		s["items"] = junctor(it, false)
	}
	return s
}

// IsCatalogCRD reports whether a CRD document's text was made by a
// Catalog (it carries CatalogAnnotation).
func IsCatalogCRD(crd []byte) bool { return bytes.Contains(crd, []byte(CatalogAnnotation)) }

// looksLikeHTML reports whether a body meant to be YAML or JSON is an
// HTML page (what a repository's web view of a file serves).
func looksLikeHTML(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n\ufeff")
	if len(b) > 512 {
		b = b[:512]
	}
	l := bytes.ToLower(b)
	return bytes.HasPrefix(l, []byte("<!doctype html")) || bytes.HasPrefix(l, []byte("<html")) || bytes.HasPrefix(l, []byte("<head")) || bytes.HasPrefix(l, []byte("<!--"))
}
