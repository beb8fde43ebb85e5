// Package lsptest is crd-lsp's end-to-end test harness: a fake editor
// (Editor) that drives the real server, and a marker-based golden test
// runner (RunGolden) on top of it. Feature tests go through it, so they
// see exactly what an editor sees: published diagnostics with versions,
// hover text, completion items, definitions.
//
// # The editor
//
// StartInProcess runs lsp.Serve over an in-memory pipe pair (buffered like
// an OS pipe); StartBinary runs the crd-lsp binary, built once per test
// process by BuildBinary, as a subprocess speaking LSP on stdin/stdout.
// Both return after initialize and initialized, and end the session in
// t.Cleanup (shutdown, exit, wait; a binary that hangs is killed). The
// server's log (in process) or stderr (binary) is written to the test log
// when the test fails.
//
//	e := lsptest.StartInProcess(t, lsptest.Config{Dir: dir, WatchedFiles: true})
//	e.Open("db.yaml", text)                         // relative to Dir; version 1
//	diags := e.AwaitDiagnostics("db.yaml", 1, 5*time.Second)
//	e.Edit("db.yaml", lsptest.Edit{StartLine: 5, StartChar: 10, EndLine: 5, EndChar: 16, Text: "mysql"})
//	diags = e.AwaitDiagnostics("db.yaml", 2, 5*time.Second)
//	h := e.Hover("db.yaml", 5, 4)
//
// Positions passed to and returned by the editor are LSP positions in the
// negotiated encoding (Editor.Encoding; Config.PositionEncodings chooses
// what is offered); CharColumn and ByteColumn convert from and to byte
// columns. The editor answers the server's requests: workspace/configuration
// with Config.Settings (the "crdLsp" section; SetSettings changes it and
// notifies), workspace/workspaceFolders with Dir and Folders,
// client/registerCapability (Registrations), window/workDoneProgress/create.
// Every message the server sends is recorded (Events, Log, Diagnostics,
// PublishedVersions) and every wait has a timeout and fails the test with
// a dump of what arrived (Dump).
//
// # Markers
//
// RunGolden(t, dir) starts one in-process editor whose workspace root is
// dir, opens every *.yaml and *.yml file under dir (recursively), waits for
// the diagnostics to settle, and checks each file in a subtest. The
// expectations live in the files themselves, as comment lines placed under
// the line they refer to. A marker line is a comment whose first non-blank
// character after '#' is '^'; the caret's byte column is the target column
// on the nearest preceding line that is not a marker line. Several markers
// may stack under one line. Write ^N to give column N explicitly (^0 for
// the first column, where the '#' itself stands):
//
//	spec:
//	  engin: postgres
//	# ^ diag error unknown-field "unknown field \"engin\""
//	      replicas: three
//	#               ^ diag error type "must be .*integer"
//	  forProvider:
//	# ^ hover "Region is the region"
//	# ^ nodiag
//	    reg
//	#      ^ complete "region" "regionRef"
//	kind: Thing
//	#^0 diag warning - "unknown kind"
//
// Verbs:
//
//	diag <error|warning|info|hint> <code|-> "<regexp>"
//	    a diagnostic with that severity and code ("-": any code) whose
//	    message matches the regexp starts exactly at that line and column
//	nodiag
//	    no diagnostic starts on that line (the column is ignored)
//	hover "<regexp>"
//	    the hover text (markdown as sent) at that position matches
//	complete "<label>"...
//	    completion at that position offers each label
//
// Arguments are words or Go-quoted strings. Every diagnostic the server
// publishes for a file must be matched by a diag marker; one that is not
// fails the test. Columns are bytes of the file as written (so lines may
// hold any UTF-8); the server's positions are converted with the
// negotiated encoding before they are compared. Marker lines are ordinary
// YAML comments, so the server sees the file as written, markers included.
//
// # Golden files
//
// Beside each input, <name>.golden (the input's name with .golden in place
// of .yaml or .yml) records every diagnostic as
//
//	line:col severity [code] message
//
// (1-based, byte columns, sorted, newlines in messages written as \n),
// then, in marker order, each hover ("hover line:col:" and the text,
// indented) and completion answer ("complete line:col:" and one item per
// line: label, kind, detail, insert text). RunGolden compares it with the
// server's answers; `go test -update` rewrites it. The -update flag is
// defined here, in every test binary that links lsptest: packages that
// import lsptest must not define their own, and read it with Update().
//
// Feature tests keep their golden folders under testdata/golden/<feature>/
// at the repository root, each folder one workspace, and call
//
//	lsptest.RunGolden(t, "../../testdata/golden/<feature>")
//
// (RunGoldenConfig for settings or extra folders). The checker itself is
// available as ParseMarkers, CheckDiagnostics and Editor.CheckFile.
//
// Note that RunGolden waits for the server's "schemas loaded" log message
// before it opens the files, so that the first diagnostics already know
// every schema.
package lsptest
