// This file places what function-dummy steps compose on the literal
// resource in the step's input.

package analysis

import (
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions"
)

// dummyResourcePath is where the input of a function-dummy step at sp
// writes the composed resource name literally, if it does.
func dummyResourcePath(st functions.Step, sp fieldpath.Path, name string) (fieldpath.Path, bool) {
	p := fieldpath.Path{fieldpath.Field("response"), fieldpath.Field("desired"), fieldpath.Field("resources"), fieldpath.Field(name), fieldpath.Field("resource")}
	if _, ok := valueAt(st.Input, p).(map[string]any); !ok {
		return nil, false
	}
	return sp.Child(fieldpath.Field("input")).Child(p...), true
}
