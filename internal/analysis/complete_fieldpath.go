// This file completes inside a Composition's fieldPath strings (segment by
// segment, well-known label keys) and patchSetName values.

package analysis

import (
	"sort"
	"strconv"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/structural"
)

// fieldPathKeys are the Composition keys whose values are fieldPaths.
var fieldPathKeys = map[string]bool{"fromFieldPath": true, "toFieldPath": true, "fieldPath": true}

// wellKnownKeys are label and annotation keys Crossplane sets on
// composite and composed resources.
var wellKnownKeys = map[string][]string{
	"labels":      {"crossplane.io/composite", "crossplane.io/claim-name", "crossplane.io/claim-namespace"},
	"annotations": {"crossplane.io/external-name", "crossplane.io/composition-resource-name"},
}

// completeInString completes inside a Composition's fieldPath string,
// segment by segment, and inside patchSetName. typed is the value text
// before the cursor (with its opening quote, if any); ok is false when the
// key is not one of those.
func completeInString(f *document.File, offset, lineStart, lineEnd int, keyPart, typed string, env Env) ([]Completion, bool) {
	key := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(keyPart), "-"))
	if !fieldPathKeys[key] && key != "patchSetName" {
		return nil, false
	}
	inner := strings.TrimLeft(typed, `"'`)
	if strings.ContainsAny(inner, `"'`) {
		return nil, true // after the closing quote
	}
	d, p, ok := reparse(f, lineStart, lineEnd, keyPart+": "+placeholder)
	if !ok {
		return nil, true
	}
	obj, err := d.Object()
	if err != nil {
		return nil, true
	}
	m, _ := obj.(map[string]any)
	if key == "patchSetName" {
		return completePatchSetName(m, p, offset, inner), true
	}
	ss, side, ok := fieldPathSchema(d, m, p, env)
	if !ok {
		return nil, true
	}
	// The segment being typed starts after the last '.' or '[' outside
	// brackets; what comes before it must already be a valid path.
	segStart, inBracket := 0, false
	for i := 0; i < len(inner); i++ {
		switch inner[i] {
		case '.':
			if !inBracket {
				segStart = i + 1
			}
		case '[':
			inBracket, segStart = true, i+1
		case ']':
			inBracket = false
			segStart = i + 1
		}
	}
	word := inner[segStart:]
	prefix := strings.TrimRight(inner[:segStart], ".[")
	var parentPath fieldpath.Path
	if prefix != "" {
		if parentPath, err = fieldpath.Parse(prefix); err != nil {
			return nil, true
		}
	}
	replace := document.Span{Start: offset - len(word), End: offset}
	var out []Completion
	add := func(label, insert, detail, doc string) {
		if strings.HasPrefix(strings.ToLower(label), strings.ToLower(word)) {
			out = append(out, Completion{Label: label, Kind: CompleteField, Detail: detail, Documentation: doc, InsertText: insert, Replace: replace, SortText: "1_" + label})
		}
	}
	sideDoc := " of the " + sideName(side) + " resource"
	if len(parentPath) == 1 && parentPath[0].Kind == fieldpath.KindField && parentPath[0].Field == "metadata" && !inBracket {
		for _, f := range structural.ObjectMeta {
			if f.Common {
				add(f.Name, f.Name, f.Type, "metadata."+f.Name+sideDoc)
			}
		}
		sortCompletions(out)
		return out, true
	}
	if len(parentPath) == 2 && parentPath[0].Field == "metadata" && inBracket {
		for _, k := range wellKnownKeys[parentPath[1].Field] {
			add(k, k+"]", "string", "set by Crossplane")
		}
		sortCompletions(out)
		return out, true
	}
	var node *structuralschema.Structural
	if len(parentPath) == 0 {
		node = ss
	} else {
		node, _ = walkStructural(ss, parentPath)
	}
	if node == nil {
		return nil, true
	}
	if inBracket {
		if node.Type == "array" {
			add("0", "0]", "index", "the first item")
			add("*", "*]", "wildcard", "every item")
		}
		return out, true
	}
	if len(parentPath) == 0 {
		add("metadata", "metadata", "object", "object metadata"+sideDoc)
	}
	names := make([]string, 0, len(node.Properties))
	for name := range node.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prop := node.Properties[name]
		insert := name
		if strings.ContainsAny(name, ".[]/ ") {
			insert = "[" + name + "]"
		}
		add(name, insert, typeName(&prop), prop.Description)
	}
	sortCompletions(out)
	return out, true
}

// completePatchSetName offers the patchSets defined beside the resources
// that hold the patch (spec.patchSets, or a P&T input's patchSets).
func completePatchSetName(m map[string]any, p fieldpath.Path, offset int, word string) []Completion {
	holder, ok := patchHolder(p)
	if !ok {
		return nil
	}
	sets, _ := valueAt(m, holder.Child(fieldpath.Field("patchSets"))).([]any)
	var out []Completion
	for _, s := range sets {
		sm, _ := s.(map[string]any)
		name, _ := sm["name"].(string)
		if name == "" || !strings.HasPrefix(name, word) {
			continue
		}
		patches, _ := sm["patches"].([]any)
		out = append(out, Completion{Label: name, Kind: CompleteValue, Detail: "patchSet", Documentation: plural(len(patches), "patch", "patches"),
			InsertText: name, Replace: document.Span{Start: offset - len(word), End: offset}, SortText: "0_" + name})
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
