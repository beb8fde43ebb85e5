package testfixtures

import _ "embed" // the fixtures below

// KCLInputCRD is function-kcl's input CRD (krm.kcl.dev/v1alpha1
// KCLInput) cut to source and target, the enum of targets as the
// function's CRD declares it; the pattern on source and the count field
// are the tests' own (function-kcl v0.12.2 has neither), for checks of
// those schema shapes on a function input.
//
//go:embed testdata/kclinputs.krm.kcl.dev.yaml
var KCLInputCRD string
