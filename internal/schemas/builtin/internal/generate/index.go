package generate

import (
	"bytes"
	"fmt"
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
	docs, err := Split(bundle)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	off := 0 // the documents are contiguous: separator, origin, body
	for _, d := range docs {
		if strings.ContainsAny(d.Origin, "\t\r") {
			return nil, fmt.Errorf("origin %q holds a tab or carriage return", d.Origin)
		}
		off += len(Separator) + len(d.Origin) + 1
		body := d.Body
		open := func() ([]byte, error) { return body, nil }
		_, defs := schemas.IndexPersisted(schemas.FileInput{Path: d.Origin, Content: body, Open: open})
		if defs == nil || bytes.ContainsAny(defs, "\n\t") {
			return nil, fmt.Errorf("%s: no one-line index of its definitions", d.Origin)
		}
		fmt.Fprintf(&out, "%d\t%d\t%s\t%s\n", off, len(body), d.Origin, defs)
		off += len(body)
	}
	if off != len(bundle) {
		return nil, fmt.Errorf("the documents cover %d of the bundle's %d bytes", off, len(bundle))
	}
	return out.Bytes(), nil
}
