// This file pushes Helm chart archives to a test registry.

package xpkgtest

import (
	"context"
	"testing"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"
)

// PushChart pushes a Helm chart archive (.tgz, e.g. from Tar) to
// host/repo:tag over plain HTTP as helm push does: a Helm config blob and
// one chart content layer. It returns the manifest digest.
func PushChart(t testing.TB, host, repo, tag string, tgz []byte, chartJSON string) string {
	t.Helper()
	ctx := context.Background()
	r, err := remote.NewRepository(host + "/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	r.PlainHTTP = true
	cb := []byte(chartJSON)
	cd := ocispec.Descriptor{MediaType: "application/vnd.cncf.helm.config.v1+json", Digest: digest.FromBytes(cb), Size: int64(len(cb))}
	pushBlob(t, ctx, r, cd, cb)
	ld := ocispec.Descriptor{MediaType: "application/vnd.cncf.helm.chart.content.v1.tar+gzip", Digest: digest.FromBytes(tgz), Size: int64(len(tgz))}
	pushBlob(t, ctx, r, ld, tgz)
	m := pushJSON(t, ctx, r, ocispec.MediaTypeImageManifest, ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest, Config: cd, Layers: []ocispec.Descriptor{ld}})
	if err := r.Tag(ctx, m, tag); err != nil {
		t.Fatalf("tag %s: %v", tag, err)
	}
	return m.Digest.String()
}
