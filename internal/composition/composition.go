// Package composition checks Crossplane Compositions: the logical checks
// Crossplane's (removed) validating webhook made, and schema-aware checks of
// patches, for classic mode: Resources Compositions and for Pipeline steps
// whose input is function-patch-and-transform's Resources.
//
// Invariants: pure (no IO); reads a decoded Composition and schemas it is
// handed through Env; every Problem is positioned by a path into the
// Composition document (and, for fieldPath syntax, a byte offset inside the
// string value).
package composition

import (
	"fmt"
	"sort"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/Masterminds/semver/v3"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// Problem is one finding.
type Problem struct {
	Path     fieldpath.Path
	OnKey    bool
	InString int // >= 0: byte offset inside the string value at Path; -1: none
	// Segment, for fieldpath-unknown, is the index of the segment of the
	// fieldPath (the string value at Path) that names no field; -1: none.
	Segment  int
	Severity severity.Severity
	Code     string
	Message  string
}

// GVK names a kind.
type GVK = gvk.GVK

// Env gives the checks the schemas they need.
type Env struct {
	// Schema returns the structural schema of a kind (an XR's from its XRD,
	// a base's from its CRD), or false when none is known.
	Schema func(GVK) (*structuralschema.Structural, bool)
	// Mode is the default schema-aware validation mode (the zero Mode is
	// warn); the Composition's annotation overrides it.
	Mode Mode
	// UnknownXR words what is known of a composite kind no XRD defines:
	// the versions it is defined at, the kind (or claim kind) probably
	// meant ("" when nothing); and whether it may come from a
	// dependency not in the package cache (the finding is then an info
	// unless a likely meaning was found).
	UnknownXR func(GVK) (hint string, maybeUnpulled bool)
	// InvalidXR names the XRD that defines a composite kind when that XRD
	// is invalid (Crossplane never establishes the kind); ok false
	// otherwise.
	InvalidXR func(GVK) (xrd string, ok bool)
	// Versions lists the versions a kind's group serves it at (the
	// schemas know it at, in the definition's order), for a kind unknown at
	// the version asked.
	Versions func(GVK) []string
	// Claim says a kind is an XRD's claim: a Composition naming it
	// names no composite kind.
	Claim func(GVK) bool
	// PTRelease is the function-patch-and-transform release the pipeline
	// step at index runs ("" when unknown: the newest is assumed); checks
	// whose answer changed between releases follow it.
	PTRelease func(step int) string
}

const modeAnnotation = "crossplane.io/composition-schema-aware-validation-mode"

// Mode is a schema-aware validation mode, as Crossplane's webhook design
// defined them: warn (the zero Mode) reports every schema-aware finding as
// a warning; loose reports errors where the schemas are known and skips
// what needs a missing one; strict makes every finding an error and a
// missing schema one too.
type Mode uint8

const (
	ModeWarn Mode = iota
	ModeLoose
	ModeStrict
)

// ParseMode reads a mode as the annotation and crd-lsp's settings spell
// it: "warn", "loose" or "strict", exactly. ok is false for anything else
// (callers keep their default, or report the value).
func ParseMode(s string) (m Mode, ok bool) {
	switch s {
	case "warn":
		return ModeWarn, true
	case "loose":
		return ModeLoose, true
	case "strict":
		return ModeStrict, true
	}
	return ModeWarn, false
}

// String is the mode as ParseMode reads it.
func (m Mode) String() string {
	switch m {
	case ModeLoose:
		return "loose"
	case ModeStrict:
		return "strict"
	}
	return "warn"
}

type checker struct {
	env     Env
	out     []Problem
	mode    Mode
	classic bool // checking a classic Composition's spec, not a P&T input
	// ptRelease is the release of function-patch-and-transform the step
	// being checked runs ("" unknown: the newest).
	ptRelease string
	xr        *structuralschema.Structural
	xrKnown   bool
}

// Check returns the problems of a Composition document.
func Check(obj map[string]any, env Env) []Problem {
	c := &checker{env: env, mode: env.Mode}
	if c.mode > ModeStrict {
		c.mode = ModeWarn
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			if s, ok := ann[modeAnnotation].(string); ok {
				if m, ok := ParseMode(s); ok {
					c.mode = m
				}
			}
		}
	}
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return nil
	}
	root := fieldpath.Path{fieldpath.Field("spec")}
	if ref, ok := spec["compositeTypeRef"].(map[string]any); ok {
		gvk := gvk.Of(ref)
		if gvk.Kind != "" && env.Schema != nil {
			c.xr, c.xrKnown = env.Schema(gvk)
			if c.xrKnown && env.Claim != nil && env.Claim(gvk) {
				c.xr, c.xrKnown = nil, false
			}
			said := false
			if !c.xrKnown && env.InvalidXR != nil {
				if xrd, bad := env.InvalidXR(gvk); bad {
					msg := fmt.Sprintf("the XRD %s that defines %s %s is invalid (see its own findings)", xrd, gvk.APIVersion(), gvk.Kind)
					if hasPatches(spec) {
						msg += ": patches that read or write the composite resource are not checked until it is fixed"
					}
					c.add(root.Child(fieldpath.Field("compositeTypeRef"), fieldpath.Field("kind")), false, severity.Warning, "composition-schema", msg)
					said = true
				}
			}
			if !c.xrKnown && !said {
				// A Composition for a kind no XRD defines is never selected:
				// say so whether or not patches read the XRD.
				msg := fmt.Sprintf("no XRD for %s %s in the workspace", gvk.APIVersion(), gvk.Kind)
				hint, unpulled := "", false
				if env.UnknownXR != nil {
					hint, unpulled = env.UnknownXR(gvk)
				}
				msg += hint
				if hasPatches(spec) {
					msg += ": patches that read or write the composite resource are not checked"
				}
				p := root.Child(fieldpath.Field("compositeTypeRef"), fieldpath.Field("kind"))
				if unpulled && hint == "" && c.mode != ModeStrict {
					c.add(p, false, severity.Info, "composition-schema", msg+" (it may come from a dependency not in the package cache: run crd-lsp pull)")
				} else {
					c.missingSchema(p, msg)
				}
			}
		}
	}
	mode, _ := spec["mode"].(string)
	if _, ok := spec["pipeline"]; ok || mode == "Pipeline" {
		c.pipeline(spec, root)
	}
	if _, ok := spec["resources"]; ok {
		c.resources(spec, root, true)
	}
	sort.SliceStable(c.out, func(i, j int) bool { return c.out[i].Path.String() < c.out[j].Path.String() })
	// A patchSet used by several resources reports a problem once.
	seen := map[string]bool{}
	out := c.out[:0]
	for _, pr := range c.out {
		key := pr.Path.String() + "\x00" + pr.Code
		if pr.Code != "fieldpath-unknown" {
			key += "\x00" + pr.Message
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, pr)
	}
	return out
}

// hasPatches reports whether a Composition has patches: in a classic
// spec or a function-patch-and-transform input, on resources, patchSets or
// the environment.
func hasPatches(spec map[string]any) bool {
	holders := []map[string]any{spec}
	steps, _ := spec["pipeline"].([]any)
	for _, st := range steps {
		sm, _ := st.(map[string]any)
		if in, ok := sm["input"].(map[string]any); ok {
			holders = append(holders, in)
		}
	}
	for _, h := range holders {
		for _, list := range []string{"resources", "patchSets"} {
			items, _ := h[list].([]any)
			for _, it := range items {
				im, _ := it.(map[string]any)
				if ps, _ := im["patches"].([]any); len(ps) > 0 {
					return true
				}
			}
		}
		env, _ := h["environment"].(map[string]any)
		if ps, _ := env["patches"].([]any); len(ps) > 0 {
			return true
		}
	}
	return false
}

// ptBefore says whether the P&T release being checked is known to be
// older than v (an unknown release is the newest).
func (c *checker) ptBefore(v string) bool {
	if c.ptRelease == "" {
		return false
	}
	r, err1 := semver.NewVersion(c.ptRelease)
	b, err2 := semver.NewVersion(v)
	return err1 == nil && err2 == nil && r.LessThan(b)
}

func (c *checker) add(p fieldpath.Path, onKey bool, sev severity.Severity, code, msg string) {
	c.out = append(c.out, Problem{Path: p, OnKey: onKey, InString: -1, Segment: -1, Severity: sev, Code: code, Message: msg})
}

// addUnknown reports the fieldPath at p that leads nowhere per a schema;
// seg is the index of its segment that names no field (-1: another reason).
func (c *checker) addUnknown(p fieldpath.Path, seg int, msg string) {
	c.out = append(c.out, Problem{Path: p, InString: -1, Segment: seg, Severity: c.schemaSeverity(), Code: "fieldpath-unknown", Message: msg})
}

// schemaSeverity is how a schema-aware finding is reported in this mode,
// as Crossplane's webhook design defined the modes: "warn" reports every
// finding as a warning; "loose" and "strict" make findings errors.
func (c *checker) schemaSeverity() severity.Severity {
	if c.mode == ModeWarn {
		return severity.Warning
	}
	return severity.Error
}

// missingSchema reports a composite or base without a schema: an error
// only in strict mode ("loose" and "warn" skip what needs the schema).
func (c *checker) missingSchema(p fieldpath.Path, msg string) {
	sev := severity.Warning
	if c.mode == ModeStrict {
		sev = severity.Error
	}
	c.add(p, false, sev, "composition-schema", msg)
}

func (c *checker) pipeline(spec map[string]any, root fieldpath.Path) {
	steps, _ := spec["pipeline"].([]any)
	p := root.Child(fieldpath.Field("pipeline"))
	if len(steps) == 0 {
		c.add(root.Child(fieldpath.Field("mode")), false, severity.Error, "composition-pipeline", "mode: Pipeline needs at least one step in spec.pipeline")
		return
	}
	if len(steps) > 99 {
		c.add(p, true, severity.Error, "composition-pipeline", fmt.Sprintf("a pipeline has at most 99 steps, this one has %d", len(steps)))
	}
	seen := map[string]int{}
	for i, s := range steps {
		step, _ := s.(map[string]any)
		sp := p.Child(fieldpath.Index(i))
		name, _ := step["step"].(string)
		if prev, dup := seen[name]; dup && name != "" {
			c.add(sp.Child(fieldpath.Field("step")), false, severity.Error, "composition-pipeline", fmt.Sprintf("step name %q is already used by step %d", name, prev))
		}
		seen[name] = i
		c.credentials(step, sp)
		input, _ := step["input"].(map[string]any)
		if input == nil {
			continue
		}
		if gvk := gvk.Of(input); gvk.Group == "pt.fn.crossplane.io" && gvk.Kind == "Resources" {
			ip := sp.Child(fieldpath.Field("input"))
			c.ptRelease = ""
			if c.env.PTRelease != nil {
				c.ptRelease = c.env.PTRelease(i)
			}
			c.resources(input, ip, false)
		}
	}
}

func (c *checker) credentials(step map[string]any, sp fieldpath.Path) {
	creds, _ := step["credentials"].([]any)
	seen := map[string]bool{}
	for i, cr := range creds {
		m, _ := cr.(map[string]any)
		cp := sp.Child(fieldpath.Field("credentials"), fieldpath.Index(i))
		name, _ := m["name"].(string)
		if seen[name] {
			c.add(cp.Child(fieldpath.Field("name")), false, severity.Error, "composition-pipeline", fmt.Sprintf("credential name %q is used twice in this step", name))
		}
		seen[name] = true
		if src, _ := m["source"].(string); src == "Secret" && m["secretRef"] == nil {
			c.add(cp, true, severity.Error, "composition-pipeline", "credentials with source: Secret need a secretRef")
		}
	}
}
