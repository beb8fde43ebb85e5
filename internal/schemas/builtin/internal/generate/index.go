package generate

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// IndexSuffix ends the name of a bundle's index file:
// kubernetes-v1.37.yaml.index indexes kubernetes-v1.37.yaml.
const IndexSuffix = ".index"

// Index returns the index of a bundle: for every document, in order, one
// line
//
//	<offset>\t<length>\t<origin>\t<definitions>\n
//
// where offset and length locate the document's text (after its source
// comment line) in the bundle, origin is that line's origin, and
// definitions is what schemas.IndexPersisted records of the text as a file
// of its own (JSON on one line: the kinds, versions, names and
// description the store lists, and the text's length and checksum).
// With it, package builtin hands out a bundle's documents, and the schema
// store indexes them (schemas.DecodeIndexed), without reading a byte of
// the bundle: a document is read when its kind is first validated or
// described.
func Index(bundle []byte) ([]byte, error) {
	sep := []byte(Separator)
	if !bytes.HasPrefix(bundle, sep) {
		return nil, fmt.Errorf("the bundle does not start with %q", Separator)
	}
	var out bytes.Buffer
	for off := 0; off < len(bundle); {
		off += len(sep)
		nl := bytes.IndexByte(bundle[off:], '\n')
		if nl < 0 {
			return nil, fmt.Errorf("a truncated document at byte %d", off)
		}
		origin := string(bundle[off : off+nl])
		if strings.ContainsAny(origin, "\t\r") {
			return nil, fmt.Errorf("origin %q holds a tab or carriage return", origin)
		}
		start := off + nl + 1
		end := bytes.Index(bundle[start:], []byte("\n"+Separator))
		if end < 0 {
			end = len(bundle)
		} else {
			end += start + 1 // keep the document's final newline
		}
		doc := bundle[start:end:end]
		open := func() ([]byte, error) { return doc, nil }
		_, defs := schemas.IndexPersisted(schemas.FileInput{Path: origin, Content: doc, Open: open})
		if defs == nil || bytes.ContainsAny(defs, "\n\t") {
			return nil, fmt.Errorf("%s: no one-line index of its definitions", origin)
		}
		out.WriteString(strconv.Itoa(start))
		out.WriteByte('\t')
		out.WriteString(strconv.Itoa(end - start))
		out.WriteByte('\t')
		out.WriteString(origin)
		out.WriteByte('\t')
		out.Write(defs)
		out.WriteByte('\n')
		off = end
	}
	return out.Bytes(), nil
}
