// This file is what crd-lsp knows of function-extra-resources, proven by its recorded
// answers (testdata/conformance).

package extraresources

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-extra-resources's record.
var Function = functions.Known{
	Name:            "function-extra-resources",
	Repository:      "https://github.com/crossplane-contrib/function-extra-resources",
	Inputs:          []functions.InputKind{{Group: "extra-resources.fn.crossplane.io", Kind: "Input", Versions: []string{"v1beta1"}}},
	ComposesNothing: true,
}
