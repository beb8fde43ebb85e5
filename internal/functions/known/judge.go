// This file says what crd-lsp may say about a step's input: the findings
// of the input CRD's schema, each worded and weighed by what the linked
// release of the function does with the value (Judge), and the values
// the function refuses although its CRD allows them.

package known

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/functions"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/suggest"
	"github.com/google/cel-go/cel"
)

// NotEnforced is what every finding the function is not known to act on
// says: the CRD's word is information, not the function's behaviour.
const NotEnforced = "Crossplane does not validate a step's input against the function's input CRD: the function reads the input itself"

// Judge weighs the findings of the input's schema (errs: what validating
// the input against its function's input CRD found, paths relative to
// the input; none when no CRD is known) by what the linked release does,
// and adds what its rules say of values the CRD does not judge. in is
// the input. Every finding it returns at warning or error severity is
// one the function's recorded answers prove; everything else the CRD
// says is information.
func (l Link) Judge(errs []schemas.Error, in map[string]any) []schemas.Error {
	dec, decoded := l.Decoding()
	rules := l.Rules()
	name := l.Name()
	var out []schemas.Error
	flagged := map[string]bool{}
	for _, e := range errs {
		full := e.Path
		if e.Code == "required" && e.Field != "" {
			full = e.Path.Child(fieldpath.Field(e.Field))
		}
		switch {
		case (e.Code == "unknown-field" || e.Code == "type") && e.Severity == severity.Error:
			if r, ok := ruleFor(rules, full, e.Code, in); ok && r.Effect == functions.Accepts {
				flagged[full.String()] = true
				continue // the function reads what its CRD lacks
			}
			out = append(out, l.decodeFinding(e, dec, decoded, name))
		case e.Severity == severity.Error:
			if r, ok := ruleFor(rules, full, e.Code, in); ok {
				if r.Effect == functions.Accepts {
					flagged[full.String()] = true
					continue
				}
				e.Severity = effectSeverity(r.Effect)
				e.Message += " (" + name + " " + r.Does + ")"
			} else {
				e.Severity = severity.Info
				e.Message += " (" + NotEnforced + "; " + unproven(l) + ")"
			}
			out = append(out, e)
		default:
			out = append(out, e)
		}
		flagged[full.String()] = true
	}
	out = append(out, l.ruleFindings(rules, in, flagged, name)...)
	return out
}

// decodeFinding weighs an unknown field or a value of the wrong JSON
// type by how the release decodes its input.
func (l Link) decodeFinding(e schemas.Error, dec functions.Decoding, decoded bool, name string) schemas.Error {
	effect := dec.WrongType
	if e.Code == "unknown-field" {
		effect = dec.Unknown
	}
	switch {
	case !decoded || effect == "":
		if l.Fn == nil {
			// A function crd-lsp knows nothing of: its input CRD is all
			// there is, and a field it does not define is most likely
			// misspelt.
			e.Severity = severity.Warning
			e.Message += " (the function's input CRD does not allow it; " + NotEnforced + ")"
		} else {
			// A known function whose answers could not be recorded: what
			// its CRD says is information.
			e.Severity = severity.Info
			e.Message += fmt.Sprintf(" (%s's input CRD does not allow it; crd-lsp has no record of what %s does with it)", l.Fn.Name, releaseWords(l))
		}
	case effect == functions.Ignores:
		e.Severity = severity.Warning
		e.Message += " (" + name + " " + dec.Does + ")"
	default:
		e.Severity = effectSeverity(effect)
		e.Message += " (" + name + " " + dec.Does + ")"
	}
	return e
}

// effectSeverity is how much a proven effect weighs: a step that fails,
// or reports it cannot use the value, is an error; a value the function
// does not use, a warning; a default, information.
func effectSeverity(e functions.Effect) severity.Severity {
	switch e {
	case functions.Fails, functions.Reports:
		return severity.Error
	case functions.Ignores:
		return severity.Warning
	}
	return severity.Info
}

func unproven(l Link) string {
	if l.Fn == nil {
		return "the function may reject this value or use a default"
	}
	return fmt.Sprintf("crd-lsp has no record that %s rejects this", releaseWords(l))
}

func releaseWords(l Link) string {
	if l.Release != "" {
		return l.Fn.Name + " " + l.Release
	}
	return l.Fn.Name
}

// ruleFor is the rule about a schema finding of code at path p.
func ruleFor(rules []functions.Rule, p fieldpath.Path, code string, in map[string]any) (functions.Rule, bool) {
	v, present := lookup(in, p)
	s, _ := v.(string)
	for _, r := range rules {
		if !matchRule(r.Path, p) {
			continue
		}
		switch r.When {
		case functions.Missing:
			if present {
				continue
			}
		case functions.Empty:
			if !present || s != "" {
				continue
			}
		case functions.Unknown:
			if !present || s == "" || contains(r.Known, s) {
				continue
			}
		case functions.Is:
			if !present || !contains(r.Known, s) {
				continue
			}
		case functions.Present:
			if !present {
				continue
			}
		case functions.Invalid:
			if _, bad := check(r.Check, v, parentOf(in, p)); !present || !bad {
				continue
			}
		}
		return r, true
	}
	return functions.Rule{}, false
}

// ruleFindings are the rules' findings on values no schema finding
// covers: a value the function does not know, a field it needs left out.
func (l Link) ruleFindings(rules []functions.Rule, in map[string]any, flagged map[string]bool, name string) []schemas.Error {
	var out []schemas.Error
	for _, r := range rules {
		if r.Effect == functions.Accepts || r.Effect == functions.Defaults {
			continue // nothing to say where the CRD says nothing
		}
		for _, p := range expand(r.Path, in) {
			if flagged[p.String()] {
				continue
			}
			v, present := lookup(in, p)
			s, isString := v.(string)
			var e schemas.Error
			switch r.When {
			case functions.Is, functions.Present:
				continue // only about what the CRD refuses
			case functions.Invalid:
				why, bad := check(r.Check, v, parentOf(in, p))
				if !present || !bad {
					continue
				}
				e = schemas.Error{Path: p, Code: "invalid", Message: fmt.Sprintf("%s: %s %s", why, name, r.Does)}
			case functions.Unknown:
				if !present || !isString || s == "" || contains(r.Known, s) {
					continue
				}
				e = schemas.Error{Path: p, Code: "enum", Message: fmt.Sprintf("unsupported value %q: %s knows %s", s, name, orList(r.Known))}
				if best, ok := suggest.Closest(s, r.Known); ok {
					e.Message += fmt.Sprintf(" (did you mean %q?)", best)
					e.Suggestion = best
				}
				e.Message += "; it " + r.Does
			case functions.Missing, functions.Empty:
				if r.When == functions.Missing && present || r.When == functions.Empty && (!present || s != "") {
					continue
				}
				if present {
					e = schemas.Error{Path: p, Code: "required", Message: fmt.Sprintf("%s is empty: %s %s", p[len(p)-1].Field, name, r.Does)}
				} else {
					e = schemas.Error{Path: p[:len(p)-1], OnKey: true, Code: "required", Field: p[len(p)-1].Field, Message: fmt.Sprintf("missing field %q: %s %s", p[len(p)-1].Field, name, r.Does)}
				}
			}
			e.Severity = effectSeverity(r.Effect)
			flagged[p.String()] = true
			out = append(out, e)
		}
	}
	return out
}

// check judges v (in the list or object parent) by a rule's check: why it
// is refused, and whether it is.
func check(kind string, v any, parent any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false // a wrong type is decoding's to say
	}
	switch kind {
	case functions.CheckDuration:
		if s == "" {
			return "", false
		}
		if _, err := time.ParseDuration(s); err != nil {
			return fmt.Sprintf("%q is not a duration (%v; write it as Go does: 30s, 5m, 1h30m)", s, strings.TrimPrefix(err.Error(), "time: ")), true
		}
	case functions.CheckRegexp, functions.CheckAnchoredRegexp, functions.CheckSequenceRegexp:
		expr := s
		switch kind {
		case functions.CheckAnchoredRegexp:
			expr = "^" + s + "$"
		case functions.CheckSequenceRegexp:
			if l, _ := parent.([]any); len(l) < 2 {
				return "", false
			}
			if !strings.HasPrefix(s, "^") && !strings.HasSuffix(s, "$") {
				expr = "^" + s + "$"
			}
		}
		if _, err := regexp.Compile(expr); err != nil {
			return fmt.Sprintf("%q is not a regular expression Go can compile (%v)", s, err), true
		}
	case functions.CheckCELSyntax:
		if s == "" {
			return "", false // an Empty rule says what "" does
		}
		env, err := cel.NewEnv()
		if err != nil {
			return "", false
		}
		if _, iss := env.Parse(s); iss != nil && iss.Err() != nil {
			return fmt.Sprintf("%q is not a CEL expression (%s)", s, strings.ReplaceAll(iss.Err().Error(), "\n", " ")), true
		}
	}
	return "", false
}

// parentOf is the value holding the field or item at p.
func parentOf(in map[string]any, p fieldpath.Path) any {
	if len(p) == 0 {
		return nil
	}
	v, _ := lookup(in, p[:len(p)-1])
	return v
}

// expand lists the concrete paths of in a rule's path pattern names: its
// wildcards and leading "*." over what in holds; for the last field,
// whether or not it is set (its parent must exist).
func expand(pattern string, in map[string]any) []fieldpath.Path {
	anyPrefix := strings.HasPrefix(pattern, "*.")
	pat, err := fieldpath.Parse(strings.TrimPrefix(pattern, "*."))
	if err != nil || len(pat) == 0 {
		return nil
	}
	var out []fieldpath.Path
	seen := map[string]bool{}
	var walk func(v any, at fieldpath.Path, depth int)
	try := func(v any, at fieldpath.Path) {
		for _, p := range concrete(v, at, pat) {
			if !seen[p.String()] {
				seen[p.String()] = true
				out = append(out, p)
			}
		}
	}
	walk = func(v any, at fieldpath.Path, depth int) {
		try(v, at)
		if !anyPrefix || depth > 32 {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(v[k], at.Child(fieldpath.Field(k)), depth+1)
			}
		case []any:
			for i, x := range v {
				walk(x, at.Child(fieldpath.Index(i)), depth+1)
			}
		}
	}
	walk(in, nil, 0)
	return out
}

// concrete matches pat below v (at path at): the paths whose parent
// exists, the last field set or not.
func concrete(v any, at fieldpath.Path, pat fieldpath.Path) []fieldpath.Path {
	if len(pat) == 1 {
		switch x := v.(type) {
		case map[string]any:
			if pat[0].Kind == fieldpath.KindField {
				return []fieldpath.Path{at.Child(pat[0])}
			}
		case []any:
			if pat[0].Kind == fieldpath.KindWildcard {
				out := make([]fieldpath.Path, len(x))
				for i := range x {
					out[i] = at.Child(fieldpath.Index(i))
				}
				return out
			}
		}
		return nil
	}
	s := pat[0]
	switch s.Kind {
	case fieldpath.KindField:
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		x, ok := m[s.Field]
		if !ok {
			return nil
		}
		return concrete(x, at.Child(s), pat[1:])
	case fieldpath.KindWildcard:
		l, ok := v.([]any)
		if !ok {
			return nil
		}
		var out []fieldpath.Path
		for i, x := range l {
			out = append(out, concrete(x, at.Child(fieldpath.Index(i)), pat[1:])...)
		}
		return out
	case fieldpath.KindIndex:
		l, ok := v.([]any)
		if !ok || s.Index < 0 || s.Index >= len(l) {
			return nil
		}
		return concrete(l[s.Index], at.Child(s), pat[1:])
	}
	return nil
}

// lookup reads the value at p of obj.
func lookup(obj map[string]any, p fieldpath.Path) (any, bool) {
	var cur any = obj
	for _, s := range p {
		switch s.Kind {
		case fieldpath.KindField:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[s.Field]; !ok {
				return nil, false
			}
		case fieldpath.KindIndex:
			l, ok := cur.([]any)
			if !ok || s.Index < 0 || s.Index >= len(l) {
				return nil, false
			}
			cur = l[s.Index]
		default:
			return nil, false
		}
	}
	return cur, true
}

// matchRule reports whether p is the field a rule's path names: segments
// equal, "[*]" for any index, a leading "*." for any prefix.
func matchRule(pattern string, p fieldpath.Path) bool {
	anyPrefix := strings.HasPrefix(pattern, "*.")
	pat, err := fieldpath.Parse(strings.TrimPrefix(pattern, "*."))
	if err != nil || len(pat) > len(p) || (!anyPrefix && len(pat) != len(p)) {
		return false
	}
	tail := p[len(p)-len(pat):]
	for i, s := range pat {
		switch s.Kind {
		case fieldpath.KindWildcard:
			if tail[i].Kind != fieldpath.KindIndex {
				return false
			}
		default:
			if s != tail[i] {
				return false
			}
		}
	}
	return true
}

func contains(vs []string, s string) bool {
	for _, v := range vs {
		if v == s {
			return true
		}
	}
	return false
}

func orList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
