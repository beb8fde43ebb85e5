// This file resolves a Composition's fieldPath strings against the XR's or the
// base's schema, for hover, definition and patchSet references.

package analysis

import (
	"context"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// fieldPathSchema returns the schema a Composition fieldPath string at p
// (a patch's fromFieldPath/toFieldPath, a combine variable, a readiness
// check or a connection detail) is read against, and which side that is.
func fieldPathSchema(d *document.Doc, m map[string]any, p fieldpath.Path, env Env) (*structuralschema.Structural, string, bool) {
	header, _, ok := resourceHeader(d, m)
	if !ok {
		return nil, "", false
	}
	return fieldPathSchemaIn(header, d, m, p, env)
}

// fieldPathSchemaIn is fieldPathSchema in a document whose header names
// header.
func fieldPathSchemaIn(header schemas.GVK, d *document.Doc, m map[string]any, p fieldpath.Path, env Env) (*structuralschema.Structural, string, bool) {
	sch, side, ok := fieldPathTargetIn(header, d, m, p, env)
	if !ok {
		return nil, side, false
	}
	ss, err := sch.Structural()
	if err != nil {
		return nil, side, false
	}
	return ss, side, true
}

// fieldPathTarget is the schema (an XR's from its XRD, a base's from its
// CRD) that a fieldPath string at p is read against, and its side.
func fieldPathTarget(d *document.Doc, m map[string]any, p fieldpath.Path, env Env) (*schemas.Schema, string, bool) {
	header, _, ok := resourceHeader(d, m)
	if !ok {
		return nil, "", false
	}
	return fieldPathTargetIn(header, d, m, p, env)
}

// fieldPathTargetIn is fieldPathTarget in a document whose header names
// header (only a Composition has fieldPath strings).
func fieldPathTargetIn(header schemas.GVK, d *document.Doc, m map[string]any, p fieldpath.Path, env Env) (*schemas.Schema, string, bool) {
	last, ok := p.Last()
	if !ok || last.Kind != fieldpath.KindField {
		return nil, "", false
	}
	if header.Group != "apiextensions.crossplane.io" || header.Kind != "Composition" {
		return nil, "", false
	}
	// Find the composed resource (…resources[i]) and the patch.
	resIdx := -1
	for i := len(p) - 1; i > 0; i-- {
		if p[i].Kind == fieldpath.KindIndex && p[i-1].Kind == fieldpath.KindField && p[i-1].Field == "resources" {
			resIdx = i
			break
		}
	}
	side := ""
	switch last.Field {
	case "fromFieldPath", "toFieldPath":
		patchPath := p.Parent()
		if len(patchPath) > 2 && patchPath[len(patchPath)-1].Kind == fieldpath.KindIndex && patchPath[len(patchPath)-2].Field == "variables" {
			patchPath = patchPath[:len(patchPath)-3] // combine.variables[i].fromFieldPath
		}
		patch, _ := valueAt(m, patchPath).(map[string]any)
		t, _ := patch["type"].(string)
		toComposite := t == "ToCompositeFieldPath" || t == "CombineToComposite"
		parent := p[len(p)-2]
		switch {
		case parent.Kind == fieldpath.KindIndex && len(p) > 3 && p[len(p)-3].Field == "connectionDetails":
			side = "base"
		case last.Field == "fromFieldPath" && !toComposite, last.Field == "toFieldPath" && toComposite:
			side = "composite"
		default:
			side = "base"
		}
	case "fieldPath":
		side = "base"
	default:
		return nil, "", false
	}
	var target map[string]any
	if side == "composite" {
		spec, _ := m["spec"].(map[string]any)
		target, _ = spec["compositeTypeRef"].(map[string]any)
	} else if resIdx > 0 {
		res, _ := valueAt(m, p[:resIdx+1]).(map[string]any)
		target, _ = res["base"].(map[string]any)
	} else if holder, ok := patchHolder(p); ok && len(p) > len(holder)+1 && p[len(holder)].Field == "patchSets" {
		// A patchSet's patch writes to the resources that use it: the
		// first one's base stands for them.
		set, _ := valueAt(m, p[:len(holder)+2]).(map[string]any)
		name, _ := set["name"].(string)
		if _, uses := patchSetUses(m, p, name); len(uses) > 0 {
			res, _ := valueAt(m, uses[0][:len(holder)+2]).(map[string]any)
			target, _ = res["base"].(map[string]any)
		}
	}
	gvk, ok := baseGVK(target)
	if !ok || env.Workspace.Schemas == nil {
		return nil, side, false
	}
	sch, found := nearest(env.Workspace.Schemas.Candidates(gvk), d.File.URI)
	if !found {
		return nil, side, false
	}
	return sch, side, true
}

// fieldPathHover explains the field a Composition fieldPath string names.
// header is the document's kind.
func fieldPathHover(hit document.Hit, offset int, m map[string]any, header schemas.GVK, env Env) *HoverResult {
	if hit.OnKey || hit.Value == nil || hit.Value.Kind != yaml.ScalarNode {
		return nil
	}
	ss, side, ok := fieldPathSchemaIn(header, hit.Doc, m, hit.Path, env)
	if !ok {
		return nil
	}
	text := hit.Value.Value
	span := hit.Doc.File.NodeSpan(hit.Value)
	// The segment under the cursor, where the file spells the path as
	// its value (plain or quoted); else the whole path.
	if at, ok := scalarStart(hit.Doc.File.Text, span, text); ok && offset >= at && offset <= at+len(text) {
		prefix, start, end := segmentAt(text, offset-at)
		text, span = prefix, document.Span{Start: at + start, End: at + end}
	}
	fp, err := fieldpath.Parse(text)
	if err != nil {
		return nil
	}
	node, parent := walkStructural(ss, fp)
	if node == nil {
		return nil
	}
	md := fieldDocBody(fp, node, parent)
	return &HoverResult{Span: span, Markdown: md + "`" + fp.String() + "` of the " + sideName(side) + " resource"}
}

// scalarStart is the offset where a scalar's value starts in the file
// text: after the quote of a quoted scalar. ok is false when the file
// does not spell the value as is (escapes, folding).
func scalarStart(text []byte, sp document.Span, value string) (int, bool) {
	if sp.Start < 0 || sp.End > len(text) || sp.Start >= sp.End {
		return 0, false
	}
	raw := string(text[sp.Start:sp.End])
	at := sp.Start
	if raw[0] == '"' || raw[0] == '\'' {
		raw, at = raw[1:], at+1
	}
	if !strings.HasPrefix(raw, value) {
		return 0, false
	}
	return at, true
}

// segmentAt cuts a fieldPath (spec.forProvider.tags[0].key) after the
// segment holding byte i: a field name, or an [index] or ['key'] bracket
// (a dot belongs to the segment after it). It returns the prefix and the
// segment's start and end in s.
func segmentAt(s string, i int) (prefix string, start, end int) {
	pos := 0
	for pos < len(s) {
		seg := pos
		if s[pos] == '.' {
			pos++
		}
		if pos < len(s) && s[pos] == '[' {
			end = len(s)
			if j := strings.IndexByte(s[pos:], ']'); j >= 0 {
				end = pos + j + 1
			}
		} else {
			end = len(s)
			if j := strings.IndexAny(s[pos:], ".["); j >= 0 {
				end = pos + j
			}
		}
		if i < end || end == len(s) {
			if s[seg] == '.' {
				seg++
			}
			return s[:end], seg, end
		}
		pos = end
	}
	return s, 0, len(s)
}

func sideName(s string) string {
	if s == "composite" {
		return "composite"
	}
	return "composed"
}

// fieldPathDefinition finds where the field a fieldPath string names is
// declared: in the XRD (composite side) or CRD (composed side) file, the
// key of the deepest property of the path that the definition spells out
// (fields Crossplane implies, or map keys, stop the walk one level up).
func fieldPathDefinition(hit document.Hit, m map[string]any, env Env, read FileReader) (Location, bool) {
	if hit.Value == nil || hit.Value.Kind != yaml.ScalarNode {
		return Location{}, false
	}
	sch, _, ok := fieldPathTarget(hit.Doc, m, hit.Path, env)
	if !ok || sch.Source.File == "" || read == nil {
		return Location{}, false
	}
	fp, err := fieldpath.Parse(hit.Value.Value)
	if err != nil {
		return Location{}, false
	}
	text, err := read(sch.Source.File)
	if err != nil {
		return Location{}, false
	}
	def := document.Parse(sch.Source.File, 0, text)
	for _, d := range def.Docs {
		if !defines(d, sch.GVK) {
			continue
		}
		_, versions, ok := d.Lookup(fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("versions")})
		if !ok || versions.Kind != yaml.SequenceNode {
			continue
		}
		for i := range versions.Content {
			_, name, ok := d.Lookup(fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("versions"), fieldpath.Index(i), fieldpath.Field("name")})
			if !ok || name.Value != sch.GVK.Version {
				continue
			}
			at := fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("versions"), fieldpath.Index(i), fieldpath.Field("schema"), fieldpath.Field("openAPIV3Schema")}
			var best *yaml.Node
			for _, seg := range fp {
				if seg.Kind == fieldpath.KindField {
					at = at.Child(fieldpath.Field("properties"), fieldpath.Field(seg.Field))
				} else {
					at = at.Child(fieldpath.Field("items"))
				}
				k, _, ok := d.Lookup(at)
				if !ok {
					break
				}
				if k != nil && seg.Kind == fieldpath.KindField {
					best = k
				}
			}
			if best == nil {
				if k, _, ok := d.Lookup(fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("versions"), fieldpath.Index(i), fieldpath.Field("name")}); ok && k != nil {
					best = k
				}
			}
			if best != nil {
				return Location{File: def, Span: def.NodeSpan(best)}, true
			}
		}
	}
	return Location{}, false
}

// defines reports whether a CRD or XRD document defines gvk's group and
// kind (as its kind or its claim kind).
func defines(d *document.Doc, gvk schemas.GVK) bool {
	_, g, okG := d.Lookup(fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("group")})
	if !okG || g.Value != gvk.Group {
		return false
	}
	for _, names := range []string{"names", "claimNames"} {
		if _, k, ok := d.Lookup(fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field(names), fieldpath.Field("kind")}); ok && k.Value == gvk.Kind {
			return true
		}
	}
	return false
}

// patchSetUses finds a patchSet by name beside the resources holding p
// (or the patchSet at p), and every PatchSet patch that uses it.
func patchSetUses(m map[string]any, p fieldpath.Path, name string) (decl fieldpath.Path, uses []fieldpath.Path) {
	base, ok := patchHolder(p)
	if !ok {
		return nil, nil
	}
	sets, _ := valueAt(m, base.Child(fieldpath.Field("patchSets"))).([]any)
	for i, s := range sets {
		if sm, _ := s.(map[string]any); sm["name"] == name {
			decl = base.Child(fieldpath.Field("patchSets"), fieldpath.Index(i), fieldpath.Field("name"))
			break
		}
	}
	res, _ := valueAt(m, base.Child(fieldpath.Field("resources"))).([]any)
	for i, r := range res {
		rm, _ := r.(map[string]any)
		patches, _ := rm["patches"].([]any)
		for j, pt := range patches {
			pm, _ := pt.(map[string]any)
			if pm["type"] == "PatchSet" && pm["patchSetName"] == name {
				uses = append(uses, base.Child(fieldpath.Field("resources"), fieldpath.Index(i), fieldpath.Field("patches"), fieldpath.Index(j), fieldpath.Field("patchSetName")))
			}
		}
	}
	return decl, uses
}

// References lists the uses of the patchSet whose name (or one of whose
// uses) is at offset, with the declaration first when includeDecl.
func References(ctx context.Context, f *document.File, offset int, env Env, includeDecl bool) []Location {
	hit, ok := f.At(offset)
	if !ok || len(hit.Path) < 2 || hit.Value == nil || hit.Value.Kind != yaml.ScalarNode {
		return nil
	}
	last, _ := hit.Path.Last()
	parent := hit.Path.Parent()
	pl, _ := parent.Last()
	onDecl := last.Field == "name" && len(parent) >= 2 && parent[len(parent)-2].Field == "patchSets" && pl.Kind == fieldpath.KindIndex
	if !onDecl && last.Field != "patchSetName" {
		return nil
	}
	obj, err := hit.Doc.Object()
	if err != nil {
		return nil
	}
	m, _ := obj.(map[string]any)
	decl, uses := patchSetUses(m, hit.Path, hit.Value.Value)
	var out []Location
	add := func(p fieldpath.Path) {
		if _, v, ok := hit.Doc.Lookup(p); ok && v != nil {
			out = append(out, Location{File: f, Span: f.NodeSpan(v)})
		}
	}
	if includeDecl && decl != nil {
		add(decl)
	}
	for _, u := range uses {
		add(u)
	}
	return out
}

// patchHolder is the object that holds the resources and patchSets a path
// inside a resource or patchSet belongs to: spec, or a P&T step's input.
func patchHolder(p fieldpath.Path) (fieldpath.Path, bool) {
	for i := len(p) - 1; i > 0; i-- {
		if p[i].Kind == fieldpath.KindIndex && (p[i-1].Field == "resources" || p[i-1].Field == "patchSets") {
			return p[:i-1], true
		}
	}
	return nil, false
}

// patchSetHover summarises the patchSet a patchSetName names: its patches,
// from where to where, and how many resources use it.
func patchSetHover(hit document.Hit, m map[string]any) *HoverResult {
	last, _ := hit.Path.Last()
	if hit.OnKey || last.Field != "patchSetName" || hit.Value == nil || hit.Value.Kind != yaml.ScalarNode {
		return nil
	}
	decl, uses := patchSetUses(m, hit.Path, hit.Value.Value)
	if decl == nil {
		return nil
	}
	set, _ := valueAt(m, decl.Parent()).(map[string]any)
	patches, _ := set["patches"].([]any)
	var b strings.Builder
	fmt.Fprintf(&b, "**patchSet** `%s`: %s, used by %s\n\n", hit.Value.Value, plural(len(patches), "patch", "patches"), plural(len(uses), "resource", "resources"))
	for _, p := range patches {
		pm, _ := p.(map[string]any)
		from, _ := pm["fromFieldPath"].(string)
		to, _ := pm["toFieldPath"].(string)
		if to == "" {
			to = from
		}
		t, _ := pm["type"].(string)
		if t == "" {
			t = "FromCompositeFieldPath"
		}
		fmt.Fprintf(&b, "- %s `%s` → `%s`\n", t, from, to)
	}
	return &HoverResult{Span: hit.Doc.File.NodeSpan(hit.Value), Markdown: b.String()}
}
