// Package environmentconfigs is crd-lsp's function-environment-configs: it computes the Composition environment a pipeline's
// steps read (the context key apiextensions.crossplane.io/environment),
// from EnvironmentConfigs, exactly as the code that builds it in a
// cluster does:
//
//   - function-environment-configs (ResolveFunction), read from
//     crossplane-contrib/function-environment-configs' fn.go: each entry
//     of spec.environmentConfigs becomes a required-resource selector
//     (Reference by name; Selector by matchLabels whose values are
//     literals or strings read from the composite, Required unless
//     fromFieldPathPolicy: Optional, the entry dropped when no label is
//     left); Single wants exactly one match, Multiple at least minMatch,
//     sorted by sortByFieldPath (metadata.name by default) and cut to
//     maxMatch; a Reference that finds nothing fails unless
//     spec.policy.resolution is Optional; the configs' data (each under
//     its toFieldPath) is merged over the environment earlier steps left,
//     which is merged over spec.defaultData.
//   - a Composition's spec.environment (ResolveClassic), read from
//     Crossplane v1's environment selector and fetcher (the API had the
//     field until v1.18; v1.20's and v2's Composition schemas prune it): the same selection with Crossplane's own defaults and
//     wording (a label from any composite value, printed with %v; sorting
//     only strings and numbers; a Single selector that finds no label
//     still lists nothing and fails), merged over spec.environment.
//     defaultData. Its environment patches are internal/render's.
//
// What a cluster holds is not known: Options says which EnvironmentConfigs
// the caller knows and whether they are all there is. A selection that
// finds nothing among an incomplete set fails only as far as the set
// goes (Failure.Certain false), and with no set at all, or with label
// values from a composite synthesised from its XRD, the environment is
// Unknown rather than wrong.
//
// Pure functions of maps: no documents, stores, IO or network; inputs
// are never modified.
package environmentconfigs

import (
	"cmp"
	"fmt"
	"sort"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/paved"
)

// ContextKey is the context key of the Composition environment, as
// Crossplane and the functions name it.
const ContextKey = "apiextensions.crossplane.io/environment"

// The apiVersion and kind an environment without its own gets.
const (
	APIVersion = "internal.crossplane.io/v1alpha1"
	Kind       = "Environment"
)

// Group is the API group of EnvironmentConfig.
const Group = "apiextensions.crossplane.io"

// InputGroup is the API group of function-environment-configs' input.
const InputGroup = "environmentconfigs.fn.crossplane.io"

// IsConfig says whether obj is an EnvironmentConfig (any version of
// apiextensions.crossplane.io: the API server serves each as the other).
func IsConfig(obj map[string]any) bool {
	av, _ := obj["apiVersion"].(string)
	return obj["kind"] == "EnvironmentConfig" && strings.HasPrefix(av, Group+"/")
}

// IsFunctionInput says whether a step input is function-environment-
// configs' (environmentconfigs.fn.crossplane.io Input).
func IsFunctionInput(input map[string]any) bool {
	av, _ := input["apiVersion"].(string)
	return strings.HasPrefix(av, InputGroup+"/") && input["kind"] == "Input"
}

// Options are what a resolution knows besides its input.
type Options struct {
	// Configs are the EnvironmentConfigs the cluster would hold, best
	// first: of two with one name, the first is the one there.
	Configs []map[string]any
	// Complete says Configs are all the cluster holds (crd-lsp render's
	// --extra-resources, as crossplane render's): a selection that finds
	// nothing certainly fails.
	Complete bool
	// Synthesized says the composite was synthesised from its XRD: values
	// read from it are placeholders, not the user's.
	Synthesized bool
	// From says where Configs come from, for messages ("in the
	// workspace", "in --extra-resources"); "" says "known".
	From string
}

// known describes n configs for a message: "the 2 EnvironmentConfigs in
// the workspace".
func (o Options) known(n int) string {
	from := orDefault(o.From, "known")
	if n == 1 {
		return "1 EnvironmentConfig " + from
	}
	return fmt.Sprintf("%d EnvironmentConfigs %s", n, from)
}

// Result is the environment after a step (or Crossplane) built it.
type Result struct {
	// Environment is the environment as far as it is known: what the
	// step left (the earlier one when it failed). Never nil.
	Environment map[string]any
	// Selected names the EnvironmentConfigs merged, in merge order.
	Selected []string
	// Unknown says why what the environment holds cannot be known (""
	// when it can): a field missing from it may be the cluster's.
	Unknown string
	// Failure is why the step (or Crossplane) fails, nil when it does not.
	Failure *Failure
}

// Failure is a resolution that makes the pipeline (or the classic
// composition) fail.
type Failure struct {
	// Path is the entry (or its part) that fails, relative to the input
	// (function) or to spec.environment (classic).
	Path fieldpath.Path
	// Message says why, with the function's (or Crossplane's) words.
	Message string
	// Certain: the failure holds whatever else the cluster holds (the
	// set is complete, or more EnvironmentConfigs cannot help).
	Certain bool
}

// config is an EnvironmentConfig by its parts.
type config struct {
	obj  map[string]any
	name string
	// labels are its metadata.labels as decoded, not copied (a
	// selection among 100,000 EnvironmentConfigs allocated a map for
	// each); label reads them: a value that is not a string matches no
	// selector.
	labels map[string]any
}

// label is the value of the label k, if it is one.
func (c config) label(k string) (string, bool) {
	s, ok := c.labels[k].(string)
	return s, ok
}

func configs(objs []map[string]any) []config {
	var out []config
	seen := map[string]bool{}
	for _, o := range objs {
		if !IsConfig(o) {
			continue
		}
		md, _ := o["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		if seen[name] {
			continue // the cluster holds one of a name: the first (best) one
		}
		seen[name] = true
		ls, _ := md["labels"].(map[string]any)
		out = append(out, config{obj: o, name: name, labels: ls})
	}
	// The API server lists cluster-scoped objects by name.
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func byName(cs []config, name string) (config, bool) {
	for _, c := range cs {
		if c.name == name {
			return c, true
		}
	}
	return config{}, false
}

func matching(cs []config, labels map[string]string) []config {
	var out []config
	for _, c := range cs {
		ok := true
		for k, v := range labels {
			if got, has := c.label(k); !has || got != v {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, c)
		}
	}
	return out
}

// mergeMaps merges b over a into a new map, objects recursively, as both
// the function and Crossplane do.
func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bm, ok := v.(map[string]any); ok {
			if am, ok := out[k].(map[string]any); ok {
				out[k] = mergeMaps(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// withKind gives an environment without apiVersion and kind its own.
func withKind(env map[string]any) map[string]any {
	if env["apiVersion"] == nil && env["kind"] == nil {
		env["apiVersion"], env["kind"] = APIVersion, Kind
	}
	return env
}

// sortable is the value a config sorts by.
type sortable struct {
	c   config
	val any
}

// number turns a JSON number into float64, as a protobuf Struct holds
// every number (the function sorts what Crossplane sent it).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case float32:
		return float64(n), true
	}
	return 0, false
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "bool"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	if _, ok := number(v); ok {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func less(a, b any) bool {
	if as, ok := a.(string); ok {
		bs, _ := b.(string)
		return as < bs
	}
	an, _ := number(a)
	bn, _ := number(b)
	return cmp.Less(an, bn)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func names(cs []config) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%q", c.name)
	}
	return out
}

// quoted lists names for a message.
func quoted(ns []string) string {
	if len(ns) == 0 {
		return "none"
	}
	return strings.Join(ns, ", ")
}

// uint64At reads a non-negative integer field.
func uint64At(m map[string]any, k string) (uint64, bool) {
	n, ok := number(m[k])
	if !ok || n < 0 {
		return 0, false
	}
	return uint64(n), true
}

func labelString(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + labels[k]
	}
	return strings.Join(parts, ",")
}

func path(s string) (fieldpath.Path, error) { return fieldpath.Parse(s) }

// get reads a field path of obj; found is false when it is not there.
func get(obj map[string]any, p string) (v any, found bool, err error) {
	fp, err := path(p)
	if err != nil {
		return nil, false, err
	}
	v, err = paved.Get(obj, fp)
	if paved.IsNotFound(err) {
		return nil, false, nil
	}
	return v, err == nil, err
}

// ServedVersion is the version the API server serves EnvironmentConfigs
// at when functions require them (function-environment-configs asks for
// it).
const ServedVersion = Group + "/v1beta1"

// InCluster are the EnvironmentConfigs of objs a cluster of Crossplane
// major can hold: Crossplane v2 serves EnvironmentConfig only at v1beta1
// (its CRD, v2.3.4), so one written at v1alpha1 cannot be applied there
// and no function finds it; v1 serves both. objs is not modified.
func InCluster(objs []map[string]any, major int) []map[string]any {
	if major != 2 {
		return objs
	}
	var out []map[string]any
	for _, o := range objs {
		if av, _ := o["apiVersion"].(string); av == ServedVersion {
			out = append(out, o)
		}
	}
	return out
}

// AsServed is what a cluster holding objs returns for EnvironmentConfigs:
// one of each name (the first), each at ServedVersion (copies; objs are
// not modified).
func AsServed(objs []map[string]any) []map[string]any {
	cs := configs(objs)
	out := make([]map[string]any, len(cs))
	for i, c := range cs {
		m := make(map[string]any, len(c.obj))
		for k, v := range c.obj {
			m[k] = v
		}
		m["apiVersion"] = ServedVersion
		out[i] = m
	}
	return out
}
