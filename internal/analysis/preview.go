// This file offers "Preview rendered": code lenses on composed resources
// and the rendered YAML they show.

package analysis

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// Lens is a code lens: a command shown above a line.
type Lens struct {
	Span  document.Span
	Title string
	// Line is the 0-based line the command renders (a resource template's
	// or the Composition's).
	Line int
	// XR is the example composite file to render with ("" synthesises one).
	XR string
}

// CodeLenses offers "Preview rendered" on each composed resource of a
// Composition (classic and P&T) and on the Composition itself.
// With several example composites in the workspace, the Composition gets
// one more lens per example; the others use the first.
func CodeLenses(f *document.File, env Env) []Lens {
	var out []Lens
	for _, d := range f.Docs {
		if d.Root == nil || len(d.Errors) > 0 {
			continue
		}
		_, kind, ok := d.Lookup(fieldpath.Path{fieldpath.Field("kind")})
		if !ok || kind.Value != "Composition" {
			continue
		}
		obj, err := d.Object()
		if err != nil {
			continue
		}
		m, _ := obj.(map[string]any)
		m = AsFunctionsRead(m, env)
		examples := selectingExamples(m, env)
		xr, with := "", ""
		if len(examples) > 0 {
			xr, with = examples[0].Path, " with "+relName(examples[0].Path, f.URI)
		}
		add := func(p fieldpath.Path, title, xr string) {
			k, v, ok := d.Lookup(p)
			if !ok {
				return
			}
			n := v
			if k != nil {
				n = k
			}
			sp := f.NodeSpan(n)
			out = append(out, Lens{Span: sp, Title: title, Line: f.Mapper.LineOf(sp.Start), XR: xr})
		}
		add(fieldpath.Path{fieldpath.Field("kind")}, "Preview rendered (all resources"+with+")", xr)
		for _, ex := range examples[min(1, len(examples)):] {
			add(fieldpath.Path{fieldpath.Field("kind")}, "Preview with "+relName(ex.Path, f.URI), ex.Path)
		}
		for _, h := range resourceHolders(m) {
			holder, _ := valueAt(m, h).(map[string]any)
			list, _ := holder["resources"].([]any)
			for i := range list {
				rp := h.Child(fieldpath.Field("resources"), fieldpath.Index(i))
				if _, _, ok := d.Lookup(rp.Child(fieldpath.Field("name"))); ok {
					add(rp.Child(fieldpath.Field("name")), "Preview rendered"+with, xr)
				} else {
					add(rp.Child(fieldpath.Field("base")), "Preview rendered"+with, xr)
				}
			}
		}
	}
	return out
}

// selectingExamples are the workspace's example composites (XRs or
// claims) of a Composition's kind that could select it, as Crossplane
// picks a Composition: one that names another Composition
// (compositionRef) or whose compositionSelector's matchLabels the
// Composition's labels lack would never be composed by it. Others
// (neither set) may be, by default.
func selectingExamples(m map[string]any, env Env) []Example {
	if env.Workspace.Rendering().Examples == nil {
		return nil
	}
	spec, _ := m["spec"].(map[string]any)
	ref, _ := spec["compositeTypeRef"].(map[string]any)
	gvk, ok := baseGVK(ref)
	if !ok {
		return nil
	}
	md, _ := m["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	labels, _ := md["labels"].(map[string]any)
	var out []Example
	for _, ex := range env.Workspace.Rendering().Examples(gvk) {
		if selects(ex.Object, name, labels) {
			out = append(out, ex)
		}
	}
	return out
}

// selects reports whether a composite or claim could be composed by the
// Composition with this name and these labels: its compositionRef names
// it, or its compositionSelector's matchLabels all hold, or it sets
// neither. Crossplane v2 XRs keep both under spec.crossplane; v1 XRs and
// claims under spec.
func selects(obj map[string]any, name string, labels map[string]any) bool {
	spec, _ := obj["spec"].(map[string]any)
	holder := spec
	if cp, ok := spec["crossplane"].(map[string]any); ok {
		holder = cp
	}
	if ref, ok := holder["compositionRef"].(map[string]any); ok {
		if n, ok := ref["name"].(string); ok && n != "" {
			return n == name
		}
	}
	if sel, ok := holder["compositionSelector"].(map[string]any); ok {
		want, _ := sel["matchLabels"].(map[string]any)
		for k, v := range want {
			if have, ok := labels[k]; !ok || fmt.Sprint(have) != fmt.Sprint(v) {
				return false
			}
		}
	}
	return true
}

// resourceHolders are the paths of a Composition that hold resources:
// spec (classic) and each P&T step's input.
func resourceHolders(m map[string]any) []fieldpath.Path {
	spec, _ := m["spec"].(map[string]any)
	var holders []fieldpath.Path
	if _, ok := spec["resources"].([]any); ok {
		holders = append(holders, fieldpath.Path{fieldpath.Field("spec")})
	}
	steps, _ := spec["pipeline"].([]any)
	for i, st := range steps {
		sm, _ := st.(map[string]any)
		in, _ := sm["input"].(map[string]any)
		if av, _ := in["apiVersion"].(string); strings.HasPrefix(av, "pt.fn.crossplane.io/") && in["kind"] == "Resources" {
			holders = append(holders, fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("pipeline"), fieldpath.Index(i), fieldpath.Field("input")})
		}
	}
	return holders
}

// RenderAt renders the Composition that holds offset (against xr, or a
// synthesised composite when xr is nil) and returns YAML: every resource,
// or only the resource template at offset. Notes come first, as comments.
func RenderAt(ctx context.Context, f *document.File, offset int, xr map[string]any, xrPath string, env Env) (string, error) {
	d := f.DocAt(offset)
	if d == nil || d.Root == nil {
		return "", fmt.Errorf("no YAML document at this position")
	}
	obj, err := d.Object()
	if err != nil {
		return "", err
	}
	m, _ := obj.(map[string]any)
	if m["kind"] != "Composition" {
		return "", fmt.Errorf("this document is not a Composition")
	}
	// Lenient: a preview shows what can be rendered, with the failures noted.
	out, ok := RenderComposition(ctx, d, m, xr, env, true)
	if !ok {
		return "", fmt.Errorf("no XRD for this Composition's compositeTypeRef in the workspace")
	}
	synthesized := out.Synthesized
	only := ""
	if hit, ok := f.At(offset); ok {
		for _, res := range out.Resources {
			if _, fromFunction := out.Functions[res.Name]; hit.Path.HasPrefix(res.Path) && res.Name != "" && !fromFunction {
				only = res.Name
			}
		}
	}
	var b strings.Builder
	if xrPath != "" {
		fmt.Fprintf(&b, "# Rendered by crd-lsp with %s.\n", xrPath)
	}
	if synthesized {
		b.WriteString("# Rendered by crd-lsp with a composite resource synthesised from the XRD:\n# its required fields with placeholders, optional fields unset.\n")
	}
	// Each note and finding names the place in the Composition it comes
	// from as FILE:LINE:COL (1-based), as compilers do: editors link it
	// back (VS Code's preview does; Vim's gF jumps to it).
	name := compositionName(f.URI)
	note := func(sp document.Span, msg string) {
		line, col := f.Mapper.LineCol(sp.Start)
		fmt.Fprintf(&b, "# %s:%d:%d: %s\n", name, line, col, strings.ReplaceAll(msg, "\n", " "))
	}
	for _, n := range out.Notes {
		note(diagnosticAt(d, n.Path, n.OnKey, 0, "", "").Span, n.Message)
	}
	for _, fd := range previewFindings(ctx, d, out, only, env) {
		note(fd.Span, fd.Message)
	}
	y, err := out.YAML(only)
	if err != nil {
		return "", err
	}
	b.Write(y)
	return b.String(), nil
}

// compositionName is the file name a preview's notes give the Composition.
func compositionName(u string) string {
	if pu, err := url.Parse(u); err == nil && pu.Scheme != "" && pu.Path != "" {
		u = pu.Path
	}
	return path.Base(filepath.ToSlash(u))
}

// previewFindings are what the API server would reject in the rendered
// resources a preview shows (only: one resource, "" all of them), each
// placed where the Composition decides it: the patch that wrote the value,
// else the value in the base, else the resource template. A preview is
// not diagnosed as a file (it is no file), so its errors live here, each
// linking back to its cause.
func previewFindings(ctx context.Context, d *document.Doc, out Rendering, only string, env Env) []Diagnostic {
	var diags []Diagnostic
	for _, res := range out.Resources {
		if only != "" && res.Name != only {
			continue
		}
		sch, ok := resourceSchema(ctx, d, res, env)
		if !ok {
			continue
		}
		who := sch.GVK.Kind
		if res.Name != "" {
			who += fmt.Sprintf(" %q", res.Name)
		}
		base := res.Path.Child(fieldpath.Field("base"))
		for _, e := range sch.Validate(ctx, res.Object) {
			if e.Severity == severity.Info || (len(e.Path) > 0 && e.Path[0].Field == "metadata") {
				continue // metadata is the API server's to fill (generateName, labels)
			}
			where := res.Path
			if w, ok := lastWrite(res.Writes, e.Path); ok && w.Patch != nil {
				where = w.Patch.Child(fieldpath.Field("toFieldPath"))
			} else if _, _, ok := d.Spans(base.Child(e.Path...)); ok && len(res.Path) > 0 {
				where = base.Child(e.Path...)
			}
			msg := e.Message
			if ps := e.Path.String(); ps != "" {
				msg = ps + ": " + msg
			}
			diags = append(diags, diagnosticAt(d, where, true, severity.Error, e.Code, who+": "+msg))
		}
	}
	return diags
}
