package packages

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// Options configure a Client. The zero value works.
type Options struct {
	// CacheDir holds the package cache; default DefaultCacheDir().
	CacheDir string
	// DefaultRegistry qualifies package names without a registry host;
	// default DefaultRegistry (xpkg.crossplane.io).
	DefaultRegistry string
	// Insecure lists registries ("127.0.0.1:5000") spoken to over plain
	// HTTP; every other registry is HTTPS.
	Insecure []string
	// DockerConfig is the Docker config.json with credentials (and
	// credential helpers); default $DOCKER_CONFIG/config.json, else
	// ~/.docker/config.json.
	DockerConfig string
	// Limits bound what a layer may make us read (zero: defaults).
	Limits Limits
	// Timeouts bound how long a registry can keep a pull waiting (zero:
	// defaults).
	Timeouts Timeouts
	// Concurrency is how many packages are pulled at once (default 4).
	Concurrency int
	// MemoryBudget bounds the bytes of parsed package.yaml the Client
	// keeps in memory between calls (default 512 MiB); beyond it, packages
	// are read again from the cache when asked for.
	MemoryBudget int64
	// Progress, if set, is called (from one goroutine at a time) as
	// packages are resolved and pulled.
	Progress func(Progress)
	// Logf, if set, receives debug logs. Secrets are never logged.
	Logf func(format string, args ...any)
	// CLICacheDir is the Crossplane CLI's package cache, read (never
	// written) before pulling: "" is DefaultCLICacheDir(), "-" none
	// (clicache.go).
	CLICacheDir string
}

// Progress reports how far Resolve is.
type Progress struct {
	Done, Total int
	Message     string
}

// Package is a pulled package: its package.yaml split into documents.
type Package struct {
	Ref     string // repository, fully qualified, no tag
	Version string // the tag, or the digest for digest pins
	Digest  string // manifest (or image index) digest
	Kind    string // Configuration, Provider or Function (from its metadata)
	// Path is a stable pseudo path for the package's definitions
	// ("xpkg://<Ref>/package.yaml"), the same for every version.
	Path string
	// File is the cached package.yaml on disk (read-only).
	File string
	// FromCache is true when no layer was downloaded for this result.
	FromCache bool
	// YAML is the whole package.yaml; Meta and each Object's YAML are
	// sub-slices of it.
	YAML    []byte
	Meta    []byte
	Objects []Object
}

// Count returns how many objects of a kind the package ships.
func (p *Package) Count(kind string) int {
	n := 0
	for _, o := range p.Objects {
		if o.Kind == kind {
			n++
		}
	}
	return n
}

// Result is the outcome for one dependency.
type Result struct {
	Dep Dependency
	// Package is nil when the dependency could not be resolved; it is set
	// together with a warning Err when it was served from the cache.
	Package *Package
	// Err is nil, or an *Error (see Kind and IsWarning).
	Err error
	// Root is the index, in the slice given to Cached or Resolve, of the
	// dependency this result descends from (itself for direct ones).
	Root int
	// Via lists the Configurations ("ref:version") between the root
	// dependency and this one; empty for direct dependencies.
	Via []string
}

// Client resolves and pulls packages. It is safe for concurrent use.
type Client struct {
	opts     Options
	limits   Limits
	timeouts Timeouts
	defReg   string
	insecure map[string]bool
	http     *auth.Client
	cache    *cache
	cliCache string // the Crossplane CLI's package cache ("" none)

	mu       sync.Mutex
	mem      map[string]*Package // parsed packages by package.yaml digest
	memOrder []string            // mem's keys, oldest first
	memBytes int64               // package.yaml bytes in mem
}

// New makes a Client. It touches the disk (the cache folder) but not the
// network.
func New(opts Options) (*Client, error) {
	c := &Client{opts: opts, limits: opts.Limits.withDefaults(), timeouts: opts.Timeouts.withDefaults(), defReg: opts.DefaultRegistry, insecure: map[string]bool{}, mem: map[string]*Package{}}
	if c.defReg == "" {
		c.defReg = DefaultRegistry
	}
	c.defReg = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(c.defReg, "https://"), "http://"), "/")
	for _, h := range opts.Insecure {
		c.insecure[strings.TrimSuffix(strings.TrimPrefix(h, "http://"), "/")] = true
	}
	switch c.cliCache = opts.CLICacheDir; c.cliCache {
	case "":
		c.cliCache = DefaultCLICacheDir()
	case "-":
		c.cliCache = ""
	}
	if c.opts.Concurrency <= 0 {
		c.opts.Concurrency = 4
	}
	if c.opts.MemoryBudget <= 0 {
		c.opts.MemoryBudget = 512 << 20
	}
	dir := opts.CacheDir
	if dir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return nil, fmt.Errorf("package cache: %w (set a cache folder)", err)
		}
		dir = d
	}
	var err error
	if c.cache, err = openCache(dir); err != nil {
		return nil, err
	}

	var store credentials.Store
	if opts.DockerConfig != "" {
		store, err = credentials.NewStore(opts.DockerConfig, credentials.StoreOptions{})
	} else {
		store, err = credentials.NewStoreFromDocker(credentials.StoreOptions{})
	}
	if err != nil {
		c.logf("docker config unusable, pulling anonymously: %v", err)
		store = credentials.NewMemoryStore()
	}
	c.http = &auth.Client{
		Client:     &http.Client{Transport: newTransport(c.timeouts, c.limits.MaxTags)},
		Credential: credentials.Credential(store),
		Cache:      auth.NewCache(),
	}
	c.http.SetUserAgent("crd-lsp")
	return c, nil
}

// CacheDir is the folder of the cache.
func (c *Client) CacheDir() string { return c.cache.dir }

func (c *Client) logf(format string, args ...any) {
	if c.opts.Logf != nil {
		c.opts.Logf(format, args...)
	}
}

func (c *Client) ref(d Dependency) string {
	if d.Name != "" {
		return Qualify(d.Name, c.defReg)
	}
	return d.Package
}

// Cached returns what the cache already knows for deps (and, transitively,
// for the dependencies of cached Configurations) without any network
// access. A dependency not in the cache gets a KindNotCached error. The
// first len(deps) results are deps' own, in order.
func (c *Client) Cached(deps []Dependency) []Result {
	return c.resolve(context.Background(), deps, false)
}

// Resolve resolves deps against their registries, following
// Configurations' dependencies, pulls what is not cached, and updates the
// cache. A dependency whose registry is unreachable falls back to the
// cache, with a warning Err. The first len(deps) results are deps' own, in
// order.
func (c *Client) Resolve(ctx context.Context, deps []Dependency) []Result {
	return c.resolve(ctx, deps, true)
}
