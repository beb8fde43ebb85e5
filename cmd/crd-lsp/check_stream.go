// This file is check's analyse and print steps: files cut into parts diagnosed
// on all cores, then written in path order, in every output format, as each
// file completes.

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/overlays"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// check streams: a producer cuts every file (in path order) into parts of
// a few YAML documents, workers parse and diagnose the parts on all
// cores, and the writer puts the parts back in order, writing each file's
// findings as soon as its last part is in. At most a window of parts is
// parsed or waiting at any time, so memory depends on the size of a part
// and the number of cores, not on how many documents there are; only the
// findings of the file being written are held until it is complete
// (they are sorted as a whole, as analysis.Diagnose sorts them).

var (
	// checkJobs is the number of workers (0: GOMAXPROCS). Tests set it to
	// compare sequential and parallel runs.
	checkJobs = 0
	// checkPartBytes is the size from which a file's documents are cut
	// into several parts (each at least this large, or one document).
	checkPartBytes = 8 << 10
	// partsChecked counts the parts diagnosed (tests watch the window).
	partsChecked atomic.Int64
)

// checkPart is a run of consecutive documents of one file.
type checkPart struct {
	seq   int
	file  *checkFile
	spans []document.Span
	first int // the index of the first document
	last  bool
}

// checkFile is what the parts of one file share.
type checkFile struct {
	path   string
	text   []byte
	mapper *document.Mapper
	env    analysis.Env
	// built is what the kustomizations build says of the files (nil:
	// nothing built).
	built *overlays.Result
}

// finding is a diagnostic ready to print, with what sorts it and its
// range in UTF-16 code units (SARIF's columns).
type finding struct {
	start, byteEnd int
	diag           jsonDiagnostic
	utf16          document.Range
}

type partResult struct {
	part     *checkPart
	findings []finding
}

// checkWriter writes the findings, in text, JSON, GitHub annotations or
// SARIF, as files complete, and counts them.
type checkWriter struct {
	out    *bufio.Writer
	json   bool
	format string
	sarif  *sarifLog // the SARIF document, written at the end
	sum    summary
	nfiles int
	runs   func() []jsonPackageRun
}

// streamCheck diagnoses every file against the World, as the editor does
// (package metadata problems included), writing each file's findings in
// path order as soon as it is done, then the summary. Hints (editor
// suggestions) are left out.
//
// runs, when not nil, gives the Functions run from their packages, for
// the JSON output's "functions" (read once every file is done).
func streamCheck(ctx context.Context, world *loader.World, files loader.Files, built *overlays.Result, log *slog.Logger, stdout io.Writer, output string, runs func() []jsonPackageRun) summary {
	workers := checkJobs
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	window := 2*workers + 2
	slots := make(chan struct{}, window) // parts in flight or waiting to be written
	parts := make(chan *checkPart, window)
	results := make(chan partResult, window)

	go func() {
		defer close(parts)
		seq := 0
		for i := range files {
			in := files[i]
			files[i].Content = nil // the parts hold it until they are written
			if major, from := world.MajorOf(in.Path); from != "default" {
				log.Debug("targeting Crossplane", "file", in.Path, "major", major, "from", from)
			}
			m, spans := document.Split(in.Content)
			cf := &checkFile{path: in.Path, text: in.Content, mapper: m, env: world.Env(in.Path), built: built}
			for first := 0; first < len(spans); {
				end, size := first, 0
				for end < len(spans) && (end == first || size < checkPartBytes) {
					size += spans[end].Len()
					end++
				}
				slots <- struct{}{}
				parts <- &checkPart{seq: seq, file: cf, spans: spans[first:end], first: first, last: end == len(spans)}
				seq++
				first = end
			}
		}
	}()

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range parts {
				results <- partResult{part: p, findings: diagnosePart(ctx, p)}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	w := &checkWriter{out: bufio.NewWriter(stdout), json: output == "json", format: output, runs: runs}
	w.begin()
	pending := map[int]partResult{}
	next := 0
	var cur []finding // the findings of the file being completed
	for r := range results {
		pending[r.part.seq] = r
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-slots
			cur = append(cur, r.findings...)
			if r.part.last {
				w.file(r.part.file.path, finishFile(world, r.part.file, cur))
				cur = nil
			}
		}
	}
	w.end()
	return w.sum
}

// diagnosePart parses and diagnoses one part, returning its findings in
// the order analysis.Diagnose gives them, hints left out.
func diagnosePart(ctx context.Context, p *checkPart) []finding {
	f := p.file
	doc := document.ParsePart(f.path, f.text, f.mapper, p.spans, p.first)
	diags := analysis.Diagnose(ctx, doc, f.env)
	partsChecked.Add(1)
	out := make([]finding, 0, len(diags))
	for _, d := range diags {
		if d.Severity == severity.Hint {
			continue // suggestions (deprecated but supported forms) are for the editor
		}
		if f.built.Drop(f.path, d) {
			continue // what a whole object needs, judged on what the builds make of it
		}
		fd := toFinding(f.mapper, d)
		out = append(out, fd)
	}
	return out
}

func toFinding(m *document.Mapper, d analysis.Diagnostic) finding {
	line, col := m.LineCol(d.Span.Start)
	eline, ecol := m.LineCol(d.Span.End)
	r, _ := m.Range(d.Span, document.UTF16) // (a span of the text: cannot fail)
	return finding{start: d.Span.Start, byteEnd: d.Span.End, utf16: r, diag: jsonDiagnostic{Line: line, Column: col, EndLine: eline, EndColumn: ecol, Severity: d.Severity.String(), Code: d.Code, Message: d.Message, Field: d.Path}}
}

// finishFile orders a file's findings as analysis.Diagnose orders those of
// the whole file (each part is already in that order: a stable sort of
// their concatenation is the same), then adds the package metadata
// problems of a crossplane.yaml, ordered by start only.
func finishFile(world *loader.World, f *checkFile, fs []finding) []finding {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].start != fs[j].start {
			return fs[i].start < fs[j].start
		}
		return fs[i].diag.Message < fs[j].diag.Message
	})
	// What the kustomizations build says of the file, less what the file
	// says already (overlays.Result.Merge, as the editor merges).
	if extra := f.built.Findings(f.path, func(d analysis.Diagnostic) bool {
		for _, o := range fs {
			if o.start == d.Span.Start && o.byteEnd == d.Span.End && o.diag.Code == d.Code && o.diag.Message == d.Message {
				return true
			}
		}
		return false
	}); len(extra) > 0 {
		for _, d := range extra {
			if d.Severity != severity.Hint {
				fs = append(fs, toFinding(f.mapper, d))
			}
		}
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].start < fs[j].start })
	}
	if m, ok := world.Meta(f.path); ok {
		for _, d := range loader.PackageProblems(m, world.Results(f.path), false) {
			if d.Severity != severity.Hint {
				fs = append(fs, toFinding(f.mapper, d))
			}
		}
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].start < fs[j].start })
	}
	// As the editor shows them (analysis.Cap): bounded per line and per
	// file, summaries for the rest, long messages cut.
	fs = analysis.Cap(fs, analysis.Capper[finding]{
		Line:     func(f finding) int { return f.diag.Line },
		Severity: func(f finding) severity.Severity { s, _ := severity.Parse(f.diag.Severity); return s },
		Summary: func(first finding, worst severity.Severity, msg string) finding {
			first.diag.Severity, first.diag.Code, first.diag.Message = worst.String(), analysis.CodeTooMany, msg
			return first
		},
	})
	for i := range fs {
		fs[i].diag.Message = analysis.TruncateMessage(fs[i].diag.Message)
	}
	return fs
}

// The JSON output is what encoding/json's Encoder with a two-space
// indent writes for {"files": [...], "summary": {...}}, one file at a
// time ({"files": [...], "functions": [...], "summary": {...}} when
// Functions ran from their packages: which digest ran, or why not).

func (w *checkWriter) begin() {
	if w.format == "sarif" {
		w.sarif = newSARIF()
	}
	if w.json {
		w.out.WriteString("{\n  \"files\": ")
	}
}

func (w *checkWriter) file(path string, fs []finding) {
	w.nfiles++
	for _, f := range fs {
		if strings.Contains(f.diag.Message, "not in the package cache") {
			w.sum.unpulled++
		}
		switch f.diag.Severity {
		case severity.Error.String():
			w.sum.Errors++
		case severity.Warning.String():
			w.sum.Warnings++
		default:
			w.sum.Infos++
		}
	}
	switch w.format {
	case "sarif":
		w.sarif.add(path, fs)
		return
	case "github":
		for _, f := range fs {
			w.out.WriteString(githubAnnotation(path, f))
		}
		_ = w.out.Flush()
		return
	}
	if w.json {
		cf := checkedFile{Diagnostics: make([]jsonDiagnostic, len(fs))}
		cf.Path, cf.PathEscaped = jsonPath(path)
		for i, f := range fs {
			cf.Diagnostics[i] = f.diag
		}
		b, err := json.MarshalIndent(cf, "    ", "  ")
		if err != nil {
			panic(err) // plain strings and ints: cannot fail
		}
		if w.nfiles == 1 {
			w.out.WriteString("[\n    ")
		} else {
			w.out.WriteString(",\n    ")
		}
		w.out.Write(b)
		return
	}
	for _, f := range fs {
		d := f.diag
		w.out.WriteString(printable(path))
		w.out.WriteByte(':')
		w.out.WriteString(strconv.Itoa(d.Line))
		w.out.WriteByte(':')
		w.out.WriteString(strconv.Itoa(d.Column))
		w.out.WriteString(": ")
		w.out.WriteString(d.Severity)
		w.out.WriteString(": ")
		w.out.WriteString(printable(d.Message))
		if d.Code != "" {
			w.out.WriteString(" [" + d.Code + "]")
		}
		if d.Field != "" && !strings.HasPrefix(d.Message, d.Field+": ") {
			w.out.WriteString(" at " + printable(d.Field))
		}
		w.out.WriteByte('\n')
	}
	// A file's findings reach the reader as soon as it is done.
	_ = w.out.Flush()
}

func (w *checkWriter) end() {
	sum := &w.sum
	sum.Files = w.nfiles
	if w.sarif != nil {
		_ = w.sarif.write(w.out)
		_ = w.out.Flush()
		return
	}
	if w.json {
		if w.nfiles == 0 {
			w.out.WriteString("null")
		} else {
			w.out.WriteString("\n  ]")
		}
		if w.runs != nil {
			if runs := w.runs(); len(runs) > 0 {
				b, err := json.MarshalIndent(runs, "  ", "  ")
				if err != nil {
					panic(err) // plain strings and bools: cannot fail
				}
				w.out.WriteString(",\n  \"functions\": ")
				w.out.Write(b)
			}
		}
		b, err := json.MarshalIndent(sum, "  ", "  ")
		if err != nil {
			panic(err)
		}
		w.out.WriteString(",\n  \"summary\": ")
		w.out.Write(b)
		w.out.WriteString("\n}\n")
		_ = w.out.Flush()
		return
	}
	fmt.Fprintf(w.out, "%d %s checked: %d %s, %d %s, %d info\n", sum.Files, plural(sum.Files, "file", "files"),
		sum.Errors, plural(sum.Errors, "error", "errors"), sum.Warnings, plural(sum.Warnings, "warning", "warnings"), sum.Infos)
	_ = w.out.Flush()
}
