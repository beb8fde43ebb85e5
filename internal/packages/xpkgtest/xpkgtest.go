// Package xpkgtest is test support for internal/packages and its users:
// it builds Crossplane package (xpkg) images, including malformed ones,
// pushes them to a registry, and runs registries (go-containerregistry's
// in-memory one, or Debian's real docker-registry). Tests only.
package xpkgtest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"
)

// Entry is one tar entry of a layer.
type Entry struct {
	Name     string
	Body     []byte
	Type     byte   // tar.TypeReg when zero
	Linkname string // for links
	Mode     int64  // 0o644 when zero
}

// Tar builds a tar archive, gzipped when gz is true.
func Tar(gz bool, entries ...Entry) []byte {
	var buf bytes.Buffer
	var w io.Writer = &buf
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		w = zw
	}
	tw := tar.NewWriter(w)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Mode: e.Mode, Typeflag: e.Type, Linkname: e.Linkname, Size: int64(len(e.Body)), ModTime: time.Unix(0, 0)}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			panic(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(e.Body); err != nil {
				panic(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			panic(err)
		}
	}
	return buf.Bytes()
}

// Bomb returns a gzipped tar whose entry name holds size zero bytes: a
// small blob that decompresses to a lot.
func Bomb(name string, size int64) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Typeflag: tar.TypeReg, Size: size, ModTime: time.Unix(0, 0)}); err != nil {
		panic(err)
	}
	zeros := make([]byte, 1<<20)
	for n := size; n > 0; {
		k := int64(len(zeros))
		if n < k {
			k = n
		}
		if _, err := tw.Write(zeros[:k]); err != nil {
			panic(err)
		}
		n -= k
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Layer is one image layer.
type Layer struct {
	Data []byte
	Base bool // annotate io.crossplane.xpkg: base
	// Label marks the layer as base through the image config label
	// io.crossplane.xpkg:<digest> = base instead.
	Label bool
	// Annotations are extra layer annotations.
	Annotations map[string]string
}

// Image is an xpkg image to push.
type Image struct {
	Layers []Layer
	// Config is the image config's process (Entrypoint, Env, WorkingDir,
	// User: a runtime image's); the layer labels are added to it.
	Config ocispec.ImageConfig
	// Platform is the image config's platform (default linux/amd64).
	Platform *ocispec.Platform
	// Index wraps the manifest in an OCI image index with these
	// platforms ("linux/amd64"); the image goes under the amd64 entry (or
	// the only one), and other platforms get an empty decoy image.
	Index []string
}

// XPkg returns the usual image: one gzipped layer with package.yaml,
// annotated as the base layer.
func XPkg(packageYAML []byte) Image {
	return Image{Layers: []Layer{{Data: Tar(true, Entry{Name: "package.yaml", Body: packageYAML}), Base: true}}}
}

// FunctionPackage lays a Function package out as `crossplane xpkg build
// --embed-runtime-image` does (github.com/crossplane/crossplane/v2 v2.2.1,
// internal/xpkg/build.go Builder.Build over the runtime image as its
// base): the runtime image's layers first, then the package.yaml layer,
// marked base both by the image config label io.crossplane.xpkg:<digest>
// (what the build writes) and by the layer annotation (what
// AnnotateLayers adds when the package is pushed); the config is the
// runtime image's (its Entrypoint).
func FunctionPackage(packageYAML []byte, config ocispec.ImageConfig, runtime ...[]Entry) Image {
	img := Image{Config: config}
	for _, es := range runtime {
		img.Layers = append(img.Layers, Layer{Data: Tar(true, es...)})
	}
	img.Layers = append(img.Layers, Layer{Data: Tar(true, Entry{Name: "package.yaml", Body: packageYAML}), Base: true, Label: true})
	return img
}

// Meta is a package metadata document.
func Meta(kind, name string, deps ...string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: meta.pkg.crossplane.io/v1\nkind: %s\nmetadata:\n  name: %s\n", kind, name)
	if len(deps) > 0 {
		b.WriteString("spec:\n  dependsOn:\n")
		for _, d := range deps {
			b.WriteString("    - " + strings.ReplaceAll(strings.TrimSpace(d), "\n", "\n      ") + "\n")
		}
	}
	return []byte(b.String())
}

// Stream joins YAML documents with "---" lines.
func Stream(docs ...[]byte) []byte {
	var b bytes.Buffer
	for i, d := range docs {
		if i > 0 || !bytes.HasPrefix(d, []byte("---")) {
			b.WriteString("---\n")
		}
		b.Write(d)
		if !bytes.HasSuffix(d, []byte("\n")) {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// CRD returns a small valid CRD for group/kind with the given versions.
func CRD(group, kind string, versions ...string) []byte {
	plural := strings.ToLower(kind) + "s"
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: %s.%s\nspec:\n  group: %s\n  names:\n    kind: %s\n    listKind: %sList\n    plural: %s\n    singular: %s\n  scope: Cluster\n  versions:\n",
		plural, group, group, kind, kind, plural, strings.ToLower(kind))
	for i, v := range versions {
		fmt.Fprintf(&b, "    - name: %s\n      served: true\n      storage: %t\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              properties:\n                size:\n                  type: integer\n", v, i == len(versions)-1)
	}
	return []byte(b.String())
}

// Push pushes img to host/repo:tag over plain HTTP and returns the digest
// the tag points to.
func Push(t testing.TB, host, repo, tag string, img Image) string {
	t.Helper()
	ctx := context.Background()
	r, err := remote.NewRepository(host + "/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	r.PlainHTTP = true
	m := pushImage(t, ctx, r, img)
	if len(img.Index) > 0 {
		idx := ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex}
		for i, p := range img.Index {
			os, arch, _ := strings.Cut(p, "/")
			d := m
			if arch != "amd64" && len(img.Index) > 1 {
				d = pushImage(t, ctx, r, Image{Layers: []Layer{{Data: Tar(true, Entry{Name: "README", Body: []byte(fmt.Sprintf("decoy %d", i))})}}})
			}
			d.Platform = &ocispec.Platform{OS: os, Architecture: arch}
			idx.Manifests = append(idx.Manifests, d)
		}
		m = pushJSON(t, ctx, r, ocispec.MediaTypeImageIndex, idx)
	}
	if err := r.Tag(ctx, m, tag); err != nil {
		t.Fatalf("tag %s: %v", tag, err)
	}
	return m.Digest.String()
}

func pushImage(t testing.TB, ctx context.Context, r *remote.Repository, img Image) ocispec.Descriptor {
	t.Helper()
	labels := map[string]string{}
	var layers []ocispec.Descriptor
	var diffIDs []digest.Digest
	for _, l := range img.Layers {
		d := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerGzip, Digest: digest.FromBytes(l.Data), Size: int64(len(l.Data))}
		d.Annotations = map[string]string{}
		for k, v := range l.Annotations {
			d.Annotations[k] = v
		}
		if l.Base {
			d.Annotations["io.crossplane.xpkg"] = "base"
		}
		if len(d.Annotations) == 0 {
			d.Annotations = nil
		}
		if l.Label {
			labels["io.crossplane.xpkg:"+d.Digest.String()] = "base"
		}
		pushBlob(t, ctx, r, d, l.Data)
		layers = append(layers, d)
		diffIDs = append(diffIDs, d.Digest) // not the real diff ID; unused by readers here
	}
	platform := ocispec.Platform{OS: "linux", Architecture: "amd64"}
	if img.Platform != nil {
		platform = *img.Platform
	}
	conf := img.Config
	for k, v := range conf.Labels {
		labels[k] = v
	}
	conf.Labels = labels
	cfg := ocispec.Image{Platform: platform, Config: conf, RootFS: ocispec.RootFS{Type: "layers", DiffIDs: diffIDs}}
	cb, _ := json.Marshal(cfg)
	cd := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageConfig, Digest: digest.FromBytes(cb), Size: int64(len(cb))}
	pushBlob(t, ctx, r, cd, cb)
	return pushJSON(t, ctx, r, ocispec.MediaTypeImageManifest, ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest, Config: cd, Layers: layers})
}

func pushBlob(t testing.TB, ctx context.Context, r *remote.Repository, d ocispec.Descriptor, b []byte) {
	t.Helper()
	if ok, _ := r.Exists(ctx, d); ok {
		return
	}
	if err := r.Push(ctx, d, bytes.NewReader(b)); err != nil {
		t.Fatalf("push blob: %v", err)
	}
}

func pushJSON(t testing.TB, ctx context.Context, r *remote.Repository, mt string, v any) ocispec.Descriptor {
	t.Helper()
	b, _ := json.Marshal(v)
	d := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(b), Size: int64(len(b))}
	if err := r.Manifests().Push(ctx, d, bytes.NewReader(b)); err != nil {
		t.Fatalf("push manifest: %v", err)
	}
	return d
}

// MemRegistry starts go-containerregistry's in-memory registry and
// returns its host:port. wrap, if not nil, wraps its handler (to corrupt
// responses).
func MemRegistry(t testing.TB, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	var h http.Handler = registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	if wrap != nil {
		h = wrap(h)
	}
	s := httptest.NewServer(h)
	// Connections are cut first: Close waits for every request in flight,
	// and a faulted one (Hang, Stall) lasts until its client gives up.
	t.Cleanup(func() { s.CloseClientConnections(); s.Close() })
	return strings.TrimPrefix(s.URL, "http://")
}

// BlobTamper returns a wrapper that serves altered content for blobs
// whose digest is in the map: the function receives the real body.
func BlobTamper(alter map[string]func([]byte) []byte) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			i := strings.LastIndex(req.URL.Path, "/blobs/")
			if req.Method != http.MethodGet || i < 0 {
				next.ServeHTTP(w, req)
				return
			}
			f := alter[req.URL.Path[i+len("/blobs/"):]]
			if f == nil {
				next.ServeHTTP(w, req)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, req)
			body := f(rec.Body.Bytes())
			for k, v := range rec.Header() {
				if k != "Content-Length" && k != "Docker-Content-Digest" {
					w.Header()[k] = v
				}
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
		})
	}
}

// DockerRegistry is a running Debian docker-registry process.
type DockerRegistry struct {
	Host string
	cmd  *exec.Cmd
	done chan struct{}
}

// StartDockerRegistry runs `docker-registry serve` with in-memory storage
// on a free loopback port. Without the binary the test is skipped, or
// fails when CI=true.
func StartDockerRegistry(t testing.TB) *DockerRegistry {
	t.Helper()
	bin, err := exec.LookPath("docker-registry")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("docker-registry not installed (apt-get install docker-registry); required when CI=true")
		}
		t.Skip("docker-registry not installed (apt-get install docker-registry)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yml")
	conf := fmt.Sprintf("version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  inmemory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: %s\n", host)
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", cfg)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none")
	cmd.WaitDelay = 10 * time.Second // Stop's wait after the kill ends, whoever holds the log pipe
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &DockerRegistry{Host: host, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(r.done) }()
	t.Cleanup(r.Stop)
	deadline := time.Now().Add(15 * time.Second)
	// Each probe is bounded too: a registry that takes the connection and
	// never answers fails the test at the deadline instead of hanging.
	probe := &http.Client{Timeout: 5 * time.Second}
	for {
		resp, err := probe.Get("http://" + host + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return r
			}
		}
		select {
		case <-r.done:
			t.Fatalf("docker-registry exited: %s", logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("docker-registry did not answer on %s: %v\n%s", host, err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop kills the registry and waits for it to exit.
func (r *DockerRegistry) Stop() {
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Kill()
	<-r.done
}
