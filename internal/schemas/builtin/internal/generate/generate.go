// Package generate builds the embedded schema bundles of package builtin:
// from the k8s.io/kubernetes module of each built-in Kubernetes minor
// (kubernetes.go) and the shared corpus. Kubernetes OpenAPI v3 documents become one
// CustomResourceDefinition per top-level kind; Crossplane core CRDs and
// composition-function input CRDs are copied verbatim. The output is
// deterministic: the same corpus always gives the same bytes.
//
// It lives in its own package (rather than in the gen command) so that
// package builtin's tests can regenerate the bundle in process and compare
// it with the committed files.
package generate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// SourcePrefix starts the comment line that precedes every document of a
// bundle; the rest of the line is the document's origin.
const SourcePrefix = "# source: "

// Separator starts every document of a bundle: a YAML document marker
// followed by the source comment.
const Separator = "---\n" + SourcePrefix

// Set is one bundle file and the corpus files it is made of.
type Set struct {
	File  string   // file name under the output folder
	Globs []string // inputs, relative to the corpus
}

// Sets lists the bundles copied verbatim from the corpus.
var Sets = []Set{
	{File: "crossplane-v1.20.11.yaml", Globs: []string{"crds/crossplane/v1.20.11/*.yaml"}},
	{File: "crossplane-v2.3.4.yaml", Globs: []string{"crds/crossplane/v2.3.4/*.yaml"}},
	// Only input/: each function's crossplane.yaml is package metadata.
	// The input CRDs of more functions come with the workspaces that use
	// them (each workspace's SOURCES.md names the function's release):
	// function-kcl v0.12.2 and function-environment-configs v0.7.1 with
	// stuttgart-things, function-auto-ready v0.7.0,
	// function-status-transformer v0.5.1 and function-python v0.5.0 with
	// the function examples.
	{File: "functions.yaml", Globs: []string{
		"crds/functions/*/*/input/*.yaml",
		"workspaces-3/stuttgart-things-configurations/schemas/krm.kcl.dev_kclinputs.yaml",
		"workspaces-3/stuttgart-things-configurations/schemas/environmentconfigs.fn.crossplane.io_inputs.yaml",
		"workspaces-3/function-examples/schemas/autoready.fn.crossplane.io_inputs.yaml",
		"workspaces-3/function-examples/schemas/function-status-transformer.fn.crossplane.io_statustransformations.yaml",
		"workspaces-3/function-examples/schemas/python.fn.crossplane.io_scripts.yaml",
	}},
}

// Files are the names of every file Run writes: the bundles and the
// index of each uncompressed one (Indexed).
func Files() []string {
	var out []string
	for _, r := range KubernetesReleases {
		out = append(out, r.File())
	}
	for _, s := range Sets {
		out = append(out, s.File)
	}
	return append(out, Indexed()...)
}

// Indexed are the index files (Index): of every Kubernetes minor's whole
// bundle — for an older minor, the bundle its difference rebuilds, which
// is not itself written — and of every Set.
func Indexed() []string {
	var out []string
	for _, r := range KubernetesReleases {
		out = append(out, r.Bundle()+IndexSuffix)
	}
	for _, s := range Sets {
		out = append(out, s.File+IndexSuffix)
	}
	return out
}

// Run writes every bundle into out: the Kubernetes ones from the module
// folders (by module version, see ModuleDirs), the others from the corpus.
func Run(corpus string, modDirs map[string]string, out string) error {
	files, err := Build(corpus, modDirs)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, name := range Files() {
		if err := os.WriteFile(filepath.Join(out, name), files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Build returns every bundle, by file name.
func Build(corpus string, modDirs map[string]string) (map[string][]byte, error) {
	out := map[string][]byte{}
	k8s, err := BuildKubernetes(modDirs)
	if err != nil {
		return nil, err
	}
	maps.Copy(out, k8s)
	for _, set := range Sets {
		raw, err := BuildSet(corpus, set)
		if err != nil {
			return nil, err
		}
		out[set.File] = raw
	}
	for _, s := range Sets {
		name := s.File + IndexSuffix
		bundle := s.File
		ix, err := Index(out[bundle])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", bundle, err)
		}
		out[name] = ix
	}
	return out, nil
}

// BuildSet returns the multi-document YAML of one set.
func BuildSet(corpus string, set Set) ([]byte, error) {
	var files []string
	for _, g := range set.Globs {
		m, err := filepath.Glob(filepath.Join(corpus, filepath.FromSlash(g)))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no input files under %s", set.File, corpus)
	}
	// Sort by the slash-separated origin name, so the order does not
	// depend on the platform.
	type input struct{ path, name string }
	var inputs []input
	for _, f := range files {
		rel, err := filepath.Rel(corpus, f)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, input{f, strings.TrimPrefix(filepath.ToSlash(rel), "crds/")})
	}
	slices.SortFunc(inputs, func(a, b input) int { return strings.Compare(a.name, b.name) })

	var buf bytes.Buffer
	for _, in := range inputs {
		raw, err := os.ReadFile(in.path)
		if err != nil {
			return nil, err
		}
		doc, err := verbatim(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.name, err)
		}
		writeDoc(&buf, in.name, doc)
	}
	return buf.Bytes(), nil
}

func writeDoc(buf *bytes.Buffer, name string, doc []byte) {
	buf.WriteString(Separator)
	buf.WriteString(name)
	buf.WriteByte('\n')
	buf.Write(doc)
}

// verbatim returns a single-document YAML file without its leading
// document marker, ending in a newline; it refuses files that hold more
// than one document or that would break the bundle's framing.
func verbatim(raw []byte) ([]byte, error) {
	doc := bytes.TrimPrefix(raw, []byte("---\n"))
	if len(doc) == 0 {
		return nil, fmt.Errorf("empty file")
	}
	if doc[len(doc)-1] != '\n' {
		doc = append(slices.Clip(doc), '\n')
	}
	if bytes.HasPrefix(doc, []byte("---")) || bytes.Contains(doc, []byte("\n---\n")) || bytes.Contains(doc, []byte("\n---\r\n")) || bytes.HasSuffix(doc, []byte("\n---\n")) {
		return nil, fmt.Errorf("more than one YAML document (the bundle holds one per file)")
	}
	if bytes.Contains(doc, []byte("\n"+Separator)) {
		return nil, fmt.Errorf("contains the bundle separator %q", Separator)
	}
	return doc, nil
}

// KindCRD is one synthesised CRD.
type KindCRD struct {
	Kind string
	CRD  map[string]any
}

type openAPIDoc struct {
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas map[string]map[string]any `json:"schemas"`
	} `json:"components"`
}

type gvk struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type resource struct {
	plural     string
	namespaced bool
	status     bool // has a status subresource
}

// KubernetesCRDs synthesises a CRD for every top-level kind of one
// group-version OpenAPI v3 document, sorted by kind.
func KubernetesCRDs(raw []byte) (_ []KindCRD, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	var doc openAPIDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	resources, gv, err := documentResources(doc)
	if err != nil {
		return nil, err
	}
	c := &converter{schemas: doc.Components.Schemas}
	var out []KindCRD
	for _, name := range sortedKeys(doc.Components.Schemas) {
		s := doc.Components.Schemas[name]
		gvks, _ := s["x-kubernetes-group-version-kind"].([]any)
		if len(gvks) != 1 { // meta kinds (DeleteOptions, Status, WatchEvent …) list many
			continue
		}
		var key gvk
		if b, err := json.Marshal(gvks[0]); err != nil || json.Unmarshal(b, &key) != nil {
			return nil, fmt.Errorf("%s: bad x-kubernetes-group-version-kind", name)
		}
		if key.Group != gv.Group || key.Version != gv.Version || strings.HasSuffix(key.Kind, "List") {
			continue
		}
		r := resources[key]
		if r == nil {
			// No collection path: a kind used only in a request body of a
			// subresource (autoscaling/v1 Scale, policy/v1 Eviction …).
			continue
		}
		schema, err := c.root(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		scope := "Cluster"
		if r.namespaced {
			scope = "Namespaced"
		}
		crdGroup := key.Group
		if crdGroup == "" {
			crdGroup = "core"
		}
		version := map[string]any{
			"name": key.Version, "served": true, "storage": true,
			"schema": map[string]any{"openAPIV3Schema": schema},
		}
		if r.status {
			version["subresources"] = map[string]any{"status": map[string]any{}}
		}
		out = append(out, KindCRD{Kind: key.Kind, CRD: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1",
			"kind":       "CustomResourceDefinition",
			"metadata":   map[string]any{"name": r.plural + "." + crdGroup},
			"spec": map[string]any{
				"group": key.Group,
				"names": map[string]any{
					"kind": key.Kind, "listKind": key.Kind + "List",
					"plural": r.plural, "singular": strings.ToLower(key.Kind),
				},
				"scope":    scope,
				"versions": []any{version},
			},
		}})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no top-level kinds of %s/%s", gv.Group, gv.Version)
	}
	slices.SortFunc(out, func(a, b KindCRD) int { return strings.Compare(a.Kind, b.Kind) })
	return out, nil
}

// documentResources reads the resources of a document from its paths: a
// collection path (no {name}, not under watch/) whose operations carry a
// kind gives that kind's plural; a path under namespaces/{namespace}/ makes
// it namespaced; a {name}/status path gives it a status subresource. It
// also returns the document's own group-version, taken from its paths'
// prefix (/api/v1 or /apis/<group>/<version>).
func documentResources(doc openAPIDoc) (map[gvk]*resource, gvk, error) {
	resources := map[gvk]*resource{}
	var gv gvk
	gvSet := false
	for _, path := range sortedKeys(doc.Paths) {
		segs := strings.Split(strings.Trim(path, "/"), "/")
		var g gvk
		var rest []string
		switch {
		case len(segs) >= 2 && segs[0] == "api":
			g, rest = gvk{Version: segs[1]}, segs[2:]
		case len(segs) >= 3 && segs[0] == "apis":
			g, rest = gvk{Group: segs[1], Version: segs[2]}, segs[3:]
		default:
			continue
		}
		if !gvSet {
			gv, gvSet = g, true
		} else if g != gv {
			return nil, gv, fmt.Errorf("paths of more than one group-version: %s/%s and %s/%s", gv.Group, gv.Version, g.Group, g.Version)
		}
		if len(rest) == 0 || rest[0] == "watch" {
			continue
		}
		namespaced := len(rest) >= 2 && rest[0] == "namespaces" && rest[1] == "{namespace}"
		if namespaced {
			rest = rest[2:]
		}
		var kinds []gvk
		for _, method := range sortedKeys(doc.Paths[path]) {
			var op struct {
				GVK *gvk `json:"x-kubernetes-group-version-kind"`
			}
			if json.Unmarshal(doc.Paths[path][method], &op) == nil && op.GVK != nil && !slices.Contains(kinds, *op.GVK) {
				kinds = append(kinds, *op.GVK)
			}
		}
		for _, k := range kinds {
			switch {
			case len(rest) == 1 && rest[0] != "{name}": // a collection
				r := resources[k]
				if r == nil {
					r = &resource{plural: rest[0]}
					resources[k] = r
				} else if r.plural != rest[0] {
					return nil, gv, fmt.Errorf("%s has two plurals: %s and %s", k.Kind, r.plural, rest[0])
				}
				r.namespaced = r.namespaced || namespaced
			}
		}
	}
	// Status subresources, now that every resource is known.
	for _, path := range sortedKeys(doc.Paths) {
		if !strings.HasSuffix(path, "/{name}/status") {
			continue
		}
		plural := strings.TrimSuffix(path, "/{name}/status")
		plural = plural[strings.LastIndex(plural, "/")+1:]
		for _, r := range resources {
			if r.plural == plural {
				r.status = true
			}
		}
	}
	if !gvSet {
		return nil, gv, fmt.Errorf("no API paths")
	}
	return resources, gv, nil
}

const refPrefix = "#/components/schemas/"

// quantity is the component schema of resource.Quantity, which needs a
// structural form of its own.
const quantity = "io.k8s.apimachinery.pkg.api.resource.Quantity"

// quantityPattern is the syntax of resource.Quantity, as controller-gen
// writes it for CRDs.
const quantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`

// schemaKeys are the JSONSchemaProps fields a CRD schema may carry; any
// other key of the OpenAPI documents (x-kubernetes-patch-*, $ref, allOf,
// oneOf, x-kubernetes-unions, x-kubernetes-group-version-kind …) is
// dropped or resolved.
var schemaKeys = map[string]bool{
	"description": true, "type": true, "format": true, "title": true, "default": true,
	"maximum": true, "exclusiveMaximum": true, "minimum": true, "exclusiveMinimum": true,
	"maxLength": true, "minLength": true, "pattern": true, "maxItems": true, "minItems": true,
	"uniqueItems": true, "multipleOf": true, "enum": true, "maxProperties": true, "minProperties": true,
	"required": true, "items": true, "properties": true, "additionalProperties": true, "nullable": true,
	"x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-embedded-resource": true,
	"x-kubernetes-int-or-string": true, "x-kubernetes-list-map-keys": true, "x-kubernetes-list-type": true,
	"x-kubernetes-map-type": true, "x-kubernetes-validations": true,
}

var k8s135 = version.MajorMinor(1, 35)

type converter struct {
	schemas map[string]map[string]any
}

// root converts a top-level kind's component schema.
func (c *converter) root(name string) (map[string]any, error) {
	s := c.convert(c.schemas[name], []string{name})
	dropZeroDefaults(s, false, nil)
	props, _ := s["properties"].(map[string]any)
	if _, ok := props["metadata"]; !ok {
		return nil, fmt.Errorf("no metadata property")
	}
	// A CRD's root metadata may say nothing but type: object; the
	// validator applies the ObjectMeta rules itself.
	props["metadata"] = map[string]any{"type": "object"}
	return s, nil
}

// convert returns s with every $ref inlined, in a form a structural schema
// accepts. stack holds the component schemas being inlined, to cut
// recursion: a schema met again inside itself becomes an open object.
func (c *converter) convert(s map[string]any, stack []string) map[string]any {
	out := map[string]any{}
	if target := refTarget(s); target != "" {
		switch {
		case slices.Contains(stack, target):
			out = map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
		case target == quantity:
			// A string or a number ("500m", 0.5): no structural type
			// can say that, so take any value and check strings' syntax.
			out = map[string]any{"x-kubernetes-preserve-unknown-fields": true, "pattern": quantityPattern}
			if d, ok := c.schemas[target]["description"]; ok {
				out["description"] = d
			}
		default:
			t, ok := c.schemas[target]
			if !ok {
				panic(fmt.Sprintf("dangling $ref %s", target))
			}
			out = c.convert(t, append(slices.Clip(stack), target))
		}
	}
	// The wrapper's own keywords (description, default …) win over the
	// referenced schema's.
	for k, v := range s {
		if !schemaKeys[k] {
			continue
		}
		switch k {
		case "description":
			if v == "" {
				continue
			}
			out[k] = v
		case "properties":
			props := map[string]any{}
			for pk, pv := range v.(map[string]any) {
				props[pk] = c.convert(pv.(map[string]any), stack)
			}
			out[k] = props
		case "items", "additionalProperties":
			if m, ok := v.(map[string]any); ok {
				out[k] = c.convert(m, stack)
			} else {
				out[k] = v
			}
		default:
			out[k] = v
		}
	}
	normalize(out)
	return out
}

// refTarget returns the component a schema stands for: {$ref: X} or
// {allOf: [{$ref: X}], …}.
func refTarget(s map[string]any) string {
	if ref, ok := s["$ref"].(string); ok {
		return strings.TrimPrefix(ref, refPrefix)
	}
	if allOf, ok := s["allOf"].([]any); ok && len(allOf) == 1 {
		if m, ok := allOf[0].(map[string]any); ok && len(m) == 1 {
			if ref, ok := m["$ref"].(string); ok {
				return strings.TrimPrefix(ref, refPrefix)
			}
		}
	}
	return ""
}

// normalize makes one converted node structural.
func normalize(out map[string]any) {
	// int-or-string: {format: int-or-string, oneOf: [integer, string]}.
	if out["format"] == "int-or-string" {
		delete(out, "format")
		delete(out, "type")
		out["x-kubernetes-int-or-string"] = true
		// As controller-gen writes it, so a validator built without
		// Structural.Unfold still rejects other types.
		out["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
	}
	// Formats the API server does not know for CRDs.
	if f, ok := out["format"].(string); ok {
		t, _ := out["type"].(string)
		probe := &spec.Schema{SchemaProps: spec.SchemaProps{Format: f}}
		if t != "" {
			probe.Type = spec.StringOrArray{t}
		}
		if len(apiservervalidation.GetUnrecognizedFormats(probe, k8s135)) > 0 {
			delete(out, "format")
		}
	}
	// []byte fields say x-kubernetes-list-type: atomic on a string.
	if out["type"] != "array" {
		delete(out, "x-kubernetes-list-type")
		delete(out, "x-kubernetes-list-map-keys")
	}
	intOrString := out["x-kubernetes-int-or-string"] == true
	_, typed := out["type"]
	switch {
	case !typed && !intOrString:
		// Any JSON value (apiextensions JSON, JSONSchemaPropsOrBool …).
		out["x-kubernetes-preserve-unknown-fields"] = true
		delete(out, "format")
	case out["type"] == "object" && out["properties"] == nil && out["additionalProperties"] == nil:
		// Free-form objects (RawExtension, FieldsV1): without
		// properties, a structural schema would prune everything.
		out["x-kubernetes-preserve-unknown-fields"] = true
	}
}

// dropZeroDefaults removes zero-value defaults ("", 0, false, {}): they are
// what the Go types' non-pointer fields give, not defaults the API server
// applies, and as CRD defaults they would hide "required" errors ("" for a
// missing container name) or fail validation ({} for an object with
// required fields). The exception are keys of list-type map items that are
// not required: a CRD needs a default there, and a missing key does decode
// to its zero value (imagePullSecrets[].name); such a key without any
// default gets its type's zero value (flowcontrol's status.conditions[].type).
// keep is true for such a key; keepProps names them in s's properties.
func dropZeroDefaults(s map[string]any, keep bool, keepProps []string) {
	if d, ok := s["default"]; ok && isZero(d) && !keep {
		delete(s, "default")
	}
	if _, ok := s["default"]; keep && !ok {
		switch s["type"] {
		case "string":
			s["default"] = ""
		case "integer", "number":
			s["default"] = 0
		case "boolean":
			s["default"] = false
		}
	}
	if items, _ := s["items"].(map[string]any); items != nil {
		var listKeys []string
		if s["x-kubernetes-list-type"] == "map" {
			required, _ := items["required"].([]any)
			keys, _ := s["x-kubernetes-list-map-keys"].([]any)
			for _, k := range keys {
				if !slices.Contains(required, k) {
					listKeys = append(listKeys, k.(string))
				}
			}
		}
		dropZeroDefaults(items, false, listKeys)
	}
	if props, _ := s["properties"].(map[string]any); props != nil {
		for name, p := range props {
			dropZeroDefaults(p.(map[string]any), slices.Contains(keepProps, name), nil)
		}
	}
	if ap, _ := s["additionalProperties"].(map[string]any); ap != nil {
		dropZeroDefaults(ap, false, nil)
	}
}

func isZero(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case float64:
		return v == 0
	case bool:
		return !v
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
