// This file defines what crd-lsp knows of a composition function (Known):
// its input kinds, how each of its releases reads the input, and what it
// does with values its input CRD refuses, each fact with the recorded case
// of the real function that proves it.

package functions

import (
	"context"
	"time"
)

// Known is what crd-lsp knows of one composition function. Each function
// has a folder below internal/functions with its record (a Known), its
// in-process runner if crd-lsp has one, and its conformance tables
// (testdata/conformance/<release>.yaml: the answers of the real function,
// recorded): every fact here that makes crd-lsp say more than "the input
// CRD says so" names the recorded case that proves it, and the tests hold
// the fact to that case.
type Known struct {
	// Name is the function's repository name
	// (function-patch-and-transform). Crossplane names the Function a
	// package dependency installs after its repository
	// (crossplane-contrib-function-patch-and-transform).
	Name string
	// Repository is where its public source is.
	Repository string
	// Inputs are the kinds the function's input CRD defines; the first is
	// the one its releases decode every input into.
	Inputs []InputKind
	// Releases are the releases whose answers are recorded, newest
	// first: a step whose release is not pinned is judged as the newest.
	Releases []string
	// Decodings say how releases read their input, newest first: each
	// holds from its Since release until the next newer entry's. A
	// release older than every entry's Since has no known decoding.
	Decodings []Decoding
	// Rules are what the function does with particular values of its
	// input: ones its input CRD refuses (a required field left out, a
	// value outside an enum), or ones the CRD allows and the function
	// refuses.
	Rules []Rule
	// ComposesNothing: the function composes no resources (it sets
	// readiness, orders, filters or loads context), so a step crd-lsp
	// does not run leaves nothing unvalidated.
	ComposesNothing bool
	// LeavesNoData: the function leaves nothing a later template reads
	// besides readiness and ordering.
	LeavesNoData bool
	// Native is crd-lsp's in-process runner of the function (nil: none):
	// the pipeline engine calls it for a step no real function is
	// configured for.
	Native func(NativeEnv) NativeFunc
	// RenderOnly: the in-process runner runs when a render must show
	// exactly what the function returns (crd-lsp render), not for
	// diagnostics, which check what every step composes even where this
	// function holds it back for now (function-sequencer).
	RenderOnly bool
}

// InputKind is a kind of a function's input.
type InputKind struct {
	Group, Kind string
	// Versions are the versions the input CRD serves.
	Versions []string
	// Documented: a kind users write for the function though its input
	// CRD does not define it (function-kcl's KCLRun, krm-kcl's own kind):
	// it is checked against the first input kind's CRD, as the function
	// decodes it into that type.
	Documented bool
}

// NativeEnv is what an in-process runner may read besides the request:
// the workspace's files for a go-templating FileSystem source, the step
// before it that crd-lsp does not run, the pipeline's deadline.
type NativeEnv struct {
	// Files reads a template folder (dirPath) of the workspace; nil: none.
	Files func(dir string) ([]NativeFile, error)
	// Unrun names an earlier step of the pipeline nothing runs ("" for
	// none).
	Unrun func(Step) string
	// Deadline bounds the runner's work (go templates).
	Deadline time.Time
	// Context is the caller's context for anything that outlives a call.
	Context context.Context
	// Release is the function's release the workspace pins ("" for none).
	Release string
}

// NativeFile is a file of a template folder, by path relative to it.
type NativeFile struct {
	Path string
	Text string
}

// Reads says how a release reads its input.
type Reads string

const (
	// ReadsTyped: decoded into the function's Go type (function-sdk-go's
	// request.GetInput).
	ReadsTyped Reads = "typed"
	// ReadsMap: read as a map; nothing is rejected.
	ReadsMap Reads = "map"
	// ReadsNothing: the release reads no input at all.
	ReadsNothing Reads = "nothing"
)

// Effect is what a function does with a value.
type Effect string

const (
	// Fails: a Fatal result; the step fails and the pipeline stops.
	Fails Effect = "fails"
	// Reports: the function says it cannot use the value (a False
	// condition, a Warning result) and carries on without it.
	Reports Effect = "reports"
	// Defaults: the function uses a default instead.
	Defaults Effect = "defaults"
	// Ignores: the function does not use the value.
	Ignores Effect = "ignores"
	// Accepts: the function runs with the value as written though its
	// input CRD refuses it.
	Accepts Effect = "accepts"
)

// Decoding is how a range of releases reads the input.
type Decoding struct {
	// Since is the first release this holds for.
	Since string
	Reads Reads
	// AnyKind: apiVersion and kind are not looked at (typed decoding
	// ignores them), so any kind decodes as the first input kind.
	AnyKind bool
	// Unknown and WrongType are what an unknown field and a value of the
	// wrong JSON type do; Does words it for messages ("fails the step:
	// it cannot decode its input").
	Unknown, WrongType Effect
	Does               string
	// Source is the place in the function's source that decides it;
	// Proof the recorded cases (table release/case) that show what an
	// unknown field or a wrong type does, KindProof those that show an
	// input of another (or no) kind read all the same (AnyKind).
	Source    string
	Proof     []string
	KindProof []string
}

// When says which values a Rule is about.
type When string

const (
	// Missing: the field is left out.
	Missing When = "missing"
	// Empty: the field is "".
	Empty When = "empty"
	// Unknown: a value not among Known.
	Unknown When = "unknown"
	// Is: one of Known.
	Is When = "is"
	// Present: the field is set, whatever its value (with Accepts: a
	// field the function reads that its input CRD does not define).
	Present When = "present"
	// Invalid: a value Check refuses (a duration, a regular expression or
	// a CEL expression the function cannot read).
	Invalid When = "invalid"
)

// Checks a Rule's When Invalid names.
const (
	// CheckDuration: Go's time.ParseDuration.
	CheckDuration = "duration"
	// CheckRegexp: Go's regexp.Compile.
	CheckRegexp = "regexp"
	// CheckSequenceRegexp: an entry of a function-sequencer sequence of
	// two or more entries, anchored ^…$ unless it holds ^ or $, compiled
	// with Go's regexp (a lone entry is never compiled).
	CheckSequenceRegexp = "sequence-regexp"
	// CheckAnchoredRegexp: ^value$ compiled with Go's regexp.
	CheckAnchoredRegexp = "anchored-regexp"
	// CheckCELSyntax: the CEL expression parses (cel-go).
	CheckCELSyntax = "cel-syntax"
)

// Rule is what a function does with a value of one field of its input.
type Rule struct {
	// Path is the field below the input, "[*]" for any index; a leading
	// "*." matches any prefix.
	Path string
	When When
	// Known are the values the function knows (When Unknown), or the
	// values the rule is about (When Is).
	Known []string
	// Check names how a value is judged (When Invalid): Check* above.
	Check  string
	Effect Effect
	// Does words what the function does, for messages: `reads a missing
	// type as Reference`.
	Does string
	// Since and Until bound the releases it holds for (Until excluded);
	// "" is unbounded.
	Since, Until string
	// Source is the place in the function's source that decides it;
	// Proof the recorded cases that show it (release/case).
	Source string
	Proof  []string
}
