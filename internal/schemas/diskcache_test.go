package schemas

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sigsyaml "sigs.k8s.io/yaml"
)

// dcCRD is a CRD whose schema exercises what decoding carries: enum,
// required, bounds, a default, a CEL rule, a list map and a nested object.
func dcCRD(kind string) string {
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[2]ss.example.org
spec:
  group: example.org
  scope: Namespaced
  names: {kind: %[1]s, plural: %[2]ss}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            x-kubernetes-validations:
            - rule: "self.size <= self.max"
              message: size must not exceed max
            properties:
              size: {type: integer, minimum: 1}
              max: {type: integer, default: 10}
              mode: {type: string, enum: [fast, slow]}
              name: {type: string, maxLength: 5}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port]
                items:
                  type: object
                  required: [port]
                  properties:
                    port: {type: integer}
`, kind, strings.ToLower(kind))
}

const dcObject = `apiVersion: example.org/v1
kind: %[1]s
metadata: {name: w, namespace: default}
spec:
  size: 20
  mode: medium
  name: toolongname
  extra: 1
  ports: [{port: 1}, {port: 1}]
---
apiVersion: example.org/v1
kind: %[1]s
metadata: {name: w, namespace: default}
spec: {size: 20}
`

// dcFindings validates dcObject against kind's CRD, with the in-memory
// build cache emptied first so the definition is decoded again.
func dcFindings(t *testing.T, kind string) string {
	t.Helper()
	cache = newBuildCache(DefaultBuildBudget)
	st := NewStore().WithFile(stSrc(SourceWorkspace, "ws"), "crd.yaml", []byte(dcCRD(kind)))
	sc, ok := st.Lookup(GVK{Group: "example.org", Version: "v1", Kind: kind})
	if !ok {
		t.Fatalf("no schema for %s", kind)
	}
	return dcValidate(t, sc, kind)
}

func dcValidate(t *testing.T, sc *Schema, kind string) string {
	t.Helper()
	var b strings.Builder
	for _, doc := range strings.Split(fmt.Sprintf(dcObject, kind), "---\n") {
		var obj map[string]any
		if err := sigsyaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		for _, e := range sc.Validate(context.Background(), obj) {
			fmt.Fprintf(&b, "%s %s %s %s\n", e.Severity, e.Path, e.Code, e.Message)
		}
	}
	return b.String()
}

func useDiskCache(t *testing.T, maxBytes int64) string {
	t.Helper()
	dir := t.TempDir()
	SetDecodedCache(dir, maxBytes)
	t.Cleanup(func() {
		SetDecodedCache("", 0)
		cache = newBuildCache(DefaultBuildBudget)
	})
	return dir
}

func dcEntries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		if !strings.HasPrefix(de.Name(), ".") {
			out = append(out, filepath.Join(dir, de.Name()))
		}
	}
	return out
}

// A warm run reads the decoded definition from the cache and finds what
// a cold run and a run without the cache find; a truncated or garbled
// entry, or another definition's entry under this one's name, is ignored
// (same findings) and written again.
func TestDecodedCacheWarmCorrupt(t *testing.T) {
	off := dcFindings(t, "Widget")
	for _, want := range []string{"size must not exceed max", "unsupported value", "unknown field", "duplicate entry", "may not be more than 5"} {
		if !strings.Contains(off, want) {
			t.Fatalf("findings without the cache lack %q:\n%s", want, off)
		}
	}
	dir := useDiskCache(t, 0)
	cold := dcFindings(t, "Widget")
	entries := dcEntries(t, dir)
	if len(entries) != 1 {
		t.Fatalf("after a cold run the cache holds %d entries, want 1", len(entries))
	}
	good, _ := os.ReadFile(entries[0])
	warm := dcFindings(t, "Widget")
	if cold != off || warm != off {
		t.Fatalf("findings differ:\nwithout cache:\n%s\ncold:\n%s\nwarm:\n%s", off, cold, warm)
	}
	// The warm run read the entry: replaced by another CRD's decoding
	// framed under this entry's key, the findings change.
	key := filepath.Base(entries[0])
	other := strings.Replace(dcCRD("Widget"), "maxLength: 5", "maxLength: 50", 1)
	enc := normalize(decodeText(defCRD, []byte(other)))
	if err := os.WriteFile(entries[0], frameEntry(key, enc), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := dcFindings(t, "Widget"); got == off {
		t.Fatal("a warm run did not read the cache entry")
	}
	for name, damage := range map[string]func([]byte) []byte{
		"truncated":   func(b []byte) []byte { return b[:len(b)/2] },
		"empty":       func(b []byte) []byte { return nil },
		"garbled":     func(b []byte) []byte { c := bytes.Clone(b); c[len(c)-40] ^= 0x5a; return c },
		"bad header":  func(b []byte) []byte { c := bytes.Clone(b); c[0] = 'X'; return c },
		"long length": func(b []byte) []byte { return append(bytes.Clone(b), 0) },
		// The other CRD's own entry, whole and valid, copied under this
		// one's name: it used to be served for this CRD (issue 35).
		"another input's": func([]byte) []byte { return frameEntry(diskKey(defCRD, []byte(other)), enc) },
	} {
		if err := os.WriteFile(entries[0], damage(good), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := dcFindings(t, "Widget"); got != off {
			t.Errorf("%s entry: findings differ:\n%s\nwant:\n%s", name, got, off)
		}
		if b, _ := os.ReadFile(entries[0]); !bytes.Equal(b, good) {
			t.Errorf("%s entry was not written again", name)
		}
	}
}

// Entries are content-addressed: an edited CRD is a new entry, never the
// old one's decoding.
func TestDecodedCacheEdit(t *testing.T) {
	dir := useDiskCache(t, 0)
	before := dcFindings(t, "Widget")
	edited := strings.Replace(dcCRD("Widget"), "maxLength: 5", "maxLength: 50", 1)
	cache = newBuildCache(DefaultBuildBudget)
	st := NewStore().WithFile(stSrc(SourceWorkspace, "ws"), "crd.yaml", []byte(edited))
	sc, _ := st.Lookup(GVK{Group: "example.org", Version: "v1", Kind: "Widget"})
	after := dcValidate(t, sc, "Widget")
	if !strings.Contains(before, "may not be more than 5") || strings.Contains(after, "may not be more than") {
		t.Fatalf("the edited CRD's findings come from the old one:\n%s", after)
	}
	if n := len(dcEntries(t, dir)); n != 2 {
		t.Fatalf("%d entries, want 2 (one per content)", n)
	}
}

// Past its bound the folder loses its least recently used entries.
func TestDecodedCacheBound(t *testing.T) {
	one := int64(len(frameEntry(diskKey(defCRD, []byte(dcCRD("Kind0"))), normalize(decodeText(defCRD, []byte(dcCRD("Kind0")))))))
	dir := useDiskCache(t, 5*one+one/2)
	c := currentDisk()
	old := time.Now().Add(-2 * time.Hour)
	for i := range 12 {
		decodeDefinition(defCRD, []byte(dcCRD(fmt.Sprintf("Kind%d", i))))
		c.evict() // as every store does once it has written enough
		if i == 0 {
			// Kind0 was used long ago…
			_ = os.Chtimes(dcEntries(t, dir)[0], old, old)
		}
	}
	var total int64
	for _, p := range dcEntries(t, dir) {
		fi, _ := os.Stat(p)
		total += fi.Size()
	}
	if total > 5*one+one/2 {
		t.Errorf("the cache holds %d bytes, bound %d", total, 5*one+one/2)
	}
	if _, err := os.Stat(filepath.Join(dir, diskKey(defCRD, []byte(dcCRD("Kind11"))))); err != nil {
		t.Errorf("the newest entry was evicted: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, diskKey(defCRD, []byte(dcCRD("Kind0"))))); err == nil {
		t.Error("the least recently used entry was kept")
	}
}

const dcChildEnv = "CRD_LSP_TEST_DECODED_CACHE_CHILD"

// Two processes writing the same entries at once leave only whole,
// correct entries and no temporary files.
func TestDecodedCacheTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	// Children stuck (on the cache's lock, say) are killed: the test fails
	// by name instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for i := range 2 {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestDecodedCacheChild$", "-test.count=1")
		cmd.WaitDelay = 10 * time.Second
		cmd.Env = append(os.Environ(), dcChildEnv+"="+dir, fmt.Sprintf("%s_ORDER=%d", dcChildEnv, i))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			if ctx.Err() != nil {
				t.Fatalf("child %d still running after 5 minutes; killed:\n%s", i, outs[i])
			}
			t.Fatalf("child %d: %v\n%s", i, err, outs[i])
		}
	}
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".tmp-") {
			t.Errorf("temporary file %s left", de.Name())
		}
	}
	for k := range dcChildKinds {
		text := []byte(dcCRD(fmt.Sprintf("Kind%d", k)))
		got, err := os.ReadFile(filepath.Join(dir, diskKey(defCRD, text)))
		if err != nil {
			t.Errorf("Kind%d: %v", k, err)
			continue
		}
		if want := frameEntry(diskKey(defCRD, text), normalize(decodeText(defCRD, text))); !bytes.Equal(got, want) {
			t.Errorf("Kind%d: the entry is not the definition's decoding (%d bytes, want %d)", k, len(got), len(want))
		}
	}
}

const dcChildKinds = 40

// TestDecodedCacheChild is TestDecodedCacheTwoProcesses's writer: it
// stores every entry several times, in its own order.
func TestDecodedCacheChild(t *testing.T) {
	dir := os.Getenv(dcChildEnv)
	if dir == "" {
		t.Skip("run by TestDecodedCacheTwoProcesses")
	}
	SetDecodedCache(dir, 0)
	defer SetDecodedCache("", 0)
	c := currentDisk()
	reverse := os.Getenv(dcChildEnv+"_ORDER") == "1"
	for range 5 {
		for i := range dcChildKinds {
			k := i
			if reverse {
				k = dcChildKinds - 1 - i
			}
			text := []byte(dcCRD(fmt.Sprintf("Kind%d", k)))
			c.store(diskKey(defCRD, text), normalize(decodeText(defCRD, text)))
		}
	}
}
