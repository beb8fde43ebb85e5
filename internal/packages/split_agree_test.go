package packages

import (
	"bytes"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
)

// The package splitter is a byte scanner (no line table for a package.yaml
// of hundreds of MiB), but it must cut where internal/document, the one
// YAML reader of positions, cuts: "---" (alone, or before a blank or a
// comment, CRLF or not) starts a document, "..." ends one, "---foo" is
// content.
func TestDocumentsSplitAsDocumentDoes(t *testing.T) {
	for _, text := range []string{
		"a: 1\n---\nb: 2\n",
		"---\na: 1\n--- # two\nb: 2\n...\n---\nc: 3\n",
		"a: 1\r\n---\r\nb: 2\r\n...\r\nc: 3\r\n",
		"a: |\n  ---foo\n---foo: 1\n---\t\nb: 2\n",
		"\n\n---\n\n---\na: 1\n",
	} {
		var fromDocument [][]byte
		_, spans := document.Split([]byte(text))
		for _, sp := range spans {
			body := []byte(text[sp.Start:sp.End])
			// The package's documents start after their marker line and
			// end before a "..." line; empty ones are dropped.
			for len(body) > 0 {
				line, _, _ := bytes.Cut(body, []byte("\n"))
				if t := bytes.TrimSpace(line); len(t) > 0 && !isMarker(bytes.TrimRight(line, "\r"), "---") {
					break
				}
				body = body[min(len(line)+1, len(body)):]
			}
			if i := bytes.LastIndex(body, []byte("\n...")); i >= 0 && len(bytes.TrimSpace(body[i+4:])) == 0 {
				body = body[:i+1]
			} else if bytes.HasPrefix(body, []byte("...")) {
				body = nil
			}
			if len(bytes.TrimSpace(body)) > 0 {
				fromDocument = append(fromDocument, bytes.TrimSpace(body))
			}
		}
		docs := documents([]byte(text), 100)
		if len(docs) != len(fromDocument) {
			t.Errorf("%q: packages cuts %d documents, internal/document %d", text, len(docs), len(fromDocument))
			continue
		}
		for i, d := range docs {
			if got := bytes.TrimSpace(d.text); !bytes.Equal(got, fromDocument[i]) {
				t.Errorf("%q: document %d is %q for packages, %q for internal/document", text, i, got, fromDocument[i])
			}
		}
	}
}
