// This file resolves the fieldPaths of patches against the schemas of the
// sides they read and write (the XR's, the base's).

package composition

import (
	"fmt"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/structural"
)

// side says which object a fieldPath reads or writes.
type side int

const (
	sideComposite side = iota
	sideBase
	sideEnvironment
)

func (s side) String() string {
	switch s {
	case sideComposite:
		return "the composite resource's"
	case sideBase:
		return "the composed resource's"
	}
	return "the environment's"
}

// sides returns where a patch type reads from and writes to.
func sides(t string) (from, to side) {
	switch t {
	case toComposite, combineTo:
		return sideBase, sideComposite
	case fromEnvironment, combineFromEnv:
		return sideEnvironment, sideBase
	case toEnvironment, combineToEnv:
		return sideBase, sideEnvironment
	}
	return sideComposite, sideBase
}

// patchPaths checks that a patch's fieldPaths exist in the schemas of the
// sides they read and write. via, when set, says through which patchSet
// use the patch is being checked.
func (c *checker) patchPaths(pm map[string]any, pp fieldpath.Path, base *structuralschema.Structural, baseKnown bool, via string) {
	t := patchType(pm)
	if t == patchSetPatch || !knownPatchTypes[t] {
		return
	}
	from, to := sides(t)
	schemaFor := func(s side) (*structuralschema.Structural, bool) {
		switch s {
		case sideComposite:
			return c.xr, c.xrKnown
		case sideBase:
			return base, baseKnown
		}
		return nil, false
	}
	check := func(key string, s side, path fieldpath.Path) {
		str, _ := pm[key].(string)
		if str == "" {
			return
		}
		c.resolve(str, s, path, schemaFor, via)
	}
	check("fromFieldPath", from, pp.Child(fieldpath.Field("fromFieldPath")))
	if _, ok := pm["toFieldPath"]; ok {
		check("toFieldPath", to, pp.Child(fieldpath.Field("toFieldPath")))
	} else if t == fromComposite || t == toComposite || t == fromEnvironment || t == toEnvironment {
		// toFieldPath defaults to fromFieldPath.
		if str, _ := pm["fromFieldPath"].(string); str != "" {
			c.resolve(str, to, pp.Child(fieldpath.Field("fromFieldPath")), schemaFor, via)
		}
	}
	if comb, ok := pm["combine"].(map[string]any); ok {
		vars, _ := comb["variables"].([]any)
		for i, v := range vars {
			vm, _ := v.(map[string]any)
			if str, _ := vm["fromFieldPath"].(string); str != "" {
				c.resolve(str, from, pp.Child(fieldpath.Field("combine"), fieldpath.Field("variables"), fieldpath.Index(i), fieldpath.Field("fromFieldPath")), schemaFor, via)
			}
		}
	}
}

func (c *checker) resolve(str string, s side, at fieldpath.Path, schemaFor func(side) (*structuralschema.Structural, bool), via string) {
	ss, known := schemaFor(s)
	if !known || ss == nil {
		return // reported once where the schema is missing
	}
	p, err := fieldpath.Parse(str)
	if err != nil {
		return // reported as a syntax error
	}
	if msg, seg := walk(ss, p); msg != "" {
		msg = fmt.Sprintf("%s: %s per %s schema", str, msg, s)
		if via != "" {
			msg += " (" + via + ")"
		}
		c.addUnknown(at, seg, msg)
	}
}

// walk follows p through s; it returns "" when p can exist, else why not,
// with the index of the segment that names no field (-1 for other
// reasons).
func walk(s *structuralschema.Structural, p fieldpath.Path) (string, int) {
	cur := s
	for i, seg := range p {
		if structural.Opaque(cur) {
			return "", -1
		}
		if i == 0 && seg.Kind == fieldpath.KindField && (seg.Field == "apiVersion" || seg.Field == "kind") {
			return "", -1
		}
		if i == 0 && seg.Kind == fieldpath.KindField && seg.Field == "metadata" {
			if len(p) > 1 && p[1].Kind == fieldpath.KindField {
				if _, ok := structural.MetaFieldType(p[1].Field); !ok {
					return fmt.Sprintf("field %q is not part of object metadata", p[1].Field), -1
				}
			}
			return "", -1
		}
		switch seg.Kind {
		case fieldpath.KindField:
			if cur.Type != "object" {
				return fmt.Sprintf("%q is a field of %s, which is of type %s", seg.Field, p[:i].String(), cur.Type), -1
			}
			next, ok := structural.Step(cur, seg)
			if !ok {
				return fmt.Sprintf("field %q does not exist", seg.Field), i
			}
			cur = next
		case fieldpath.KindIndex, fieldpath.KindWildcard:
			if cur.Type != "array" {
				return fmt.Sprintf("%s is of type %s, not an array that can be indexed", p[:i].String(), cur.Type), -1
			}
			cur = cur.Items
		}
	}
	return "", -1
}

// expandPatchSet checks the patches of the named patchSet, as used by one
// resource, against that resource's base.
func (c *checker) expandPatchSet(setList []any, name string, p fieldpath.Path, base *structuralschema.Structural, baseKnown bool, use string) {
	for i, s := range setList {
		m, _ := s.(map[string]any)
		if n, _ := m["name"].(string); n != name {
			continue
		}
		patches, _ := m["patches"].([]any)
		for j, pt := range patches {
			pm, _ := pt.(map[string]any)
			pp := p.Child(fieldpath.Field("patchSets"), fieldpath.Index(i), fieldpath.Field("patches"), fieldpath.Index(j))
			c.patchPaths(pm, pp, base, baseKnown, "patchSet "+name+" as used by "+use)
		}
	}
}
