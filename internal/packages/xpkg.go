// This file reads a package's layer safely (size and entry caps, no unsafe
// paths) and splits its package.yaml into metadata and definitions.

package packages

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"gopkg.in/yaml.v3"
)

// Limits bound what a layer may make us read.
type Limits struct {
	// MaxPackageSize caps package.yaml (uncompressed). Default 200 MiB.
	MaxPackageSize int64
	// MaxLayerSize caps the whole uncompressed layer. Default 1 GiB.
	MaxLayerSize int64
	// MaxEntries caps the tar entries read before package.yaml. Default 10000.
	MaxEntries int
	// MaxBlobSize caps the compressed layer. Default 1 GiB.
	MaxBlobSize int64
	// MaxTags caps the tags listed for one package. Default 100000.
	MaxTags int
	// MaxDocuments caps the YAML documents of package.yaml. Default
	// 100000.
	MaxDocuments int
	// MaxDocumentSize caps each document of package.yaml, so that what
	// parses one (its header, its schema on first use) stays small.
	// Default 8 MiB (the API server stores no object above 3 MiB).
	MaxDocumentSize int
	// MaxRuntimeSize caps what a Function package's runtime image unpacks
	// to (its files' bytes, every layer together; runtime.go). Default
	// 1 GiB.
	MaxRuntimeSize int64
	// MaxRuntimeEntries caps the tar entries of a runtime image's layers
	// together. Default 100000.
	MaxRuntimeEntries int
}

func (l Limits) withDefaults() Limits {
	if l.MaxPackageSize <= 0 {
		l.MaxPackageSize = 200 << 20
	}
	if l.MaxLayerSize <= 0 {
		l.MaxLayerSize = 1 << 30
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = 10000
	}
	if l.MaxBlobSize <= 0 {
		l.MaxBlobSize = 1 << 30
	}
	if l.MaxTags <= 0 {
		l.MaxTags = 100000
	}
	if l.MaxDocuments <= 0 {
		l.MaxDocuments = 100000
	}
	if l.MaxDocumentSize <= 0 {
		l.MaxDocumentSize = 8 << 20
	}
	if l.MaxRuntimeSize <= 0 {
		l.MaxRuntimeSize = 1 << 30
	}
	if l.MaxRuntimeEntries <= 0 {
		l.MaxRuntimeEntries = 100000
	}
	return l
}

// errNoPackageYAML: the layer is well-formed but has no package.yaml.
var errNoPackageYAML = errors.New("layer has no package.yaml")

// readPackageYAML reads package.yaml from a (gzipped or plain) tar stream,
// refusing unsafe or oversized content. It stops after package.yaml.
func readPackageYAML(r io.Reader, lim Limits) ([]byte, error) {
	br := bufio.NewReader(r)
	var tr *tar.Reader
	magic, _ := br.Peek(2)
	var content io.Reader = br
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("layer is not valid gzip: %w", err)
		}
		defer gz.Close()
		content = gz
	}
	// Cap everything decompressed, not only package.yaml: skipping an
	// entry decompresses it too.
	capped := &capReader{r: content, n: lim.MaxLayerSize}
	tr = tar.NewReader(capped)
	for n := 1; ; n++ {
		if n > lim.MaxEntries {
			return nil, fmt.Errorf("layer has more than %d entries before package.yaml; refused", lim.MaxEntries)
		}
		h, err := tr.Next()
		if err == io.EOF {
			return nil, errNoPackageYAML
		}
		if err != nil {
			if capped.hit {
				return nil, fmt.Errorf("layer decompresses to more than %d bytes; refused", lim.MaxLayerSize)
			}
			return nil, fmt.Errorf("layer is not a valid tar archive: %w", err)
		}
		name, err := safeName(h.Name)
		if err != nil {
			return nil, err
		}
		switch h.Typeflag {
		case tar.TypeSymlink, tar.TypeLink:
			return nil, fmt.Errorf("layer entry %q is a link (to %q); refused", h.Name, h.Linkname)
		case tar.TypeReg, tar.TypeRegA:
		default:
			continue
		}
		if name != "package.yaml" {
			continue
		}
		if h.Size > lim.MaxPackageSize {
			return nil, fmt.Errorf("package.yaml is %d bytes, more than the %d allowed; refused", h.Size, lim.MaxPackageSize)
		}
		// Read into one buffer of the announced size: no doubling while
		// growing (the tar reader ends the entry at h.Size).
		b := make([]byte, h.Size)
		if _, err := io.ReadFull(tr, b); err != nil {
			if capped.hit {
				return nil, fmt.Errorf("layer decompresses to more than %d bytes; refused", lim.MaxLayerSize)
			}
			return nil, fmt.Errorf("reading package.yaml: %w", err)
		}
		return b, nil
	}
}

// safeName cleans a tar entry name, refusing absolute paths and "..".
func safeName(name string) (string, error) {
	n := strings.ReplaceAll(name, "\\", "/")
	if strings.HasPrefix(n, "/") || (len(n) >= 2 && n[1] == ':') {
		return "", fmt.Errorf("layer entry %q has an absolute path; refused", name)
	}
	for _, seg := range strings.Split(n, "/") {
		if seg == ".." {
			return "", fmt.Errorf("layer entry %q leaves the archive (..); refused", name)
		}
	}
	return path.Clean(n), nil
}

// capReader fails once more than n bytes were read.
type capReader struct {
	r   io.Reader
	n   int64
	hit bool
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		c.hit = true
		return 0, fmt.Errorf("decompressed size limit exceeded")
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	k, err := c.r.Read(p)
	c.n -= int64(k)
	return k, err
}

// Object is one definition a package ships.
type Object struct {
	APIVersion, Kind, Name string
	// Offset is the byte offset of the document in the package's YAML.
	Offset int
	// YAML is the document's text (a sub-slice of Package.YAML).
	YAML []byte
}

// definitionKinds are the objects kept from package.yaml.
var definitionKinds = map[string]bool{
	"apiextensions.k8s.io/CustomResourceDefinition":           true,
	"apiextensions.crossplane.io/CompositeResourceDefinition": true,
	"apiextensions.crossplane.io/ManagedResourceDefinition":   true,
	"apiextensions.crossplane.io/Composition":                 true,
}

// split divides a package.yaml stream into its metadata document and its
// definitions, keeping each document's bytes. Streams with more than
// lim.MaxDocuments documents or a document over lim.MaxDocumentSize are
// refused before any document is parsed.
func split(data []byte, lim Limits) (meta []byte, metaKind string, objs []Object, err error) {
	docs := documents(data, lim.MaxDocuments+1)
	if len(docs) > lim.MaxDocuments {
		return nil, "", nil, fmt.Errorf("package.yaml has more than %d documents; refused", lim.MaxDocuments)
	}
	for _, d := range docs {
		if len(d.text) > lim.MaxDocumentSize {
			line := bytes.Count(data[:d.offset], []byte("\n")) + 1
			return nil, "", nil, fmt.Errorf("package.yaml's document at line %d is %s, more than the %s a document may have; refused", line, sizeText(int64(len(d.text))), sizeText(int64(lim.MaxDocumentSize)))
		}
	}
	for _, d := range docs {
		av, kind, name := header(d.text)
		if av == "" || kind == "" {
			continue
		}
		group := av
		if i := strings.Index(av, "/"); i >= 0 {
			group = av[:i]
		}
		if group == MetaGroup {
			if meta == nil {
				meta, metaKind = d.text, kind
			}
			continue
		}
		if definitionKinds[group+"/"+kind] {
			objs = append(objs, Object{APIVersion: av, Kind: kind, Name: name, Offset: d.offset, YAML: d.text})
		}
	}
	if meta == nil {
		return nil, "", nil, fmt.Errorf("package.yaml has no %s document", MetaGroup)
	}
	return meta, metaKind, objs, nil
}

type doc struct {
	offset int
	text   []byte
}

// documents splits a YAML stream at "---" lines without parsing it,
// stopping after max documents.
func documents(data []byte, max int) []doc {
	var out []doc
	start := 0
	emit := func(end int) {
		if t := data[start:end]; len(bytes.TrimSpace(t)) > 0 {
			out = append(out, doc{start, t})
		}
	}
	for i := 0; i < len(data) && len(out) < max; {
		j := bytes.IndexByte(data[i:], '\n')
		lineEnd := len(data)
		if j >= 0 {
			lineEnd = i + j
		}
		line := data[i:lineEnd]
		if isMarker(line, "---") || isMarker(line, "...") {
			emit(i)
			start = lineEnd + 1
			if start > len(data) {
				start = len(data)
			}
		}
		if j < 0 {
			break
		}
		i = lineEnd + 1
	}
	if start < len(data) && len(out) < max {
		emit(len(data))
	}
	return out
}

// sizeText writes a byte count for people: "512 bytes", "3.2 MiB".
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func isMarker(line []byte, m string) bool {
	if !bytes.HasPrefix(line, []byte(m)) {
		return false
	}
	rest := line[len(m):]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r'
}

// header finds apiVersion, kind and metadata.name with a line scan of the
// top level, falling back to a YAML parse of the document.
func header(full []byte) (apiVersion, kind, name string) {
	d := full
	inMeta := false
	for len(d) > 0 {
		var line []byte
		if i := bytes.IndexByte(d, '\n'); i >= 0 {
			line, d = d[:i], d[i+1:]
		} else {
			line, d = d, nil
		}
		line = bytes.TrimRight(line, "\r")
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		if line[0] != ' ' {
			inMeta = false
			k, v, ok := bytes.Cut(line, []byte(":"))
			if !ok {
				return headerSlow(full)
			}
			switch string(k) {
			case "apiVersion":
				apiVersion = scalar(v)
			case "kind":
				kind = scalar(v)
			case "metadata":
				inMeta = len(bytes.TrimSpace(v)) == 0
			}
		} else if inMeta && name == "" {
			t := bytes.TrimLeft(line, " ")
			indent := len(line) - len(t)
			if v, ok := bytes.CutPrefix(t, []byte("name:")); ok && indent > 0 {
				name = scalar(v)
			}
		}
		if apiVersion != "" && kind != "" && name != "" {
			return
		}
	}
	if apiVersion == "" || kind == "" {
		return headerSlow(full)
	}
	return
}

func scalar(v []byte) string {
	s := strings.TrimSpace(string(v))
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return s
}

func headerSlow(d []byte) (apiVersion, kind, name string) {
	var h struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
	}
	if yaml.Unmarshal(d, &h) != nil {
		return "", "", ""
	}
	return h.APIVersion, h.Kind, h.Metadata.Name
}
