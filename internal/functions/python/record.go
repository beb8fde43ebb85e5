// This file is what crd-lsp knows of function-python, proven by its recorded
// answers (testdata/conformance).

package python

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-python's record.
var Function = functions.Known{
	Name:       "function-python",
	Repository: "https://github.com/crossplane-contrib/function-python",
	Inputs:     []functions.InputKind{{Group: "python.fn.crossplane.io", Kind: "Script", Versions: []string{"v1beta1"}}},
}
