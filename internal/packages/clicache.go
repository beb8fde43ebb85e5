// This file reads the Crossplane CLI's package cache (read-only, crossplane-
// runtime's naming).

package packages

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The Crossplane CLI's package cache (crossplane/cli: --cache-dir or
// CROSSPLANE_XPKG_CACHE, default os.UserCacheDir()/crossplane/xpkg) keeps
// each package.yaml it pulled as a gzip file named by crossplane-runtime's
// FriendlyID of the package source and the digest its tag resolved to
// (pkg/xpkg: FsPackageCache, CachedClient.Get). crd-lsp reads it, never
// writes it: a package the CLI already pulled is not pulled again (its
// tag is still resolved against the registry, unless pinned by digest).

// CLICacheEnv names the Crossplane CLI's cache folder.
const CLICacheEnv = "CROSSPLANE_XPKG_CACHE"

// DefaultCLICacheDir is the Crossplane CLI's package cache folder:
// $CROSSPLANE_XPKG_CACHE, else os.UserCacheDir()/crossplane/xpkg ("" when
// neither can be told).
func DefaultCLICacheDir() string {
	if d := os.Getenv(CLICacheEnv); d != "" {
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "crossplane", "xpkg")
}

// cliCacheName is crossplane-runtime's FriendlyID(source, digest) with the
// cache's ".gz" extension: a DNS label of the source's first 50 bytes and
// the digest's first 12 ("sha256:" and 5 hex digits).
func cliCacheName(source, dgst string) string {
	return dnsLabel(trunc(source, 50)+"-"+trunc(dgst, 12)) + ".gz"
}

// dnsLabel is crossplane-runtime's ToDNSLabel: lowercase letters and
// digits kept, '.', '/', ':' and '-' turned into '-' (not first or last),
// at most 63 bytes read, '-' trimmed.
func dnsLabel(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') {
			b.WriteByte(c)
		}
		if (c == '.' || c == '/' || c == ':' || c == '-') && i != 0 && i != 62 && i != len(s)-1 {
			b.WriteByte('-')
		}
		if i == 62 {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// fromCLICache reads the package.yaml the Crossplane CLI cached for the
// package source at the digest its reference resolved to.
func (c *Client) fromCLICache(source, dgst string) ([]byte, error) {
	if c.cliCache == "" {
		return nil, errors.New("no Crossplane CLI cache")
	}
	f, err := os.Open(filepath.Join(c.cliCache, cliCacheName(source, dgst)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(zr, c.limits.MaxPackageSize+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > c.limits.MaxPackageSize {
		return nil, fmt.Errorf("package.yaml over %d bytes", c.limits.MaxPackageSize)
	}
	return b, nil
}
