// This file builds the environment Crossplane v1 builds from a Composition's
// spec.environment (ResolveClassic).

package environmentconfigs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/paved"
	"github.com/crd-lsp/crd-lsp/internal/yamlflow"
)

// ResolveClassic builds the environment Crossplane v1 builds for a
// Composition from its spec.environment (envSpec) before composing:
// defaultData, then the data of each EnvironmentConfig its sources
// select, in order. Its patches are not applied here (internal/render
// applies them). It never panics.
func ResolveClassic(envSpec, xr map[string]any, opts Options) (res Result) {
	res.Environment = map[string]any{}
	defer func() {
		if r := recover(); r != nil {
			res.Failure = &Failure{Message: fmt.Sprintf("resolving the environment failed: %v", r)}
		}
	}()
	root := fieldpath.Path{fieldpath.Field("environmentConfigs")}
	cs := configs(opts.Configs)
	policy, _ := envSpec["policy"].(map[string]any)
	required := policy["resolution"] != "Optional"
	fail := func(p fieldpath.Path, certain bool, format string, args ...any) Result {
		res.Failure = &Failure{Path: p, Certain: certain, Message: fmt.Sprintf(format, args...)}
		return res
	}
	known := opts.known(len(cs))
	entries, _ := envSpec["environmentConfigs"].([]any)
	if len(entries) > 0 && len(cs) == 0 && !opts.Complete {
		res.Unknown = "no EnvironmentConfig is known (the workspace holds none)"
		res.Environment = classicData(envSpec, nil)
		return res
	}
	// The selector's references, then the fetcher's Get of each.
	var refs []string
	var refPaths []fieldpath.Path
	for i, e := range entries {
		em, _ := e.(map[string]any)
		ep := root.Child(fieldpath.Index(i))
		switch t := orDefault(str(em["type"]), "Reference"); t {
		case "Reference":
			ref, _ := em["ref"].(map[string]any)
			refs = append(refs, str(ref["name"]))
			refPaths = append(refPaths, ep.Child(fieldpath.Field("ref"), fieldpath.Field("name")))
		case "Selector":
			sel, _ := em["selector"].(map[string]any)
			sp := ep.Child(fieldpath.Field("selector"))
			labels := map[string]string{}
			composite := false
			var odd []string // labels read from objects and arrays
			mls, _ := sel["matchLabels"].([]any)
			for j, ml := range mls {
				mm, _ := ml.(map[string]any)
				mp := sp.Child(fieldpath.Field("matchLabels"), fieldpath.Index(j))
				key := str(mm["key"])
				switch mt := orDefault(str(mm["type"]), "FromCompositeFieldPath"); mt {
				case "Value":
					v, ok := mm["value"].(string)
					if !ok {
						return fail(mp, true, "failed to build reference at index %d: failed to resolve value for label at index %d: value is required for type Value", i, j)
					}
					labels[key] = v
				case "FromCompositeFieldPath":
					from := str(mm["valueFromFieldPath"])
					v, found, err := get(xr, from)
					if err == nil && found {
						labels[key] = fmt.Sprintf("%v", v)
						composite = true
						switch v.(type) {
						case map[string]any, []any:
							// Crossplane's %v makes Go's map[k:v] of it: say
							// what the composite holds, as YAML.
							kind := "an object"
							if _, ok := v.([]any); ok {
								kind = "an array"
							}
							odd = append(odd, fmt.Sprintf("%s is %s, %s, which Crossplane turns into Go's form: no label value can hold it", from, kind, yamlflow.Value(v)))
						}
						continue
					}
					if err == nil && mm["fromFieldPathPolicy"] == "Optional" {
						continue
					}
					if err == nil && opts.Synthesized {
						res.Unknown = fmt.Sprintf("the label %s comes from %s, which the composite synthesised from the XRD does not set", key, from)
						res.Environment = classicData(envSpec, nil)
						return res
					}
					why := fmt.Sprintf("%s: no such field", from)
					if err != nil {
						why = err.Error()
					}
					return fail(mp.Child(fieldpath.Field("valueFromFieldPath")), true,
						"failed to build reference at index %d: failed to resolve value for label at index %d: %s", i, j, why)
				default:
					return fail(mp.Child(fieldpath.Field("type")), true, "failed to build reference at index %d: failed to resolve value for label at index %d: invalid label matcher type '%s'", i, j, mt)
				}
			}
			var found []config
			if len(labels) > 0 {
				found = matching(cs, labels)
			}
			none := fmt.Sprintf("none of the %s has the labels %s", known, labelString(labels))
			if len(found) > 0 {
				none = fmt.Sprintf("%s with the labels %s among the %s", quoted(names(found)), labelString(labels), known)
			}
			if len(odd) > 0 {
				none += " (" + strings.Join(odd, "; ") + ")"
			}
			placeholder := func() bool {
				if composite && opts.Synthesized {
					res.Unknown = fmt.Sprintf("the labels %s come from a composite synthesised from the XRD", labelString(labels))
					res.Environment = classicData(envSpec, nil)
					return true
				}
				return false
			}
			var picked []config
			switch mode := orDefault(str(sel["mode"]), "Single"); mode {
			case "Single":
				if len(found) != 1 {
					if placeholder() {
						return res
					}
					return fail(sp, len(found) > 1 || opts.Complete, "failed to build reference at index %d: only 1 EnvironmentConfig can be selected in Single mode, found: %d (%s)", i, len(found), none)
				}
				picked = found
			case "Multiple":
				if min, ok := uint64At(sel, "minMatch"); ok && uint64(len(found)) < min {
					if placeholder() {
						return res
					}
					return fail(sp.Child(fieldpath.Field("minMatch")), opts.Complete, "failed to build reference at index %d: expected at least %d EnvironmentConfig(s) with matching labels, found: %d (%s)", i, min, len(found), none)
				}
				sorted, err := sortClassic(found, orDefault(str(sel["sortByFieldPath"]), "metadata.name"))
				if err != nil {
					return fail(sp.Child(fieldpath.Field("sortByFieldPath")), true, "failed to build reference at index %d: %v", i, err)
				}
				if max, ok := uint64At(sel, "maxMatch"); ok && uint64(len(sorted)) > max {
					sorted = sorted[:max]
				}
				if len(sorted) == 0 && !opts.Complete {
					res.Unknown = none + " (the cluster may hold some)"
				}
				picked = sorted
			default:
				return fail(sp.Child(fieldpath.Field("mode")), true, "failed to build reference at index %d: unknown mode '%s'", i, mode)
			}
			for _, c := range picked {
				refs = append(refs, c.name)
				refPaths = append(refPaths, sp)
			}
		default:
			return fail(ep.Child(fieldpath.Field("type")), true, "invalid source type '%s'", t)
		}
	}
	var picked []config
	for i, name := range refs {
		c, ok := byName(cs, name)
		switch {
		case ok:
			picked = append(picked, c)
		case required:
			return fail(refPaths[i], opts.Complete, "cannot fetch environment configs: failed to get config set from reference: EnvironmentConfig %q not found (none of the %s is named so)", name, known)
		case !opts.Complete:
			res.Unknown = fmt.Sprintf("no EnvironmentConfig known is named %q (the cluster may hold one)", name)
		}
	}
	for _, c := range picked {
		res.Selected = append(res.Selected, c.name)
	}
	res.Environment = classicData(envSpec, picked)
	return res
}

// classicData merges defaultData and the configs' data, as the fetcher,
// with the environment's kind.
func classicData(envSpec map[string]any, picked []config) map[string]any {
	merged := map[string]any{}
	if dd, ok := envSpec["defaultData"].(map[string]any); ok {
		merged = mergeMaps(merged, dd)
	}
	for _, c := range picked {
		if d, ok := c.obj["data"].(map[string]any); ok {
			merged = mergeMaps(merged, d)
		}
	}
	env, _ := paved.DeepCopy(merged).(map[string]any)
	env["apiVersion"], env["kind"] = APIVersion, Kind
	return env
}

// sortClassic sorts as Crossplane's sortConfigs: every value must be
// there and a string or a number, all of one type.
func sortClassic(cs []config, by string) ([]config, error) {
	p := make([]sortable, len(cs))
	kind := ""
	for i, c := range cs {
		v, found, err := get(c.obj, by)
		if err == nil && !found {
			err = fmt.Errorf("%s: no such field", by)
		}
		if err != nil {
			return nil, err
		}
		t := typeName(v)
		if t != "string" && t != "number" {
			return nil, fmt.Errorf("unexpected type %v (%s of EnvironmentConfig %q)", t, by, c.name)
		}
		if i == 0 {
			kind = t
		} else if t != kind {
			return nil, fmt.Errorf("not matching types, got %v (%s), expected %s (%s of EnvironmentConfig %q)", v, t, kind, by, c.name)
		}
		p[i] = sortable{c: c, val: v}
	}
	sort.SliceStable(p, func(i, j int) bool { return less(p[i].val, p[j].val) })
	out := make([]config, len(p))
	for i := range p {
		out[i] = p[i].c
	}
	return out, nil
}
