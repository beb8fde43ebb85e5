// This file runs a function-environment-configs step as its fn.go does
// (ResolveFunction).

package environmentconfigs

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/paved"
)

// ResolveFunction runs a function-environment-configs step: input is its
// input, xr the observed composite, prior the environment in the context
// the step gets (nil: none). It never panics.
func ResolveFunction(input, xr, prior map[string]any, opts Options) (res Result) {
	res.Environment, _ = paved.DeepCopy(prior).(map[string]any)
	if res.Environment == nil {
		res.Environment = map[string]any{}
	}
	defer func() {
		if r := recover(); r != nil {
			res.Failure = &Failure{Message: fmt.Sprintf("resolving the environment failed: %v", r)}
		}
	}()
	spec, _ := input["spec"].(map[string]any)
	entries, ok := spec["environmentConfigs"].([]any)
	if !ok || entries == nil {
		return res // the function exits: no EnvironmentConfigs specified
	}
	root := fieldpath.Path{fieldpath.Field("spec"), fieldpath.Field("environmentConfigs")}
	cs := configs(opts.Configs)
	policy, _ := spec["policy"].(map[string]any)
	optional := policy["resolution"] == "Optional"
	fail := func(p fieldpath.Path, certain bool, format string, args ...any) Result {
		res.Failure = &Failure{Path: p, Certain: certain, Message: fmt.Sprintf(format, args...)}
		return res
	}

	// The requirements, as buildRequirements makes them.
	type request struct {
		i         int
		entry     map[string]any
		name      string            // a Reference
		labels    map[string]string // a Selector
		composite bool              // a label value read from the composite
	}
	var reqs []request
	for i, e := range entries {
		em, _ := e.(map[string]any)
		ep := root.Child(fieldpath.Index(i))
		switch t, _ := em["type"].(string); t {
		case "Reference", "":
			ref, _ := em["ref"].(map[string]any)
			name, _ := ref["name"].(string)
			if ref == nil {
				return fail(ep, true, "environmentConfigs[%d] is a Reference without ref: the function fails on it", i)
			}
			reqs = append(reqs, request{i: i, entry: em, name: name})
		case "Selector":
			sel, ok := em["selector"].(map[string]any)
			if !ok {
				return fail(ep, true, "environmentConfigs[%d] is a Selector without selector: the function fails on it", i)
			}
			r := request{i: i, entry: em, labels: map[string]string{}}
			mls, _ := sel["matchLabels"].([]any)
			for j, ml := range mls {
				mm, _ := ml.(map[string]any)
				mp := ep.Child(fieldpath.Field("selector"), fieldpath.Field("matchLabels"), fieldpath.Index(j))
				key, _ := mm["key"].(string)
				switch mt, _ := mm["type"].(string); mt {
				case "Value":
					v, ok := mm["value"].(string)
					if !ok {
						return fail(mp, true, "matchLabels[%d] has type Value and no value: the function fails on it", j)
					}
					r.labels[key] = v
				case "FromCompositeFieldPath", "":
					from, _ := mm["valueFromFieldPath"].(string)
					v, found, err := get(xr, from)
					s, isString := v.(string)
					if err == nil && found && isString {
						r.labels[key] = s
						r.composite = true
						continue
					}
					if mm["fromFieldPathPolicy"] == "Optional" {
						continue // the label is left out
					}
					if !found && err == nil && opts.Synthesized {
						res.Unknown = fmt.Sprintf("the label %s comes from %s, which the composite synthesised from the XRD does not set", key, from)
						return res
					}
					why := fmt.Sprintf("%s: no such field", from)
					switch {
					case err != nil:
						why = err.Error()
					case found:
						why = fmt.Sprintf("%s: not a string", from)
					}
					return fail(mp.Child(fieldpath.Field("valueFromFieldPath")), true,
						"cannot build requirements: cannot get value from field path %q: %s (the label %s is required: set fromFieldPathPolicy: Optional to leave it out)", from, why, key)
				}
			}
			if len(r.labels) == 0 {
				continue // no label left: nothing is requested
			}
			reqs = append(reqs, r)
		}
	}
	if len(reqs) == 0 {
		return res // nothing required: the function returns before merging
	}
	if len(cs) == 0 && !opts.Complete {
		res.Unknown = "no EnvironmentConfig is known (the workspace holds none)"
		return res
	}
	known := opts.known(len(cs))

	// getSelectedEnvConfigs, grouped by toFieldPath in order of first use.
	groups := map[string][]config{}
	var order []string
	add := func(to string, c ...config) {
		if _, ok := groups[to]; !ok {
			order = append(order, to)
		}
		groups[to] = append(groups[to], c...)
	}
	for _, r := range reqs {
		ep := root.Child(fieldpath.Index(r.i))
		to, _ := r.entry["toFieldPath"].(string)
		if r.labels == nil {
			c, ok := byName(cs, r.name)
			switch {
			case ok:
				add(to, c)
			case optional:
				if !opts.Complete {
					res.Unknown = fmt.Sprintf("no EnvironmentConfig known is named %q (the cluster may hold one)", r.name)
				}
			default:
				return fail(ep.Child(fieldpath.Field("ref"), fieldpath.Field("name")), opts.Complete,
					"cannot get selected environment configs: Required environment config %q not found (none of the %s is named so)", r.name, known)
			}
			continue
		}
		sel, _ := r.entry["selector"].(map[string]any)
		sp := ep.Child(fieldpath.Field("selector"))
		found := matching(cs, r.labels)
		none := fmt.Sprintf("none of the %s has the labels %s", known, labelString(r.labels))
		if len(found) > 0 {
			none = fmt.Sprintf("%s with the labels %s among the %s", quoted(names(found)), labelString(r.labels), known)
		}
		unknownIfPlaceholder := func() bool {
			if r.composite && opts.Synthesized {
				res.Unknown = fmt.Sprintf("the labels %s come from a composite synthesised from the XRD", labelString(r.labels))
				return true
			}
			return false
		}
		switch mode := orDefault(str(sel["mode"]), "Single"); mode {
		case "Single":
			if len(found) != 1 {
				if unknownIfPlaceholder() {
					return res
				}
				return fail(sp, len(found) > 1 || opts.Complete,
					"cannot get selected environment configs: expected exactly one required resource, got %d (%s)", len(found), none)
			}
			add(to, found[0])
		case "Multiple":
			if min, ok := uint64At(sel, "minMatch"); ok && uint64(len(found)) < min {
				if unknownIfPlaceholder() {
					return res
				}
				return fail(sp.Child(fieldpath.Field("minMatch")), opts.Complete,
					"cannot get selected environment configs: expected at least %d required resources, got %d (%s)", min, len(found), none)
			}
			by := orDefault(str(sel["sortByFieldPath"]), "metadata.name")
			sorted, err := sortFunction(found, by)
			if err != nil {
				return fail(sp.Child(fieldpath.Field("sortByFieldPath")), true, "cannot get selected environment configs: %v", err)
			}
			if max, ok := uint64At(sel, "maxMatch"); ok && uint64(len(sorted)) > max {
				sorted = sorted[:max]
			}
			if len(sorted) == 0 && !opts.Complete {
				res.Unknown = none + " (the cluster may hold some)"
			}
			add(to, sorted...)
		default:
			return fail(sp.Child(fieldpath.Field("mode")), true, "cannot get selected environment configs: unknown selector mode %q", mode)
		}
	}

	// mergeEnvConfigsData, then the prior environment, then defaultData.
	merged := map[string]any{}
	// The function merges the groups in a Go map's order (fn.go:364), a
	// different one each run; the groups' order here is one of them.
	perGroup := make([]map[string]any, 0, len(order))
	for _, to := range order {
		group := map[string]any{}
		for _, c := range groups[to] {
			data := map[string]any{}
			if to != "" {
				p, err := path(to)
				if err == nil {
					err = paved.Set(data, p, c.obj["data"])
				}
				if err != nil {
					return fail(root, true, "cannot merge environment data: cannot get data from environment config %s into path %q", c.name, to)
				}
			} else {
				d, ok := c.obj["data"].(map[string]any)
				if !ok {
					return fail(root, true, "cannot merge environment data: cannot get data from environment config %q: data: no such field", c.name)
				}
				data = d
			}
			merged = mergeMaps(merged, data)
			group = mergeMaps(group, data)
			res.Selected = append(res.Selected, c.name)
		}
		perGroup = append(perGroup, group)
	}
	if len(perGroup) > 1 {
		reversed := map[string]any{}
		for i := len(perGroup) - 1; i >= 0; i-- {
			reversed = mergeMaps(reversed, perGroup[i])
		}
		if !reflect.DeepEqual(reversed, merged) {
			res.Unknown = fmt.Sprintf("EnvironmentConfigs merged under different toFieldPaths (%s) overlap, and the function merges those groups in a random order (a Go map's, fn.go:364): the environment differs from run to run", quoted(order))
		}
	}
	if prior != nil {
		merged = mergeMaps(res.Environment, merged)
	}
	if dd, ok := spec["defaultData"].(map[string]any); ok {
		merged = mergeMaps(dd, merged)
	}
	res.Environment, _ = paved.DeepCopy(withKind(merged)).(map[string]any)
	return res
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// sortFunction sorts as the function's sortRequiredByFieldPath: a value
// that is not there sorts as the zero value of the others' type; values of
// different types, or of a type other than string and number, fail.
func sortFunction(cs []config, by string) ([]config, error) {
	if by == "" {
		return nil, fmt.Errorf("cannot sort by empty field path")
	}
	p := make([]sortable, len(cs))
	kind := ""
	for i, c := range cs {
		v, _, err := get(c.obj, by)
		if err != nil {
			return nil, err
		}
		p[i] = sortable{c: c, val: v}
		if v == nil {
			continue
		}
		t := typeName(v)
		switch {
		case kind == "":
			kind = t
		case kind != t:
			return nil, fmt.Errorf("cannot sort values of different types %q and %q (%s)", kind, t, by)
		}
	}
	if kind == "" {
		return cs, nil
	}
	if kind != "string" && kind != "number" {
		return nil, fmt.Errorf("unsupported type %q for sorting (%s)", kind, by)
	}
	zero := any("")
	if kind == "number" {
		zero = float64(0)
	}
	for i := range p {
		if p[i].val == nil {
			p[i].val = zero
		}
	}
	sort.SliceStable(p, func(i, j int) bool { return less(p[i].val, p[j].val) })
	out := make([]config, len(p))
	for i := range p {
		out[i] = p[i].c
	}
	return out, nil
}
