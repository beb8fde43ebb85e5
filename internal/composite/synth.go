// This file synthesises the smallest composite resource an XRD accepts
// (required fields with placeholders, values that map and match transforms
// read), for rendering without an example.

package composite

import (
	"regexp"
	"sort"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/paved"
)

// XRName is the name a synthesised composite gets; ClaimName that of the
// claim it stands for, when its XRD offers one.
const (
	XRName    = "example-xr"
	ClaimName = "example-claim"
)

// Synthesize builds the smallest composite resource def accepts, prepared
// as Crossplane would hand it to comp's functions: required fields filled
// with typed placeholders (the first enum value, the schema default, a
// string matching a simple pattern), then everything Prepare adds
// (defaults, uid, finalizer, labels, composition and connection-secret
// references). Optional fields stay unset, so patches that read them are
// skipped: what a Composition produces for every valid XR. A required
// string field that a patch maps or matches gets a value that transform
// accepts.
//
// When the XRD offers a claim, the composite is the one Crossplane creates
// for a claim named ClaimName: with the claim labels and spec.claimRef.
func Synthesize(def Definition, comp map[string]any) map[string]any {
	xr, _ := fill(def.XR, 0).(map[string]any)
	if xr == nil {
		xr = map[string]any{}
	}
	xr["apiVersion"] = def.APIVersion
	xr["kind"] = def.Kind
	md := map[string]any{"name": XRName}
	if def.Namespaced {
		md["namespace"] = "default"
	}
	xr["metadata"] = md
	applyHints(xr, PlaceholderHints(comp))
	if def.ClaimKind != "" {
		md["generateName"] = ClaimName + "-"
		md["labels"] = map[string]any{labelClaimName: ClaimName, labelClaimNamespace: "default"}
		spec, _ := xr["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			xr["spec"] = spec
		}
		spec["claimRef"] = map[string]any{"apiVersion": def.APIVersion, "kind": def.ClaimKind, "name": ClaimName, "namespace": "default"}
	}
	return configure(def, comp, xr)
}

// fill returns a placeholder value for a schema node; objects get their
// required and defaulted properties.
func fill(s *structuralschema.Structural, depth int) any {
	if s == nil || depth > 32 {
		return nil
	}
	if s.Default.Object != nil {
		return paved.DeepCopy(s.Default.Object)
	}
	if v := s.ValueValidation; v != nil && len(v.Enum) > 0 {
		return paved.DeepCopy(v.Enum[0].Object)
	}
	switch s.Type {
	case "object":
		out := map[string]any{}
		required := map[string]bool{}
		if s.ValueValidation != nil {
			for _, r := range s.ValueValidation.Required {
				required[r] = true
			}
		}
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			prop := s.Properties[n]
			if required[n] || prop.Default.Object != nil {
				if v := fill(&prop, depth+1); v != nil {
					out[n] = v
				}
			}
		}
		return out
	case "array":
		n := 0
		if s.ValueValidation != nil && s.ValueValidation.MinItems != nil {
			n = int(*s.ValueValidation.MinItems)
		}
		out := make([]any, 0, n)
		for i := 0; i < n && i < 8; i++ {
			out = append(out, fill(s.Items, depth+1))
		}
		return out
	case "string":
		return placeholderString(s)
	case "integer":
		if v := s.ValueValidation; v != nil && v.Minimum != nil {
			return int64(*v.Minimum)
		}
		return int64(1)
	case "number":
		if v := s.ValueValidation; v != nil && v.Minimum != nil {
			return *v.Minimum
		}
		return int64(1)
	case "boolean":
		return false
	}
	if s.XIntOrString {
		return "1"
	}
	return map[string]any{}
}

// placeholderString is a string the node accepts: formats get a valid
// instance; a pattern gets the first candidate that matches it.
func placeholderString(s *structuralschema.Structural) string {
	v := s.ValueValidation
	cand := []string{"example", "example-1", "a", "1", "us-east-1", "example.org", "Example"}
	if v != nil {
		switch v.Format {
		case "date-time":
			return "2026-01-01T00:00:00Z"
		case "date":
			return "2026-01-01"
		case "uri":
			return "https://example.org"
		case "email":
			return "user@example.org"
		case "ipv4":
			return "10.0.0.1"
		case "uuid":
			return "00000000-0000-0000-0000-000000000000"
		}
		if v.Pattern != "" {
			if re, err := regexp.Compile(v.Pattern); err == nil {
				for _, c := range cand {
					if re.MatchString(c) {
						return pad(c, v)
					}
				}
			}
		}
	}
	return pad("example", v)
}

func pad(s string, v *structuralschema.ValueValidation) string {
	if v == nil {
		return s
	}
	if v.MinLength != nil && int64(len(s)) < *v.MinLength {
		s += strings.Repeat("x", int(*v.MinLength)-len(s))
	}
	if v.MaxLength != nil && int64(len(s)) > *v.MaxLength {
		s = s[:*v.MaxLength]
	}
	return s
}

// PlaceholderHints finds, for composite fields that patches read through
// a map or match transform, a value that transform accepts (the first
// map key, the first literal pattern), so that a synthesised composite
// renders the way a real one would rather than failing on a placeholder.
func PlaceholderHints(composition map[string]any) map[string]any {
	hints := map[string]any{}
	var lists [][]any
	var holders []map[string]any
	spec, _ := composition["spec"].(map[string]any)
	holders = append(holders, spec)
	steps, _ := spec["pipeline"].([]any)
	for _, s := range steps {
		sm, _ := s.(map[string]any)
		if in, ok := sm["input"].(map[string]any); ok {
			holders = append(holders, in)
		}
	}
	for _, h := range holders {
		res, _ := h["resources"].([]any)
		for _, r := range res {
			rm, _ := r.(map[string]any)
			pl, _ := rm["patches"].([]any)
			lists = append(lists, pl)
		}
		sets, _ := h["patchSets"].([]any)
		for _, s := range sets {
			sm, _ := s.(map[string]any)
			pl, _ := sm["patches"].([]any)
			lists = append(lists, pl)
		}
	}
	for _, pl := range lists {
		for _, p := range pl {
			pm, _ := p.(map[string]any)
			from, _ := pm["fromFieldPath"].(string)
			ts, _ := pm["transforms"].([]any)
			if from == "" || len(ts) == 0 || (patchType(pm) != "FromCompositeFieldPath" && patchType(pm) != "ToEnvironmentFieldPath") {
				continue
			}
			if _, done := hints[from]; done {
				continue
			}
			t, _ := ts[0].(map[string]any)
			switch t["type"] {
			case "map":
				m, _ := t["map"].(map[string]any)
				keys := make([]string, 0, len(m))
				for k := range m {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				if len(keys) > 0 {
					hints[from] = keys[0]
				}
			case "match":
				m, _ := t["match"].(map[string]any)
				pats, _ := m["patterns"].([]any)
				for _, pt := range pats {
					pm, _ := pt.(map[string]any)
					if lit, ok := pm["literal"].(string); ok && (pm["type"] == nil || pm["type"] == "literal") {
						hints[from] = lit
						break
					}
				}
			}
		}
	}
	return hints
}

// applyHints sets each hinted field that the synthesised composite holds
// (a required field) to the hinted value, when it is a string field.
func applyHints(xr map[string]any, hints map[string]any) {
	for p, v := range hints {
		fp, err := fieldpath.Parse(p)
		if err != nil {
			continue
		}
		if cur, err := paved.Get(xr, fp); err == nil {
			if _, isString := cur.(string); isString {
				_ = paved.Set(xr, fp, v)
			}
		}
	}
}
