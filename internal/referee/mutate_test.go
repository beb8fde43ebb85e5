package referee

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// mutator makes seeded mutations of documents, guided by their schemas
// so that most of them hit a rule: the API server then says whether each
// is valid.
type mutator struct {
	rng *rand.Rand
	r   *referee
}

// site is a place in an object: a value there (present) or a property
// its schema allows (absent), with its schema.
type site struct {
	path    []any // string keys, int indices
	value   any
	present bool
	schema  map[string]any
	parent  map[string]any // the schema of the object holding it
}

func (s site) String() string {
	var b strings.Builder
	for _, p := range s.path {
		switch p := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, p)
		}
	}
	return b.String()
}

func sites(v any, schema map[string]any, path []any, parent map[string]any, out *[]site) {
	if len(*out) > 5000 || len(path) > 30 {
		return
	}
	*out = append(*out, site{path: slices.Clone(path), value: v, present: true, schema: schema, parent: parent})
	switch v := v.(type) {
	case map[string]any:
		if props, ok := schema["properties"].(map[string]any); ok {
			for _, k := range sortedKeys(props) {
				ps, _ := props[k].(map[string]any)
				if x, ok := v[k]; ok {
					sites(x, ps, append(path, k), schema, out)
				} else {
					*out = append(*out, site{path: append(slices.Clone(path), k), schema: ps, parent: schema})
				}
			}
		} else if ap, ok := schema["additionalProperties"].(map[string]any); ok {
			for _, k := range sortedKeys(v) {
				sites(v[k], ap, append(path, k), schema, out)
			}
		}
	case []any:
		items, _ := schema["items"].(map[string]any)
		for i, x := range v {
			if i >= 4 {
				break
			}
			sites(x, items, append(path, i), nil, out)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return normaliseNumbers(out)
}

// normaliseNumbers turns whole float64s into int64 as YAML decoding would.
func normaliseNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = normaliseNumbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = normaliseNumbers(x)
		}
	case float64:
		if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
			return int64(v)
		}
	}
	return v
}

// set writes (or, with del, removes) the value at path; false when a
// parent is missing.
func set(root map[string]any, path []any, v any, del bool) bool {
	var cur any = root
	for i, p := range path {
		last := i == len(path)-1
		switch p := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return false
			}
			if last {
				if del {
					delete(m, p)
				} else {
					m[p] = v
				}
				return true
			}
			cur = m[p]
		case int:
			l, ok := cur.([]any)
			if !ok || p >= len(l) {
				return false
			}
			if last {
				if del {
					return false
				}
				l[p] = v
				return true
			}
			cur = l[p]
		}
	}
	return false
}

func get(root any, path []any) any {
	cur := root
	for _, p := range path {
		switch p := p.(type) {
		case string:
			m, _ := cur.(map[string]any)
			cur = m[p]
		case int:
			l, _ := cur.([]any)
			if p >= len(l) {
				return nil
			}
			cur = l[p]
		}
	}
	return cur
}

func typeOf(s map[string]any) string {
	t, _ := s["type"].(string)
	return t
}

// objectMutations, by kind; each returns a description, or "" when it
// found nothing to do on this object.
var objectMutations = []struct {
	kind string
	fn   func(m *mutator, obj map[string]any, ss []site) string
}{
	{"type", (*mutator).wrongType},
	{"unknown-field", (*mutator).unknownField},
	{"remove", (*mutator).remove},
	{"enum", (*mutator).outOfEnum},
	{"format", (*mutator).badFormat},
	{"length", (*mutator).tooLong},
	{"range", (*mutator).outOfRange},
	{"pattern", (*mutator).noMatch},
	{"list-map-duplicate", (*mutator).duplicateEntry},
	{"cel", (*mutator).celViolation},
	{"null", (*mutator).null},
	{"metadata", (*mutator).metadata},
}

// mutations makes n mutated documents: about one in eight a CRD schema
// mutation, the rest mutations of served objects.
func (m *mutator) mutations(t *testing.T, n int, objs, crds []doc) []doc {
	t.Helper()
	var out []doc
	small := slices.DeleteFunc(slices.Clone(crds), func(d doc) bool { return len(d.text) > 150_000 })
	for tries := 0; len(out) < n && tries < 20*n; tries++ {
		if m.rng.IntN(8) == 0 && len(small) > 0 {
			d := small[m.rng.IntN(len(small))]
			obj := deepCopy(d.obj).(map[string]any)
			// Under another group: the corpus's CRD of that name exists,
			// and a dry-run create of an existing name is a conflict.
			spec, _ := obj["spec"].(map[string]any)
			meta, _ := obj["metadata"].(map[string]any)
			if spec == nil || meta == nil {
				continue
			}
			spec["group"] = "referee." + stringAt(obj, "spec", "group")
			meta["name"] = stringAt(obj, "spec", "names", "plural") + "." + stringAt(obj, "spec", "group")
			if desc := m.crdSchema(obj); desc != "" {
				out = append(out, doc{name: fmt.Sprintf("mutation %d (crd-schema: %s) of %s", len(out), desc, d.name), text: marshal(t, obj), obj: obj, mut: "crd-schema"})
			}
			continue
		}
		if len(objs) == 0 {
			continue
		}
		// The kind first, then a document it applies to: formats, ranges
		// and patterns are rare in provider schemas.
		mk := objectMutations[m.rng.IntN(len(objectMutations))]
		for range 40 {
			d := objs[m.rng.IntN(len(objs))]
			s, ok := m.r.served[stringAt(d.obj, "apiVersion")+" "+stringAt(d.obj, "kind")]
			if !ok {
				continue
			}
			obj := deepCopy(d.obj).(map[string]any)
			var ss []site
			sites(obj, s.schema, nil, nil, &ss)
			ss = slices.DeleteFunc(ss, func(s site) bool {
				return len(s.path) == 0 || s.path[0] == "apiVersion" || s.path[0] == "kind" || s.path[0] == "status"
			})
			if desc := mk.fn(m, obj, ss); desc != "" {
				out = append(out, doc{name: fmt.Sprintf("mutation %d (%s: %s) of %s", len(out), mk.kind, desc, d.name), text: marshal(t, obj), obj: obj, mut: mk.kind})
				break
			}
		}
	}
	return out
}

func (m *mutator) pick(ss []site, ok func(site) bool) (site, bool) {
	var c []site
	for _, s := range ss {
		if ok(s) {
			c = append(c, s)
		}
	}
	if len(c) == 0 {
		return site{}, false
	}
	return c[m.rng.IntN(len(c))], true
}

// place writes v at s, creating nothing above it (absent sites sit in a
// present object).
func place(obj map[string]any, s site, v any) string {
	if !set(obj, s.path, v, false) {
		return ""
	}
	b, _ := json.Marshal(v)
	return fmt.Sprintf("%s = %s", s, clip(string(b), 60))
}

func (m *mutator) wrongType(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool { return s.present && typeOf(s.schema) != "" })
	if !ok {
		return ""
	}
	var v any
	switch typeOf(s.schema) {
	case "string":
		v = []any{12345, true}[m.rng.IntN(2)]
	case "integer":
		v = []any{"12", 1.5, true}[m.rng.IntN(3)]
	case "number":
		v = []any{"1.5", false}[m.rng.IntN(2)]
	case "boolean":
		v = []any{"true", int64(1)}[m.rng.IntN(2)]
	case "object":
		v = []any{"an object", []any{"x"}}[m.rng.IntN(2)]
	case "array":
		v = []any{"a list", map[string]any{"a": "b"}}[m.rng.IntN(2)]
	}
	return place(obj, s, v)
}

func (m *mutator) unknownField(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool {
		_, isMap := s.value.(map[string]any)
		_, props := s.schema["properties"]
		return s.present && isMap && (props || s.path[0] == "metadata" && len(s.path) == 1) && s.schema["x-kubernetes-preserve-unknown-fields"] != true
	})
	if !ok {
		return ""
	}
	name := []string{"refereeUnknown", "Name", "spec", "forProvider"}[m.rng.IntN(4)]
	if _, exists := s.value.(map[string]any)[name]; exists {
		name = "refereeUnknown"
	}
	return place(obj, site{path: append(slices.Clone(s.path), name)}, "x")
}

func (m *mutator) remove(obj map[string]any, ss []site) string {
	required := m.rng.IntN(2) == 0
	s, ok := m.pick(ss, func(s site) bool {
		k, isKey := s.path[len(s.path)-1].(string)
		if !s.present || !isKey {
			return false
		}
		if !required {
			return true
		}
		req, _ := s.parent["required"].([]any)
		return slices.Contains(req, any(k)) || s.parent != nil && len(s.path) == 2 && s.path[0] == "metadata" && k == "name"
	})
	if !ok {
		return ""
	}
	set(obj, s.path, nil, true)
	return "remove " + s.String()
}

func (m *mutator) outOfEnum(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool { _, ok := s.schema["enum"]; return ok })
	if !ok {
		return ""
	}
	var v any = "NotInTheEnum"
	if t := typeOf(s.schema); t == "integer" || t == "number" {
		v = int64(987654)
	}
	return place(obj, s, v)
}

func (m *mutator) badFormat(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool { _, ok := s.schema["format"]; return ok })
	if !ok {
		// Formats are rare in provider schemas; a Quantity-like or
		// date-like string where a string is expected still tests the
		// string path.
		return ""
	}
	var v any
	switch f, _ := s.schema["format"].(string); f {
	case "int32":
		v = int64(1) << 40
	case "int64":
		v = 1e19
	case "byte":
		v = []any{"not base64!", ""}[m.rng.IntN(2)]
	case "date-time":
		v = "yesterday at noon"
	case "date":
		v = "2024-13-45"
	case "double", "float":
		v = "1.5"
	default:
		v = "%% not a " + f + " %%"
	}
	return place(obj, s, v)
}

func (m *mutator) tooLong(obj map[string]any, ss []site) string {
	if m.rng.IntN(4) == 0 {
		return place(obj, site{path: []any{"metadata", "name"}}, strings.Repeat("a", 254))
	}
	s, ok := m.pick(ss, func(s site) bool {
		_, a := s.schema["maxLength"]
		_, b := s.schema["maxItems"]
		_, c := s.schema["minLength"]
		_, d := s.schema["maxProperties"]
		return a || b || c || d
	})
	if !ok {
		return ""
	}
	if n, ok := number(s.schema["maxLength"]); ok {
		return place(obj, s, strings.Repeat("a", int(n)+1))
	}
	if _, ok := number(s.schema["minLength"]); ok {
		return place(obj, s, "")
	}
	if n, ok := number(s.schema["maxItems"]); ok && n < 100 {
		l := make([]any, int(n)+1)
		for i := range l {
			l[i] = sample(s.schema["items"], i)
		}
		return place(obj, s, l)
	}
	if n, ok := number(s.schema["maxProperties"]); ok && n < 100 {
		mp := map[string]any{}
		for i := 0; i <= int(n); i++ {
			mp[fmt.Sprintf("k%d", i)] = sample(s.schema["additionalProperties"], i)
		}
		return place(obj, s, mp)
	}
	return ""
}

// sample is a plausible value for a schema (distinct per i).
func sample(schema any, i int) any {
	s, _ := schema.(map[string]any)
	switch typeOf(s) {
	case "integer", "number":
		return int64(i)
	case "boolean":
		return i%2 == 0
	case "object":
		return map[string]any{}
	case "array":
		return []any{}
	}
	return fmt.Sprintf("v%d", i)
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case int:
		return float64(v), true
	}
	return 0, false
}

func (m *mutator) outOfRange(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool {
		_, a := s.schema["minimum"]
		_, b := s.schema["maximum"]
		return a || b
	})
	if !ok {
		return ""
	}
	if n, ok := number(s.schema["maximum"]); ok && (m.rng.IntN(2) == 0 || s.schema["minimum"] == nil) {
		return place(obj, s, int64(n)+1)
	}
	n, _ := number(s.schema["minimum"])
	return place(obj, s, int64(n)-1)
}

func (m *mutator) noMatch(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool { _, ok := s.schema["pattern"]; return ok })
	if !ok {
		return ""
	}
	return place(obj, s, "!! does not match !!")
}

func (m *mutator) duplicateEntry(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool {
		l, isList := s.value.([]any)
		lt, _ := s.schema["x-kubernetes-list-type"].(string)
		return isList && len(l) > 0 && (lt == "map" || lt == "set")
	})
	if !ok {
		// Without a list-map in this object, duplicate any list's entry:
		// the server says whether that matters.
		s, ok = m.pick(ss, func(s site) bool { l, isList := s.value.([]any); return isList && len(l) > 0 })
		if !ok {
			return ""
		}
	}
	l := s.value.([]any)
	return place(obj, s, append(slices.Clone(l), deepCopy(l[0])))
}

var selfRef = regexp.MustCompile(`self((?:\.[A-Za-z_][A-Za-z0-9_]*)+)`)

func (m *mutator) celViolation(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool { _, ok := s.schema["x-kubernetes-validations"]; return s.present && ok })
	if !ok {
		return ""
	}
	rules, _ := s.schema["x-kubernetes-validations"].([]any)
	rule, _ := rules[m.rng.IntN(len(rules))].(map[string]any)
	text, _ := rule["rule"].(string)
	refs := selfRef.FindAllStringSubmatch(text, -1)
	if len(refs) == 0 {
		// A rule about the value itself: change the value.
		return m.change(obj, s)
	}
	ref := refs[m.rng.IntN(len(refs))][1]
	path := slices.Clone(s.path)
	for _, p := range strings.Split(ref[1:], ".") {
		path = append(path, p)
	}
	target := site{path: path, value: get(obj, path), present: get(obj, path) != nil}
	if target.present && m.rng.IntN(2) == 0 {
		set(obj, path, nil, true)
		return fmt.Sprintf("remove %s (rule %q)", target, clip(text, 80))
	}
	if target.present {
		return m.change(obj, target) + fmt.Sprintf(" (rule %q)", clip(text, 80))
	}
	return m.change(obj, s) + fmt.Sprintf(" (rule %q)", clip(text, 80))
}

// change replaces a value with another of the same type.
func (m *mutator) change(obj map[string]any, s site) string {
	switch v := s.value.(type) {
	case string:
		return place(obj, s, []string{"", v + "-changed", "*"}[m.rng.IntN(3)])
	case int64:
		return place(obj, s, -v-1)
	case float64:
		return place(obj, s, -v-1)
	case bool:
		return place(obj, s, !v)
	case []any:
		if len(v) > 0 && m.rng.IntN(2) == 0 {
			return place(obj, s, v[1:])
		}
		return place(obj, s, []any{})
	case map[string]any:
		if len(v) > 0 {
			ks := sortedKeys(v)
			k := ks[m.rng.IntN(len(ks))]
			set(obj, append(slices.Clone(s.path), k), nil, true)
			return fmt.Sprintf("remove %s.%s", s, k)
		}
	}
	return ""
}

func (m *mutator) null(obj map[string]any, ss []site) string {
	s, ok := m.pick(ss, func(s site) bool { _, isKey := s.path[len(s.path)-1].(string); return s.present && isKey })
	if !ok {
		return ""
	}
	return place(obj, s, nil)
}

func (m *mutator) metadata(obj map[string]any, ss []site) string {
	switch m.rng.IntN(6) {
	case 0:
		return place(obj, site{path: []any{"metadata", "name"}}, "Bad_Name!")
	case 1:
		meta, _ := obj["metadata"].(map[string]any)
		if meta == nil {
			return ""
		}
		meta["labels"] = map[string]any{"bad key!": "v"}
		return "metadata.labels = {bad key!: v}"
	case 2:
		meta, _ := obj["metadata"].(map[string]any)
		if meta == nil {
			return ""
		}
		meta["labels"] = map[string]any{"app": strings.Repeat("v", 64)}
		return "metadata.labels.app = 64 characters"
	case 3:
		return place(obj, site{path: []any{"metadata", "annotations"}}, map[string]any{"a": int64(1)})
	case 4:
		return place(obj, site{path: []any{"metadata", "generateName"}}, "Bad_")
	default:
		return place(obj, site{path: []any{"metadata", "namespace"}}, "Not_A_Namespace")
	}
}

// crdSchema mutates a CRD: its schema, names or versions.
func (m *mutator) crdSchema(crd map[string]any) string {
	versions, _ := at(crd, "spec", "versions").([]any)
	if len(versions) == 0 {
		return ""
	}
	vi := m.rng.IntN(len(versions))
	v, _ := versions[vi].(map[string]any)
	root, _ := at(v, "schema", "openAPIV3Schema").(map[string]any)
	var nodes [][]any
	var walk func(n map[string]any, path []any)
	walk = func(n map[string]any, path []any) {
		if len(nodes) > 3000 {
			return
		}
		nodes = append(nodes, slices.Clone(path))
		if props, ok := n["properties"].(map[string]any); ok {
			for _, k := range sortedKeys(props) {
				if c, ok := props[k].(map[string]any); ok {
					walk(c, append(path, "properties", k))
				}
			}
		}
		if c, ok := n["items"].(map[string]any); ok {
			walk(c, append(path, "items"))
		}
		if c, ok := n["additionalProperties"].(map[string]any); ok {
			walk(c, append(path, "additionalProperties"))
		}
	}
	if root != nil {
		walk(root, nil)
	}
	vpath := fmt.Sprintf("spec.versions[%d]", vi)
	switch k := m.rng.IntN(14); {
	case k == 0:
		crd["metadata"].(map[string]any)["name"] = "wrong.example.com"
		return "metadata.name = wrong.example.com"
	case k == 1:
		crd["spec"].(map[string]any)["scope"] = "Global"
		return "spec.scope = Global"
	case k == 2:
		for _, x := range versions {
			delete(x.(map[string]any), "storage")
		}
		return "no storage version"
	case k == 3 && len(versions) > 0:
		crd["spec"].(map[string]any)["versions"] = append(versions, deepCopy(versions[0]))
		return "a version twice"
	case root == nil || len(nodes) == 0:
		return ""
	}
	path := nodes[m.rng.IntN(len(nodes))]
	node, _ := get(root, path).(map[string]any)
	if node == nil {
		return ""
	}
	where := vpath + ".schema.openAPIV3Schema" + pathString(path)
	switch m.rng.IntN(12) {
	case 0:
		node["type"] = "strin"
		return where + ".type = strin"
	case 1:
		switch typeOf(node) {
		case "string":
			node["default"] = int64(3)
		case "integer", "number":
			node["default"] = "three"
		case "boolean":
			node["default"] = "yes"
		default:
			node["default"] = "text"
		}
		return where + ".default of the wrong type"
	case 2:
		if typeOf(node) == "array" {
			delete(node, "items")
			return where + " without items"
		}
		node["items"] = map[string]any{"type": "string"}
		return where + ".items on a " + typeOf(node)
	case 3:
		node["enum"] = []any{"a", int64(1)}
		return where + ".enum = [a, 1]"
	case 4:
		node["x-kubernetes-validations"] = []any{map[string]any{"rule": "self.refereeMissing == 1"}}
		return where + " rule on a missing field"
	case 5:
		node["x-kubernetes-validations"] = []any{map[string]any{"rule": "self =="}}
		return where + " rule that does not parse"
	case 6:
		node["x-kubernetes-list-type"] = "map"
		return where + ".x-kubernetes-list-type = map"
	case 7:
		node["maxLength"] = int64(-1)
		return where + ".maxLength = -1"
	case 8:
		node["pattern"] = "[unclosed"
		return where + ".pattern = [unclosed"
	case 9:
		node["refereeUnknown"] = true
		return where + ".refereeUnknown"
	case 10:
		req, _ := node["required"].([]any)
		node["required"] = append(req, "refereeMissing")
		return where + ".required += refereeMissing"
	default:
		delete(node, "type")
		return where + " without type"
	}
}

func pathString(p []any) string {
	var b strings.Builder
	for _, s := range p {
		switch s := s.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(s) + "]")
		default:
			b.WriteString("." + fmt.Sprint(s))
		}
	}
	return b.String()
}

func logMutationKinds(t *testing.T, js []judgement) {
	t.Helper()
	count := map[string][2]int{}
	for _, j := range js {
		c := count[j.doc.mut]
		c[0]++
		if j.serverReject {
			c[1]++
		}
		count[j.doc.mut] = c
	}
	var parts []string
	for _, k := range sortedKeys(count) {
		parts = append(parts, fmt.Sprintf("%s %d (%d rejected)", k, count[k][0], count[k][1]))
	}
	t.Logf("mutations by kind: %s", strings.Join(parts, ", "))
}
