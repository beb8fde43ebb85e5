// This file finds CRD, XRD and MRD definitions in a YAML text with a line
// scan, falling back to a real parse.

package schemas

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	sigsyaml "sigs.k8s.io/yaml"
)

type defKind int

const (
	defCRD defKind = iota
	defXRD
	defMRD
)

// definition is one CRD, XRD or MRD document found by the index scan.
type definition struct {
	kind        defKind
	apiVersion  string
	docIndex    int
	off         int // the document's byte offset in the file
	text        []byte
	name        string
	group       string
	kindName    string
	plural      string
	scope       string
	versions    []scannedVersion
	claimKind   string
	claimPlural string
	description string
}

type scannedVersion struct {
	name   string
	served bool
}

// scanDefinitions finds the schema definitions in a multi-document YAML
// text without parsing it: a line scan that tracks the key path by
// indentation and never looks inside schemas (lines indented deeper than
// the few keys the index needs are skipped after counting their spaces).
// A document the scan cannot read fully (flow style, odd layout) is parsed
// properly instead.
func scanDefinitions(content []byte) []*definition {
	var out []*definition
	for i, start := 0, 0; ; i++ {
		d, ok, end, next := scanFrom(content, start)
		doc := content[start:end:end]
		if !ok && bytes.Contains(doc, []byte("ResourceDefinition")) {
			d = parseDoc(doc)
		}
		if d != nil {
			d.docIndex = i
			d.off = start
			d.text = doc
			out = append(out, d)
		}
		if next < 0 {
			return out
		}
		start = next
	}
}

// isSeparator reports whether a line (without its newline) is a "---"
// document separator.
func isSeparator(line []byte) bool {
	return len(line) >= 3 && line[0] == '-' && line[1] == '-' && line[2] == '-' &&
		(len(line) == 3 || line[3] == ' ' || line[3] == '\r' || line[3] == '\t')
}

// docEnd finds the end of the document whose lines continue at from:
// the offset of the next separator line and of the line after it (-1
// when the document runs to the end of content).
func docEnd(content []byte, from int) (end, next int) {
	for off := from; off < len(content); {
		e := bytes.IndexByte(content[off:], '\n')
		if e < 0 {
			e = len(content)
		} else {
			e += off
		}
		if isSeparator(content[off:e]) {
			return off, min(e+1, len(content))
		}
		off = e + 1
	}
	return len(content), -1
}

func classify(apiVersion, kind string) (defKind, bool) {
	group, _, _ := strings.Cut(apiVersion, "/")
	switch {
	case group == "apiextensions.k8s.io" && kind == "CustomResourceDefinition":
		return defCRD, true
	case group == "apiextensions.crossplane.io" && kind == "CompositeResourceDefinition":
		return defXRD, true
	case group == "apiextensions.crossplane.io" && kind == "ManagedResourceDefinition":
		return defMRD, true
	}
	return 0, false
}

// The key paths the scan records; "[]" is a list item.
const (
	pAPIVersion  = "apiVersion"
	pKind        = "kind"
	pName        = "metadata.name"
	pGroup       = "spec.group"
	pNamesKind   = "spec.names.kind"
	pNamesPlural = "spec.names.plural"
	pScope       = "spec.scope"
	pClaimKind   = "spec.claimNames.kind"
	pClaimPlural = "spec.claimNames.plural"
	pVersion     = "spec.versions[]"
	pVersionName = "spec.versions[].name"
	pServed      = "spec.versions[].served"
	pDescription = "spec.versions[].schema.openAPIV3Schema.description"
)

// maxDepth is the deepest key path the scan records (pDescription).
const maxDepth = 6

// spaces is the indentation compared with the limit: longer than any
// limit set from a real indentation unit.
var spaces = []byte(strings.Repeat(" ", 256))

type frame struct {
	indent int
	key    []byte // nil for a list item
}

// scanDoc reads the index fields of one document. ok is false when the
// document needs a real parse.
func scanDoc(doc []byte) (d *definition, ok bool) {
	d, ok, _, _ = scanFrom(doc, 0)
	return d, ok
}

// scanFrom is scanDoc of the document starting at content[start:], which
// ends at the next separator line: end is where the document ends, next
// where the following one starts (-1: none follows).
func scanFrom(content []byte, start int) (d *definition, ok bool, end, next int) {
	d = &definition{}
	var kind string
	groupSet := false // spec.group stated, possibly "" (the core group)
	var stack [maxDepth + 2]frame
	depth := 0
	// limit: lines indented deeper than this cannot hold an index key; it
	// is fixed once the indentation unit is known.
	limit := 1 << 30
	var desc []byte
	collecting, descIndent := false, 0
	// contIndent: deeper lines continue the scalar value of the key at
	// this indentation.
	contIndent := 1 << 30
	end, next = len(content), -1
	off := start
lines:
	for off < len(content) {
		lineStart := off
		e := bytes.IndexByte(content[off:], '\n')
		if e < 0 {
			e = len(content)
		} else {
			e += off
		}
		line := content[off:e]
		off = e + 1
		if !collecting && len(line) > limit && bytes.HasPrefix(line, spaces[:limit+1]) {
			continue // deeper than any index key (most of a CRD's lines)
		}
		if isSeparator(line) {
			end, next = lineStart, min(off, len(content))
			break
		}
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		if collecting {
			// The description's text continues on deeper lines, up to
			// the end of its first paragraph.
			t := bytes.TrimSpace(line)
			if len(t) > 0 && indent > descIndent && len(desc) < 1000 {
				if len(desc) > 0 {
					desc = append(desc, ' ')
				}
				desc = append(desc, t...)
				continue
			}
			collecting = false
			d.description = shortDescription(unquote(desc))
		}
		if indent > limit {
			continue
		}
		rest := bytes.TrimRight(line[indent:], " \t\r")
		if len(rest) == 0 || rest[0] == '#' {
			continue
		}
		if indent > contIndent {
			// The continuation of a multi-line scalar (a description's
			// "* item" or "[link]" lines): text, not structure.
			continue
		}
		contIndent = 1 << 30
		if rest[0] == '\t' {
			end, next = docEnd(content, off)
			return nil, false, end, next
		}
		if indent == 0 && bytes.HasPrefix(rest, []byte("---")) {
			continue
		}
		if limit == 1<<30 && indent > 0 {
			// The first indented line sets the unit; the deepest recorded
			// key sits maxDepth-1 levels down, plus one "- " per list.
			limit = min(indent*(maxDepth-1)+2, len(spaces)-1)
		}
		isItem := rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ')
		for depth > 0 && (stack[depth-1].indent > indent || stack[depth-1].indent == indent && (!isItem || stack[depth-1].key == nil)) {
			// A "- " at its parent key's indentation is that key's value
			// (an indentless sequence); a sibling item ends the previous one.
			depth--
		}
		for len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ') {
			if depth == len(stack) {
				continue lines
			}
			stack[depth] = frame{indent, nil}
			depth++
			if pathIs(stack[:depth], pVersion) {
				d.versions = append(d.versions, scannedVersion{served: true})
			}
			trimmed := bytes.TrimLeft(rest[1:], " ")
			indent += len(rest) - len(trimmed)
			rest = trimmed
		}
		if len(rest) == 0 {
			continue
		}
		if rest[0] == '{' || rest[0] == '[' || rest[0] == '&' || rest[0] == '*' || rest[0] == '?' {
			end, next = docEnd(content, off)
			return nil, false, end, next // flow style, anchors, complex keys: parse properly
		}
		if key, v, isKey := splitKey(rest); isKey {
			if depth == len(stack) {
				continue
			}
			stack[depth] = frame{indent, key}
			depth++
			if len(v) > 0 {
				contIndent = indent
			}
			if depth > maxDepth+1 {
				continue
			}
			p := stack[:depth]
			value := func() string { return string(v) } // only recorded values become strings
			switch {
			case pathIs(p, pAPIVersion):
				d.apiVersion = value()
			case pathIs(p, pKind):
				kind = value()
			case pathIs(p, pName):
				d.name = value()
			case pathIs(p, pGroup):
				d.group, groupSet = value(), true
			case pathIs(p, pNamesKind):
				d.kindName = value()
			case pathIs(p, pNamesPlural):
				d.plural = value()
			case pathIs(p, pScope):
				d.scope = value()
			case pathIs(p, pClaimKind):
				d.claimKind = value()
			case pathIs(p, pClaimPlural):
				d.claimPlural = value()
			case pathIs(p, pVersionName):
				if n := len(d.versions); n > 0 {
					d.versions[n-1].name = value()
				}
			case pathIs(p, pServed):
				if n := len(d.versions); n > 0 {
					d.versions[n-1].served = string(v) == "true"
				}
			case d.description == "" && pathIs(p, pDescription):
				collecting, descIndent, desc = true, indent, desc[:0]
				if len(v) > 0 && v[0] != '|' && v[0] != '>' {
					desc = append(desc, v...)
				}
			}
		}
	}
	if collecting {
		d.description = shortDescription(unquote(desc))
	}
	k, known := classify(d.apiVersion, kind)
	if !known {
		return nil, true, end, next
	}
	d.kind = k
	// The empty group is the Kubernetes core group: the built-in bundle
	// serves its kinds as CRDs of group "" (parseDoc reads them alike).
	if (d.group == "" && !(groupSet && k == defCRD)) || d.kindName == "" || len(d.versions) == 0 {
		return nil, false, end, next
	}
	for _, v := range d.versions {
		if v.name == "" {
			return nil, false, end, next
		}
	}
	return d, true, end, next
}

// pathIs reports whether the stack spells path (keys joined by ".", list
// items as "[]" without a dot).
func pathIs(stack []frame, path string) bool {
	i := 0
	for n, f := range stack {
		if f.key == nil {
			if !strings.HasPrefix(path[i:], "[]") {
				return false
			}
			i += 2
			continue
		}
		if n > 0 {
			if i >= len(path) || path[i] != '.' {
				return false
			}
			i++
		}
		if len(path)-i < len(f.key) || path[i:i+len(f.key)] != string(f.key) {
			return false
		}
		i += len(f.key)
	}
	return i == len(path)
}

// splitKey reads "key: value" (the value without quotes or a trailing
// comment), as sub-slices of s.
func splitKey(s []byte) (key, value []byte, ok bool) {
	var k []byte
	rest := s
	if s[0] == '"' || s[0] == '\'' {
		end := bytes.IndexByte(s[1:], s[0])
		if end < 0 {
			return nil, nil, false
		}
		k, rest = s[1:end+1], s[end+2:]
		if len(rest) == 0 || rest[0] != ':' {
			return nil, nil, false
		}
	} else {
		i := bytes.IndexByte(s, ':')
		for i > 0 && i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\t' {
			j := bytes.IndexByte(s[i+1:], ':')
			if j < 0 {
				return nil, nil, false
			}
			i += j + 1
		}
		if i <= 0 {
			return nil, nil, false
		}
		k, rest = s[:i], s[i:]
	}
	v := bytes.TrimSpace(rest[1:])
	if len(v) > 0 && (v[0] == '"' || v[0] == '\'') {
		if end := bytes.LastIndexByte(v, v[0]); end > 0 {
			v = v[1:end]
		}
	} else if j := bytes.Index(v, []byte(" #")); j >= 0 {
		v = bytes.TrimSpace(v[:j])
	}
	return k, v, true
}

// unquote reads a (multi-line) quoted scalar whose quotes splitKey left
// in place.
func unquote(b []byte) string {
	s := string(b)
	if len(s) < 2 || (s[0] != '\'' && s[0] != '"') || s[len(s)-1] != s[0] {
		return s
	}
	if s[0] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s[1 : len(s)-1]
}

// shortDescription is the first sentence of a description, for completion
// lists.
func shortDescription(s string) string {
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i] // the first paragraph
	}
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// parseDoc reads a definition the line scan could not (flow style, odd
// indentation) with a real YAML parser.
// parsedDoc is what parseDoc reads of a definition.
type parsedDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Scope string `json:"scope"`
		Names struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
		ClaimNames *struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"claimNames"`
		Versions []struct {
			Name   string `json:"name"`
			Served *bool  `json:"served"`
			Schema *struct {
				OpenAPIV3Schema *struct {
					Description string `json:"description"`
				} `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

func parseDoc(doc []byte) *definition {
	var m parsedDoc
	// A document that is one JSON object (a live cluster's cache writes
	// each CRD so) is read by encoding/json directly: the same decoding
	// sigs.k8s.io/yaml ends in, without converting the text to YAML nodes
	// and back first (68 % of `check --cluster`'s time on 100,000 CRDs).
	// Anything it refuses goes the YAML way, as before.
	if t := bytes.TrimSpace(doc); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &m) != nil {
		m = parsedDoc{}
		if err := sigsyaml.Unmarshal(doc, &m); err != nil {
			return nil
		}
	}
	k, ok := classify(m.APIVersion, m.Kind)
	// The empty group is the Kubernetes core group: the built-in bundle
	// serves its kinds (ConfigMap, Namespace …) as CRDs of group "".
	if !ok || (m.Spec.Group == "" && k != defCRD) || m.Spec.Names.Kind == "" {
		return nil
	}
	d := &definition{kind: k, apiVersion: m.APIVersion, name: m.Metadata.Name, group: m.Spec.Group, kindName: m.Spec.Names.Kind, plural: m.Spec.Names.Plural, scope: m.Spec.Scope}
	if m.Spec.ClaimNames != nil {
		d.claimKind, d.claimPlural = m.Spec.ClaimNames.Kind, m.Spec.ClaimNames.Plural
	}
	for _, v := range m.Spec.Versions {
		if v.Name == "" {
			continue
		}
		d.versions = append(d.versions, scannedVersion{name: v.Name, served: v.Served == nil || *v.Served})
		if d.description == "" && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			d.description = shortDescription(v.Schema.OpenAPIV3Schema.Description)
		}
	}
	if len(d.versions) == 0 {
		return nil
	}
	return d
}

// Scopes as the index derives them, consistent with internal/xcrd.
func (d *definition) xrScope() Scope {
	switch d.kind {
	case defXRD:
		// spec.scope as Crossplane v2 reads it (Namespaced; Cluster and
		// LegacyCluster are cluster scoped); without one, v2 XRDs default
		// to Namespaced and v1 XRDs to LegacyCluster.
		if d.scope == string(Namespaced) || (d.scope == "" && strings.HasSuffix(d.apiVersion, "/v2")) {
			return Namespaced
		}
		return Cluster
	default:
		if d.scope == string(Cluster) {
			return Cluster
		}
		// CRDs must state a scope (ValidateCRD reports a missing one);
		// MRDs mirror CRDs. Namespaced is the safer assumption: a
		// namespace is then allowed, not required.
		return Namespaced
	}
}

// offersClaim mirrors xcrd.ForCompositeResourceClaim: a v1 XRD, or a v2 XRD
// with scope LegacyCluster, that names a claim kind.
func (d *definition) offersClaim() bool {
	return d.legacyXR() && d.claimKind != ""
}

// legacyXR: an XRD whose composite is LegacyCluster, explicitly or as a v1
// XRD without a scope. Only these have claims.
func (d *definition) legacyXR() bool {
	return d.kind == defXRD && (d.scope == "LegacyCluster" || (d.scope == "" && !strings.HasSuffix(d.apiVersion, "/v2")))
}
