// This file decodes a document straight from its parsed nodes when every
// scalar reads the same under YAML 1.1 (the fast path of Object).

package document

import (
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// fastObject converts a document's parsed nodes straight to what Object
// returns, instead of decoding its text again with sigs.k8s.io/yaml and
// encoding/json, for documents whose every node reads the same under
// YAML 1.1 and yaml.v3's parse: mappings with string keys, sequences,
// quoted strings, block scalars and plain scalars that YAML 1.1 (go.yaml.in/yaml/v2's
// resolve) reads as a string, a boolean, null or a decimal integer, with
// no tags, anchors, aliases or merge keys. ok is false for
// any other document; Object then takes the slow, general path.
func (d *Doc) fastObject() (v any, ok bool) {
	return d.fastNode(d.Root, 0)
}

// maxFastDepth bounds the recursion; deeper documents take the slow path.
const maxFastDepth = 200

func (d *Doc) fastNode(n *yaml.Node, depth int) (any, bool) {
	if depth > maxFastDepth || n.Anchor != "" || n.Style&yaml.TaggedStyle != 0 {
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, ok := d.fastKey(n.Content[i])
			if !ok {
				return nil, false
			}
			if _, dup := m[k]; dup {
				return nil, false // strict decoding's error: the slow path words it
			}
			v, ok := d.fastNode(n.Content[i+1], depth+1)
			if !ok {
				return nil, false
			}
			m[k] = v
		}
		return m, true
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, ok := d.fastNode(c, depth+1)
			if !ok {
				return nil, false
			}
			l[i] = v
		}
		return l, true
	case yaml.ScalarNode:
		return d.fastScalar(n)
	}
	return nil, false
}

// fastKey is a mapping key that YAML 1.1 reads as a string.
func (d *Doc) fastKey(k *yaml.Node) (string, bool) {
	if k.Kind != yaml.ScalarNode || k.Anchor != "" || k.Style&yaml.TaggedStyle != 0 {
		return "", false
	}
	v, ok := d.fastScalar(k)
	s, isString := v.(string)
	return s, ok && isString
}

// yaml11Words are the plain scalars starting with a letter that YAML 1.1
// does not read as strings (go.yaml.in/yaml/v2's resolveMap).
var yaml11Words = map[string]any{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"true": true, "True": true, "TRUE": true,
	"on": true, "On": true, "ON": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false,
	"false": false, "False": false, "FALSE": false,
	"off": false, "Off": false, "OFF": false,
	"null": nil, "Null": nil, "NULL": nil,
}

func (d *Doc) fastScalar(n *yaml.Node) (any, bool) {
	if !utf8.ValidString(n.Value) {
		return nil, false // encoding/json would replace the bad bytes
	}
	sp, ok := d.File.spans[n]
	if !ok || sp.Start >= len(d.File.Text) {
		return nil, false
	}
	first := d.File.Text[sp.Start] // a tag or anchor written before the value shows here
	switch n.Style {
	case yaml.DoubleQuotedStyle:
		return n.Value, first == '"'
	case yaml.SingleQuotedStyle:
		return n.Value, first == '\''
	case yaml.LiteralStyle, yaml.FoldedStyle:
		return n.Value, first == '|' || first == '>'
	case 0:
	default:
		return nil, false
	}
	s := n.Value
	if s == "" {
		// An empty value ("key:"): null. (Nothing written: the span is
		// empty.)
		// yaml.v3 drops a lone non-specific tag ("key: !", which YAML
		// 1.1 reads as ""): its span is empty too, so a '!' next is left
		// to the slow path.
		return nil, sp.Start == sp.End && !tagFollows(d.File.Text, sp.Start)
	}
	if first != s[0] {
		return nil, false
	}
	c := s[0]
	switch {
	case strings.IndexByte("yYnNtTfFoO", c) >= 0:
		if v, word := yaml11Words[s]; word {
			return v, true
		}
		return s, true
	case strings.IndexByte("+-.~0123456789<", c) < 0:
		// YAML 1.1 tries nothing but a string for what starts with any
		// other byte (resolve's hint 0); "<<" would be a merge key.
		return s, true
	case c == '.' && (len(s) == 1 || strings.IndexByte("0123456789iInN", s[1]) < 0):
		// Not a float (".5") nor .inf or .nan: a string.
		return s, true
	case '0' <= c && c <= '9' && plainString(s):
		return s, true
	case '1' <= c && c <= '9' || c == '-' && len(s) > 1 && '1' <= s[1] && s[1] <= '9':
		digits := s
		if c == '-' {
			digits = s[1:]
		}
		if len(digits) > 18 {
			return nil, false
		}
		var x int64
		for i := 0; i < len(digits); i++ {
			if digits[i] < '0' || digits[i] > '9' {
				return nil, false
			}
			x = x*10 + int64(digits[i]-'0')
		}
		if c == '-' {
			x = -x
		}
		return x, true
	case s == "0":
		return int64(0), true
	case s == "~":
		return nil, true
	}
	return nil, false
}

// plainString says a plain scalar that starts with a digit is a string in
// YAML 1.1 as sigs.k8s.io/yaml resolves it: it holds a byte that no
// integer (0x, 0o, 0b, underscores), float or timestamp
// (2006-1-2T15:4:5Z07:00, with a space or a t) can (a CIDR's '/', a
// comma), or, digits and dots only, two dots or more (an IP address, a
// version: not a float). Anything else is left to the slow path.
func plainString(s string) bool {
	dots, other := 0, false
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case '0' <= b && b <= '9':
		case b == '.':
			dots++
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', b == '_', b == '+', b == '-', b == ':', b == ' ':
			other = true
		default:
			return true
		}
	}
	return !other && dots >= 2
}

// tagFollows says the first byte after blanks from i is a tag's '!'.
func tagFollows(text []byte, i int) bool {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i < len(text) && text[i] == '!'
}
