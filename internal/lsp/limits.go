// This file holds the LSP layer's limits and how they are reported.

package lsp

import (
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// limitHint names the setting that raises a size limit err hit ("" for
// other errors).
func limitHint(err error, setting string) string {
	if fe, ok := workspace.IsFileError(err); ok && fe.TooLarge {
		return " (raise crdLsp." + setting + " to read it)"
	}
	return ""
}
