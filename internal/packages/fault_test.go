package packages

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/packages/xpkgtest"
)

// faultEnv is a registry on loopback that misbehaves on demand, holding
// x/p:v1.0.0 whose base layer digest is layer.
type faultEnv struct {
	*testEnv
	faults *xpkgtest.Faults
	layer  string
	size   int
}

func newFaultEnv(t *testing.T) *faultEnv {
	f := xpkgtest.NewFaults()
	e := &faultEnv{testEnv: newEnv(t, f.Wrap), faults: f}
	data := xpkgtest.Tar(true, xpkgtest.Entry{Name: "package.yaml", Body: provider("p", "Thing", "Other", "Third")})
	e.push("x/p", "v1.0.0", xpkgtest.Image{Layers: []xpkgtest.Layer{{Data: data, Base: true}}})
	e.layer = fmt.Sprintf("sha256:%x", sha256.Sum256(data))
	e.size = len(data)
	return e
}

// timeouts returns an option setting the client's timeouts.
func timeouts(answer, pull time.Duration) func(*Options) {
	return func(o *Options) { o.Timeouts = Timeouts{Answer: answer, Pull: pull} }
}

// wantErr checks a result's kind and exact message, and that no package
// was served.
func wantErr(t *testing.T, r Result, k Kind, msg string) {
	t.Helper()
	if KindOf(r.Err) != k || fmt.Sprint(r.Err) != msg {
		t.Errorf("%s:\n got %v (kind %q)\nwant %s (kind %q)", r.Dep, r.Err, KindOf(r.Err), msg, k)
	}
	if r.Package != nil {
		t.Errorf("%s: served %s despite the error", r.Dep, r.Package.Version)
	}
}

// A registry that never answers: the pull ends after Timeouts.Answer with
// a message naming the registry and what it was asked.
func TestRegistryNeverAnswers(t *testing.T) {
	e := newFaultEnv(t)
	e.faults.Set("tags", xpkgtest.Hang())
	res := e.client(timeouts(200*time.Millisecond, time.Minute)).Resolve(context.Background(), []Dependency{e.dep("x/p", ">=v1.0.0")})
	wantErr(t, res[0], KindNetwork, "registry "+e.host+" did not answer within 200ms (listing tags of "+e.host+"/x/p)")

	// The same for the layer: the headers never come.
	e.faults.Set("tags", nil)
	e.faults.Set(e.layer, xpkgtest.Hang())
	res = e.client(timeouts(200*time.Millisecond, time.Minute)).Resolve(context.Background(), []Dependency{e.dep("x/p", ">=v1.0.0")})
	wantErr(t, res[0], KindNetwork, "registry "+e.host+" did not answer within 200ms (fetching layer blob "+e.layer+" of "+e.host+"/x/p:v1.0.0)")
}

// A registry that trickles a layer, a byte at a time, never falls silent
// for long: the pull deadline ends it, saying how far it got.
func TestTrickledLayerHitsPullDeadline(t *testing.T) {
	e := newFaultEnv(t)
	e.faults.Set(e.layer, xpkgtest.Trickle(10*time.Millisecond)) // 4 s for the layer
	res := e.client(timeouts(10*time.Second, 300*time.Millisecond)).Resolve(context.Background(), []Dependency{e.dep("x/p", ">=v1.0.0")})
	msg := fmt.Sprint(res[0].Err)
	prefix := "pulling " + e.host + "/x/p:v1.0.0 from registry " + e.host + " did not finish within 300ms (the pull deadline; layer " + e.layer + " at "
	if KindOf(res[0].Err) != KindNetwork || !strings.HasPrefix(msg, prefix) || !strings.HasSuffix(msg, fmt.Sprintf(" of %d bytes)", e.size)) {
		t.Errorf("got %s (kind %q)\nwant %s… of %d bytes)", msg, KindOf(res[0].Err), prefix, e.size)
	}
}

// A registry trickling a body, a byte at a time, never falls silent and
// stays under the pull deadline for long: below the throughput floor
// (Timeouts.MinRate over Timeouts.RateWindow of waiting) the pull ends,
// naming the registry, what it was sending and how slowly.
func TestTrickleBelowRateFloor(t *testing.T) {
	e := newFaultEnv(t)
	floor := func(rate int64) func(*Options) {
		return func(o *Options) {
			o.Timeouts = Timeouts{Answer: 10 * time.Second, Pull: time.Minute, MinRate: rate, RateWindow: 200 * time.Millisecond}
		}
	}
	// The layer at 200 bytes a second against a floor of 1 KiB/s.
	e.faults.Set(e.layer, xpkgtest.Trickle(5*time.Millisecond))
	start := time.Now()
	res := e.client(floor(1024)).Resolve(context.Background(), []Dependency{e.dep("x/p", ">=v1.0.0")})
	msg := fmt.Sprint(res[0].Err)
	want := regexp.MustCompile(`^registry ` + regexp.QuoteMeta(e.host) + ` sent layer ` + e.layer + ` of ` + regexp.QuoteMeta(e.host) + `/x/p:v1\.0\.0 too slowly: (\d+) bytes in 200ms, below the floor of 1 KiB/s \(at \d+ of ` + fmt.Sprint(e.size) + ` bytes\)$`)
	if KindOf(res[0].Err) != KindNetwork || !want.MatchString(msg) || res[0].Package != nil {
		t.Errorf("layer: got %s (kind %q)\nwant %s", msg, KindOf(res[0].Err), want)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the slow layer took %s to give up on", d)
	}

	// The tag list, before any version is known.
	e.faults.Set(e.layer, nil)
	e.faults.Set("tags", xpkgtest.Trickle(20*time.Millisecond))
	res = e.client(floor(1024)).Resolve(context.Background(), []Dependency{e.dep("x/p", ">=v1.0.0")})
	msg = fmt.Sprint(res[0].Err)
	want = regexp.MustCompile(`^registry ` + regexp.QuoteMeta(e.host) + ` sent too slowly while listing tags of ` + regexp.QuoteMeta(e.host) + `/x/p: \d+ bytes in 200ms, below the floor of 1 KiB/s$`)
	if KindOf(res[0].Err) != KindNetwork || !want.MatchString(msg) {
		t.Errorf("tags: got %s (kind %q)\nwant %s", msg, KindOf(res[0].Err), want)
	}

	// Above the floor, the same trickle is a slow registry, not a broken one.
	res = e.client(floor(10)).Resolve(context.Background(), []Dependency{e.dep("x/p", ">=v1.0.0")})
	if res[0].Err != nil || res[0].Package == nil {
		t.Errorf("tags above the floor: %v", res[0].Err)
	}
}

// A registry that stops in the middle of a layer.
func TestStalledLayer(t *testing.T) {
	e := newFaultEnv(t)
	e.faults.Set(e.layer, xpkgtest.Stall())
	res := e.client(timeouts(200*time.Millisecond, time.Minute)).Resolve(context.Background(), []Dependency{e.dep("x/p", ">=v1.0.0")})
	wantErr(t, res[0], KindNetwork, fmt.Sprintf("registry %s stopped sending layer %s of %s/x/p:v1.0.0 for 200ms (at %d of %d bytes)", e.host, e.layer, e.host, e.size/2, e.size))
}

// A layer cut off by a closed connection, and a layer blob the registry
// lost: each says what happened, not "unexpected EOF" or "not found".
func TestTruncatedAndMissingLayer(t *testing.T) {
	e := newFaultEnv(t)
	e.faults.Set(e.layer, xpkgtest.Truncate())
	res := e.client().Resolve(context.Background(), []Dependency{e.dep("x/p", ">=v1.0.0")})
	wantErr(t, res[0], KindNetwork, fmt.Sprintf("layer %s of %s/x/p:v1.0.0 was truncated at %d of %d bytes (registry %s closed the connection)", e.layer, e.host, e.size/2, e.size, e.host))

	e.faults.Set(e.layer, xpkgtest.Missing())
	res = e.client().Resolve(context.Background(), []Dependency{e.dep("x/p", ">=v1.0.0")})
	wantErr(t, res[0], KindInvalid, fmt.Sprintf("layer blob %s of %s/x/p:v1.0.0 is missing from registry %s (the manifest names it)", e.layer, e.host, e.host))
}

// Tag lists longer than Limits.MaxTags: in one page too large to hold that
// many tags, across pages, or pages without end.
func TestOversizedTagList(t *testing.T) {
	e := newFaultEnv(t)
	limit := func(o *Options) { o.Limits.MaxTags = 100 }
	want := "tag list of " + e.host + "/x/p from registry " + e.host + " exceeds the 100-entry limit"
	for _, tc := range []struct {
		name  string
		fault xpkgtest.Fault
		want  string
	}{
		{"one page", xpkgtest.ManyTags(5000, 0), want},
		{"pages", xpkgtest.ManyTags(5000, 30), want},
		{"endless empty pages", emptyPagesForever(), "tag list of " + e.host + "/x/p from registry " + e.host + " exceeds the 1000-page limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.faults.Set("tags", tc.fault)
			res := e.client(limit).Resolve(context.Background(), []Dependency{e.dep("x/p", ">=v1.0.0")})
			wantErr(t, res[0], KindNetwork, tc.want)
		})
	}
	// Within the limit, the same registry resolves.
	e.faults.Set("tags", xpkgtest.ManyTags(99, 30))
	res := e.client(limit).Resolve(context.Background(), []Dependency{e.dep("x/p", ">=v0.0.0")})
	if KindOf(res[0].Err) != KindNotFound || !strings.Contains(res[0].Err.Error(), "x/p:v0.0.98 not found") {
		t.Errorf("99 tags: %v (want the newest listed tag, v0.0.98, resolved and not found)", res[0].Err)
	}
}

func emptyPagesForever() xpkgtest.Fault {
	return func(c *xpkgtest.Call) {
		c.W.Header().Set("Link", `<`+c.R.URL.Path+`?n=10&last=a>; rel="next"`)
		c.W.Header().Set("Content-Type", "application/json")
		fmt.Fprint(c.W, `{"name":"x","tags":[]}`)
	}
}

// Cancelling while a layer is under way reports a cancellation, with how
// far the layer got, not a timeout or a broken package.
func TestCancelDuringLayer(t *testing.T) {
	e := newFaultEnv(t)
	e.faults.Set(e.layer, xpkgtest.Stall())
	// Bounded: a Resolve that ignores the cancellation fails the test
	// (with the deadline's error) rather than hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	go func() {
		<-e.faults.Hits() // the layer was asked for
		cancel()
	}()
	res := e.client().Resolve(ctx, []Dependency{e.dep("x/p", ">=v1.0.0")})
	msg := fmt.Sprint(res[0].Err)
	// (Whether the cancellation came before or after the client saw the
	// first bytes, it names the layer.)
	if KindOf(res[0].Err) != KindCanceled || !strings.Contains(msg, e.host+"/x/p:v1.0.0 was cancelled") || !strings.Contains(msg, e.layer) {
		t.Errorf("got %s (kind %q), want the layer's pull cancelled", msg, KindOf(res[0].Err))
	}
}

// A corrupt newer tag does not take away the version in use: the cached
// one stays, with a warning saying why the newer one was refused.
func TestCorruptNewerTagKeepsCached(t *testing.T) {
	e := newFaultEnv(t)
	dep := e.dep("x/p", ">=v1.0.0")
	if res := e.client().Resolve(context.Background(), []Dependency{dep}); res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	data := xpkgtest.Tar(true, xpkgtest.Entry{Name: "package.yaml", Body: provider("p", "Newer")})
	e.push("x/p", "v1.1.0", xpkgtest.Image{Layers: []xpkgtest.Layer{{Data: data, Base: true}}})
	newer := fmt.Sprintf("sha256:%x", sha256.Sum256(data))
	e.faults.Set(newer, func(c *xpkgtest.Call) {
		rec := c.Real()
		b := append([]byte(nil), rec.Body.Bytes()...)
		b[len(b)-10] ^= 0xff
		xpkgtest.CopyHeader(c.W, rec)
		_, _ = c.W.Write(b)
	})
	res := e.client().Resolve(context.Background(), []Dependency{dep})
	r := res[0]
	if r.Package == nil || r.Package.Version != "v1.0.0" || crdNames(r.Package) != "things.example.org,others.example.org,thirds.example.org" {
		t.Fatalf("served %v, want the cached v1.0.0", r.Package)
	}
	want := "invalid package " + e.host + "/x/p:v1.1.0: layer digest mismatch: content is "
	if !IsWarning(r.Err) || KindOf(r.Err) != KindInvalid || !strings.HasPrefix(r.Err.Error(), want) || !strings.HasSuffix(r.Err.Error(), ", want "+newer+"; refused; using the cached v1.0.0") {
		t.Errorf("got %v (warning %v), want %s…, want %s; refused; using the cached v1.0.0", r.Err, IsWarning(r.Err), want, newer)
	}
	// Nothing of v1.1.0 was cached; the next editor start still has v1.0.0.
	if c := e.client().Cached([]Dependency{dep}); c[0].Err != nil || c[0].Package.Version != "v1.0.0" {
		t.Errorf("cached after the refusal: %+v", c[0])
	}
}

// A package.yaml whose documents are too many or too large is refused
// before any document is parsed (parsing is what costs memory), saying
// which limit it broke.
func TestPackageDocumentLimits(t *testing.T) {
	e := newEnv(t, nil)
	big := []byte(strings.Replace(string(xpkgtest.CRD("example.org", "Big", "v1")), "openAPIV3Schema:\n", "openAPIV3Schema:\n          description: "+strings.Repeat("x", 3000)+"\n", 1))
	e.push("x/big", "v1.0.0", xpkgtest.XPkg(xpkgtest.Stream(xpkgtest.Meta("Provider", "big"), big)))
	many := [][]byte{xpkgtest.Meta("Provider", "many")}
	for i := 0; i < 6; i++ {
		many = append(many, xpkgtest.CRD("example.org", fmt.Sprintf("K%d", i), "v1"))
	}
	e.push("x/many", "v1.0.0", xpkgtest.XPkg(xpkgtest.Stream(many...)))
	c := e.client(func(o *Options) { o.Limits.MaxDocumentSize = 2048; o.Limits.MaxDocuments = 6 })
	res := c.Resolve(context.Background(), []Dependency{e.dep("x/big", "v1.0.0"), e.dep("x/many", "v1.0.0")})
	wantErr(t, res[0], KindInvalid, "invalid package "+e.host+"/x/big:v1.0.0: package.yaml's document at line 7 is 3.4 KiB, more than the 2 KiB a document may have; refused")
	wantErr(t, res[1], KindInvalid, "invalid package "+e.host+"/x/many:v1.0.0: package.yaml has more than 6 documents; refused")
	// Within the limits (the defaults), both are fine.
	for _, r := range e.client().Resolve(context.Background(), []Dependency{e.dep("x/big", "v1.0.0"), e.dep("x/many", "v1.0.0")}) {
		if r.Err != nil || r.Package == nil {
			t.Errorf("%s with the default limits: %v", r.Dep, r.Err)
		}
	}
}

// Options.MemoryBudget bounds what a Client keeps parsed in memory: a
// package over the budget is read again from the cache (here, a cache
// corrupted meanwhile, so that the difference shows), one within it is
// served from memory.
func TestMemoryBudget(t *testing.T) {
	e := newEnv(t, nil)
	e.push("x/p", "v1.0.0", xpkgtest.XPkg(provider("p", "Thing")))
	dep := e.dep("x/p", "v1.0.0")
	small := e.client(func(o *Options) { o.MemoryBudget = 100 })
	roomy := e.client()
	for _, c := range []*Client{small, roomy} {
		if r := c.Resolve(context.Background(), []Dependency{dep}); r[0].Err != nil {
			t.Fatal(r[0].Err)
		}
	}
	blobs, _ := filepath.Glob(filepath.Join(e.cache, "blobs", "sha256", "*"))
	if len(blobs) != 1 {
		t.Fatalf("blobs = %v", blobs)
	}
	if err := os.WriteFile(blobs[0], []byte("corrupt"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := roomy.Cached([]Dependency{dep}); r[0].Err != nil || r[0].Package == nil {
		t.Errorf("within the budget: %v, want the package from memory", r[0].Err)
	}
	if r := small.Cached([]Dependency{dep}); KindOf(r[0].Err) != KindNotCached {
		t.Errorf("over the budget: %v, want it read again from the (corrupt) cache", r[0].Err)
	}
}

// A registry's own error text reaches messages (the editor's, check's and
// pull's) with its control characters escaped: it cannot recolour a
// terminal or start a line of its own.
func TestRegistryErrorTextEscaped(t *testing.T) {
	e := newFaultEnv(t)
	e.faults.Set("tags", func(c *xpkgtest.Call) {
		c.W.Header().Set("Content-Type", "application/json")
		c.W.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(c.W, `{"errors":[{"code":"UNKNOWN","message":"\u001b[2Jdown\nforged.yaml:1:1: error: x \u0085"}]}`)
	})
	res := e.client().Resolve(context.Background(), []Dependency{e.dep("x/p", ">=v1.0.0")})
	msg := fmt.Sprint(res[0].Err)
	if KindOf(res[0].Err) != KindNetwork || !strings.Contains(msg, `\x1b[2Jdown\nforged.yaml:1:1: error: x \u0085`) || strings.ContainsAny(msg, "\x1b\n\u0085") {
		t.Errorf("got %q (kind %q), want the registry's text escaped", msg, KindOf(res[0].Err))
	}
}
