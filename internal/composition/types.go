// This file checks that the type a patch reads, through its transforms, fits
// the type it writes.

package composition

import (
	"fmt"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/structural"
)

// nodeAt returns the schema node at p, or nil when the schema does not
// say (unknown path, preserve-unknown-fields, int-or-string, metadata).
func nodeAt(s *structuralschema.Structural, p fieldpath.Path) *structuralschema.Structural {
	cur := s
	for i, seg := range p {
		if cur == nil || cur.XPreserveUnknownFields || cur.XIntOrString {
			return nil
		}
		if i == 0 && seg.Kind == fieldpath.KindField && seg.Field == "metadata" {
			return structural.MetaNode(p[1:])
		}
		next, ok := structural.Step(cur, seg)
		if !ok {
			return nil
		}
		cur = next
	}
	return cur
}

// fits reports whether a value of type from may be written where the
// schema wants type to (integer → number is fine, as in P&T).
func fits(from, to string) bool {
	return from == "" || to == "" || from == to || (from == "integer" && to == "number")
}

// convertTypes maps convert's toType to the schema type it produces.
var convertTypes = map[string]string{"string": "string", "int": "integer", "int64": "integer", "bool": "boolean", "float64": "number", "object": "object", "array": "array"}

// flow passes a value of type in through the transforms; it returns the
// resulting type ("" when unknown) or a problem with the transform index.
func flow(in string, transforms []any) (string, int, string) {
	t := in
	for i, tr := range transforms {
		tm, _ := tr.(map[string]any)
		kind, _ := tm["type"].(string)
		need := func(want ...string) string {
			if t == "" {
				return ""
			}
			for _, w := range want {
				if fits(t, w) {
					return ""
				}
			}
			return fmt.Sprintf("the %s transform needs %s input, but gets %s", kind, article(want[0]), article(t))
		}
		switch kind {
		case "map":
			if msg := need("string"); msg != "" {
				return "", i, msg
			}
			t = commonType(tm["map"])
		case "match":
			if msg := need("string"); msg != "" {
				return "", i, msg
			}
			t = ""
		case "math":
			if msg := need("number"); msg != "" {
				return "", i, msg
			}
			if t == "" {
				t = "number"
			}
		case "string":
			s, _ := tm["string"].(map[string]any)
			st, _ := s["type"].(string)
			switch st {
			case "Join":
				if msg := need("array"); msg != "" {
					return "", i, msg
				}
			case "Convert":
				conv, _ := s["convert"].(string)
				switch conv {
				case "ToJson", "ToSha1", "ToSha256", "ToSha512", "ToAdler32":
				default:
					if msg := need("string"); msg != "" {
						return "", i, msg
					}
				}
				if conv == "ToAdler32" {
					t = "integer"
					continue
				}
			case "Format":
				// fmt accepts any value.
			default:
				if msg := need("string"); msg != "" {
					return "", i, msg
				}
			}
			t = "string"
		case "convert":
			cv, _ := tm["convert"].(map[string]any)
			to, _ := cv["toType"].(string)
			t = convertTypes[to]
		default:
			t = ""
		}
	}
	return t, -1, ""
}

// commonType is the JSON type shared by all values of a map transform.
func commonType(v any) string {
	m, _ := v.(map[string]any)
	t := ""
	for _, x := range m {
		xt := jsonType(x)
		if t == "" {
			t = xt
		} else if t != xt {
			return ""
		}
	}
	return t
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int, int32, int64:
		return "integer"
	case float32, float64:
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return ""
}

// typeFlow checks that the type a patch reads, through its transforms, fits
// the type it writes.
func (c *checker) typeFlow(pm map[string]any, pp fieldpath.Path, base *structuralschema.Structural, baseKnown bool) {
	t := patchType(pm)
	if t != fromComposite && t != toComposite {
		return
	}
	fromSide, toSide := sides(t)
	schemaFor := func(s side) *structuralschema.Structural {
		if s == sideComposite && c.xrKnown {
			return c.xr
		}
		if s == sideBase && baseKnown {
			return base
		}
		return nil
	}
	fromStr, _ := pm["fromFieldPath"].(string)
	toStr, _ := pm["toFieldPath"].(string)
	if toStr == "" {
		toStr = fromStr
	}
	fp, err1 := fieldpath.Parse(fromStr)
	tp, err2 := fieldpath.Parse(toStr)
	fs, ts := schemaFor(fromSide), schemaFor(toSide)
	if err1 != nil || err2 != nil || fs == nil || ts == nil {
		return
	}
	from, to := nodeAt(fs, fp), nodeAt(ts, tp)
	if from == nil {
		return
	}
	transforms, _ := pm["transforms"].([]any)
	out, at, msg := flow(from.Type, transforms)
	if at >= 0 {
		c.add(pp.Child(fieldpath.Field("transforms"), fieldpath.Index(at)), true, c.schemaSeverity(), "patch-type", msg)
		return
	}
	if to == nil || fits(out, to.Type) {
		return
	}
	how := "reads"
	if len(transforms) > 0 {
		how = "turns its input into"
	}
	key := "toFieldPath"
	if _, ok := pm["toFieldPath"]; !ok {
		key = "fromFieldPath"
	}
	c.add(pp.Child(fieldpath.Field(key)), false, c.schemaSeverity(), "patch-type",
		fmt.Sprintf("the patch %s %s, but %s is %s", how, article(out), toStr, article(to.Type)))
}

func article(t string) string {
	if t == "" {
		return "a value of unknown type"
	}
	if t == "integer" || t == "array" || t == "object" {
		return "an " + t
	}
	return "a " + t
}
