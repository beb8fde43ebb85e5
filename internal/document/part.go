// This file parses a run of a long file's documents exactly as Parse does
// (Split, ParsePart), for check's parallel parts.

package document

import (
	"bytes"

	"gopkg.in/yaml.v3"
)

// Split indexes text's lines and cuts it into the spans of its YAML
// documents, exactly as Parse does, without parsing them. With ParsePart,
// a long file's documents can be parsed (and dropped) a few at a time, on
// several cores.
func Split(text []byte) (*Mapper, []Span) {
	f := &File{Text: text, Mapper: NewMapper(text)}
	if bytes.HasPrefix(text, []byte("\ufeff")) {
		f.bom = 3
	}
	return f.Mapper, f.splitDocuments()
}

// ParsePart parses the documents of text at spans (consecutive spans
// Split gave for text, the first of them document number first) exactly
// as Parse parses them: the same nodes, lines, byte spans and errors.
// The File holds the whole text and m (Split's Mapper for text, shared
// read-only) but only these documents: unlike a Parse File its Docs do
// not cover the text.
func ParsePart(uri string, text []byte, m *Mapper, spans []Span, first int) *File {
	f := &File{URI: uri, Text: text, Mapper: m, spans: map[*yaml.Node]Span{}, parsing: true}
	if bytes.HasPrefix(text, []byte("\ufeff")) {
		f.bom = 3
	}
	defer func() { f.parsing, f.runes = false, nil }()
	f.Docs = make([]*Doc, 0, len(spans))
	for i, sp := range spans {
		d := &Doc{File: f, Index: first + i, Span: sp, firstLine: m.LineOf(sp.Start)}
		d.parseSpan(text)
		f.Docs = append(f.Docs, d)
	}
	return f
}
