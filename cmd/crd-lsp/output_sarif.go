// This file writes check's findings as a SARIF 2.1.0 log (--output sarif).

package main

import (
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/fileuri"
)

// SARIF 2.1.0 (OASIS), as GitHub and GitLab code scanning read it: one
// run of the tool crd-lsp; a rule per stable code (id, description, help);
// a result per finding with its level, its exact region (1-based lines,
// columns in UTF-16 code units with an exclusive end, plus the byte
// range) and the field path as a logical location. Plain structs: no
// maintained Go SARIF library is among the project's dependencies, and
// the document is small. A test validates it against the published
// schema.

const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`

	rules map[string]int // rule id → index in Runs[0].Tool.Driver.Rules
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID               string    `json:"id"`
	Name             string    `json:"name"`
	ShortDescription sarifText `json:"shortDescription"`
	FullDescription  sarifText `json:"fullDescription"`
	Help             sarifText `json:"help"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Locations  []sarifLocation `json:"locations"`
	Properties map[string]any  `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
	ByteOffset  int `json:"byteOffset"`
	ByteLength  int `json:"byteLength"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

func newSARIF() *sarifLog {
	return &sarifLog{
		Schema:  sarifSchema,
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool:       sarifTool{Driver: sarifDriver{Name: "crd-lsp", Version: stamp().Version, InformationURI: "https://github.com/crd-lsp/crd-lsp", Rules: []sarifRule{}}},
			ColumnKind: "utf16CodeUnits",
			Results:    []sarifResult{},
		}},
		rules: map[string]int{},
	}
}

// add records a file's findings.
func (l *sarifLog) add(path string, fs []finding) {
	run := &l.Runs[0]
	uri := sarifURI(path)
	for _, f := range fs {
		d := f.diag
		id := d.Code
		if id == "" {
			id = "crd-lsp"
		}
		idx, ok := l.rules[id]
		if !ok {
			idx = len(run.Tool.Driver.Rules)
			l.rules[id] = idx
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleFor(id))
		}
		level := "note"
		switch d.Severity {
		case "error":
			level = "error"
		case "warning":
			level = "warning"
		}
		loc := sarifLocation{PhysicalLocation: sarifPhysical{
			ArtifactLocation: sarifArtifact{URI: uri},
			Region: sarifRegion{
				StartLine: f.utf16.Start.Line + 1, StartColumn: f.utf16.Start.Character + 1,
				EndLine: f.utf16.End.Line + 1, EndColumn: f.utf16.End.Character + 1,
				ByteOffset: f.start, ByteLength: max(0, f.byteEnd-f.start),
			},
		}}
		r := sarifResult{RuleID: id, RuleIndex: idx, Level: level, Message: sarifText{Text: d.Message}}
		if d.Field != "" {
			loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: d.Field, Kind: "member"}}
			r.Properties = map[string]any{"fieldPath": d.Field}
		}
		r.Locations = []sarifLocation{loc}
		run.Results = append(run.Results, r)
	}
}

func (l *sarifLog) write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(l)
}

// sarifURI is a file's artifact URI: relative to the working folder (the
// repository root in CI, which code scanning resolves against) with
// forward slashes, else an absolute file URI.
func sarifURI(path string) string {
	p := path
	if filepath.IsAbs(p) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				p = rel
			}
		}
	}
	if filepath.IsAbs(p) {
		return fileuri.URI(filepath.Clean(p)) // outside the working folder
	}
	return (&url.URL{Path: filepath.ToSlash(filepath.Clean(p))}).String()
}

// sarifRuleFor describes a code: exact codes first, then the families
// (composition-…, render-…, package-…).
func sarifRuleFor(id string) sarifRule {
	short, help := "", ""
	if r, ok := ruleHelp[id]; ok {
		short, help = r[0], r[1]
	} else {
		for _, fam := range ruleFamilies {
			if strings.HasPrefix(id, fam.prefix) {
				short, help = fam.short, fam.help
				break
			}
		}
	}
	if short == "" {
		short = "crd-lsp finding " + id
		help = "A finding of crd-lsp with the code " + id + "; the message says what is wrong and the region where."
	}
	return sarifRule{ID: id, Name: ruleName(id), ShortDescription: sarifText{short}, FullDescription: sarifText{help}, Help: sarifText{help}}
}

// ruleName is a code in PascalCase (unknown-field → UnknownField).
func ruleName(id string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// ruleHelp: code → short description, help.
var ruleHelp = map[string][2]string{
	"yaml-syntax":            {"YAML syntax error", "The document is not valid YAML; the other documents of the file are still checked."},
	"yaml-value":             {"Value YAML cannot decode as written", "A value that YAML (as kubectl decodes it, YAML 1.1) reads differently than written, or cannot turn into JSON."},
	"file-too-large":         {"File too large to analyse", "The file is larger than the configured limit and was not analysed."},
	"unknown-kind":           {"No schema for this kind", "No CRD, XRD, package or built-in schema defines this apiVersion and kind: the object cannot be validated. Add the CRD's folder with --schemas, or pull the packages crossplane.yaml depends on (crd-lsp pull)."},
	"unknown-field":          {"Unknown field", "The schema does not define this field: the API server rejects it under strict field validation (kubectl's default) or drops it."},
	"required":               {"Required field missing", "The schema requires this field and the object lacks it: the API server rejects the object."},
	"type":                   {"Wrong type", "The value's type is not the one the schema declares (a string where an integer is wanted, a list where an object is)."},
	"enum":                   {"Value not allowed", "The value is not one of those the schema's enum allows."},
	"pattern":                {"Value does not match the pattern", "The string does not match the regular expression the schema requires."},
	"range":                  {"Value out of range", "The number is outside the minimum/maximum (or multipleOf) the schema sets."},
	"length":                 {"Wrong length or size", "A string, list or object is longer or shorter than the schema allows."},
	"format":                 {"Wrong format", "The value does not have the format the schema declares (date-time, int-or-string, quantity…)."},
	"cel":                    {"CEL validation rule failed", "An x-kubernetes-validations rule of the schema evaluates to false (or cannot be evaluated) on this object, as the API server evaluates it."},
	"duplicate":              {"Duplicate list entry", "A list the schema declares a set or a map (x-kubernetes-list-type) has two entries with the same key."},
	"metadata":               {"Invalid object metadata", "metadata breaks the API server's ObjectMeta rules (name, labels, annotations)."},
	"invalid":                {"Invalid value", "The value is rejected by the schema or the API server's validation."},
	"crd":                    {"Invalid CustomResourceDefinition", "The CRD itself would be rejected by the API server."},
	"xrd":                    {"Invalid CompositeResourceDefinition", "The XRD itself (or the CRD Crossplane derives from it) would be rejected."},
	"schema":                 {"Schema cannot be used", "The schema for this kind cannot be built, so the object is not validated against it."},
	"conflicting-definition": {"Conflicting definitions of a kind", "Two definitions of equal rank define the same kind differently; the nearest one is used."},
	"cluster-differs":        {"The cluster serves another schema", "The live cluster (check --cluster, crdLsp.cluster) serves this kind with a different schema; the workspace's definition wins."},
	"missing-apiversion":     {"apiVersion missing", "A Kubernetes object needs an apiVersion."},
	"missing-kind":           {"kind missing", "A Kubernetes object needs a kind."},
	"fieldpath-syntax":       {"Invalid field path", "A Composition's fieldPath does not parse with Crossplane's field path grammar."},
	"fieldpath-unknown":      {"Field path names no field", "A Composition's fieldPath names a field the XRD or the composed resource's schema does not have."},
	"render":                 {"Composition cannot be rendered", "crd-lsp could not render what this Composition creates."},
	"template-syntax":        {"Go template syntax error", "A function-go-templating template does not parse."},
	"template-yaml":          {"Template output is not valid YAML", "What a function-go-templating template writes is not valid YAML."},
	"patch-type":             {"Patch type mismatch", "A patch copies a value of one type into a field of another (a string into an integer), following every transform."},
	"readiness-type":         {"Readiness check type mismatch", "A readiness check compares a field with a value of another type than the field's."},
	"render-required":        {"Composed resource lacks a required field", "A resource the Composition creates lacks a field its schema requires: neither the base nor any patch sets it (or only an optional XR field does)."},
	"render-invalid":         {"Composed resource is invalid", "A resource the Composition creates would be rejected by the API server."},
	"render-step":            {"Pipeline step not run", "A pipeline step's function is not configured or failed; what it would compose is unknown."},
	"function-result":        {"Composition function result", "A composition function returned this result for its step."},
	"function-failed":        {"Composition function failed", "A composition function could not be called or failed."},
	"internal":               {"Internal error", "crd-lsp failed on this input; please report it."},
}

var ruleFamilies = []struct{ prefix, short, help string }{
	{"composition-", "Composition problem", "The Composition breaks a rule Crossplane or function-patch-and-transform enforces (patches, transforms, connection details, readiness checks, resources, pipeline steps, schema-aware validation)."},
	{"render-", "Problem in what the Composition renders", "Rendering the Composition (as Crossplane and its functions would, without a cluster) fails here, or a composed resource it creates would be rejected."},
	{"package-", "Package dependency problem", "A dependency in crossplane.yaml cannot be resolved or pulled (not found, no matching version, conflict, unreachable registry, not in the cache)."},
	{"function-", "Composition function problem", "A composition function reported a result or failed when called."},
	{"template-", "Go template problem", "A function-go-templating template has a problem."},
}
