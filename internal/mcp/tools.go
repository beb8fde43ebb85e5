// This file defines the MCP tools (validate, render, explain, kinds): their
// inputs and outputs, and what each runs.

package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// ---- validate

const validateDoc = `Validate Kubernetes and Crossplane YAML the way the API server and Crossplane would: schema types, required and unknown fields, enums, patterns, CEL rules, Composition rules, and what a Composition renders. Give "path" (a file or folder, relative to the workspace root) or "text" (YAML to check as if it were the file "filename"). Returns every finding with its position (1-based line and column), severity, stable code and the field path it is on. Errors mean the API server or Crossplane would reject the object.`

type ValidateInput struct {
	Path     string `json:"path,omitempty" jsonschema:"a file or folder to validate, relative to the workspace root; empty with no text: the whole workspace"`
	Text     string `json:"text,omitempty" jsonschema:"YAML text to validate instead of a file on disk"`
	Filename string `json:"filename,omitempty" jsonschema:"with text: the file the text stands for, relative to the workspace root (it decides which crossplane.yaml applies); default untitled.yaml"`
}

type FileFindings struct {
	Path     string    `json:"path"`
	Findings []Finding `json:"findings"`
}

type Summary struct {
	Files     int  `json:"files"`
	Errors    int  `json:"errors"`
	Warnings  int  `json:"warnings"`
	Infos     int  `json:"infos"`
	Truncated bool `json:"truncated,omitempty" jsonschema:"more findings than one answer carries: validate a smaller path"`
}

type ValidateOutput struct {
	Files   []FileFindings `json:"files"`
	Summary Summary        `json:"summary"`
}

func (s *Server) validate(ctx context.Context, _ *sdk.CallToolRequest, in ValidateInput) (*sdk.CallToolResult, ValidateOutput, error) {
	var out ValidateOutput
	cfg := s.config()
	if in.Text != "" {
		if in.Path != "" {
			return nil, out, errors.New("give path or text, not both")
		}
		name := in.Filename
		if name == "" {
			name = "untitled.yaml"
		}
		path := s.abs(name)
		world, _, _, err := loader.Load(ctx, cfg)
		if err != nil {
			return nil, out, err
		}
		// The text stands for the file, as an editor's unsaved buffer.
		world = world.WithFile(path, []byte(in.Text))
		out.add(s.rel(path), findings(ctx, world, path, []byte(in.Text)))
		return nil, out, nil
	}
	target := s.abs(in.Path)
	st, err := os.Stat(target)
	if err != nil {
		return nil, out, err
	}
	cfg.KeepAll = true
	if !st.IsDir() {
		// A file: checked within its workspace (the root, else its folder).
		if s.rel(target) == target {
			cfg.Roots = []string{filepath.Dir(target)}
		}
		b, err := workspace.ReadFile(target, workspace.DefaultMaxFileSize)
		if err != nil {
			return nil, out, err
		}
		world, _, _, err := loader.Load(ctx, cfg)
		if err != nil {
			return nil, out, err
		}
		out.add(s.rel(target), findings(ctx, world, target, b))
		return nil, out, nil
	}
	if s.rel(target) == target {
		cfg.Roots = []string{target} // a folder outside the root: its own workspace
	}
	world, files, skipped, err := loader.Load(ctx, cfg)
	if err != nil {
		return nil, out, err
	}
	for _, sk := range skipped {
		s.opts.Logger.Debug("skipped", "file", sk.Path, "reason", sk.Reason)
	}
	for _, f := range files {
		if f.Path != target && !strings.HasPrefix(f.Path, target+string(filepath.Separator)) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, out, err
		}
		out.add(s.rel(f.Path), findings(ctx, world, f.Path, f.Content))
	}
	return nil, out, nil
}

func (o *ValidateOutput) add(path string, fs []Finding) {
	o.Summary.Files++
	kept := fs[:0:0]
	for _, f := range fs {
		switch f.Severity {
		case "error":
			o.Summary.Errors++
		case "warning":
			o.Summary.Warnings++
		default:
			o.Summary.Infos++
		}
		if o.count() < MaxFindings {
			kept = append(kept, f)
		} else {
			o.Summary.Truncated = true
		}
	}
	if len(kept) > 0 || len(fs) == 0 {
		if kept == nil {
			kept = []Finding{}
		}
		o.Files = append(o.Files, FileFindings{Path: path, Findings: kept})
	}
}

func (o *ValidateOutput) count() int {
	n := 0
	for _, f := range o.Files {
		n += len(f.Findings)
	}
	return n
}

// ---- render

const renderDoc = `Render what a Crossplane Composition creates, as "crossplane render" would but without Docker or a cluster: function-patch-and-transform steps run in-process; other functions run only when "functions" names a functions file (as crossplane render --functions takes; Functions annotated render.crossplane.io/runtime: Development are called at their target on loopback), else they pass the desired state through and a note says so. The composite comes from "xr" (a file holding an XR or claim), else it is synthesised from the XRD. Returns the desired composite and composed resources as YAML, and notes positioned in the Composition.`

type RenderInput struct {
	Composition string   `json:"composition" jsonschema:"the Composition file, relative to the workspace root"`
	XR          string   `json:"xr,omitempty" jsonschema:"a file holding the composite resource (XR) or claim to render with"`
	Functions   []string `json:"functions,omitempty" jsonschema:"functions.yaml files (or folders) of Function objects, as crossplane render --functions takes"`
}

type Note struct {
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"`
	Code     string `json:"code,omitempty"`
	Message  string `json:"message"`
	Path     string `json:"path,omitempty" jsonschema:"the field of the Composition the note is on"`
}

type RenderOutput struct {
	YAML        string `json:"yaml" jsonschema:"the desired composite and composed resources, as YAML documents"`
	Notes       []Note `json:"notes"`
	Synthesized bool   `json:"synthesized,omitempty" jsonschema:"the composite was synthesised from the XRD (no xr given)"`
	Failed      bool   `json:"failed,omitempty" jsonschema:"an error note: crossplane render would fail too"`
}

func (s *Server) render(ctx context.Context, _ *sdk.CallToolRequest, in RenderInput) (*sdk.CallToolResult, RenderOutput, error) {
	out := RenderOutput{Notes: []Note{}}
	if in.Composition == "" {
		return nil, out, errors.New("composition is required")
	}
	path := s.abs(in.Composition)
	text, err := workspace.ReadFile(path, workspace.DefaultMaxFileSize)
	if err != nil {
		return nil, out, err
	}
	cfg := s.config()
	// The workspace: the root, or for a Composition outside it the
	// folder of its nearest crossplane.yaml (else its own), as render.
	if s.rel(path) == path {
		cfg.Roots = []string{filepath.Dir(path)}
		if dir, ok := loader.PackageRoot(path); ok {
			cfg.Roots = []string{dir}
		}
	}
	cfg.Files = []workspace.File{{Path: path, Content: text}}
	if len(in.Functions) > 0 {
		fcfg := functions.Config{CallTimeout: functions.DefaultTimeout}
		for _, p := range in.Functions {
			fns, err := loader.ReadFunctions(s.abs(p))
			if err != nil {
				return nil, out, fmt.Errorf("functions %s: %w", p, err)
			}
			fcfg.Functions = append(fcfg.Functions, fns...)
		}
		reg := functions.New(fcfg)
		defer reg.Close()
		for _, l := range reg.ProblemLines() {
			out.Notes = append(out.Notes, Note{Line: 1, Column: 1, Severity: "warning", Code: "functions", Message: l})
		}
		cfg.Analysis.Pipeline = &functions.Pipeline{Registry: reg, Timeout: functions.DefaultTimeout}
	}
	world, _, _, err := loader.Load(ctx, cfg)
	if err != nil {
		return nil, out, err
	}
	var xr map[string]any
	if in.XR != "" {
		xp := s.abs(in.XR)
		b, err := workspace.ReadFile(xp, workspace.DefaultMaxFileSize)
		if err != nil {
			return nil, out, fmt.Errorf("xr: %w", err)
		}
		if xr = analysis.CompositeIn(xp, b); xr == nil {
			return nil, out, fmt.Errorf("xr %s holds no resource that parses (apiVersion, kind, valid YAML)", in.XR)
		}
	}
	f := document.Parse(path, 0, text)
	rendered := 0
	var yamls []string
	note := func(d *document.Doc, p fieldpath.Path, sev, code, msg string) {
		line, col := d.LineColOf(p)
		out.Notes = append(out.Notes, Note{Line: line, Column: col, Severity: sev, Code: code, Message: msg, Path: p.String()})
		out.Failed = out.Failed || sev == "error"
	}
	for _, dr := range analysis.RenderFile(ctx, f, xr, world.Env(path)) {
		d, r := dr.Doc, dr.Rendering
		switch {
		case dr.Err != nil:
			note(d, nil, "error", "yaml-syntax", dr.Err.Error())
			continue
		case dr.NoXRD:
			note(d, fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("compositeTypeRef")}, "error", "render", "no XRD for the compositeTypeRef: is it in the workspace, or a package crossplane.yaml depends on (crd-lsp pull)?")
			continue
		}
		rendered++
		out.Synthesized = out.Synthesized || r.Synthesized
		for _, n := range r.Notes {
			note(d, n.Path, n.Severity.String(), n.Code, n.Message)
			out.Failed = out.Failed || n.Severity == severity.Error
		}
		b, err := r.YAML("")
		if err != nil {
			return nil, out, err
		}
		yamls = append(yamls, string(b))
	}
	if rendered == 0 && !out.Failed {
		return nil, out, fmt.Errorf("%s holds no Composition", in.Composition)
	}
	out.YAML = strings.Join(yamls, "---\n")
	return nil, out, nil
}

// ---- explain

const explainDoc = `Explain a field of a kind, as the editor's hover does: its description, type, whether it is required, default, enum values and constraints, and which schema (CRD, XRD, package, built-in) defines it. Give apiVersion and kind (apps/v1, Deployment) and a field path (spec.template.spec.containers[0].image); an empty field explains the kind itself.`

type ExplainInput struct {
	APIVersion string `json:"apiVersion" jsonschema:"the kind's apiVersion, such as apps/v1 or s3.aws.upbound.io/v1beta1"`
	Kind       string `json:"kind"`
	Field      string `json:"field,omitempty" jsonschema:"a field path such as spec.forProvider.region or spec.containers[0].image; empty for the kind"`
	File       string `json:"file,omitempty" jsonschema:"a file of the workspace whose crossplane.yaml decides the Crossplane version and packages (default: the root)"`
}

type ExplainOutput struct {
	Markdown string `json:"markdown"`
}

func (s *Server) explain(ctx context.Context, _ *sdk.CallToolRequest, in ExplainInput) (*sdk.CallToolResult, ExplainOutput, error) {
	var out ExplainOutput
	if in.APIVersion == "" || in.Kind == "" {
		return nil, out, errors.New("apiVersion and kind are required")
	}
	field := fieldpath.Path{fieldpath.Field("kind")}
	if in.Field != "" {
		p, err := fieldpath.Parse(in.Field)
		if err != nil {
			return nil, out, fmt.Errorf("field %q: %v", in.Field, err)
		}
		// [*] reads as its first item: the schema is the same.
		for i, seg := range p {
			if seg.Kind == fieldpath.KindWildcard {
				p[i] = fieldpath.Index(0)
			}
		}
		field = p
	}
	// A document with the field in it, hovered on the field's key.
	text, err := skeleton(in.APIVersion, in.Kind, field)
	if err != nil {
		return nil, out, err
	}
	path := s.abs(in.File)
	if in.File == "" {
		path = filepath.Join(s.root, "explain.yaml")
	}
	world, _, _, err := loader.Load(ctx, s.config())
	if err != nil {
		return nil, out, err
	}
	f := document.Parse(path, 0, text)
	if len(f.Docs) != 1 {
		return nil, out, errors.New("internal: the skeleton document does not parse")
	}
	k, v, ok := f.Docs[0].Spans(field)
	if !ok {
		return nil, out, errors.New("internal: the skeleton document lacks the field")
	}
	at := k.Start
	if k.IsZero() {
		at = v.Start
	}
	h := analysis.Hover(ctx, f, at, world.Env(path))
	if h == nil {
		found := false
		for _, ki := range world.StoreFor(path).Kinds() {
			if ki.GVK.APIVersion() == in.APIVersion && ki.GVK.Kind == in.Kind {
				found = true
				break
			}
		}
		if !found {
			return nil, out, fmt.Errorf("no schema defines %s %s in this workspace (the kinds tool lists those known)", in.APIVersion, in.Kind)
		}
		return nil, out, fmt.Errorf("%s %s has no field %s", in.APIVersion, in.Kind, field)
	}
	out.Markdown = h.Markdown
	return nil, out, nil
}

// skeleton is a YAML document of the kind holding the field path (list
// indexes become lists of that many items, [*] the first).
func skeleton(apiVersion, kind string, p fieldpath.Path) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	scalar := func(s string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Value: s, Style: yaml.DoubleQuotedStyle}
	}
	root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "apiVersion"}, scalar(apiVersion))
	root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "kind"}, scalar(kind))
	cur := root
	for i, seg := range p {
		if i == 0 && (seg == fieldpath.Field("apiVersion") || seg == fieldpath.Field("kind")) && len(p) == 1 {
			break
		}
		var next *yaml.Node
		if i+1 < len(p) {
			if p[i+1].Kind != fieldpath.KindField {
				next = &yaml.Node{Kind: yaml.SequenceNode}
			} else {
				next = &yaml.Node{Kind: yaml.MappingNode}
			}
		} else {
			next = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
		}
		switch cur.Kind {
		case yaml.MappingNode:
			if seg.Kind != fieldpath.KindField {
				return nil, fmt.Errorf("field %s: an index where a field is expected", p)
			}
			cur.Content = append(cur.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: seg.Field}, next)
		case yaml.SequenceNode:
			if seg.Kind == fieldpath.KindField {
				return nil, fmt.Errorf("field %s: a field where an index is expected", p)
			}
			n := max(seg.Index, 0) + 1
			for j := 0; j < n-1; j++ {
				cur.Content = append(cur.Content, &yaml.Node{Kind: yaml.MappingNode})
			}
			cur.Content = append(cur.Content, next)
		default:
			return nil, fmt.Errorf("field %s cannot be built", p)
		}
		cur = next
	}
	return yaml.Marshal(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}})
}

// ---- kinds

const kindsDoc = `List the kinds this workspace knows: its CRDs, XRDs (with their claims) and MRDs, the packages crossplane.yaml depends on (as far as the cache holds them: crd-lsp pull) and the built-in Kubernetes, Crossplane and function input schemas. "filter" keeps kinds whose kind or apiVersion contains it (case-insensitive).`

type KindsInput struct {
	Filter string `json:"filter,omitempty" jsonschema:"keep kinds whose kind or apiVersion contains this text (case-insensitive)"`
	File   string `json:"file,omitempty" jsonschema:"a file of the workspace whose crossplane.yaml decides the Crossplane version and packages (default: the root)"`
}

type Kind struct {
	APIVersion  string `json:"apiVersion"`
	Kind        string `json:"kind"`
	Scope       string `json:"scope,omitempty"`
	Source      string `json:"source" jsonschema:"built-in, workspace or package, with the file or package that defines it"`
	Description string `json:"description,omitempty"`
}

type KindsOutput struct {
	Kinds     []Kind `json:"kinds"`
	Total     int    `json:"total"`
	Truncated bool   `json:"truncated,omitempty"`
}

func (s *Server) kinds(ctx context.Context, _ *sdk.CallToolRequest, in KindsInput) (*sdk.CallToolResult, KindsOutput, error) {
	out := KindsOutput{Kinds: []Kind{}}
	world, _, _, err := loader.Load(ctx, s.config())
	if err != nil {
		return nil, out, err
	}
	path := s.abs(in.File)
	if in.File == "" {
		path = filepath.Join(s.root, "kinds.yaml")
	}
	filter := strings.ToLower(in.Filter)
	for _, k := range world.StoreFor(path).Kinds() {
		av := k.GVK.APIVersion()
		if filter != "" && !strings.Contains(strings.ToLower(k.GVK.Kind), filter) && !strings.Contains(strings.ToLower(av), filter) {
			continue
		}
		out.Total++
		if len(out.Kinds) >= MaxKinds {
			out.Truncated = true
			continue
		}
		src := k.Source.Kind.String()
		switch {
		case k.Source.File != "":
			src += ": " + s.rel(k.Source.File)
		case k.Source.Name != "":
			src += ": " + k.Source.Name
		}
		out.Kinds = append(out.Kinds, Kind{APIVersion: av, Kind: k.GVK.Kind, Scope: string(k.Scope), Source: src, Description: k.Description})
	}
	return nil, out, nil
}
