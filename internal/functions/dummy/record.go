// This file is what crd-lsp knows of function-dummy.

package dummy

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-dummy's record.
var Function = functions.Known{
	Name:       "function-dummy",
	Repository: "https://github.com/crossplane-contrib/function-dummy",
	Inputs:     []functions.InputKind{{Group: "dummy.fn.crossplane.io", Kind: "Response", Versions: []string{"v1beta1"}}},
	Native:     func(functions.NativeEnv) functions.NativeFunc { return Native },
}
