// This file talks to OCI registries with oras-go: tags, manifests, the
// platform, verified small blobs.

package packages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"
)

// AnnotationKey marks the xpkg base layer (value "base") on a layer
// descriptor, or in the image config as the label
// "io.crossplane.xpkg:<layer digest>".
const AnnotationKey = "io.crossplane.xpkg"

const (
	mediaTypeDockerManifest     = "application/vnd.docker.distribution.manifest.v2+json"
	mediaTypeDockerManifestList = "application/vnd.docker.distribution.manifest.list.v2+json"
	maxManifestSize             = 4 << 20
)

// repository opens pkg (fully qualified, no tag) on its registry.
func (c *Client) repository(pkg string) (*remote.Repository, error) {
	r, err := remote.NewRepository(pkg)
	if err != nil {
		return nil, &Error{Kind: KindInvalid, Package: pkg, Msg: "invalid package name " + pkg, Err: err}
	}
	r.Client = c.http
	r.PlainHTTP = c.insecure[r.Reference.Registry]
	// The transport caps tag list pages by MaxTags; oras' own cap on
	// metadata must not cut them first. Manifests are capped by
	// readVerified.
	r.MaxMetadataBytes = max(maxManifestSize, maxTagBytes(c.limits.MaxTags)+1)
	r.TagListMaxPages = maxTagPages
	return r, nil
}

// maxTagPages bounds the pages of a tag list (a registry could link to a
// next, empty page forever).
const maxTagPages = 1000

func registryOf(pkg string) string {
	h, _, _ := strings.Cut(pkg, "/")
	return h
}

// listTags lists every tag of pkg, at most Limits.MaxTags of them.
func (c *Client) listTags(ctx context.Context, pkg string) ([]string, error) {
	r, err := c.repository(pkg)
	if err != nil {
		return nil, err
	}
	var tags []string
	err = r.Tags(ctx, "", func(t []string) error {
		if len(tags)+len(t) > c.limits.MaxTags {
			return &tagLimitError{max: c.limits.MaxTags}
		}
		tags = append(tags, t...)
		return nil
	})
	if err != nil {
		return nil, classify(causeOf(ctx, err), pkg, registryOf(pkg), "listing tags of")
	}
	return tags, nil
}

// fetchManifest fetches the manifest dgst that version (a tag or digest)
// of pkg resolved to, and the image manifest to read, choosing
// linux/amd64 (or the only image) in an image index.
func (c *Client) fetchManifest(ctx context.Context, r *remote.Repository, pkg, version, dgst string) (digest.Digest, *ocispec.Manifest, error) {
	top, _, m, err := c.fetchImageManifest(ctx, r, pkg, version, dgst, pickPlatform)
	return top, m, err
}

// fetchImageManifest is fetchManifest with the image of an index chosen
// by pick; it also returns the digest of the image manifest read (top's
// own when top is not an index).
func (c *Client) fetchImageManifest(ctx context.Context, r *remote.Repository, pkg, version, dgst string, pick func([]ocispec.Descriptor) (ocispec.Descriptor, error)) (digest.Digest, digest.Digest, *ocispec.Manifest, error) {
	reg := registryOf(pkg)
	name := pkg + refSep(version) + version
	desc, rc, err := r.Manifests().FetchReference(ctx, dgst)
	if err != nil {
		return "", "", nil, classify(causeOf(ctx, err), name, reg, "fetching")
	}
	b, err := readVerified(rc, desc)
	if err != nil {
		return "", "", nil, c.blobError(ctx, err, pkg, version, "manifest "+desc.Digest.String())
	}
	if want, perr := digest.Parse(dgst); perr == nil && want != desc.Digest {
		return "", "", nil, invalid(pkg, version, fmt.Errorf("registry returned manifest %s for %s", desc.Digest, want))
	}
	top := desc.Digest
	for depth := 0; ; depth++ {
		var probe struct {
			MediaType string            `json:"mediaType"`
			Manifests []json.RawMessage `json:"manifests"`
		}
		if err := json.Unmarshal(b, &probe); err != nil {
			return "", "", nil, invalid(pkg, version, fmt.Errorf("manifest is not JSON: %w", err))
		}
		mt := desc.MediaType
		if mt == "" || (mt != ocispec.MediaTypeImageIndex && mt != mediaTypeDockerManifestList && mt != ocispec.MediaTypeImageManifest && mt != mediaTypeDockerManifest) {
			mt = probe.MediaType
		}
		isIndex := mt == ocispec.MediaTypeImageIndex || mt == mediaTypeDockerManifestList || (mt == "" && probe.Manifests != nil)
		if !isIndex {
			var m ocispec.Manifest
			if err := json.Unmarshal(b, &m); err != nil {
				return "", "", nil, invalid(pkg, version, fmt.Errorf("bad image manifest: %w", err))
			}
			return top, desc.Digest, &m, nil
		}
		if depth > 0 {
			return "", "", nil, invalid(pkg, version, fmt.Errorf("nested image index"))
		}
		var idx ocispec.Index
		if err := json.Unmarshal(b, &idx); err != nil {
			return "", "", nil, invalid(pkg, version, fmt.Errorf("bad image index: %w", err))
		}
		chosen, err := pick(idx.Manifests)
		if err != nil {
			return "", "", nil, invalid(pkg, version, err)
		}
		desc = chosen
		rc, err := r.Manifests().Fetch(ctx, chosen)
		if err != nil {
			return "", "", nil, c.fetchError(ctx, err, pkg, version, "manifest "+chosen.Digest.String(), "its image index")
		}
		if b, err = readVerified(rc, chosen); err != nil {
			return "", "", nil, c.blobError(ctx, err, pkg, version, "manifest "+chosen.Digest.String())
		}
	}
}

// fetchError explains a failed fetch of a blob or manifest that what
// names (the manifest or image index): missing from the registry, or the
// registry's failure.
func (c *Client) fetchError(ctx context.Context, err error, pkg, version, blob, namedBy string) *Error {
	name := pkg + refSep(version) + version
	reg := registryOf(pkg)
	e := classify(causeOf(ctx, err), name, reg, "fetching "+blob+" of")
	switch e.Kind {
	case KindNotFound:
		return &Error{Kind: KindInvalid, Package: pkg, Registry: reg,
			Msg: blob + " of " + name + " is missing from registry " + reg + " (" + namedBy + " names it)"}
	case KindInvalid:
		// oras checks Content-Length and Docker-Content-Digest against
		// the descriptor before any byte is read.
		e.Msg = "registry " + reg + " serves " + blob + " of " + name + " with another size or digest than " + namedBy + " gives"
		e.Err = nil
	}
	return e
}

// blobError explains a failed read of a small blob (manifest, config):
// the transfer failed, or the content is wrong.
func (c *Client) blobError(ctx context.Context, err error, pkg, version, blob string) *Error {
	var te *transferError
	if errors.As(err, &te) {
		name := pkg + refSep(version) + version
		return transferFailure(causeOf(ctx, te.err), name, registryOf(pkg), blob, te.n, te.size)
	}
	return invalid(pkg, version, err)
}

// pickPlatform chooses linux/amd64, else the only image manifest.
func pickPlatform(ms []ocispec.Descriptor) (ocispec.Descriptor, error) {
	var images []ocispec.Descriptor
	for _, m := range ms {
		if p := m.Platform; p != nil && p.OS == "linux" && p.Architecture == "amd64" {
			return m, nil
		}
		// Skip attestation manifests (platform unknown/unknown).
		if p := m.Platform; p != nil && p.OS == "unknown" {
			continue
		}
		images = append(images, m)
	}
	switch len(images) {
	case 1:
		return images[0], nil
	case 0:
		return ocispec.Descriptor{}, fmt.Errorf("image index lists no image")
	}
	return ocispec.Descriptor{}, fmt.Errorf("image index has %d images and none for linux/amd64", len(images))
}

func refSep(ref string) string {
	if strings.Contains(ref, ":") {
		return "@"
	}
	return ":"
}

// transferError: reading a body failed after n of size bytes.
type transferError struct {
	err     error
	n, size int64
}

func (e *transferError) Error() string { return e.err.Error() }
func (e *transferError) Unwrap() error { return e.err }

// readVerified reads a small blob (manifest, config), checking size and
// digest against its descriptor. A failed read is a *transferError.
func readVerified(rc io.ReadCloser, d ocispec.Descriptor) ([]byte, error) {
	defer rc.Close()
	if d.Size > maxManifestSize {
		return nil, fmt.Errorf("%s is %d bytes, more than %d", d.Digest, d.Size, maxManifestSize)
	}
	b, err := io.ReadAll(io.LimitReader(rc, maxManifestSize+1))
	if err != nil {
		return nil, &transferError{err: err, n: int64(len(b)), size: d.Size}
	}
	if d.Size >= 0 && int64(len(b)) != d.Size {
		return nil, fmt.Errorf("%s: got %d bytes, want %d", d.Digest, len(b), d.Size)
	}
	if err := d.Digest.Validate(); err != nil {
		return nil, err
	}
	if got := d.Digest.Algorithm().FromBytes(b); got != d.Digest {
		return nil, fmt.Errorf("digest mismatch: content is %s, want %s", got, d.Digest)
	}
	return b, nil
}

func invalid(pkg, ref string, err error) *Error {
	return &Error{Kind: KindInvalid, Package: pkg, Registry: registryOf(pkg), Msg: "invalid package " + pkg + refSep(ref) + ref, Err: err}
}

// fetchBase finds the xpkg base layer and reads package.yaml from it:
// the layer annotated io.crossplane.xpkg: base, else the one the config
// label io.crossplane.xpkg:<digest> = base names, else the last layer
// that has a package.yaml.
func (c *Client) fetchBase(ctx context.Context, r *remote.Repository, pkg, ref string, m *ocispec.Manifest) ([]byte, digest.Digest, error) {
	var base *ocispec.Descriptor
	for i := range m.Layers {
		if m.Layers[i].Annotations[AnnotationKey] == "base" {
			base = &m.Layers[i]
			break
		}
	}
	if base == nil && m.Config.Size > 0 {
		rc, err := r.Blobs().Fetch(ctx, m.Config)
		if err != nil {
			return nil, "", c.fetchError(ctx, err, pkg, ref, "image config "+m.Config.Digest.String(), "the manifest")
		}
		b, err := readVerified(rc, m.Config)
		if err != nil {
			var te *transferError
			if errors.As(err, &te) {
				return nil, "", c.blobError(ctx, err, pkg, ref, "image config "+m.Config.Digest.String())
			}
			return nil, "", invalid(pkg, ref, fmt.Errorf("image config: %w", err))
		}
		var cfg ocispec.Image
		if json.Unmarshal(b, &cfg) == nil {
			for i := range m.Layers {
				if cfg.Config.Labels[AnnotationKey+":"+m.Layers[i].Digest.String()] == "base" {
					base = &m.Layers[i]
					break
				}
			}
		}
	}
	if base != nil {
		data, err := c.readLayer(ctx, r, pkg, ref, *base)
		if err == errNoPackageYAML {
			err = invalid(pkg, ref, fmt.Errorf("base layer %s has no package.yaml", base.Digest))
		}
		return data, base.Digest, err
	}
	if len(m.Layers) == 0 {
		return nil, "", invalid(pkg, ref, fmt.Errorf("image has no layers"))
	}
	for i := len(m.Layers) - 1; i >= 0; i-- {
		data, err := c.readLayer(ctx, r, pkg, ref, m.Layers[i])
		if err == errNoPackageYAML {
			continue
		}
		return data, m.Layers[i].Digest, err
	}
	return nil, "", invalid(pkg, ref, fmt.Errorf("no layer has a package.yaml"))
}

// readLayer streams one layer, reading package.yaml from it while hashing
// the compressed bytes; the result is used only if the layer's size and
// digest match its descriptor.
func (c *Client) readLayer(ctx context.Context, r *remote.Repository, pkg, ref string, d ocispec.Descriptor) ([]byte, error) {
	name := pkg + refSep(ref) + ref
	if err := d.Digest.Validate(); err != nil {
		return nil, invalid(pkg, ref, fmt.Errorf("layer digest: %w", err))
	}
	if d.Size > c.limits.MaxBlobSize {
		return nil, invalid(pkg, ref, fmt.Errorf("layer is %d bytes, more than the %d allowed; refused", d.Size, c.limits.MaxBlobSize))
	}
	rc, err := r.Blobs().Fetch(ctx, d)
	if err != nil {
		return nil, c.fetchError(ctx, err, pkg, ref, "layer blob "+d.Digest.String(), "the manifest")
	}
	defer rc.Close()
	h := d.Digest.Algorithm().Hash()
	cnt := &countReader{r: io.LimitReader(rc, d.Size+1)}
	tee := io.TeeReader(cnt, h)
	data, perr := readPackageYAML(tee, c.limits)
	if cnt.err == nil {
		// The rest of the layer, for its digest.
		_, _ = io.Copy(io.Discard, tee)
	}
	if cnt.err != nil {
		return nil, transferFailure(causeOf(ctx, cnt.err), name, registryOf(pkg), "layer "+d.Digest.String(), cnt.n, d.Size)
	}
	switch {
	case cnt.n < d.Size:
		return nil, &Error{Kind: KindInvalid, Package: pkg, Registry: registryOf(pkg),
			Msg: fmt.Sprintf("layer %s of %s was truncated at %d of %d bytes (registry %s ended it early)", d.Digest, name, cnt.n, d.Size, registryOf(pkg))}
	case cnt.n > d.Size:
		return nil, invalid(pkg, ref, fmt.Errorf("layer %s is longer than its %d bytes", d.Digest, d.Size))
	}
	if got := digest.NewDigest(d.Digest.Algorithm(), h); got != d.Digest {
		return nil, invalid(pkg, ref, fmt.Errorf("layer digest mismatch: content is %s, want %s", got, d.Digest))
	}
	if perr == errNoPackageYAML {
		return nil, perr
	}
	if perr != nil {
		return nil, invalid(pkg, ref, perr)
	}
	return data, nil
}

// countReader counts the bytes read and keeps the first read error.
type countReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return k, err
}
