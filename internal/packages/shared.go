package packages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// What the remote schema sources (internal/remote) share with packages:
// the deadline-keeping HTTP transport, the cache's atomic writes and blob
// store, and reading one layer of an OCI artifact through this Client's
// registries and credentials.

// WithDefaults fills the zero fields of t with the defaults.
func (t Timeouts) WithDefaults() Timeouts { return t.withDefaults() }

// NewTransport is the HTTP transport packages use: a connect deadline, an
// answer deadline and a floor on the transfer rate, as t says.
func NewTransport(t Timeouts) http.RoundTripper { return newTransport(t.withDefaults(), 0) }

// WriteAtomic writes data to path through a temporary file and a rename,
// so a reader sees the old content or the new, never a part.
func WriteAtomic(path string, data []byte) error { return writeAtomic(path, data) }

// PullTimeout bounds one fetch of this Client (Timeouts.Pull).
func (c *Client) PullTimeout() time.Duration { return c.timeouts.Pull }

// HTTPClient is this Client's HTTP client (its transport and credentials).
func (c *Client) HTTPClient() *http.Client { return c.http.Client }

// PutBlob stores data in the cache's blob store and returns its digest
// and path.
func (c *Client) PutBlob(data []byte) (digest, path string, err error) {
	d, err := c.cache.putBlob(data)
	if err != nil {
		return "", "", err
	}
	p, _ := c.cache.blobPath(d)
	return d, p, nil
}

// Blob reads a blob of the cache (its digest and size) and its path.
func (c *Client) Blob(d string, size int64) ([]byte, string, error) {
	b, err := c.cache.getBlob(d, size)
	if err != nil {
		return nil, "", err
	}
	p, _ := c.cache.blobPath(d)
	return b, p, nil
}

// FetchLayer reads the layer of mediaType from the artifact repo:tag in
// its OCI registry, refusing one larger than limit bytes, and checks it
// against its digest. It returns the layer and its digest; name says
// what the layer is in errors ("chart").
func (c *Client) FetchLayer(ctx context.Context, repo, tag, mediaType, name string, limit int64) ([]byte, string, error) {
	r, err := c.repository(repo)
	if err != nil {
		return nil, "", err
	}
	desc, rc, err := r.Manifests().FetchReference(ctx, tag)
	if err != nil {
		return nil, "", err
	}
	mb, err := readVerified(rc, desc)
	rc.Close()
	if err != nil {
		return nil, "", err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		return nil, "", fmt.Errorf("manifest: %w", err)
	}
	var layer *ocispec.Descriptor
	for i := range m.Layers {
		if m.Layers[i].MediaType == mediaType {
			layer = &m.Layers[i]
		}
	}
	if layer == nil {
		return nil, "", &layerMissing{ref: repo + ":" + tag, mediaType: mediaType}
	}
	if layer.Size > limit {
		return nil, "", fmt.Errorf("%s layer is %d bytes, more than %d; refused", name, layer.Size, limit)
	}
	lrc, err := r.Blobs().Fetch(ctx, *layer)
	if err != nil {
		return nil, "", err
	}
	defer lrc.Close()
	data, err := io.ReadAll(io.LimitReader(lrc, layer.Size+1))
	if err != nil {
		return nil, "", err
	}
	if int64(len(data)) != layer.Size || digest.FromBytes(data) != layer.Digest {
		return nil, "", fmt.Errorf("%s layer %s: content does not match its digest or size", name, layer.Digest)
	}
	return data, layer.Digest.String(), nil
}

// ErrNoLayer is wrapped by FetchLayer's error when the artifact has no
// layer of the media type asked for.
var ErrNoLayer = errors.New("no layer of that media type")

type layerMissing struct{ ref, mediaType string }

func (e *layerMissing) Error() string { return e.ref + " has no " + e.mediaType + " layer" }
func (e *layerMissing) Unwrap() error { return ErrNoLayer }
