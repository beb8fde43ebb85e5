// This file defines hover (Hover): a field's or kind's documentation from its
// schema, with the schema's source.

package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/structural"
)

// HoverResult is what hover shows at a position.
type HoverResult struct {
	Span     document.Span // the key or value hovered
	Markdown string
}

// Hover explains the field (or apiVersion/kind) at offset. It returns nil
// when there is nothing to say: no document, no schema, or a field the
// schema does not know.
func Hover(ctx context.Context, f *document.File, offset int, env Env) *HoverResult {
	if d := f.DocAt(offset); d != nil && len(d.Errors) > 0 {
		// A syntax error elsewhere in the document (mid-edit): hover on
		// the document with that line commented out, as completion does.
		f, _ = repair(f.URI, f.Version, f.Text, offset)
	}
	if env.Workspace.Schemas != nil {
		if h, ok := templateHover(ctx, f, offset, env); ok {
			return h // inside a go-templating inline template
		}
	}
	hit, ok := f.At(offset)
	if !ok || len(hit.Path) == 0 || env.Workspace.Schemas == nil {
		return nil
	}
	span := f.NodeSpan(hit.Value)
	if hit.OnKey {
		span = f.NodeSpan(hit.Key)
	}
	obj, err := hit.Doc.Object()
	if err != nil {
		return nil
	}
	m, _ := obj.(map[string]any)
	// The document's kind and schema, found once for every kind of hover.
	gvk, _, ok := resourceHeader(hit.Doc, m)
	if !ok {
		return nil
	}
	top, found := nearest(env.Workspace.Schemas.Candidates(gvk), hit.Doc.File.URI)
	if !found {
		return nil
	}
	if h := fieldPathHover(hit, offset, m, gvk, env); h != nil {
		return h
	}
	if h := patchSetHover(hit, m); h != nil {
		return h
	}
	sch, ss, rel, ok := schemaBelow(hit.Doc, m, hit.Path, top, env)
	if !ok {
		return nil
	}
	if last, _ := rel.Last(); len(rel) == 1 && (last.Field == "apiVersion" || last.Field == "kind") {
		// The kind of the document, or of a resource embedded in it.
		var versions []string
		for _, k := range env.Workspace.Schemas.Kinds() {
			if k.GVK.Group == sch.GVK.Group && k.GVK.Kind == sch.GVK.Kind {
				versions = append(versions, k.GVK.Version)
			}
		}
		return &HoverResult{Span: span, Markdown: kindSummary(sch, versions)}
	}
	if ss == nil {
		return nil
	}
	node, parent := walkStructural(ss, rel)
	if node == nil {
		return nil
	}
	return &HoverResult{Span: span, Markdown: fieldDoc(rel, node, parent, sch)}
}

// walkStructural follows p through a structural schema, returning the node
// at p and its parent object (for "required").
func walkStructural(s *structuralschema.Structural, p fieldpath.Path) (node, parent *structuralschema.Structural) {
	cur := s
	for _, seg := range p {
		if cur == nil {
			return nil, nil
		}
		parent = cur
		if next, _ := structural.Step(cur, seg); next != nil {
			cur = next
		} else if seg.Kind == fieldpath.KindField && seg.Field == "metadata" && cur == s {
			cur = &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object", Description: "Standard object metadata: name, namespace, labels, annotations …"}}
		} else {
			return nil, nil
		}
	}
	return cur, parent
}

func typeName(s *structuralschema.Structural) string {
	t := s.Type
	switch {
	case s.XIntOrString:
		t = "integer or string"
	case t == "" && s.XPreserveUnknownFields:
		t = "any"
	case t == "array" && s.Items != nil && s.Items.Type != "":
		t = "array of " + typeName(s.Items)
	case t == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil && len(s.Properties) == 0:
		t = "map of " + typeName(s.AdditionalProperties.Structural)
	}
	if v := s.ValueValidation; v != nil && v.Format != "" {
		t += " (" + v.Format + ")"
	}
	if s.Nullable {
		t += ", nullable"
	}
	return t
}

func fieldDoc(p fieldpath.Path, s, parent *structuralschema.Structural, sch *schemas.Schema) string {
	return fieldDocBody(p, s, parent) + fmt.Sprintf("`%s` — %s", p.String(), sourceLine(sch))
}

// fieldDocBody is a field's documentation without the trailing source line.
func fieldDocBody(p fieldpath.Path, s, parent *structuralschema.Structural) string {
	var b strings.Builder
	last, _ := p.Last()
	name := last.Field
	if last.Kind == fieldpath.KindIndex {
		name = p.String()
	}
	fmt.Fprintf(&b, "**%s** `%s`", name, typeName(s))
	if last.Kind == fieldpath.KindField && parent != nil && parent.ValueValidation != nil {
		for _, r := range parent.ValueValidation.Required {
			if r == last.Field {
				b.WriteString(" — required")
			}
		}
	}
	b.WriteString("\n\n")
	if s.Description != "" {
		b.WriteString(s.Description)
		b.WriteString("\n\n")
	}
	var facts []string
	if s.Default.Object != nil {
		facts = append(facts, "default: `"+jsonText(s.Default.Object)+"`")
	}
	if v := s.ValueValidation; v != nil {
		if len(v.Enum) > 0 {
			var vals []string
			for _, e := range v.Enum {
				vals = append(vals, "`"+jsonText(e.Object)+"`")
			}
			facts = append(facts, "one of: "+strings.Join(vals, ", "))
		}
		if v.Minimum != nil {
			facts = append(facts, fmt.Sprintf("minimum: %v", *v.Minimum))
		}
		if v.Maximum != nil {
			facts = append(facts, fmt.Sprintf("maximum: %v", *v.Maximum))
		}
		if v.MinLength != nil {
			facts = append(facts, fmt.Sprintf("min length: %d", *v.MinLength))
		}
		if v.MaxLength != nil {
			facts = append(facts, fmt.Sprintf("max length: %d", *v.MaxLength))
		}
		if v.MinItems != nil {
			facts = append(facts, fmt.Sprintf("min items: %d", *v.MinItems))
		}
		if v.MaxItems != nil {
			facts = append(facts, fmt.Sprintf("max items: %d", *v.MaxItems))
		}
		if v.Pattern != "" {
			facts = append(facts, "pattern: `"+v.Pattern+"`")
		}
		if len(v.Required) > 0 {
			req := append([]string(nil), v.Required...)
			sort.Strings(req)
			facts = append(facts, "requires: "+strings.Join(req, ", "))
		}
	}
	for _, f := range facts {
		b.WriteString("- " + f + "\n")
	}
	if len(facts) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

func kindSummary(sch *schemas.Schema, versions []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** `%s` (%s)\n\n", sch.GVK.Kind, sch.GVK.APIVersion(), sch.Scope)
	if sch.Description != "" {
		b.WriteString(sch.Description + "\n\n")
	}
	group := sch.GVK.Group
	if group == "" {
		group = "core"
	}
	fmt.Fprintf(&b, "Group `%s`, versions: %s. ", group, strings.Join(versions, ", "))
	if sch.CRDName != "" {
		fmt.Fprintf(&b, "Defined by `%s`. ", sch.CRDName)
	}
	b.WriteString(sourceLine(sch))
	return b.String()
}

func sourceLine(sch *schemas.Schema) string {
	switch sch.Source.Kind {
	case schemas.SourceBuiltin:
		return "Schema: built-in " + sch.Source.Name
	case schemas.SourcePackage:
		return "Schema: package `" + sch.Source.Name + ":" + sch.Source.Version + "`"
	case schemas.SourceCatalog:
		return "Schema: catalog `" + sch.Source.Name + "` (" + catalogFidelity + ")"
	case schemas.SourceCluster:
		return "Schema: " + ClusterSourceText(sch.Source, time.Now())
	}
	return "Schema: workspace file `" + filepath.Base(sch.Source.File) + "`"
}

// ClusterSourceText names a cluster schema's source: "cluster `dev-eu`,
// read 3 min ago" (Source.Version holds the read time, RFC 3339).
func ClusterSourceText(src schemas.Source, now time.Time) string {
	out := "cluster `" + src.Name + "`"
	at, err := time.Parse(time.RFC3339, src.Version)
	if err != nil {
		return out
	}
	switch d := now.Sub(at); {
	case d < time.Minute:
		return out + ", read just now"
	case d < time.Hour:
		return out + fmt.Sprintf(", read %d min ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return out + fmt.Sprintf(", read %d h ago", int(d/time.Hour))
	default:
		return out + fmt.Sprintf(", read %d days ago", int(d/(24*time.Hour)))
	}
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
