// This file pulls one chosen version of a package, from the cache or its
// registry, and parses it once per blob.

package packages

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// pull fetches ref:version (tag or digest), reusing the cached
// package.yaml when the manifest digest is known.
func (r *solver) pull(ctx context.Context, ref, version string) (*Package, error) {
	key := ref + "@" + version
	r.mu.Lock()
	p, ok := r.pulled[key]
	r.mu.Unlock()
	if ok {
		return p.pkg, p.err
	}
	pkg, err := r.doPull(ctx, ref, version)
	r.mu.Lock()
	r.pulled[key] = pullResult{pkg, err}
	r.mu.Unlock()
	return pkg, err
}

func (r *solver) doPull(ctx context.Context, ref, version string) (*Package, error) {
	c := r.c
	name := ref + refSep(version) + version
	// A digest pin already in the cache needs no network at all.
	if strings.HasPrefix(version, "sha256:") {
		if pkg, err := c.loadCached(r.ix, ref, version, version); err == nil {
			r.progress("Using cached " + name)
			return pkg, nil
		}
		if pkg, ok := c.adoptCLICached(ref, version, version); ok {
			r.progress("Using the Crossplane CLI's cached " + name)
			return pkg, nil
		}
	}
	repo, err := c.repository(ref)
	if err != nil {
		return nil, err
	}
	desc, err := repo.Resolve(ctx, version)
	if err != nil {
		return nil, classify(causeOf(ctx, err), name, registryOf(ref), "resolving")
	}
	if pkg, err := c.loadCached(r.ix, ref, version, desc.Digest.String()); err == nil {
		r.progress("Up to date " + name)
		return pkg, nil
	} else if errors.Is(err, errCorrupt) {
		c.logf("package cache: %s: %v; fetching it again", name, err)
	}
	if pkg, ok := c.adoptCLICached(ref, version, desc.Digest.String()); ok {
		r.progress("Using the Crossplane CLI's cached " + name)
		return pkg, nil
	}
	r.progress("Pulling " + name)
	c.logf("pulling %s", name)
	top, m, err := c.fetchManifest(ctx, repo, ref, version, desc.Digest.String())
	if err != nil {
		return nil, err
	}
	data, layer, err := c.fetchBase(ctx, repo, ref, version, m)
	if err != nil {
		return nil, err
	}
	pkg, err := c.keep(ref, version, top.String(), layer.String(), data)
	if err != nil {
		return nil, err
	}
	return pkg.at(version, top.String(), false), nil
}

// keep parses a package.yaml and records it in the cache under its
// manifest digest (layer: the layer's digest, when known).
func (c *Client) keep(ref, version, manifest, layer string, data []byte) (*Package, error) {
	pkg, err := c.parse(ref, version, manifest, data)
	if err != nil {
		return nil, invalid(ref, version, err)
	}
	blob, err := c.cache.putBlob(data)
	if err == nil {
		err = c.cache.update(func(ix *index) {
			ix.Manifests[manifest] = manifestEntry{Layer: layer, Package: blob, Size: int64(len(data))}
		})
	}
	if err != nil {
		c.logf("package cache: %v", err)
	}
	p, _ := c.cache.blobPath(blob)
	pkg.File = p
	c.remember(blob, pkg)
	return pkg, nil
}

// adoptCLICached takes the package the Crossplane CLI cached for ref at
// the manifest digest into crd-lsp's cache (clicache.go).
func (c *Client) adoptCLICached(ref, version, manifest string) (*Package, bool) {
	data, err := c.fromCLICache(ref, manifest)
	if err != nil {
		return nil, false
	}
	pkg, err := c.keep(ref, version, manifest, "", data)
	if err != nil {
		c.logf("Crossplane CLI cache: %s: %v; pulling it", ref, err)
		return nil, false
	}
	return pkg.at(version, manifest, true), true
}

// loadCached returns the cached package for a manifest digest.
func (c *Client) loadCached(ix *index, ref, version, manifest string) (*Package, error) {
	me, ok := ix.Manifests[manifest]
	if !ok {
		// Another process may have added it since the index was read.
		if fresh, err := c.cache.readIndex(); err == nil {
			me, ok = fresh.Manifests[manifest]
		}
		if !ok {
			return nil, fmt.Errorf("manifest %s not cached", manifest)
		}
	}
	c.mu.Lock()
	p := c.mem[me.Package]
	c.mu.Unlock()
	if p == nil || p.Ref != ref {
		data, err := c.cache.getBlob(me.Package, me.Size)
		if err != nil {
			return nil, err
		}
		if p, err = c.parse(ref, version, manifest, data); err != nil {
			return nil, err
		}
		p.File, _ = c.cache.blobPath(me.Package)
		c.remember(me.Package, p)
	}
	return p.at(version, manifest, true), nil
}

// remember keeps a parsed package in memory, forgetting the oldest ones
// beyond Options.MemoryBudget.
func (c *Client) remember(blob string, p *Package) {
	c.mu.Lock()
	defer c.mu.Unlock()
	size := int64(len(p.YAML))
	if _, ok := c.mem[blob]; ok {
		c.mem[blob] = p // the same content under another repository
		return
	}
	if size > c.opts.MemoryBudget {
		return
	}
	for len(c.memOrder) > 0 && c.memBytes+size > c.opts.MemoryBudget {
		old := c.memOrder[0]
		c.memOrder = c.memOrder[1:]
		c.memBytes -= int64(len(c.mem[old].YAML))
		delete(c.mem, old)
	}
	c.mem[blob] = p
	c.memOrder = append(c.memOrder, blob)
	c.memBytes += size
}

func (c *Client) parse(ref, version, manifest string, data []byte) (*Package, error) {
	meta, kind, objs, err := split(data, c.limits)
	if err != nil {
		return nil, err
	}
	return &Package{Ref: ref, Version: version, Digest: manifest, Kind: kind, Path: "xpkg://" + ref + "/package.yaml", YAML: data, Meta: meta, Objects: objs}, nil
}

// at returns a copy for one result.
func (p *Package) at(version, manifest string, fromCache bool) *Package {
	q := *p
	q.Version, q.Digest, q.FromCache = version, manifest, fromCache
	return &q
}
