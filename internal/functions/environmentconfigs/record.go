// This file is what crd-lsp knows of function-environment-configs, proven
// by its recorded answers (testdata/conformance).

package environmentconfigs

import "github.com/crd-lsp/crd-lsp/internal/functions"

// Function is function-environment-configs' record. Its in-process runner
// needs the workspace's EnvironmentConfigs, which analysis hands
// ResolveFunction itself.
var Function = functions.Known{
	Name:            "function-environment-configs",
	Repository:      "https://github.com/crossplane-contrib/function-environment-configs",
	Inputs:          []functions.InputKind{{Group: "environmentconfigs.fn.crossplane.io", Kind: "Input", Versions: []string{"v1beta1"}}},
	ComposesNothing: true,
}
