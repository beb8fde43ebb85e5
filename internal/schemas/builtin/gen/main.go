// Command gen builds the embedded schema bundle of package builtin from the
// shared corpus: Kubernetes OpenAPI v3 documents become one CRD per
// top-level kind; Crossplane and function input CRDs are copied verbatim.
// Output is deterministic, so regenerating changes nothing unless the
// inputs changed.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"
)

func main() {
	corpus := flag.String("corpus", "../../../../shared/corpus", "path of the shared corpus")
	out := flag.String("out", "data", "output folder")
	flag.Parse()
	if err := run(*corpus, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// Sets lists the bundles and their sources, relative to the corpus.
var sets = []struct {
	file  string
	globs []string
	k8s   bool
}{
	{"kubernetes-v1.35.yaml.gz", []string{"crds/kubernetes/v1.35/*.json"}, true},
	{"crossplane-v1.20.11.yaml.gz", []string{"crds/crossplane/v1.20.11/*.yaml"}, false},
	{"crossplane-v2.3.4.yaml.gz", []string{"crds/crossplane/v2.3.4/*.yaml"}, false},
	{"functions.yaml.gz", []string{"crds/functions/*/*/input/*.yaml", "crds/functions/*/*/package/input/*.yaml"}, false},
}

func run(corpus, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, set := range sets {
		var files []string
		for _, g := range set.globs {
			m, err := filepath.Glob(filepath.Join(corpus, g))
			if err != nil {
				return err
			}
			files = append(files, m...)
		}
		sort.Strings(files)
		if len(files) == 0 {
			return fmt.Errorf("%s: no input files under %s", set.file, corpus)
		}
		var buf bytes.Buffer
		for _, f := range files {
			rel, _ := filepath.Rel(corpus, f)
			rel = filepath.ToSlash(strings.TrimPrefix(rel, "crds/"))
			raw, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if !set.k8s {
				fmt.Fprintf(&buf, "---\n# source: %s\n%s\n", rel, bytes.TrimRight(bytes.TrimPrefix(raw, []byte("---\n")), "\n"))
				continue
			}
			docs, err := kubernetesCRDs(raw)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			for _, d := range docs {
				y, err := sigsyaml.Marshal(d.crd)
				if err != nil {
					return err
				}
				fmt.Fprintf(&buf, "---\n# source: %s#%s\n%s", rel, d.kind, y)
			}
		}
		var gz bytes.Buffer
		w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, set.file), gz.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

type kindDoc struct {
	kind string
	crd  map[string]any
}

type openAPIDoc struct {
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas map[string]map[string]any `json:"schemas"`
	} `json:"components"`
}

type gvk struct{ Group, Version, Kind string }

// kubernetesCRDs synthesises a CRD for every top-level kind of one
// group-version document.
func kubernetesCRDs(raw []byte) ([]kindDoc, error) {
	var doc openAPIDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	type resource struct {
		plural     string
		namespaced bool
	}
	resources := map[gvk]*resource{}
	for path, ops := range doc.Paths {
		if strings.Contains(path, "{name}") || strings.Contains(path, "/watch/") {
			continue
		}
		post, ok := ops["post"]
		if !ok {
			continue
		}
		var op struct {
			Action string `json:"x-kubernetes-action"`
			GVK    *gvk   `json:"x-kubernetes-group-version-kind"`
		}
		if json.Unmarshal(post, &op) != nil || op.Action != "post" || op.GVK == nil {
			continue
		}
		segs := strings.Split(strings.Trim(path, "/"), "/")
		r := resources[*op.GVK]
		if r == nil {
			r = &resource{plural: segs[len(segs)-1]}
			resources[*op.GVK] = r
		}
		if strings.Contains(path, "{namespace}") {
			r.namespaced = true
		}
	}
	var out []kindDoc
	for name, s := range doc.Components.Schemas {
		gvks, _ := s["x-kubernetes-group-version-kind"].([]any)
		if len(gvks) != 1 {
			continue
		}
		g := gvks[0].(map[string]any)
		key := gvk{fmt.Sprint(g["group"]), fmt.Sprint(g["version"]), fmt.Sprint(g["kind"])}
		r := resources[key]
		if r == nil {
			continue // not a resource one can create (List kinds, options, reviews without POST)
		}
		schema := inline(doc.Components.Schemas, s, []string{name})
		props, _ := schema["properties"].(map[string]any)
		if props != nil {
			props["metadata"] = map[string]any{"type": "object"}
		}
		scope := "Cluster"
		if r.namespaced {
			scope = "Namespaced"
		}
		apiGroup := key.Group
		crdName := r.plural + "." + apiGroup
		if apiGroup == "" {
			crdName = r.plural + ".core"
		}
		out = append(out, kindDoc{kind: key.Kind, crd: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1",
			"kind":       "CustomResourceDefinition",
			"metadata":   map[string]any{"name": crdName},
			"spec": map[string]any{
				"group": apiGroup,
				"names": map[string]any{"kind": key.Kind, "plural": r.plural, "singular": strings.ToLower(key.Kind), "listKind": key.Kind + "List"},
				"scope": scope,
				"versions": []any{map[string]any{
					"name": key.Version, "served": true, "storage": true,
					"schema": map[string]any{"openAPIV3Schema": schema},
				}},
			},
		}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].kind < out[j].kind })
	return out, nil
}

const refPrefix = "#/components/schemas/"

var dropKeys = map[string]bool{
	"x-kubernetes-patch-strategy": true, "x-kubernetes-patch-merge-key": true,
	"x-kubernetes-group-version-kind": true, "x-kubernetes-unions": true,
	"$ref": true, "allOf": true, "oneOf": true, "anyOf": true,
}

// inline returns a copy of s with every $ref replaced by its target, in the
// form a structural schema accepts.
func inline(all map[string]map[string]any, s map[string]any, stack []string) map[string]any {
	target := ""
	if ref, ok := s["$ref"].(string); ok {
		target = strings.TrimPrefix(ref, refPrefix)
	} else if allOf, ok := s["allOf"].([]any); ok && len(allOf) == 1 {
		if m, ok := allOf[0].(map[string]any); ok {
			if ref, ok := m["$ref"].(string); ok {
				target = strings.TrimPrefix(ref, refPrefix)
			}
		}
	}
	out := map[string]any{}
	if target != "" {
		switch {
		case target == "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta":
			out = map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
		case contains(stack, target):
			out = map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
		default:
			if t, ok := all[target]; ok {
				out = inline(all, t, append(stack, target))
			}
		}
	}
	for k, v := range s {
		if dropKeys[k] {
			continue
		}
		if k == "description" && target != "" {
			if _, has := out["description"]; has && v == "" {
				continue
			}
		}
		if k == "default" {
			if m, ok := v.(map[string]any); ok && len(m) == 0 {
				continue // {} defaults materialise empty objects; leave them out
			}
		}
		switch k {
		case "properties":
			props := map[string]any{}
			for pk, pv := range v.(map[string]any) {
				props[pk] = inline(all, pv.(map[string]any), stack)
			}
			out[k] = props
		case "items":
			if m, ok := v.(map[string]any); ok {
				out[k] = inline(all, m, stack)
			}
		case "additionalProperties":
			if m, ok := v.(map[string]any); ok {
				out[k] = inline(all, m, stack)
			} else {
				out[k] = v
			}
		default:
			out[k] = v
		}
	}
	// Shapes a structural schema cannot express exactly: keep them open.
	if f, _ := out["format"].(string); f == "int-or-string" {
		delete(out, "format")
		delete(out, "type")
		out["x-kubernetes-int-or-string"] = true
	}
	if _, hasType := out["type"]; !hasType && out["x-kubernetes-int-or-string"] != true {
		out["x-kubernetes-preserve-unknown-fields"] = true
		delete(out, "format")
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
