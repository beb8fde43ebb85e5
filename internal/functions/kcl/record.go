// This file is what crd-lsp knows of function-kcl, proven by its recorded
// answers (testdata/conformance).

package kcl

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-kcl's record.
var Function = functions.Known{
	Name:       "function-kcl",
	Repository: "https://github.com/crossplane-contrib/function-kcl",
	Inputs:     []functions.InputKind{{Group: "krm.kcl.dev", Kind: "KCLInput", Versions: []string{"v1alpha1"}}, {Group: "krm.kcl.dev", Kind: "KCLRun", Versions: []string{"v1alpha1"}, Documented: true}},
}
