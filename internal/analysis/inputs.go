package analysis

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/suggest"
)

// A pipeline step's input is not an object of the API server: Crossplane
// stores it as an embedded object and never validates it against the
// function's input CRD. The function decodes it itself. Functions built
// on function-sdk-go decode it with request.GetInput, which unmarshals
// JSON rejecting unknown members, so an unknown field or a value of the
// wrong JSON type fails the step; enums, patterns, formats, ranges,
// required fields, defaults and CEL rules of the input CRD hold only as
// far as the function's own code checks them. This file says so, per
// function, as each function's source does it.

// StepFunction is what a pipeline step's functionRef.name names.
type StepFunction struct {
	// Package is the function's package repository without tag or digest
	// (xpkg.upbound.io/crossplane-contrib/function-patch-and-transform).
	Package string
	// From says where the name was found: a Function object's file, or
	// the crossplane.yaml whose dependency Crossplane names so.
	From string
}

// inputKind is a kind a function reads as its input.
type inputKind struct{ Group, Kind string }

// inputRule is what a function does with a value of one field of its
// input that the input CRD's schema refuses (or, with Allowed, a value
// the function refuses although the CRD does not).
type inputRule struct {
	// Path is the field below the input, "[*]" for any index; a leading
	// "*." matches any prefix.
	Path string
	// Value, when set, limits the rule to that value ("" is written as
	// Empty).
	Value string
	Empty bool
	// Allowed are the only values the function accepts (it fails the
	// step otherwise), when its CRD does not say so.
	Allowed []string
	// Rejects: the function fails the step (an error); otherwise Does
	// says what it does instead (defaulting: a warning, or Info when Value
	// matches exactly what the function documents as the default).
	Rejects bool
	Info    bool
	Does    string
}

// knownFunction is a common composition function as its source reads its
// input.
type knownFunction struct {
	// Name is the last segment of the function's package repository.
	Name string
	// Inputs are the kinds the function's input CRD defines (none: the
	// function takes no input).
	Inputs []inputKind
	// IgnoresType: the function decodes any input into its type without
	// looking at apiVersion or kind (typed decoding ignores TypeMeta).
	IgnoresType bool
	// Loose: the function reads its input without rejecting unknown
	// fields (a map, not typed decoding).
	Loose bool
	// Versioned: older versions of the function take no input and ignore
	// one (an input of another kind fails only newer versions).
	Versioned bool
	Rules     []inputRule
}

// ptName is function-patch-and-transform's repository name.
const ptName = "function-patch-and-transform"

// knownFunctions is what crd-lsp knows of common functions' inputs, read
// from each function's source: its input types (input/v1beta1 and the
// like) and what RunFunction does with the decoded input.
var knownFunctions = []knownFunction{
	{
		// fn.go: request.GetInput into v1beta1.Resources, then
		// ValidateResources (validate.go) fails the step on an unknown
		// patch, transform, readiness-check or connection-detail type.
		Name: ptName, Inputs: []inputKind{{"pt.fn.crossplane.io", "Resources"}}, IgnoresType: true,
		Rules: []inputRule{
			{Path: "*.patches[*].type", Rejects: true, Does: "its input validation fails the step on an unknown patch type"},
			{Path: "*.transforms[*].type", Rejects: true, Does: "its input validation fails the step on an unknown transform type"},
			{Path: "*.transforms[*].math.type", Rejects: true, Does: "its input validation fails the step on an unknown math transform type"},
			{Path: "*.transforms[*].string.type", Rejects: true, Does: "its input validation fails the step on an unknown string transform type"},
			{Path: "*.transforms[*].convert.toType", Rejects: true, Does: "its input validation fails the step on an unknown type"},
			{Path: "*.transforms[*].convert.format", Rejects: true, Does: "its input validation fails the step on an unknown format"},
			{Path: "*.transforms[*].match.patterns[*].type", Rejects: true, Does: "its input validation fails the step on an unknown pattern type"},
			{Path: "*.readinessChecks[*].type", Rejects: true, Does: "its input validation fails the step on an unknown readiness check type"},
			{Path: "*.connectionDetails[*].type", Rejects: true, Does: "its input validation fails the step on an unknown connection detail type"},
			{Path: "*.policy.fromFieldPath", Does: "function-patch-and-transform treats any value but Required as Optional"},
		},
	},
	{
		// fn.go: NewTemplateSourceGetter switches on in.Source: Inline,
		// FileSystem, Environment; "" fails with "source is required",
		// anything else with "invalid source".
		Name: "function-go-templating", Inputs: []inputKind{{"gotemplating.fn.crossplane.io", "GoTemplate"}}, IgnoresType: true,
		Rules: []inputRule{
			{Path: "source", Allowed: []string{"Inline", "FileSystem", "Environment"}, Rejects: true, Does: `the function fails the step with "invalid source"`},
			{Path: "source", Empty: true, Rejects: true, Does: `the function fails the step with "source is required"`},
		},
	},
	{
		// fn.go sets an empty target to Default; KCLInput.Validate turns
		// any target it does not know into Default as well.
		Name: "function-kcl", Inputs: []inputKind{{"krm.kcl.dev", "KCLInput"}}, IgnoresType: true,
		Rules: []inputRule{
			{Path: "spec.target", Empty: true, Info: true, Does: `function-kcl reads an empty target as Default`},
			{Path: "spec.target", Does: `function-kcl runs any target it does not know as Default`},
		},
	},
	{
		// function-python reads input["script"] from the input as a map.
		Name: "function-python", Inputs: []inputKind{{"python.fn.crossplane.io", "Script"}}, Loose: true,
	},
	{
		// internal/fn: RunFunction decodes CueInput and never reads
		// source (the CRD's enum has only Inline); an empty script fails
		// with "input script was not specified".
		Name: "function-cue", Inputs: []inputKind{{"cue.fn.crossplane.io", "CUEInput"}}, IgnoresType: true,
		Rules: []inputRule{
			{Path: "source", Empty: true, Info: true, Does: "function-cue never reads source: it runs the inline script"},
			{Path: "source", Does: "function-cue never reads source: it runs the inline script whatever source says"},
		},
	},
	{
		// input/v1beta1 (autoready.fn.crossplane.io Input: a TTL and CEL
		// health checks) is new; older versions' RunFunction reads no
		// input.
		// Its released RunFunction reads no input at all, so nothing in
		// the input (the TTL's format included) is checked by it.
		Name: "function-auto-ready", Inputs: []inputKind{{"autoready.fn.crossplane.io", "Input"}}, IgnoresType: true, Versioned: true,
	},
	{
		// input/v1beta1: EnvironmentSource.GetType returns Reference for
		// an empty type.
		Name: "function-environment-configs", Inputs: []inputKind{{"environmentconfigs.fn.crossplane.io", "Input"}}, IgnoresType: true,
		Rules: []inputRule{
			{Path: "spec.environmentConfigs[*].type", Empty: true, Info: true, Does: "function-environment-configs reads an empty type as Reference"},
		},
	},
	{
		// fn.go buildRequirements switches on the source's type:
		// Reference or "" asks for one resource by name, Selector by
		// labels, and any other type asks for nothing, so
		// verifyAndSortExtras then fails the step ("cannot find expected
		// extra resource"). A label matcher's GetType reads "" as
		// FromCompositeFieldPath and the switch skips a type it does not
		// know; only "Optional" policies are optional.
		Name: "function-extra-resources", Inputs: []inputKind{{"extra-resources.fn.crossplane.io", "Input"}}, IgnoresType: true,
		Rules: []inputRule{
			{Path: "spec.extraResources[*].type", Empty: true, Info: true, Does: "function-extra-resources reads an empty type as Reference"},
			{Path: "spec.extraResources[*].type", Rejects: true, Does: `function-extra-resources requests nothing for a type it does not know, and the step fails with "cannot find expected extra resource"`},
			{Path: "spec.extraResources[*].selector.matchLabels[*].type", Empty: true, Info: true, Does: "function-extra-resources reads an empty type as FromCompositeFieldPath"},
			{Path: "spec.extraResources[*].selector.matchLabels[*].type", Does: "function-extra-resources skips a label matcher whose type it does not know, so the selector matches more"},
			{Path: "spec.extraResources[*].selector.matchLabels[*].fromFieldPathPolicy", Does: "function-extra-resources treats any value but Optional as Required"},
			{Path: "spec.policy.resolution", Does: "function-extra-resources treats any value but Optional as Required"},
		},
	},
	// function-sequencer (rules[].sequence: resource names or regular
	// expressions) and function-cel-filter (filters[].name and
	// expression) have no enum, pattern or format in their input CRDs:
	// decoding is all there is to say.
	{Name: "function-sequencer", Inputs: []inputKind{{"sequencer.fn.crossplane.io", "Input"}}, IgnoresType: true},
	{
		// fn.go: matchResources reads a matcher type it does not know as
		// AllResourcesMatchAllConditions, transformTarget any target but
		// CompositeAndClaim as Composite, transformCondition any status
		// but True or False as Unknown; transformEvent refuses an event
		// type but Normal or Warning (the step reports
		// StatusTransformationSuccess False and creates no event).
		Name: "function-status-transformer", Inputs: []inputKind{{"function-status-transformer.fn.crossplane.io", "StatusTransformation"}}, IgnoresType: true,
		Rules: []inputRule{
			{Path: "*.matchers[*].type", Does: "function-status-transformer reads a matcher type it does not know as AllResourcesMatchAllConditions"},
			{Path: "*.target", Does: "function-status-transformer sets the condition or event on the composite only for any target but CompositeAndClaim"},
			{Path: "*.condition.status", Does: "function-status-transformer sets any status but True or False as Unknown"},
			{Path: "*.event.type", Rejects: true, Does: `function-status-transformer creates no event for a type but Normal or Warning and reports "invalid type"`},
		},
	},
	{Name: "function-cel-filter", Inputs: []inputKind{{"cel.fn.crossplane.io", "Filters"}}, IgnoresType: true},
}

func knownByName(name string) (*knownFunction, bool) {
	for i := range knownFunctions {
		if knownFunctions[i].Name == name {
			return &knownFunctions[i], true
		}
	}
	return nil, false
}

// knownByInput is the function whose input CRD defines g's group and kind.
func knownByInput(g gvk.GVK) (*knownFunction, bool) {
	for i := range knownFunctions {
		for _, k := range knownFunctions[i].Inputs {
			if k.Group == g.Group && k.Kind == g.Kind {
				return &knownFunctions[i], true
			}
		}
	}
	return nil, false
}

// stepLink is what crd-lsp knows of the function a step runs.
type stepLink struct {
	fn *knownFunction
	// how: "package" (a Function object or a crossplane.yaml dependency
	// names its package), "name" (functionRef.name spells a known
	// function's name), "input" (only the input's group says it).
	how  string
	from StepFunction
}

// linkStep finds the function a step runs: through env.Workspace.FunctionOf (the
// workspace's Function objects and crossplane.yaml dependencies), else
// by functionRef.name ending in a known function's repository name (the
// name Crossplane gives a dependency, crossplane-contrib-function-kcl),
// else by the input's kind.
func linkStep(step map[string]any, env Env) (stepLink, bool) {
	name := stepFunctionName(step)
	if env.Workspace.FunctionOf != nil && name != "" {
		if sf, ok := env.Workspace.FunctionOf(name); ok {
			repo := sf.Package[strings.LastIndex(sf.Package, "/")+1:]
			if fn, ok := knownByName(repo); ok {
				return stepLink{fn: fn, how: "package", from: sf}, true
			}
			return stepLink{how: "package", from: sf}, false
		}
	}
	for i := range knownFunctions {
		n := knownFunctions[i].Name
		if name == n || strings.HasSuffix(name, "-"+n) {
			return stepLink{fn: &knownFunctions[i], how: "name"}, true
		}
	}
	in, _ := step["input"].(map[string]any)
	if g, ok := baseGVK(in); ok {
		if fn, ok := knownByInput(g); ok {
			return stepLink{fn: fn, how: "input"}, true
		}
	}
	return stepLink{}, false
}

func stepFunctionName(step map[string]any) string {
	ref, _ := step["functionRef"].(map[string]any)
	n, _ := ref["name"].(string)
	return n
}

// AsFunctionsRead returns the Composition as its functions read it: a
// step input of function-patch-and-transform (known by its Function
// object, crossplane.yaml dependency or name) written with another
// group, such as the old pt.crossplane.io/v1beta1, is read by the
// function all the same (typed decoding ignores apiVersion), so every
// P&T check and the rendering see it as pt.fn.crossplane.io/v1beta1
// Resources. m is returned as it is when nothing changes; it is never
// modified.
func AsFunctionsRead(m map[string]any, env Env) map[string]any {
	spec, _ := m["spec"].(map[string]any)
	steps, _ := spec["pipeline"].([]any)
	var out []any
	for i, st := range steps {
		sm, _ := st.(map[string]any)
		in, _ := sm["input"].(map[string]any)
		g, ok := baseGVK(in)
		if !ok || g.Kind != "Resources" || g.Group == "pt.fn.crossplane.io" {
			continue
		}
		link, ok := linkStep(sm, env)
		if !ok || link.fn.Name != ptName || link.how == "input" {
			continue
		}
		if out == nil {
			out = append([]any(nil), steps...)
		}
		nin := make(map[string]any, len(in))
		for k, v := range in {
			nin[k] = v
		}
		nin["apiVersion"] = "pt.fn.crossplane.io/v1beta1"
		nst := make(map[string]any, len(sm))
		for k, v := range sm {
			nst[k] = v
		}
		nst["input"] = nin
		out[i] = nst
	}
	if out == nil {
		return m
	}
	nspec := make(map[string]any, len(spec))
	for k, v := range spec {
		nspec[k] = v
	}
	nspec["pipeline"] = out
	nm := make(map[string]any, len(m))
	for k, v := range m {
		nm[k] = v
	}
	nm["spec"] = nspec
	return nm
}

// stepLinks says, per step, what function it runs and whether its input
// is one that function reads: an input kind the function does not define
// (a function template's placeholder left in place) fails or misleads
// the step; a P&T input of another group is read as P&T's (said once, on
// its apiVersion, so the user knows which group was assumed).
func stepLinks(d *document.Doc, orig map[string]any, env Env) []Diagnostic {
	spec, _ := orig["spec"].(map[string]any)
	steps, _ := spec["pipeline"].([]any)
	var out []Diagnostic
	for i, st := range steps {
		sm, _ := st.(map[string]any)
		link, ok := linkStep(sm, env)
		if !ok && link.how == "package" {
			out = append(out, packageInputKind(d, sm, i, link, env)...)
			continue
		}
		if !ok || link.how == "input" {
			continue
		}
		fn := link.fn
		sp := stepPath(i)
		via := linkWords(link, stepFunctionName(sm))
		in, _ := sm["input"].(map[string]any)
		if len(fn.Inputs) == 0 {
			continue
		}
		g, ok := baseGVK(in)
		if !ok {
			continue
		}
		accepted := false
		for _, k := range fn.Inputs {
			accepted = accepted || (k.Group == g.Group && k.Kind == g.Kind)
		}
		if accepted {
			continue
		}
		want := fn.Inputs[0]
		avp := sp.Child(fieldpath.Field("input"), fieldpath.Field("apiVersion"))
		if fn.IgnoresType && g.Kind == want.Kind {
			switch {
			case fn.Name == ptName:
				out = append(out, diagnosticAt(d, avp, false, severity.Info, "step-input",
					fmt.Sprintf("step %q runs %s%s, which reads its input whatever its apiVersion: checked and rendered as %s/v1beta1 %s (the group the function's input CRD defines)", stepName(sm), fn.Name, via, want.Group, want.Kind)))
			case link.how == "package":
				older := ""
				if fn.Versioned {
					older = "; older versions take no input and ignore it"
				}
				out = append(out, diagnosticAt(d, avp, false, severity.Warning, "step-input",
					fmt.Sprintf("step %q runs %s%s, whose input is %s %s, not %s %s: the function decodes any input as its own, so the fields must be its input's (a function template's placeholder input?)%s", stepName(sm), fn.Name, via, want.Group, want.Kind, g.Group, g.Kind, older)))
			}
			continue
		}
		if link.how != "package" {
			continue // a name alone is not enough to call the input wrong
		}
		what := "fails the step: it cannot decode this input"
		switch {
		case fn.Loose:
			what = "reads only the fields it knows from it"
		case fn.Versioned:
			what = "fails the step in versions that read an input (it cannot decode this one); older versions take no input and ignore it"
		}
		out = append(out, diagnosticAt(d, avp, false, severity.Warning, "step-input",
			fmt.Sprintf("step %q runs %s%s, whose input is %s %s, not %s %s: the function %s (a function template's placeholder input?)", stepName(sm), fn.Name, via, want.Group, want.Kind, g.Group, g.Kind, what)))
	}
	return out
}

// packageInputKind checks the input of a step whose function crd-lsp
// does not know against the kinds the function's package defines (its
// input CRDs, when the package is pulled): an input of another kind is
// one the function cannot decode as its own.
func packageInputKind(d *document.Doc, step map[string]any, i int, link stepLink, env Env) []Diagnostic {
	in, _ := step["input"].(map[string]any)
	g, ok := baseGVK(in)
	if !ok || env.Workspace.Schemas == nil {
		return nil
	}
	var kinds []string
	for _, k := range env.Workspace.Schemas.Kinds() {
		if k.Source.Kind != schemas.SourcePackage || k.Source.Name != link.from.Package {
			continue
		}
		if k.GVK.Group == g.Group && k.GVK.Kind == g.Kind {
			return nil
		}
		kinds = append(kinds, k.GVK.Group+" "+k.GVK.Kind)
	}
	if len(kinds) == 0 {
		return nil // not pulled, or a package that ships no input CRD
	}
	sort.Strings(kinds)
	kinds = slices.Compact(kinds)
	return []Diagnostic{diagnosticAt(d, stepPath(i).Child(fieldpath.Field("input"), fieldpath.Field("apiVersion")), false, severity.Warning, "step-input",
		fmt.Sprintf("step %q runs %s%s, whose package defines %s as input, not %s %s: the function cannot decode this input as its own (a function template's placeholder input?)",
			stepName(step), link.from.Package[strings.LastIndex(link.from.Package, "/")+1:], linkWords(link, stepFunctionName(step)), orList(kinds), g.Group, g.Kind))}
}

func stepName(step map[string]any) string {
	n, _ := step["step"].(string)
	return n
}

func linkWords(link stepLink, name string) string {
	switch link.how {
	case "package":
		if link.from.From != "" {
			return fmt.Sprintf(" (%s, from %s)", link.from.Package, link.from.From)
		}
		return fmt.Sprintf(" (%s)", link.from.Package)
	case "name":
		if name != link.fn.Name {
			return fmt.Sprintf(" (assumed from the function's name %q)", name)
		}
	}
	return ""
}

// Codes of schema findings that decoding itself raises: the function's
// typed decoding rejects unknown members and values of the wrong JSON
// type.
var decodeCodes = map[string]bool{"unknown-field": true, "type": true}

// ptAccepted are values function-patch-and-transform accepts at run time
// although its shipped input CRD leaves them out of its enums.
var ptAccepted = map[string]bool{`"Join"`: true, `"Replace"`: true, `"ToAdler32"`: true}

func acceptedByPT(msg string) bool {
	for v := range ptAccepted {
		if strings.HasPrefix(msg, "unsupported value "+v) {
			return true
		}
	}
	return false
}

const notEnforced = "Crossplane does not validate a step's input against the function's input CRD: the function reads it itself"

// functionInputs validates each pipeline step's input against its input
// CRD when one is known (built-in for common functions, from the
// workspace or a pulled package), as the function meets it: what its
// decoding rejects is an error, what only the CRD's schema says is a
// warning that names what the function does, where crd-lsp knows it.
func functionInputs(ctx context.Context, d *document.Doc, m map[string]any, env Env) []Diagnostic {
	spec, _ := m["spec"].(map[string]any)
	steps, _ := spec["pipeline"].([]any)
	var out []Diagnostic
	for i, st := range steps {
		sm, _ := st.(map[string]any)
		in, _ := sm["input"].(map[string]any)
		ip := stepPath(i).Child(fieldpath.Field("input"))
		link, _ := linkStep(sm, env)
		fn := link.fn
		out = append(out, allowedValues(d, ip, in, fn)...)
		g, ok := baseGVK(in)
		if !ok || env.Workspace.Schemas == nil {
			continue
		}
		sch, found := nearest(env.Workspace.Schemas.Candidates(g), d.File.URI)
		if !found {
			continue
		}
		isPT := g.Group == "pt.fn.crossplane.io"
		var kept []schemas.Error
		blocked := false
		// An input is not an object of the API server: give it the
		// metadata validation expects, so its own rules (CEL too) run.
		probe := make(map[string]any, len(in)+1)
		for k, v := range in {
			probe[k] = v
		}
		if _, ok := probe["metadata"]; !ok {
			probe["metadata"] = map[string]any{"name": "input"}
		}
		for _, e := range sch.Validate(ctx, probe) {
			switch {
			case len(e.Path) > 0 && e.Path[0].Field == "metadata" || (len(e.Path) == 0 && strings.Contains(e.Message, "metadata")):
				// inputs carry no object metadata
			case isPT && e.Code == "enum" && acceptedByPT(e.Message):
			case e.Severity == severity.Info && e.Code == "cel":
				blocked = true
			case e.Code == "type" && freeForm(sch, e.Path):
				// controller-gen writes runtime.RawExtension (and
				// apiextensions' JSON) as a free-form object, and functions
				// commonly take any JSON value there (function-kcl's
				// params); the input never meets the API server's check.
				e.Severity = severity.Hint
				e.Message += " (the input's CRD types this free-form field as an object, as controller-gen writes runtime.RawExtension; the function may take any value here)"
				kept = append(kept, e)
			case e.Code == "cel" && e.Unevaluable:
				// The input CRD's rule fails to evaluate here (it reads an
				// optional field without has()). Only the API server
				// evaluates such rules, and an input never reaches it: the
				// function reads the input as it is. A hint, not an error
				// on the Composition's author.
				e.Severity = severity.Hint
				e.Message += " (this rule of the input's CRD cannot be evaluated on this input; inputs never reach the API server, so nothing enforces it)"
				kept = append(kept, e)
			case decodeCodes[e.Code] && e.Severity == severity.Error:
				if fn != nil && fn.Loose {
					e.Severity = severity.Warning
					e.Message += fmt.Sprintf(" (%s reads its input as a map: it does not reject this, and may not use it)", fn.Name)
				} else if e.Code == "unknown-field" {
					e.Message += " (the function decodes its input rejecting unknown fields: the step fails)"
				} else {
					e.Message += " (the function cannot decode this value into its input type: the step fails)"
				}
				kept = append(kept, e)
			case e.Severity == severity.Error:
				kept = append(kept, schemaOnly(e, in, fn))
			default:
				kept = append(kept, e)
			}
		}
		if blocked && len(kept) > 0 {
			kept = append(kept, schemas.Error{OnKey: true, Severity: severity.Info, Code: "cel", Message: "some validation rules (x-kubernetes-validations) were not checked because the input was invalid"})
		}
		for _, e := range kept {
			out = append(out, fromSchemaError(d, ip, e))
		}
	}
	return out
}

// schemaOnly rewords a finding of the input CRD's schema that decoding
// does not enforce: an error when the function is known to reject the
// value, else a warning (or info) saying what the function does.
func schemaOnly(e schemas.Error, in map[string]any, fn *knownFunction) schemas.Error {
	full := e.Path
	if e.Code == "required" && e.Field != "" {
		full = e.Path.Child(fieldpath.Field(e.Field))
	}
	if fn != nil {
		v, present := lookup(in, full)
		for _, r := range fn.Rules {
			if len(r.Allowed) > 0 || !matchRule(r.Path, full) {
				continue
			}
			s, _ := v.(string)
			if r.Empty && (present && s != "" || !present && e.Code != "required") {
				continue
			}
			if r.Value != "" && s != r.Value {
				continue
			}
			switch {
			case r.Rejects:
				e.Severity = severity.Error
				e.Message += " (" + r.Does + ")"
			case r.Info:
				e.Severity = severity.Info
				e.Message += " (" + notEnforced + "; " + r.Does + ")"
			default:
				e.Severity = severity.Warning
				e.Message += " (" + notEnforced + "; " + r.Does + ")"
			}
			return e
		}
	}
	e.Severity = severity.Warning
	e.Message += " (" + notEnforced + ", and may reject this value or use a default)"
	return e
}

// allowedValues reports a value a known function refuses although its
// input CRD does not (go-templating's source).
func allowedValues(d *document.Doc, ip fieldpath.Path, in map[string]any, fn *knownFunction) []Diagnostic {
	if fn == nil || in == nil {
		return nil
	}
	var out []Diagnostic
	for _, r := range fn.Rules {
		if len(r.Allowed) == 0 || strings.Contains(r.Path, "*") {
			continue
		}
		p, err := fieldpath.Parse(r.Path)
		if err != nil {
			continue
		}
		v, present := lookup(in, p)
		s, isString := v.(string)
		if !present || !isString || s == "" {
			continue // missing: the CRD's required field says it; wrong type: decoding
		}
		ok := false
		for _, a := range r.Allowed {
			ok = ok || a == s
		}
		if ok {
			continue
		}
		msg := fmt.Sprintf("unsupported value %q: %s accepts %s; %s", s, fn.Name, orList(r.Allowed), r.Does)
		dg := diagnosticAt(d, ip.Child(p...), false, severity.Error, "step-input", msg)
		if best, ok := suggest.Closest(s, r.Allowed); ok {
			dg.Message = fmt.Sprintf("unsupported value %q: %s accepts %s (did you mean %q?); %s", s, fn.Name, orList(r.Allowed), best, r.Does)
			dg.Replace = best
		}
		out = append(out, dg)
	}
	return out
}

func orList(vs []string) string {
	if len(vs) < 2 {
		return strings.Join(vs, "")
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}

// lookup reads the value at p of obj.
func lookup(obj map[string]any, p fieldpath.Path) (any, bool) {
	var cur any = obj
	for _, s := range p {
		switch s.Kind {
		case fieldpath.KindField:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[s.Field]; !ok {
				return nil, false
			}
		case fieldpath.KindIndex:
			l, ok := cur.([]any)
			if !ok || s.Index < 0 || s.Index >= len(l) {
				return nil, false
			}
			cur = l[s.Index]
		default:
			return nil, false
		}
	}
	return cur, true
}

// matchRule reports whether p is the field a rule's path names: segments
// equal, "[*]" for any index, a leading "*." for any prefix.
func matchRule(pattern string, p fieldpath.Path) bool {
	anyPrefix := strings.HasPrefix(pattern, "*.")
	pat, err := fieldpath.Parse(strings.TrimPrefix(pattern, "*."))
	if err != nil || len(pat) > len(p) || (!anyPrefix && len(pat) != len(p)) {
		return false
	}
	tail := p[len(p)-len(pat):]
	for i, s := range pat {
		switch s.Kind {
		case fieldpath.KindWildcard:
			if tail[i].Kind != fieldpath.KindIndex {
				return false
			}
		default:
			if s != tail[i] {
				return false
			}
		}
	}
	return true
}
