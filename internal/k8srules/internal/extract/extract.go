// Package extract reads the declarative validation tags (`+k8s:required`,
// `+k8s:format=…`, …) of k8s.io/api's types with go/ast, maps each Go field
// to its JSON path from every top-level kind, and returns the rules that hold
// unconditionally on create (see Extract for what is left out and why).
package extract

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/k8srules"
)

const apiModule = "k8s.io/api/"

// Extract reads k8s.io/api's source at apiDir (the module's root) and the
// defaulting code of k8s.io/kubernetes at kubeDir (its root: pkg/apis/…)
// and returns the rules, sorted.
//
// Left out, because the API server does not apply them unconditionally to
// an object on create: alpha-level tags (+k8s:alpha: shadowed, the
// hand-written code is authoritative), feature-gated tags (ifEnabled,
// ifDisabled) and fields (+featureGate=, dropped while the gate is off),
// mode-dependent tags (ifMode), update rules (immutable, update,
// monotonic), dependentRequired/Forbidden, item, fields with
// +k8s:customValidation (the declared tags are not the whole rule), lists
// with +k8s:customUnique, status (reset on create) and metadata (the
// ObjectMeta rules are applied elsewhere), pod templates inside other kinds
// (PodTemplateSpec: the workload controllers' templates are validated
// differently), types behind +k8s:opaqueType, and required fields the API
// server defaults (a +default marker or an assignment to a field of that
// name in the group's defaulting code).
func Extract(apiDir, kubeDir string) ([]k8srules.Rule, error) {
	x := &extractor{apiDir: apiDir, kubeDir: kubeDir, fset: token.NewFileSet(), pkgs: map[string]*pkg{}, defaults: map[string]map[string]bool{}}
	var dirs []string
	err := filepath.WalkDir(apiDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() != "types.go" {
			return nil
		}
		rel, _ := filepath.Rel(apiDir, filepath.Dir(p))
		dirs = append(dirs, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		p, err := x.load(dir)
		if err != nil {
			return nil, err
		}
		if !p.hasGroup {
			continue
		}
		names := make([]string, 0, len(p.structs))
		for n := range p.structs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			td := p.structs[n]
			if !isKind(td) {
				continue
			}
			registered, err := x.validated(dir)
			if err != nil {
				return nil, err
			}
			if !registered[n] {
				continue // the API server runs no declarative validation for it
			}
			w := &walker{x: x, group: p.group, version: p.version, kind: n, kindDir: dir, seen: map[string]bool{}}
			if err := w.walkStruct(p, td, ""); err != nil {
				return nil, err
			}
			x.rules = append(x.rules, w.rules...)
		}
	}
	sort.SliceStable(x.rules, func(i, j int) bool {
		a, b := x.rules[i], x.rules[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Rule+a.Each+a.Arg < b.Rule+b.Each+b.Arg
	})
	return dedupe(x.rules), nil
}

func dedupe(rules []k8srules.Rule) []k8srules.Rule {
	out := rules[:0]
	for i, r := range rules {
		if i > 0 && reflect.DeepEqual(r, rules[i-1]) {
			continue
		}
		out = append(out, r)
	}
	return out
}

type extractor struct {
	apiDir, kubeDir string
	fset            *token.FileSet
	pkgs            map[string]*pkg
	defaults        map[string]map[string]bool
	rules           []k8srules.Rule
}

type pkg struct {
	dir             string // relative to the module: resource/v1
	group, version  string
	hasGroup        bool
	structs, others map[string]*typeDecl
	consts          map[string][]string // named type → its constants' values
}

type typeDecl struct {
	name    string
	spec    *ast.TypeSpec
	doc     *ast.CommentGroup
	file    string // relative path of its file
	imports map[string]string
	p       *pkg
}

func (x *extractor) load(dir string) (*pkg, error) {
	if p, ok := x.pkgs[dir]; ok {
		return p, nil
	}
	p := &pkg{dir: dir, structs: map[string]*typeDecl{}, others: map[string]*typeDecl{}, consts: map[string][]string{}}
	x.pkgs[dir] = p
	p.version = filepath.Base(dir)
	entries, err := os.ReadDir(filepath.Join(x.apiDir, dir))
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || strings.HasPrefix(n, "zz_generated") || strings.HasPrefix(n, "generated.") {
			continue
		}
		f, err := parser.ParseFile(x.fset, filepath.Join(x.apiDir, dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, cg := range f.Comments {
			if cg.Pos() > f.Name.Pos() {
				break
			}
			for _, c := range cg.List {
				if g, ok := strings.CutPrefix(c.Text, "// +groupName="); ok {
					p.group, p.hasGroup = strings.TrimSpace(g), true
				}
			}
		}
		imports := map[string]string{}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := filepath.Base(path)
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = path
		}
		rel := dir + "/" + n
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range gd.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					doc := s.Doc
					if doc == nil {
						doc = gd.Doc
					}
					td := &typeDecl{name: s.Name.Name, spec: s, doc: doc, file: rel, imports: imports, p: p}
					if _, ok := s.Type.(*ast.StructType); ok {
						p.structs[td.name] = td
					} else {
						p.others[td.name] = td
					}
				case *ast.ValueSpec:
					if gd.Tok != token.CONST || s.Type == nil {
						continue
					}
					id, ok := s.Type.(*ast.Ident)
					if !ok {
						continue
					}
					for _, v := range s.Values {
						if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							if str, err := strconv.Unquote(lit.Value); err == nil {
								p.consts[id.Name] = append(p.consts[id.Name], str)
							}
						}
					}
				}
			}
		}
	}
	return p, nil
}

// defaulted reports the Go field names the group's defaulting code in
// k8s.io/kubernetes (pkg/apis/<group>/<version>, hand-written and
// generated from +default markers) assigns to.
func (x *extractor) defaulted(dir string) (map[string]bool, error) {
	if d, ok := x.defaults[dir]; ok {
		return d, nil
	}
	d := map[string]bool{}
	x.defaults[dir] = d
	full := filepath.Join(x.kubeDir, "pkg", "apis", dir)
	entries, err := os.ReadDir(full)
	if os.IsNotExist(err) {
		return d, nil
	}
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || strings.Contains(n, "conversion") || strings.Contains(n, "deepcopy") || strings.Contains(n, "validations") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(full, n), nil, 0)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(node ast.Node) bool {
			as, ok := node.(*ast.AssignStmt)
			if !ok {
				return true
			}
			for _, l := range as.Lhs {
				for {
					switch e := l.(type) {
					case *ast.IndexExpr:
						l = e.X
						continue
					case *ast.StarExpr:
						l = e.X
						continue
					case *ast.SelectorExpr:
						d[e.Sel.Name] = true
					}
					break
				}
			}
			return true
		})
	}
	return d, nil
}

var registeredType = regexp.MustCompile(`\(\*\w+\.(\w+)\)\(nil\)`)

// validated reads which types of a group version k8s.io/kubernetes
// registers generated declarative validation for
// (pkg/apis/<group>/<version>/zz_generated.validations.go).
func (x *extractor) validated(dir string) (map[string]bool, error) {
	b, err := os.ReadFile(filepath.Join(x.kubeDir, "pkg", "apis", dir, "zz_generated.validations.go"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, m := range registeredType.FindAllSubmatch(b, -1) {
		out[string(m[1])] = true
	}
	return out, nil
}

func isKind(td *typeDecl) bool {
	if strings.HasSuffix(td.name, "List") {
		return false
	}
	st := td.spec.Type.(*ast.StructType)
	var typeMeta, objectMeta bool
	for _, f := range st.Fields.List {
		sel, ok := f.Type.(*ast.SelectorExpr)
		if !ok {
			continue
		}
		switch {
		case len(f.Names) == 0 && sel.Sel.Name == "TypeMeta":
			typeMeta = true
		case sel.Sel.Name == "ObjectMeta":
			objectMeta = true
		}
	}
	return typeMeta && objectMeta
}

type walker struct {
	x                    *extractor
	group, version, kind string
	kindDir              string          // the kind's package, whose defaulting may reach into other packages' types
	seen                 map[string]bool // struct types on the current path (recursion guard)
	rules                []k8srules.Rule
}

// resolved is a Go type expression followed through pointers, slices, maps
// and named types of k8s.io/api.
type resolved struct {
	pointer, slice, mapType bool
	elem                    ast.Expr  // slice or map value type
	named                   *typeDecl // the named type (after one pointer), if in k8s.io/api
	underlying              ast.Expr  // the named type's definition, or the expression itself
}

func (w *walker) resolve(from *typeDecl, e ast.Expr) (resolved, error) {
	var r resolved
	if s, ok := e.(*ast.StarExpr); ok {
		r.pointer = true
		e = s.X
	}
	td, err := w.named(from, e)
	if err != nil {
		return r, err
	}
	r.named = td
	u := e
	if td != nil {
		u = td.spec.Type
	}
	r.underlying = u
	switch t := u.(type) {
	case *ast.ArrayType:
		if id, ok := t.Elt.(*ast.Ident); ok && id.Name == "byte" {
			break // []byte: a base64 string
		}
		r.slice, r.elem = true, t.Elt
	case *ast.MapType:
		r.mapType, r.elem = true, t.Value
	}
	return r, nil
}

// named finds the declaration of a named type in k8s.io/api (nil for a
// builtin or another module's type).
func (w *walker) named(from *typeDecl, e ast.Expr) (*typeDecl, error) {
	switch t := e.(type) {
	case *ast.Ident:
		if td := from.p.structs[t.Name]; td != nil {
			return td, nil
		}
		return from.p.others[t.Name], nil
	case *ast.SelectorExpr:
		x, ok := t.X.(*ast.Ident)
		if !ok {
			return nil, nil
		}
		path, ok := from.imports[x.Name]
		if !ok || !strings.HasPrefix(path, apiModule) {
			return nil, nil
		}
		p, err := w.x.load(strings.TrimPrefix(path, apiModule))
		if err != nil {
			return nil, err
		}
		if td := p.structs[t.Sel.Name]; td != nil {
			return td, nil
		}
		return p.others[t.Sel.Name], nil
	}
	return nil, nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// jsonName reads a field's JSON name; inline for an embedded or
// `json:",inline"` field; skip for `json:"-"` or an unexported field.
func jsonName(f *ast.Field) (name string, inline, skip bool) {
	tag := ""
	if f.Tag != nil {
		raw, _ := strconv.Unquote(f.Tag.Value)
		tag = reflect.StructTag(raw).Get("json")
	}
	n, opts, _ := strings.Cut(tag, ",")
	if n == "-" {
		return "", false, true
	}
	if len(f.Names) == 0 {
		if n == "" {
			return "", true, false
		}
		return n, false, false
	}
	if !f.Names[0].IsExported() {
		return "", false, true
	}
	if strings.Contains(","+opts+",", ",inline,") && n == "" {
		return "", true, false
	}
	if n == "" {
		n = f.Names[0].Name
	}
	return n, false, false
}

type unionSet struct {
	name      string
	defaulted bool
	zeroOrOne bool
	members   []string
	level     string
	source    string
}

func (w *walker) walkStruct(p *pkg, td *typeDecl, path string) error {
	key := td.file + "." + td.name
	if w.seen[key] {
		return nil
	}
	w.seen[key] = true
	defer delete(w.seen, key)
	if hasMarker(td.doc, "+featureGate=") {
		return nil
	}
	unions := map[string]*unionSet{}
	var unionOrder []string
	discriminated := false
	for _, f := range td.spec.Type.(*ast.StructType).Fields.List {
		if hasMarker(f.Doc, "unionDiscriminator") || hasMarker(f.Doc, "+k8s:modeDiscriminator") {
			discriminated = true
		}
	}
	for _, f := range td.spec.Type.(*ast.StructType).Fields.List {
		name, inline, skip := jsonName(f)
		if skip || hasMarker(f.Doc, "+featureGate=") {
			continue
		}
		r, err := w.resolve(td, f.Type)
		if err != nil {
			return err
		}
		if inline {
			if r.named != nil && !r.slice && !r.mapType {
				if _, ok := r.named.spec.Type.(*ast.StructType); ok {
					if err := w.walkStruct(r.named.p, r.named, path); err != nil {
						return err
					}
				}
			}
			continue
		}
		if path == "" && (name == "status" || name == "metadata") {
			continue
		}
		if r.named != nil && r.named.name == "PodTemplateSpec" && r.named.p.dir == "core/v1" {
			continue
		}
		members, err := w.field(td, f, r, join(path, name))
		if err != nil {
			return err
		}
		for _, m := range members {
			k := fmt.Sprintf("%v/%s", m.zeroOrOne, m.union)
			u := unions[k]
			if u == nil {
				u = &unionSet{name: m.union, zeroOrOne: m.zeroOrOne, source: m.source}
				unions[k] = u
				unionOrder = append(unionOrder, k)
			}
			member := name
			if !r.pointer && !r.slice && !r.mapType {
				member += "="
			}
			u.members = append(u.members, member)
			u.defaulted = u.defaulted || m.defaulted
			if m.level == "beta" {
				u.level = "beta"
			}
		}
	}
	if discriminated {
		return nil
	}
	for _, n := range unionOrder {
		u := unions[n]
		rule := "union"
		if u.zeroOrOne {
			rule = "zeroOrOneOf"
		}
		if len(u.members) < 2 || u.defaulted {
			continue // a member the API server defaults: the union holds after defaulting
		}
		w.rules = append(w.rules, k8srules.Rule{Group: w.group, Version: w.version, Kind: w.kind, Path: path, Rule: rule, Arg: u.name, Values: u.members, Level: u.level, Source: u.source})
	}
	return nil
}

type member struct {
	defaulted bool
	union     string
	zeroOrOne bool
	level     string
	source    string
}

// field emits the rules of one field (its own tags and its type's) and
// walks into its type; it returns the unions the field is a member of.
func (w *walker) field(owner *typeDecl, f *ast.Field, r resolved, path string) ([]member, error) {
	tags := w.tags(owner, f.Doc)
	if r.named != nil {
		if _, isStruct := r.named.spec.Type.(*ast.StructType); !isStruct {
			tags = append(tags, w.tags(r.named, r.named.doc)...)
		}
	}
	var elemNamed *typeDecl
	if r.slice || r.mapType {
		er, err := w.resolve(owner, r.elem)
		if r.named != nil {
			er, err = w.resolve(r.named, r.elem)
		}
		if err != nil {
			return nil, err
		}
		if er.named != nil && !er.pointer {
			elemNamed = er.named
			if _, isStruct := er.named.spec.Type.(*ast.StructType); !isStruct && !er.slice && !er.mapType {
				for _, t := range w.tags(er.named, er.named.doc) {
					if t.each == "" && t.sub == "" {
						t.each = "val"
						tags = append(tags, t)
					}
				}
			}
		} else if er.named != nil {
			elemNamed = er.named
		}
	}
	opaque, opaqueElems := false, false
	goName := ""
	if len(f.Names) > 0 {
		goName = f.Names[0].Name
	}
	var members []member
	var listMap []string
	listType, unique, uniqueLevel, uniqueSource := "", "", "", ""
	for _, t := range tags {
		if t.skipField {
			return nil, nil // +k8s:customValidation: the tags are not the whole rule
		}
	}
	shape := "value"
	switch {
	case r.pointer:
		shape = "pointer"
	case r.slice:
		shape = "slice"
	case r.mapType:
		shape = "map"
	}
	for _, t := range tags {
		if t.drop {
			continue
		}
		p := path
		if t.sub != "" {
			p = join(path, t.sub)
		}
		rule := k8srules.Rule{Group: w.group, Version: w.version, Kind: w.kind, Path: p, Level: t.level, Source: t.source, Each: t.each, Pointer: r.pointer && t.each == ""}
		switch t.name {
		case "opaqueType":
			if t.each == "val" {
				opaqueElems = true
			} else if t.each == "" {
				opaque = true
			}
		case "required":
			if t.each != "" || t.sub != "" {
				continue
			}
			defaulted, err := w.defaulted(owner, f, goName)
			if err != nil {
				return nil, err
			}
			if defaulted {
				continue
			}
			rule.Rule, rule.Arg = "required", shape
			w.rules = append(w.rules, rule)
		case "format", "minimum", "maximum", "maxBytes", "maxLength":
			if t.each == "key" && !r.mapType || t.each == "val" && !r.slice && !r.mapType {
				continue
			}
			if t.name == "format" && !slices.Contains(k8srules.Formats(), t.value) {
				continue // a format the checker does not know
			}
			rule.Rule, rule.Arg = t.name, t.value
			w.rules = append(w.rules, rule)
		case "maxItems":
			if t.each != "" || t.sub != "" || !r.slice {
				continue
			}
			rule.Rule, rule.Arg = "maxItems", t.value
			w.rules = append(w.rules, rule)
		case "enum":
			td := r.named
			if t.each == "val" {
				td = elemNamed
			}
			if td == nil || t.sub != "" || len(td.p.consts[td.name]) == 0 {
				continue
			}
			vals := append([]string(nil), td.p.consts[td.name]...)
			sort.Strings(vals)
			rule.Rule, rule.Values = "enum", vals
			w.rules = append(w.rules, rule)
		case "listType":
			if t.each == "" && t.sub == "" {
				listType = t.value
				if t.value == "set" || t.value == "map" {
					uniqueLevel, uniqueSource = maxLevel(uniqueLevel, t.level), t.source
				}
			}
		case "unique":
			if t.each == "" && t.sub == "" {
				unique = t.value
				uniqueLevel, uniqueSource = maxLevel(uniqueLevel, t.level), t.source
			}
		case "listMapKey":
			if t.each == "" && t.sub == "" {
				listMap = append(listMap, t.value)
				uniqueLevel = maxLevel(uniqueLevel, t.level)
			}
		case "customUnique":
			listType, unique = "atomic", "custom"
		case "unionMember", "zeroOrOneOfMember":
			if t.each != "" || t.sub != "" {
				continue
			}
			defaulted, err := w.defaulted(owner, f, goName)
			if err != nil {
				return nil, err
			}
			members = append(members, member{defaulted: defaulted, union: t.args["union"], zeroOrOne: t.name == "zeroOrOneOfMember", level: t.level, source: t.source})
		}
	}
	if r.slice && unique != "custom" {
		kind := unique
		if kind == "" && (listType == "set" || listType == "map") {
			kind = listType
		}
		switch {
		case kind == "set":
			w.rules = append(w.rules, k8srules.Rule{Group: w.group, Version: w.version, Kind: w.kind, Path: path, Rule: "unique", Arg: "set", Level: uniqueLevel, Source: uniqueSource})
		case kind == "map" && len(listMap) > 0:
			w.rules = append(w.rules, k8srules.Rule{Group: w.group, Version: w.version, Kind: w.kind, Path: path, Rule: "unique", Arg: "map", Keys: listMap, Level: uniqueLevel, Source: uniqueSource})
		}
	}
	// Walk into the type.
	switch {
	case opaque:
	case r.slice || r.mapType:
		if opaqueElems || elemNamed == nil {
			break
		}
		if _, ok := elemNamed.spec.Type.(*ast.StructType); ok {
			if elemNamed.name == "PodTemplateSpec" && elemNamed.p.dir == "core/v1" {
				break
			}
			suffix := "[*]"
			if r.mapType {
				suffix = "{*}"
			}
			if err := w.walkStruct(elemNamed.p, elemNamed, path+suffix); err != nil {
				return nil, err
			}
		}
	case r.named != nil:
		if _, ok := r.named.spec.Type.(*ast.StructType); ok {
			if err := w.walkStruct(r.named.p, r.named, path); err != nil {
				return nil, err
			}
		}
	}
	return members, nil
}

// defaulted reports whether the API server may default the field before
// validating: a +default marker, or an assignment to a field of its name in
// the defaulting code of its own package or of the kind's.
func (w *walker) defaulted(owner *typeDecl, f *ast.Field, goName string) (bool, error) {
	if hasMarker(f.Doc, "+default=") {
		return true, nil
	}
	for _, dir := range []string{owner.p.dir, w.kindDir} {
		d, err := w.x.defaulted(dir)
		if err != nil {
			return false, err
		}
		if d[goName] {
			return true, nil
		}
	}
	return false, nil
}

func maxLevel(a, b string) string {
	if a == "alpha" || b == "alpha" {
		return "alpha"
	}
	if a == "beta" || b == "beta" {
		return "beta"
	}
	return ""
}

func hasMarker(doc *ast.CommentGroup, marker string) bool {
	if doc == nil {
		return false
	}
	for _, c := range doc.List {
		if strings.Contains(c.Text, marker) {
			return true
		}
	}
	return false
}

// tag is one +k8s: tag after its prefixes.
type tag struct {
	name, value string
	args        map[string]string
	level       string // "", beta (alpha tags are dropped)
	each        string // "", key, val
	sub         string // subfield name
	drop        bool   // feature-gated, mode-dependent, alpha, update-only, …
	skipField   bool   // +k8s:customValidation
	source      string
}

func (w *walker) tags(td *typeDecl, doc *ast.CommentGroup) []tag {
	if doc == nil {
		return nil
	}
	var out []tag
	for _, c := range doc.List {
		text, ok := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(c.Text, "//")), "+k8s:")
		if !ok {
			continue
		}
		t := parseTag(text)
		if t.name == "" {
			continue
		}
		t.source = fmt.Sprintf("%s:%d", td.file, w.x.fset.Position(c.Pos()).Line)
		out = append(out, t)
	}
	return out
}

// parseTag reads one tag (the text after "+k8s:"), following the prefix
// tags (alpha, beta, eachVal, eachKey, subfield, ifEnabled, …) down to
// the validation it carries.
func parseTag(s string) tag {
	var t tag
	for {
		i := 0
		for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] == '-') {
			i++
		}
		name, rest := s[:i], s[i:]
		args := map[string]string{}
		var positional string
		if strings.HasPrefix(rest, "(") {
			end := strings.Index(rest, ")")
			if end < 0 {
				return tag{}
			}
			for _, a := range strings.Split(rest[1:end], ",") {
				k, v, found := strings.Cut(a, ":")
				if !found {
					positional = unquote(strings.TrimSpace(a))
					continue
				}
				args[strings.TrimSpace(k)] = unquote(strings.TrimSpace(v))
			}
			rest = rest[end+1:]
		}
		value := ""
		if v, ok := strings.CutPrefix(rest, "="); ok {
			value = v
		}
		next, chained := strings.CutPrefix(value, "+k8s:")
		switch name {
		case "alpha", "beta":
			if name == "alpha" {
				t.drop = true
			}
			t.level = maxLevel(t.level, name)
		case "eachVal":
			t.each = "val"
		case "eachKey":
			t.each = "key"
		case "subfield":
			t.sub = positional
		case "ifEnabled", "ifDisabled", "ifMode", "item":
			t.drop = true
		case "customValidation":
			t.name, t.skipField = name, true
			return t
		default:
			t.name = name
			t.args = args
			if f := strings.Fields(value); len(f) > 0 {
				t.value = unquote(f[0])
			}
			switch name {
			case "required", "optional", "format", "minimum", "maximum", "maxItems", "maxBytes", "maxLength", "enum",
				"listType", "listMapKey", "unique", "customUnique", "unionMember", "zeroOrOneOfMember", "opaqueType":
			default:
				t.drop = true // immutable, update, forbidden, dependentRequired, …: not create-time rules
			}
			if name == "opaqueType" || name == "customUnique" {
				t.drop = false // they remove validation, whatever their level
			}
			return t
		}
		if !chained {
			return tag{}
		}
		s = next
	}
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}
