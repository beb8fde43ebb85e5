// This file finds the field a finding's span is on (PathOf), for the field
// paths check prints.

package document

import "github.com/crd-lsp/crd-lsp/internal/fieldpath"

// PathOf is the field a finding's span is on: the deepest path whose key
// and value together cover s (a finding on a key, a value, or a whole
// mapping entry). ok is false when s covers more than any one field (a
// whole document) or lies in no document.
func (f *File) PathOf(s Span) (fieldpath.Path, bool) {
	h, ok := f.At(s.Start)
	if !ok {
		return nil, false
	}
	for p := h.Path; len(p) > 0; p = p.Parent() {
		k, v, ok := h.Doc.Spans(p)
		if !ok {
			continue
		}
		start, end := v.Start, v.End
		if !k.IsZero() {
			start, end = min(start, k.Start), max(end, k.End)
		}
		if start <= s.Start && s.End <= end {
			return p, true
		}
	}
	return nil, false
}
