package schemas

import (
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/schemas/builtin"
)

// BenchmarkDecodeEverydayKinds decodes the built-in CRDs of five everyday
// Kubernetes kinds the three ways they could be had: from their YAML (a
// cold run), from the decoded cache on disk (a warm run), and from
// protobuf already in memory (what a bundle pre-decoded at build time and
// embedded in the binary would cost at best).
//
//	go test -run '^$' -bench DecodeEverydayKinds ./internal/schemas
func BenchmarkDecodeEverydayKinds(b *testing.B) {
	set, err := builtin.Kubernetes()
	if err != nil {
		b.Fatal(err)
	}
	var texts [][]byte
	for _, f := range set.Files {
		for _, k := range []string{"#Deployment", "#Service", "#ConfigMap", "#Secret", "#Pod"} {
			if strings.HasSuffix(f.Name, k) {
				texts = append(texts, f.Data)
			}
		}
	}
	if len(texts) != 5 {
		b.Fatalf("found %d of the five kinds", len(texts))
	}
	b.Run("yaml", func(b *testing.B) {
		for range b.N {
			for _, t := range texts {
				decodeText(defCRD, t)
			}
		}
	})
	b.Run("disk-cache", func(b *testing.B) {
		SetDecodedCache(b.TempDir(), 0)
		defer SetDecodedCache("", 0)
		c := currentDisk()
		keys := make([]string, len(texts))
		for i, t := range texts {
			decodeDefinition(defCRD, t)
			keys[i] = diskKey(defCRD, t)
		}
		b.ResetTimer()
		for range b.N {
			for i, t := range texts {
				// What decodeDefinition does on a hit: hash the text, read
				// and check the entry, decode it.
				if diskKey(defCRD, t) != keys[i] || c.load(keys[i]) == nil {
					b.Fatal("miss")
				}
			}
		}
	})
	b.Run("embedded-protobuf", func(b *testing.B) {
		encs := make([][]byte, len(texts))
		for i, t := range texts {
			encs[i] = normalize(decodeText(defCRD, t))
		}
		b.ResetTimer()
		for range b.N {
			for _, e := range encs {
				if _, err := decodeEntry(e); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
