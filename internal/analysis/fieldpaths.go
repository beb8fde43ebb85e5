package analysis

import (
	"context"

	"gopkg.in/yaml.v3"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// fieldPathSchema returns the schema a Composition fieldPath string at p
// (a patch's fromFieldPath/toFieldPath, a combine variable, a readiness
// check or a connection detail) is read against, and which side that is.
func fieldPathSchema(d *document.Doc, m map[string]any, p fieldpath.Path, env Env) (*structuralschema.Structural, string, bool) {
	last, ok := p.Last()
	if !ok || last.Kind != fieldpath.KindField {
		return nil, "", false
	}
	if gvk, _, ok := resourceHeader(d, m); !ok || gvk.Group != "apiextensions.crossplane.io" || gvk.Kind != "Composition" {
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
	}
	gvk, ok := baseGVK(target)
	if !ok || env.Schemas == nil {
		return nil, side, false
	}
	sch, found := nearest(env.Schemas.Candidates(gvk), d.File.URI)
	if !found {
		return nil, side, false
	}
	ss, err := sch.Structural()
	if err != nil {
		return nil, side, false
	}
	return ss, side, true
}

// fieldPathHover explains the field a Composition fieldPath string names.
func fieldPathHover(ctx context.Context, hit document.Hit, m map[string]any, env Env) *HoverResult {
	if hit.OnKey || hit.Value == nil || hit.Value.Kind != yaml.ScalarNode {
		return nil
	}
	ss, side, ok := fieldPathSchema(hit.Doc, m, hit.Path, env)
	if !ok {
		return nil
	}
	fp, err := fieldpath.Parse(hit.Value.Value)
	if err != nil {
		return nil
	}
	node, parent := walkStructural(ss, fp)
	if node == nil {
		return nil
	}
	md := fieldDocBody(fp, node, parent)
	return &HoverResult{Span: hit.Doc.File.NodeSpan(hit.Value), Markdown: md + "`" + fp.String() + "` of the " + sideName(side) + " resource"}
}

func sideName(s string) string {
	if s == "composite" {
		return "composite"
	}
	return "composed"
}
