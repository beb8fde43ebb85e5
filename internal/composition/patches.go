// This file checks a Composition's resources, patchSets, patches, transforms,
// readiness checks and connection details for what each type needs.

package composition

import (
	"errors"
	"fmt"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions/patchandtransform"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// Patch types and where they read from and write to.
const (
	fromComposite    = "FromCompositeFieldPath"
	toComposite      = "ToCompositeFieldPath"
	combineFrom      = "CombineFromComposite"
	combineTo        = "CombineToComposite"
	fromEnvironment  = "FromEnvironmentFieldPath"
	toEnvironment    = "ToEnvironmentFieldPath"
	combineFromEnv   = "CombineFromEnvironment"
	combineToEnv     = "CombineToEnvironment"
	patchSetPatch    = "PatchSet"
	defaultPatchType = fromComposite
)

var knownPatchTypes = map[string]bool{
	fromComposite: true, toComposite: true, combineFrom: true, combineTo: true,
	fromEnvironment: true, toEnvironment: true, combineFromEnv: true, combineToEnv: true, patchSetPatch: true,
}

// resources checks a list of composed resources with their patchSets:
// spec of a classic Composition, or a P&T Resources input.
func (c *checker) resources(holder map[string]any, p fieldpath.Path, classic bool) {
	c.classic = classic
	if env, _ := holder["environment"].(map[string]any); !classic && isEmptyList(holder["resources"]) {
		if envPatches, _ := env["patches"].([]any); len(envPatches) == 0 {
			c.add(p, true, severity.Error, "composition-resource", "function-patch-and-transform needs resources or environment patches")
		}
	}
	sets := map[string]bool{}
	setList, _ := holder["patchSets"].([]any)
	for i, s := range setList {
		m, _ := s.(map[string]any)
		name, _ := m["name"].(string)
		sets[name] = true
		sp := p.Child(fieldpath.Field("patchSets"), fieldpath.Index(i))
		if name == "" {
			c.add(sp, true, severity.Error, "composition-patch", "a patchSet needs a name")
		}
		patches, _ := m["patches"].([]any)
		for j, pt := range patches {
			pm, _ := pt.(map[string]any)
			pp := sp.Child(fieldpath.Field("patches"), fieldpath.Index(j))
			if t := patchType(pm); t == patchSetPatch {
				c.add(pp.Child(fieldpath.Field("type")), false, severity.Error, "composition-patch", "a patchSet cannot include another patchSet")
				continue
			}
			// Paths inside patchSets are checked where the set is used.
			c.patchFields(pm, pp, sets)
		}
	}
	list, _ := holder["resources"].([]any)
	names := map[string]int{}
	named, anonymous := 0, 0
	for i, r := range list {
		res, _ := r.(map[string]any)
		rp := p.Child(fieldpath.Field("resources"), fieldpath.Index(i))
		name, _ := res["name"].(string)
		if name == "" {
			anonymous++
			if !classic {
				c.add(rp, true, severity.Error, "composition-resource", "function-patch-and-transform needs a name for every resource")
			}
		} else {
			named++
			if prev, dup := names[name]; dup {
				if classic {
					c.add(rp.Child(fieldpath.Field("name")), false, severity.Error, "composition-resource", fmt.Sprintf("resource name %q is already used by resources[%d]", name, prev))
				} else {
					// function-patch-and-transform checks no names: the later
					// template replaces the earlier (fn.go:265; every release
					// recorded, case resource-duplicate-names).
					c.add(rp.Child(fieldpath.Field("name")), false, severity.Warning, "composition-resource", fmt.Sprintf("resource name %q is already used by resources[%d]: function-patch-and-transform composes only this later one", name, prev))
				}
			}
			names[name] = i
		}
		var base *structuralschema.Structural
		baseKnown := false
		if b, ok := res["base"].(map[string]any); ok {
			if gvk := gvk.Of(b); gvk.Kind != "" && c.env.Schema != nil {
				base, baseKnown = c.env.Schema(gvk)
				if !baseKnown {
					served := ""
					if c.env.Versions != nil {
						if vs := c.env.Versions(gvk); len(vs) > 0 {
							served = fmt.Sprintf(" (%s is served as %s only)", gvk.Kind, strings.Join(vs, ", "))
						}
					}
					c.missingSchema(rp.Child(fieldpath.Field("base"), fieldpath.Field("kind")),
						fmt.Sprintf("no schema for %s %s%s: this resource's patches are not checked against it", gvk.APIVersion(), gvk.Kind, served))
				}
			}
		}
		patches, _ := res["patches"].([]any)
		for j, pt := range patches {
			pm, _ := pt.(map[string]any)
			pp := rp.Child(fieldpath.Field("patches"), fieldpath.Index(j))
			c.patchFields(pm, pp, sets)
			c.patchPaths(pm, pp, base, baseKnown, "")
			c.typeFlow(pm, pp, base, baseKnown)
			if patchType(pm) == patchSetPatch {
				setName, _ := pm["patchSetName"].(string)
				use := pp.String()
				if name != "" {
					use = fmt.Sprintf("resource %q's patches[%d]", name, j)
				}
				c.expandPatchSet(setList, setName, p, base, baseKnown, use)
			}
		}
		c.readinessChecks(res, rp)
		c.readinessTypes(res, rp, base, baseKnown)
		c.connectionDetails(res, rp, base, baseKnown)
	}
	if env, ok := holder["environment"].(map[string]any); ok {
		patches, _ := env["patches"].([]any)
		for j, pt := range patches {
			pm, _ := pt.(map[string]any)
			pp := p.Child(fieldpath.Field("environment"), fieldpath.Field("patches"), fieldpath.Index(j))
			switch t := patchType(pm); t {
			case fromComposite, toComposite, combineFrom, combineTo, fromEnvironment, toEnvironment:
				c.patchFields(pm, pp, sets)
			default:
				c.add(pp.Child(fieldpath.Field("type")), false, severity.Error, "composition-patch", fmt.Sprintf("a %s patch is not allowed in environment.patches", t))
			}
		}
	}
	if classic && named > 0 && anonymous > 0 {
		c.add(p.Child(fieldpath.Field("resources")), true, severity.Error, "composition-resource", "either every resource has a name or none has: mixing named and anonymous resources is not allowed")
	}
}

func patchType(pm map[string]any) string {
	t, _ := pm["type"].(string)
	if t == "" {
		return defaultPatchType
	}
	return t
}

// patchFields checks that a patch carries what its type needs.
func (c *checker) patchFields(pm map[string]any, pp fieldpath.Path, sets map[string]bool) {
	t := patchType(pm)
	if !knownPatchTypes[t] {
		c.add(pp.Child(fieldpath.Field("type")), false, severity.Error, "composition-patch", fmt.Sprintf("unknown patch type %q", t))
		return
	}
	switch t {
	case fromComposite, toComposite, fromEnvironment, toEnvironment:
		if s, _ := pm["fromFieldPath"].(string); s == "" {
			c.add(pp, true, severity.Error, "composition-patch", fmt.Sprintf("a %s patch needs fromFieldPath", t))
		}
	case combineFrom, combineTo, combineFromEnv, combineToEnv:
		comb, _ := pm["combine"].(map[string]any)
		if comb == nil {
			c.add(pp, true, severity.Error, "composition-patch", fmt.Sprintf("a %s patch needs combine", t))
		} else if vars, ok := comb["variables"].([]any); ok && len(vars) == 0 {
			c.add(pp.Child(fieldpath.Field("combine")), true, severity.Error, "composition-patch", "combine needs at least one variable")
		} else if strategy, _ := comb["strategy"].(string); strategy == "string" {
			if str, _ := comb["string"].(map[string]any); str == nil || str["fmt"] == nil {
				switch {
				case c.classic:
					c.add(pp.Child(fieldpath.Field("combine")), true, severity.Error, "composition-patch", "the string strategy needs string.fmt")
				case str == nil:
					// function-patch-and-transform refuses a string strategy
					// without string (validate.go:226; case combine-without-string).
					c.add(pp.Child(fieldpath.Field("combine")), true, severity.Error, "composition-patch", "the string strategy needs string.fmt (function-patch-and-transform fails the step without combine.string)")
				default:
					// It accepts string without fmt and writes Go's fmt of
					// an empty format (patches.go:319; case
					// combine-string-without-fmt).
					c.add(pp.Child(fieldpath.Field("combine"), fieldpath.Field("string")), true, severity.Warning, "composition-patch", "the string strategy needs string.fmt: without it function-patch-and-transform writes \"%!(EXTRA …)\" with the variables' values")
				}
			}
		}
		if s, _ := pm["toFieldPath"].(string); s == "" {
			c.add(pp, true, severity.Error, "composition-patch", fmt.Sprintf("a %s patch needs toFieldPath", t))
		}
	case patchSetPatch:
		name, _ := pm["patchSetName"].(string)
		if name == "" {
			c.add(pp, true, severity.Error, "composition-patch", "a PatchSet patch needs patchSetName")
		} else if !sets[name] {
			c.add(pp.Child(fieldpath.Field("patchSetName")), false, severity.Error, "composition-patch", fmt.Sprintf("no patchSet named %q", name))
		}
	}
	if pol, ok := pm["policy"].(map[string]any); ok {
		if v, ok := pol["fromFieldPath"].(string); ok && v != "Optional" && v != "Required" {
			at := pp.Child(fieldpath.Field("policy"), fieldpath.Field("fromFieldPath"))
			combine := t == combineFrom || t == combineTo || t == combineFromEnv || t == combineToEnv
			switch {
			case c.classic:
				c.add(at, false, severity.Error, "composition-patch", fmt.Sprintf("unknown fromFieldPath policy %q (Optional or Required)", v))
			case c.ptBefore("v0.4.0"):
				// Releases before v0.4.0 read any other value as Required
				// (cases policy-from-field-path-garbage of v0.2.1, v0.1.4).
				c.add(at, false, severity.Warning, "composition-patch", fmt.Sprintf("unknown fromFieldPath policy %q (Optional or Required): function-patch-and-transform %s reads it as Required", v, c.ptRelease))
			case combine:
				// validate.go:190 stops at the combine: its policy is not
				// checked and acts as Optional (case combine-with-garbage-policy).
				c.add(at, false, severity.Warning, "composition-patch", fmt.Sprintf("unknown fromFieldPath policy %q (Optional or Required): function-patch-and-transform reads it as Optional on a combine patch", v))
			default:
				c.add(at, false, severity.Error, "composition-patch", fmt.Sprintf("unknown fromFieldPath policy %q (Optional or Required): function-patch-and-transform fails the step (\"unknown fromFieldPathPolicy\")", v))
			}
		}
		if v, ok := pol["toFieldPath"].(string); ok {
			switch v {
			case "Replace", "MergeObjects", "MergeObjectsAppendArrays", "ForceMergeObjects", "ForceMergeObjectsAppendArrays", "MergeObject", "AppendArray":
			default:
				c.add(pp.Child(fieldpath.Field("policy"), fieldpath.Field("toFieldPath")), false, severity.Error, "composition-patch", fmt.Sprintf("unknown toFieldPath policy %q", v))
			}
		}
	}
	transforms, _ := pm["transforms"].([]any)
	for i, tr := range transforms {
		c.transform(tr, pp.Child(fieldpath.Field("transforms"), fieldpath.Index(i)))
	}
	// fieldPath syntax.
	for _, key := range []string{"fromFieldPath", "toFieldPath"} {
		if s, ok := pm[key].(string); ok && s != "" {
			c.syntax(s, pp.Child(fieldpath.Field(key)))
		}
	}
	if comb, ok := pm["combine"].(map[string]any); ok {
		c.combineFormat(comb, pp.Child(fieldpath.Field("combine")))
		vars, _ := comb["variables"].([]any)
		for i, v := range vars {
			vm, _ := v.(map[string]any)
			if s, ok := vm["fromFieldPath"].(string); ok {
				c.syntax(s, pp.Child(fieldpath.Field("combine"), fieldpath.Field("variables"), fieldpath.Index(i), fieldpath.Field("fromFieldPath")))
			}
		}
	}
}

// syntax reports a fieldPath that Crossplane cannot parse, at the exact
// character.
func (c *checker) syntax(s string, p fieldpath.Path) {
	if _, err := fieldpath.Parse(s); err != nil {
		var se *fieldpath.SyntaxError
		off := 0
		msg := err.Error()
		if errors.As(err, &se) {
			off, msg = se.Offset, se.Msg
		}
		c.out = append(c.out, Problem{Path: p, InString: off, Segment: -1, Severity: severity.Error, Code: "fieldpath-syntax", Message: "invalid fieldPath: " + msg})
	}
}

// transform reports why a transform is invalid. Whether it is, and why,
// is decided by patchandtransform.ValidateTransform alone (the one decider, shared
// with the renderer, which words the same reasons as
// function-patch-and-transform does); this only words each reason for
// the editor and places it: on the key of what lacks something, on the
// value that is wrong. A classic Composition's transforms are validated
// after the API server's defaulting (math.type Multiply, string.type
// Format); P&T inputs are not defaulted, so those fields are required.
//
// Where the editor and the function differ:
//   - the function rejects a field of the wrong JSON type
//     (patchandtransform.WrongType) and a convert transform's unknown toType or
//     format (patchandtransform.BadValue); the editor leaves those to the input
//     schemas, which report them at the field;
//   - a transform that is not an object is reported as one without a
//     type;
//   - the function stops at the first reason, the editor reports them all
//     (each invalid pattern of a match transform; after a field of the
//     wrong type, what the validator finds reading it as its zero value,
//     so map: "x" needs at least one pair and replace: 5 needs
//     replace.search, while a regexp pattern's regexp: 5 is left to the
//     schema).
func (c *checker) transform(tv any, tp fieldpath.Path) {
	c.stringFormat(tv, tp)
	for _, e := range patchandtransform.ValidateTransform(tv, c.classic) {
		if at, onKey, msg := transformProblem(e); msg != "" {
			c.add(tp.Child(at...), onKey, severity.Error, "composition-transform", msg)
		}
	}
}

// transformProblem words a reason a transform is invalid for the editor:
// where, relative to the transform, whether on the key, and the message
// ("" when the editor leaves it to the schemas).
func transformProblem(e *patchandtransform.TransformError) (fieldpath.Path, bool, string) {
	f, parent := e.Field, e.Field.Parent()
	last := func() string { s, _ := f.Last(); return s.Field }
	first := func() string { return f[0].Field }
	switch e.Reason {
	case patchandtransform.MissingField:
		switch {
		case len(f) == 1: // the transform type's configuration
			return nil, true, fmt.Sprintf("a %s transform needs %s", e.Of, last())
		case first() == "match": // a pattern's literal or regexp
			return parent, true, fmt.Sprintf("a %s pattern needs %s", e.Of, last())
		case last() == "type":
			if first() == "math" {
				return parent, true, "a math transform needs math.type (Multiply, ClampMin or ClampMax)"
			}
			return parent, true, fmt.Sprintf("a %s transform needs %s", first(), f)
		case first() == "string" && len(f) > 1 && f[1].Field == "regexp":
			// A Regexp string transform's regexp and regexp.match are one
			// requirement.
			return f[:1], true, "a Regexp string transform needs regexp.match"
		}
		return parent, true, fmt.Sprintf("a %s %s transform needs %s", e.Of, first(), f[1:])
	case patchandtransform.EmptyMap:
		return f, true, "a map transform needs at least one pair"
	case patchandtransform.EmptyPatterns:
		return parent, true, "a match transform needs at least one pattern"
	case patchandtransform.UnknownType:
		switch {
		case len(f) == 1 && e.Value == "":
			return nil, true, "a transform needs a type"
		case len(f) == 1:
			return f, false, fmt.Sprintf("unknown transform type %q", e.Value)
		case first() == "match":
			return f, false, fmt.Sprintf("unknown pattern type %q (literal or regexp)", e.Value)
		}
		return f, false, fmt.Sprintf("unknown %s transform type %q", first(), e.Value)
	case patchandtransform.BadRegexp:
		return f, false, "invalid regular expression: " + e.Err.Error()
	case patchandtransform.Unreadable:
		return f, false, fmt.Sprintf("function-patch-and-transform cannot read %s: Crossplane passes a step's input as a protobuf Struct, whose numbers are float64, so it arrives as 9223372036854775808, which does not fit an int64, and the function rejects its whole input; the largest value it reads is %d", e.Value, int64(patchandtransform.MaxInputInt))
	}
	return nil, false, ""
}

func (c *checker) readinessChecks(res map[string]any, rp fieldpath.Path) {
	checks, _ := res["readinessChecks"].([]any)
	for i, ch := range checks {
		m, _ := ch.(map[string]any)
		cp := rp.Child(fieldpath.Field("readinessChecks"), fieldpath.Index(i))
		t, _ := m["type"].(string)
		if t == "" && c.classic {
			t = "NonEmpty"
		}
		switch t {
		case "None":
		case "MatchString", "MatchInteger", "NonEmpty", "MatchCondition", "MatchTrue", "MatchFalse":
			if t == "MatchCondition" {
				if mc, ok := m["matchCondition"].(map[string]any); ok && !c.classic {
					for _, k := range []string{"type", "status"} {
						if v, _ := mc[k].(string); v == "" {
							c.add(cp.Child(fieldpath.Field("matchCondition")), true, severity.Error, "composition-readiness", "a MatchCondition readiness check needs matchCondition."+k)
						}
					}
				}
			} else if s, _ := m["fieldPath"].(string); s == "" {
				c.add(cp, true, severity.Error, "composition-readiness", fmt.Sprintf("a %s readiness check needs fieldPath", t))
			} else {
				c.syntax(s, cp.Child(fieldpath.Field("fieldPath")))
			}
			if t == "MatchString" && m["matchString"] == nil {
				c.add(cp, true, severity.Error, "composition-readiness", "a MatchString readiness check needs matchString")
			}
			if t == "MatchInteger" && m["matchInteger"] == nil {
				c.add(cp, true, severity.Error, "composition-readiness", "a MatchInteger readiness check needs matchInteger")
			}
		case "":
			c.add(cp, true, severity.Error, "composition-readiness", "a readiness check needs a type")
		default:
			c.add(cp.Child(fieldpath.Field("type")), false, severity.Error, "composition-readiness", fmt.Sprintf("unknown readiness check type %q", t))
		}
	}
}

// readinessTypes checks that a readiness check's field has the type the
// check compares it with.
func (c *checker) readinessTypes(res map[string]any, rp fieldpath.Path, base *structuralschema.Structural, baseKnown bool) {
	if !baseKnown || base == nil {
		return
	}
	want := map[string]string{"MatchString": "string", "MatchInteger": "integer", "MatchTrue": "boolean", "MatchFalse": "boolean"}
	checks, _ := res["readinessChecks"].([]any)
	for i, ch := range checks {
		m, _ := ch.(map[string]any)
		t, _ := m["type"].(string)
		str, _ := m["fieldPath"].(string)
		w, typed := want[t]
		if str == "" {
			continue
		}
		fp, err := fieldpath.Parse(str)
		if err != nil {
			continue
		}
		at := rp.Child(fieldpath.Field("readinessChecks"), fieldpath.Index(i), fieldpath.Field("fieldPath"))
		if msg, seg := walk(base, fp); msg != "" {
			c.addUnknown(at, seg, fmt.Sprintf("%s: %s per the composed resource's schema", str, msg))
			continue
		}
		if node := nodeAt(base, fp); typed && node != nil && node.Type != w {
			c.add(at, false, c.schemaSeverity(), "readiness-type", fmt.Sprintf("a %s readiness check needs %s field, but %s is %s", t, article(w), str, article(node.Type)))
		}
	}
}

// connectionDetails checks that fromFieldPath connection details exist in
// the base's schema.
func (c *checker) connectionDetails(res map[string]any, rp fieldpath.Path, base *structuralschema.Structural, baseKnown bool) {
	details, _ := res["connectionDetails"].([]any)
	for i, d := range details {
		m, _ := d.(map[string]any)
		c.connectionDetail(m, rp.Child(fieldpath.Field("connectionDetails"), fieldpath.Index(i)))
		str, _ := m["fromFieldPath"].(string)
		if str == "" {
			continue
		}
		at := rp.Child(fieldpath.Field("connectionDetails"), fieldpath.Index(i), fieldpath.Field("fromFieldPath"))
		c.syntax(str, at)
		if !baseKnown || base == nil {
			continue
		}
		if fp, err := fieldpath.Parse(str); err == nil {
			if msg, seg := walk(base, fp); msg != "" {
				c.addUnknown(at, seg, fmt.Sprintf("%s: %s per the composed resource's schema", str, msg))
			}
		}
	}
}

// connectionDetail checks that a connection detail carries what its type
// needs. P&T requires the type and a name for every detail; classic
// Crossplane infers the type from the field that is set and lets a
// FromConnectionSecretKey detail default its name to the key.
func (c *checker) connectionDetail(m map[string]any, dp fieldpath.Path) {
	t, _ := m["type"].(string)
	if t == "" && c.classic {
		switch {
		case m["fromConnectionSecretKey"] != nil:
			t = "FromConnectionSecretKey"
		case m["fromFieldPath"] != nil:
			t = "FromFieldPath"
		case m["value"] != nil:
			t = "FromValue"
		}
	}
	field := map[string]string{"FromConnectionSecretKey": "fromConnectionSecretKey", "FromFieldPath": "fromFieldPath", "FromValue": "value"}
	key, known := field[t]
	switch {
	case t == "":
		c.add(dp, true, severity.Error, "composition-connection", "a connection detail needs a type (FromConnectionSecretKey, FromFieldPath or FromValue)")
		return
	case !known:
		c.add(dp.Child(fieldpath.Field("type")), false, severity.Error, "composition-connection", fmt.Sprintf("unknown connection detail type %q", t))
		return
	}
	if m[key] == nil {
		c.add(dp, true, severity.Error, "composition-connection", fmt.Sprintf("a %s connection detail needs %s", t, key))
	}
	if name, _ := m["name"].(string); name == "" && (!c.classic || t != "FromConnectionSecretKey") {
		c.add(dp, true, severity.Error, "composition-connection", fmt.Sprintf("a %s connection detail needs a name: the key it gets in the connection secret", t))
	}
}

func isEmptyList(v any) bool {
	l, _ := v.([]any)
	return len(l) == 0
}
