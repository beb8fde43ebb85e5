// Package lsptest is crd-lsp's end-to-end harness: a fake editor (Editor)
// that drives the real server, in-process over a pipe (StartInProcess) or as
// the built binary in a subprocess (StartBinary), and a marker-based golden
// test runner (RunGolden). Feature tests go through it, so they see exactly
// what an editor sees: published diagnostics with versions, hover text,
// completion labels.
//
// # Markers
//
// Expectations live in the YAML test files as comment lines placed under
// the line they refer to. The caret's byte column is the target column
// (write ^N to give column N explicitly, e.g. ^0 for the first column):
//
//	spec:
//	  engin: postgres
//	# ^ diag error unknown-field "unknown field \"engin\""
//	  replicas: three
//	#           ^ diag error type "must be of type integer"
//	  region: us-east-1
//	# ^ nodiag
//	# ^ hover "Region is the region"
//
// Verbs:
//
//	diag <error|warning|info|hint> <code|-> "<regexp>"   a diagnostic starts exactly there
//	nodiag                                                no diagnostic starts on that line
//	hover "<regexp>"                                      the hover text there matches
//	complete "<label>"...                                 completion there offers each label
//
// Every published diagnostic must be matched by a diag marker. Beside each
// input, <name>.golden records every diagnostic ("line:col severity [code]
// message", 1-based byte columns) and each hover and completion answer; it is
// compared too, and `go test -update` rewrites it. Marker lines are ordinary
// YAML comments, so the server sees the file as written.
//
// Feature tests keep their golden folders under testdata/golden/<feature>/
// at the repository root; each folder is one workspace.
package lsptest
