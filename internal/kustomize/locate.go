// This file says where a field of an object a build made was written:
// the patch that set it last, else the base that declared it, else the
// generator that made the object or the transformer setting that changed
// it, else the kustomization entry that brought the object in.

package kustomize

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// Location is where a field of an object a build made was written.
type Location struct {
	File string
	Span document.Span
	// Exact: Span is the field itself, as written in File (its key or
	// value). Otherwise it is where the field is missing (its nearest
	// written ancestor) or a kustomization's setting or entry that made,
	// changed or brought in the object.
	Exact bool
}

// Locate says where the field at p of r (built: r.Text parsed; p is
// written in it) was written; onKey asks for its key rather than its
// value. missing says the finding is about a field p lacks (a required
// field): the object that lacks it is the base that declares p, else the
// last patch that writes p. inner, when not zero, is the part of p's
// value (a span of built's text inside a string) the finding is about:
// the same part of the value as written.
func (b *Build) Locate(r *Resource, built *document.Doc, p fieldpath.Path, onKey, missing bool, inner document.Span) Location {
	base := b.baseWriter(r)
	ws := b.patchWriters(r, built, base)
	order := make([]*writer, 0, len(ws)+1)
	if missing && base != nil {
		order = append(order, base)
	}
	for i := len(ws) - 1; i >= 0; i-- {
		order = append(order, ws[i])
	}
	if !missing && base != nil {
		order = append(order, base)
	}
	_, bv, _ := built.Lookup(p)
	for _, w := range order {
		key, val, exact := w.find(built, p)
		if !exact {
			continue
		}
		if !missing && bv != nil && bv.Kind == yaml.ScalarNode && (val.Kind != yaml.ScalarNode || val.Value != bv.Value) {
			continue // written here, changed since (by a later writer, or a transformer)
		}
		loc := w.location(key, val, onKey, true)
		if !onKey && !inner.IsZero() && bv != nil && loc.Exact {
			if s, ok := w.inside(built.File, bv, val, inner); ok {
				loc.Span = s
			}
		}
		return loc
	}
	if !missing {
		if loc, ok := b.transformed(r, p); ok {
			return loc
		}
	}
	if r.Generated.Kind != "" {
		if loc, ok := b.generated(r, p, onKey); ok {
			return loc
		}
	}
	if base != nil {
		key, val, _ := base.find(built, p)
		return base.location(key, val, true, false)
	}
	return b.broughtIn(r)
}

// A writer is a text that writes fields of an object: the document that
// declares it, a strategic-merge patch, or JSON 6902 operations.
type writer struct {
	file string         // where its positions are shown
	f    *document.File // its text, parsed (an inline patch's own text)
	// vm maps offsets of f's text into file's (an inline patch); ok
	// false with an inline patch whose text cannot be mapped: then
	// every position is inline, the patch's entry.
	vm     document.ValueMap
	inline bool
	vmOK   bool
	whole  document.Span
	obj    *yaml.Node // the object (a mapping), or nil for ops
	ops    []jsonOp
}

// jsonOp is one JSON 6902 operation that writes a value.
type jsonOp struct {
	path     fieldpath.Path // in the built object's terms
	pathNode *yaml.Node
	value    *yaml.Node
}

func (w *writer) span(n *yaml.Node) document.Span {
	s := w.f.NodeSpan(n)
	if !w.inline {
		return s
	}
	if !w.vmOK {
		return w.whole
	}
	return w.vm.Span(s)
}

func (w *writer) location(key, val *yaml.Node, onKey, exact bool) Location {
	n := val
	if onKey && key != nil {
		n = key
	}
	if n == nil {
		n = key
	}
	if n == nil {
		return Location{File: w.file, Span: w.whole}
	}
	return Location{File: w.file, Span: w.span(n), Exact: exact && (!w.inline || w.vmOK)}
}

// inside maps inner, a part of the built scalar bv's text, to the same
// part of the writer's scalar wv (the same value), when both map their
// text exactly.
func (w *writer) inside(bf *document.File, bv, wv *yaml.Node, inner document.Span) (document.Span, bool) {
	if bv.Kind != yaml.ScalarNode || wv.Kind != yaml.ScalarNode || bv.Value != wv.Value {
		return document.Span{}, false
	}
	outer := bf.NodeSpan(bv)
	if inner == outer || inner.Start < outer.Start || inner.End > outer.End {
		return document.Span{}, false
	}
	vb, ok := bf.ValueOffsets(bv)
	if !ok {
		return document.Span{}, false
	}
	vw, ok := w.f.ValueOffsets(wv)
	if !ok || vw.Len() != vb.Len() {
		return document.Span{}, false
	}
	i, j := -1, -1
	for k := 0; k <= vb.Len(); k++ {
		if i < 0 && vb.Offset(k) == inner.Start {
			i = k
		}
		if vb.Offset(k) == inner.End {
			j = k
		}
	}
	if i < 0 || j < i {
		return document.Span{}, false
	}
	s := vw.Span(document.Span{Start: i, End: j})
	if w.inline {
		s = w.vm.Span(s)
	}
	return s, true
}

// find is where w writes p: the deepest part of p it holds (exact when
// all of it).
func (w *writer) find(built *document.Doc, p fieldpath.Path) (key, val *yaml.Node, exact bool) {
	if w.obj != nil {
		key, val, n := translate(built.Root, w.obj, p)
		return key, val, n == len(p)
	}
	for i := len(w.ops) - 1; i >= 0; i-- {
		op := w.ops[i]
		if !p.HasPrefix(op.path) {
			continue
		}
		if len(op.path) == len(p) {
			return op.pathNode, op.value, true
		}
		_, from, ok := built.Lookup(op.path)
		if !ok {
			continue
		}
		k, v, n := translate(from, op.value, p[len(op.path):])
		if n == 0 {
			return op.pathNode, op.value, false
		}
		return k, v, n == len(p)-len(op.path)
	}
	return nil, nil, false
}

// idKeys are the fields that identify an item of a list of objects, as
// strategic merge patches merge them (Kubernetes' patch merge keys).
var idKeys = []string{"name", "containerPort", "port", "mountPath", "devicePath", "ip", "topologyKey", "type"}

// translate follows p from the built node b and the writer's node w
// together, items of lists matched by their identifying field, and
// returns the deepest key and value of w it reaches, and how many
// segments of p that is.
func translate(b, w *yaml.Node, p fieldpath.Path) (key, val *yaml.Node, n int) {
	val = w
	for i, seg := range p {
		b, w = deref(b), deref(w)
		if b == nil || w == nil {
			return key, val, i
		}
		switch seg.Kind {
		case fieldpath.KindField:
			bk, bv := mapGet(b, seg.Field)
			wk, wv := mapGet(w, seg.Field)
			if bk == nil || wk == nil {
				return key, val, i
			}
			b, w, key, val = bv, wv, wk, wv
		case fieldpath.KindIndex:
			if b.Kind != yaml.SequenceNode || w.Kind != yaml.SequenceNode || seg.Index < 0 || seg.Index >= len(b.Content) {
				return key, val, i
			}
			j := matchItem(b.Content, seg.Index, w.Content)
			if j < 0 {
				return key, val, i
			}
			b, w, key, val = b.Content[seg.Index], w.Content[j], nil, w.Content[j]
		default:
			return key, val, i
		}
	}
	return key, val, len(p)
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return deref(n.Content[0])
	}
	return n
}

func mapGet(m *yaml.Node, name string) (key, val *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if document.KeyName(m.Content[i]) == name {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

func scalarAt(m *yaml.Node, name string) (string, bool) {
	_, v := mapGet(deref(m), name)
	v = deref(v)
	if v == nil || v.Kind != yaml.ScalarNode {
		return "", false
	}
	return v.Value, true
}

// matchItem is the index among ws of the item that is the built item
// bs[i]: the one with the same identifying field (a value no other item
// of either list has), or the same scalar; else the item at the same
// index (lists a patch replaces, items nothing identifies, keep their
// order).
func matchItem(bs []*yaml.Node, i int, ws []*yaml.Node) int {
	b := deref(bs[i])
	if b.Kind == yaml.MappingNode {
		for _, k := range idKeys {
			want, ok := scalarAt(b, k)
			if !ok {
				continue
			}
			if count(bs, k, want) != 1 {
				continue // not what identifies items of this list
			}
			switch count(ws, k, want) {
			case 0:
				return -1
			case 1:
				for j, w := range ws {
					if got, ok := scalarAt(w, k); ok && got == want {
						return j
					}
				}
			}
		}
	}
	if b.Kind == yaml.ScalarNode {
		for j, w := range ws {
			if w = deref(w); w.Kind == yaml.ScalarNode && w.Value == b.Value {
				return j
			}
		}
		return -1
	}
	if i < len(ws) && deref(ws[i]).Kind == b.Kind {
		return i
	}
	return -1
}

// count is how many items of list have the field k equal to v.
func count(list []*yaml.Node, k, v string) int {
	n := 0
	for _, it := range list {
		if got, ok := scalarAt(it, k); ok && got == v {
			n++
		}
	}
	return n
}

// source is the build's parse of a file it read (nil when it read none).
func (b *Build) source(path string) *document.File {
	b.mu.Lock()
	defer b.mu.Unlock()
	if f, ok := b.parsed[path]; ok {
		return f
	}
	text, ok := b.Reads[path]
	var f *document.File
	if ok {
		f = document.Parse(path, 0, text)
	}
	b.parsed[path] = f
	return f
}

// baseWriter is the document r was declared in (nil for a generated
// object, or when it cannot be told).
func (b *Build) baseWriter(r *Resource) *writer {
	if r.Origin == "" {
		return nil
	}
	f := b.source(r.Origin)
	if f == nil {
		return nil
	}
	var best *yaml.Node
	bestScore := -1
	for _, d := range f.Docs {
		root := deref(d.Root)
		if root == nil || root.Kind != yaml.MappingNode {
			continue
		}
		if k, _ := scalarAt(root, "kind"); k != r.Kind {
			continue
		}
		name, _ := scalarAt(nameOf(root), "name")
		score := 0
		switch {
		case name == r.Name:
			score = 1 << 20
		case name != "" && strings.Contains(r.Name, name):
			score = len(name) + 1
		}
		if ns, _ := scalarAt(nameOf(root), "namespace"); ns != "" && ns == r.Namespace {
			score++
		}
		if score > bestScore {
			best, bestScore = root, score
		}
	}
	if best == nil {
		return nil
	}
	return &writer{file: r.Origin, f: f, obj: best}
}

func nameOf(obj *yaml.Node) *yaml.Node {
	_, m := mapGet(obj, "metadata")
	return m
}

// Declaration is where r was declared: its file and the span of the
// YAML document that declares it (ok false for a generated object, or
// one whose document cannot be told).
func (b *Build) Declaration(r *Resource) (file string, doc document.Span, ok bool) {
	w := b.baseWriter(r)
	if w == nil {
		return "", document.Span{}, false
	}
	for _, d := range w.f.Docs {
		if deref(d.Root) == w.obj {
			return w.file, d.Span, true
		}
	}
	return "", document.Span{}, false
}

// declaredName is the name r was declared with (its base document's),
// else its built name.
func (b *Build) declaredName(base *writer, r *Resource) string {
	if base != nil {
		if n, ok := scalarAt(nameOf(base.obj), "name"); ok {
			return n
		}
	}
	return r.Name
}

// patchFieldOf is the patch field a transformer applies.
func patchFieldOf(kind string) string {
	for _, pf := range patchFields {
		if pf.transformer == kind {
			return pf.field
		}
	}
	return ""
}

// patchWriters are the patches that apply to r, in the order kustomize
// applied them: the patch fields of each kustomization r went through,
// each patch whose target selects r (or, without a target, a
// strategic-merge patch naming r).
func (b *Build) patchWriters(r *Resource, built *document.Doc, base *writer) []*writer {
	declared := b.declaredName(base, r)
	var out []*writer
	for _, st := range r.Steps {
		field := patchFieldOf(st.Kind)
		k := b.ks[st.Kustomization]
		if field == "" || k == nil {
			continue
		}
		for _, pr := range k.patches(field) {
			if pr.target != nil && !pr.target.selects(r, declared) {
				continue
			}
			out = append(out, b.patchTexts(pr, r, declared, built)...)
		}
	}
	return out
}

// patchTexts are the writers of a patch that apply to r.
func (b *Build) patchTexts(pr patchRef, r *Resource, declared string, built *document.Doc) []*writer {
	w := writer{file: pr.k.Path}
	if pr.file != "" {
		w.file, w.f = pr.file, b.source(pr.file)
		if w.f == nil {
			return nil
		}
	} else {
		w.inline, w.whole = true, pr.k.span(pr.textAt, false)
		w.f = document.Parse(pr.k.Path, 0, []byte(pr.inline.Value))
		w.vm, w.vmOK = pr.k.File.ValueOffsets(pr.inline)
	}
	var out []*writer
	for _, d := range w.f.Docs {
		root := deref(d.Root)
		switch {
		case root == nil:
		case root.Kind == yaml.SequenceNode && (pr.target != nil || pr.field == "patchesJson6902"):
			ops := jsonOps(root, built)
			if len(ops) > 0 {
				ww := w
				ww.ops = ops
				out = append(out, &ww)
			}
		case root.Kind == yaml.MappingNode:
			if pr.target == nil {
				kind, _ := scalarAt(root, "kind")
				name, _ := scalarAt(nameOf(root), "name")
				if kind != r.Kind || !sameObject(name, declared, r.Name) {
					continue
				}
			}
			ww := w
			ww.obj = root
			out = append(out, &ww)
		}
	}
	return out
}

// sameObject reports whether a patch naming name patches the object
// declared as declared and built as built: kustomize matches a patch's
// name against the object's names so far, which run from the declared
// name to the built one (prefixes and suffixes added on the way).
func sameObject(name, declared, built string) bool {
	return name == declared || name == built || (strings.Contains(built, name) && strings.Contains(name, declared))
}

// jsonOps reads JSON 6902 operations that write values (add, replace),
// their paths read against the built object; appends ("-") are the
// items at the end of the list, the last op's the last.
func jsonOps(list *yaml.Node, built *document.Doc) []jsonOp {
	var out []jsonOp
	appends := map[string][]int{} // list path → ops appending to it
	for _, it := range list.Content {
		it = deref(it)
		op, _ := scalarAt(it, "op")
		ptr, ok := scalarAt(it, "path")
		_, value := mapGet(it, "value")
		if (op != "add" && op != "replace") || !ok || value == nil {
			continue
		}
		_, pathNode := mapGet(it, "path")
		p, appended := pointer(built, ptr)
		if p == nil {
			continue
		}
		if appended {
			appends[p.Parent().String()] = append(appends[p.Parent().String()], len(out))
		}
		out = append(out, jsonOp{path: p, pathNode: pathNode, value: value})
	}
	for lp, ops := range appends {
		lpath, err := fieldpath.Parse(lp)
		if err != nil {
			continue
		}
		_, l, ok := built.Lookup(lpath)
		if !ok || l.Kind != yaml.SequenceNode {
			continue
		}
		first := len(l.Content) - len(ops)
		for i, o := range ops {
			out[o].path[len(out[o].path)-1] = fieldpath.Index(first + i)
		}
	}
	return out
}

// pointer reads a JSON pointer as a path of the built object: a segment
// is an index where the built object has a list. appended: its last
// segment is "-".
func pointer(built *document.Doc, ptr string) (p fieldpath.Path, appended bool) {
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	node := deref(built.Root)
	p = fieldpath.Path{}
	for _, seg := range strings.Split(ptr[1:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		if node != nil && node.Kind == yaml.SequenceNode {
			if seg == "-" {
				p = append(p, fieldpath.Index(-1))
				appended = true
				node = nil
				continue
			}
			i, err := strconv.Atoi(seg)
			if err != nil {
				return nil, false
			}
			p = append(p, fieldpath.Index(i))
			if i >= 0 && i < len(node.Content) {
				node = deref(node.Content[i])
			} else {
				node = nil
			}
			continue
		}
		p = append(p, fieldpath.Field(seg))
		_, node = mapGet(node, seg)
		node = deref(node)
	}
	return p, appended
}

// selects reports whether a patch target selects r (kustomize's
// types.Selector: exact group, version and kind, name and namespace as
// anchored regular expressions against the names r had, label and
// annotation selectors against its built labels and annotations).
func (s *selector) selects(r *Resource, declared string) bool {
	group, version, _ := strings.Cut(r.APIVersion, "/")
	if !strings.Contains(r.APIVersion, "/") {
		group, version = "", r.APIVersion
	}
	if s.Kind != "" && s.Kind != r.Kind || s.Group != "" && s.Group != group || s.Version != "" && s.Version != version {
		return false
	}
	if s.Name != "" && !anchored(s.Name, declared) && !anchored(s.Name, r.Name) {
		return false
	}
	if s.Namespace != "" && !anchored(s.Namespace, r.Namespace) {
		return false
	}
	if s.LabelSelector != "" || s.AnnotationSelector != "" {
		var obj struct {
			Metadata struct {
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"metadata"`
		}
		_ = yaml.Unmarshal(r.Text, &obj)
		for sel, set := range map[string]map[string]string{s.LabelSelector: obj.Metadata.Labels, s.AnnotationSelector: obj.Metadata.Annotations} {
			if sel == "" {
				continue
			}
			ls, err := labels.Parse(sel)
			if err != nil || !ls.Matches(labels.Set(set)) {
				return false
			}
		}
	}
	return true
}

func anchored(re, s string) bool {
	m, err := regexp.MatchString("^(?:"+re+")$", s)
	return err == nil && m
}

// transformerFields are the kustomization fields that configure each
// transformer whose changes are not a file's.
var transformerFields = map[string][]string{
	"PrefixTransformer":       {"namePrefix"},
	"SuffixTransformer":       {"nameSuffix"},
	"NamespaceTransformer":    {"namespace"},
	"LabelTransformer":        {"labels", "commonLabels"},
	"AnnotationsTransformer":  {"commonAnnotations"},
	"ImageTagTransformer":     {"images"},
	"ReplicaCountTransformer": {"replicas"},
	"ReplacementTransformer":  {"replacements"},
}

// transformersOf are the transformers that may have changed the field
// at p, most likely first.
func transformersOf(p fieldpath.Path) []string {
	s := p.String()
	last, _ := p.Last()
	var out []string
	switch {
	case s == "metadata.name":
		out = []string{"PrefixTransformer", "SuffixTransformer"}
	case last.Field == "namespace":
		out = []string{"NamespaceTransformer"}
	case strings.Contains(s, "labels") || strings.Contains(s, "matchLabels") || strings.HasPrefix(s, "spec.selector"):
		out = []string{"LabelTransformer"}
	case strings.HasPrefix(s, "metadata.annotations"):
		out = []string{"AnnotationsTransformer"}
	case last.Field == "image" || last.Field == "newTag":
		out = []string{"ImageTagTransformer"}
	case last.Field == "replicas":
		out = []string{"ReplicaCountTransformer"}
	}
	return append(out, "ReplacementTransformer")
}

// transformed is the setting of the last kustomization r went through
// whose transformer may have written p.
func (b *Build) transformed(r *Resource, p fieldpath.Path) (Location, bool) {
	for _, kind := range transformersOf(p) {
		for i := len(r.Steps) - 1; i >= 0; i-- {
			st := r.Steps[i]
			k := b.ks[st.Kustomization]
			if st.Kind != kind || k == nil {
				continue
			}
			for _, f := range transformerFields[kind] {
				if k.has(f) {
					return Location{File: k.Path, Span: k.span(fieldpath.Path{fieldpath.Field(f)}, true)}, true
				}
			}
		}
	}
	return Location{}, false
}

// generated is where the generator entry that made r writes p: a literal
// or file of its data, its name, else the entry's name.
func (b *Build) generated(r *Resource, p fieldpath.Path, onKey bool) (Location, bool) {
	k := b.ks[r.Generated.Kustomization]
	if k == nil {
		return Location{}, false
	}
	var field string
	for _, g := range generatorFields {
		if g.generator == r.Generated.Kind {
			field = g.field
		}
	}
	var item fieldpath.Path
	best := -1
	for _, it := range k.items(field) {
		n := k.text(it.Child(fieldpath.Field("name")))
		if n != "" && strings.Contains(r.Name, n) && len(n) > best {
			item, best = it, len(n)
		}
	}
	if item == nil {
		return Location{File: k.Path, Span: k.span(fieldpath.Path{fieldpath.Field(field)}, true)}, true
	}
	at := func(q fieldpath.Path, exact bool) (Location, bool) {
		return Location{File: k.Path, Span: k.span(q, false), Exact: exact}, true
	}
	if len(p) >= 2 && p[0] == fieldpath.Field("metadata") && (p[1] == fieldpath.Field("labels") || p[1] == fieldpath.Field("annotations")) {
		// The generator's options, else the kustomization's.
		for _, q := range []fieldpath.Path{item.Child(fieldpath.Field("options"), p[1]), {fieldpath.Field("generatorOptions"), p[1]}} {
			if len(p) >= 3 {
				if _, _, ok := k.doc.Spans(q.Child(p[2])); ok {
					return Location{File: k.Path, Span: k.span(q.Child(p[2]), onKey), Exact: true}, true
				}
			}
			if _, _, ok := k.doc.Lookup(q); ok {
				return Location{File: k.Path, Span: k.span(q, true)}, true
			}
		}
	}
	if len(p) >= 2 && p[1].Kind == fieldpath.KindField && slices.Contains([]string{"data", "binaryData", "stringData"}, p[0].Field) {
		key := p[1].Field
		for _, list := range []string{"literals", "files"} {
			_, l, ok := k.doc.Lookup(item.Child(fieldpath.Field(list)))
			if !ok || l.Kind != yaml.SequenceNode {
				continue
			}
			for i, n := range l.Content {
				name, _, found := strings.Cut(n.Value, "=")
				if !found && list == "files" {
					name = filepath.Base(n.Value)
				}
				if name == key {
					return at(item.Child(fieldpath.Field(list), fieldpath.Index(i)), false)
				}
			}
		}
		for _, list := range []string{"envs", "env"} {
			if _, _, ok := k.doc.Lookup(item.Child(fieldpath.Field(list))); ok {
				return at(item.Child(fieldpath.Field(list)), false)
			}
		}
	}
	return at(item.Child(fieldpath.Field("name")), false)
}

// BroughtIn is the root kustomization's entry that brought r into the
// build (a resources entry that is r's file or a folder above it), else
// the root's first key: where a finding is shown when the file that
// wrote it is not.
func (b *Build) BroughtIn(r *Resource) Location { return b.broughtIn(r) }

func (b *Build) broughtIn(r *Resource) Location {
	root := b.ks[b.Root]
	if root == nil {
		return Location{File: b.Root}
	}
	from := r.Origin
	if from == "" {
		from = r.Generated.Kustomization
	}
	if r.Remote != "" {
		// The root's entry naming the remote base, else the one that
		// leads to the kustomization naming it.
		for _, field := range []string{"resources", "bases", "components"} {
			for _, e := range root.list(field) {
				if e.value == r.Remote {
					return Location{File: root.Path, Span: root.span(e.at, false)}
				}
			}
		}
		paths := make([]string, 0, len(b.ks))
		for p := range b.ks {
			paths = append(paths, p)
		}
		slices.Sort(paths)
		for _, p := range paths {
			for _, field := range []string{"resources", "bases", "components"} {
				if slices.ContainsFunc(b.ks[p].list(field), func(e entry) bool { return e.value == r.Remote }) && from == "" {
					from = b.ks[p].Dir()
				}
			}
		}
	}
	for _, field := range []string{"resources", "bases", "components"} {
		for _, e := range root.list(field) {
			if p := root.local(e.value); from != "" && (p == from || workspace.IsUnder(p, from)) {
				return Location{File: root.Path, Span: root.span(e.at, false)}
			}
		}
	}
	return Location{File: root.Path, Span: root.firstKey()}
}
