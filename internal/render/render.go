// This file defines what a rendering is (the rendered resources, what
// each patch wrote or skipped, notes positioned in the Composition) and
// the metadata Crossplane's reconciler adds to composed resources after
// the pipeline.

package render

import (
	"fmt"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// Note is something rendering found, positioned at a path of the
// Composition document (a patch, a transform, a resource, a step).
type Note struct {
	Path     fieldpath.Path
	OnKey    bool
	Severity severity.Severity
	Code     string
	Message  string
}

// Write records that a patch wrote a field of a rendered resource.
type Write struct {
	To    fieldpath.Path // the field written, in the rendered resource
	Patch fieldpath.Path // the patch, in the Composition document
	From  string         // the fieldPath it read (or the combine variables)
	// Reads are the fieldPaths it read, one per combine variable.
	Reads []string
}

// Failure records a patch of a resource that could not run (lenient
// renders carry on without it) and a field it would have written: unknown
// to the render, not missing from the Composition. Recorded for a failing
// transform, and for a PatchSet patch whose name is a misspelling of a
// defined PatchSet's (the fields that one writes).
type Failure struct {
	Patch fieldpath.Path
	To    fieldpath.Path
}

// Skip records a patch that wrote nothing because what it reads is not
// set on the composite: the field it would write stays unset.
type Skip struct {
	To    fieldpath.Path
	Patch fieldpath.Path
	From  []string // the composite fields that would have to be set
	// Required: the patch has policy.fromFieldPath: Required, so the
	// resource is not created until the fields are set.
	Required bool
	// Environment: the fields are the environment's, not the composite's.
	Environment bool
	// Unknown: what the environment holds is not known (a step that
	// loads it could not be resolved), so the fields may well be set.
	Unknown bool
}

// Resource is one rendered composed resource.
type Resource struct {
	Name string         // the resource's name in the Composition ("" for anonymous classic resources)
	Step string         // the pipeline step that composed it ("" for classic Compositions)
	Path fieldpath.Path // the resource template (…resources[i]) in the Composition
	// Object is the rendered resource; nil when it was not rendered
	// (no base, a Required fromFieldPath that is not set, or a failure).
	Object map[string]any
	Writes []Write
	Skips  []Skip
	// Failures are the patches that failed in a lenient render.
	Failures []Failure
	// Withheld: a Required fromFieldPath is not set, so the resource is
	// not created (a strict render; lenient renders keep it).
	Withheld bool
}

// ContextStepResult is what a step that changes the context natively
// left: the context after it (nil: as it was), whether what the
// environment holds is known, notes on the step, and whether it failed
// (a strict render stops there, as the pipeline does; a lenient one
// carries on).
type ContextStepResult struct {
	Context map[string]any
	Unknown bool
	Notes   []Note
	Failed  bool
}

// Output is a rendered Composition.
type Output struct {
	Resources []Resource
	// XR is the desired composite after environment patches (ToComposite
	// patches need observed composed resources, which a render has not).
	XR    map[string]any
	Notes []Note
}

// IsClusterScoped asks scoped (nil: nothing is cluster-scoped) about
// obj's kind.
func IsClusterScoped(scoped func(apiVersion, kind string) bool, obj map[string]any) bool {
	if scoped == nil {
		return false
	}
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	return scoped(av, k)
}

// HowToConfigure says how a user lets crd-lsp run a function: the words
// every front end uses in its note on a step it cannot run.
const HowToConfigure = "the crdLsp.functions setting, or --functions FILE for crd-lsp check and render, as for crossplane render"

// EnvironmentContextKey is the context key of the Composition environment.
const EnvironmentContextKey = "apiextensions.crossplane.io/environment"

// ComposedMetadata applies to a composed resource (in place) what
// Crossplane sets after the pipeline (crossplane v2.2.1
// internal/controller/apiextensions/composite/composition_render.go
// RenderComposedResourceMetadata, and cmd/crank/render/render.go
// SetComposedResourceMetadata, which mirrors it for crossplane render):
//   - a generated name, when the resource has neither a name nor a
//     generateName ("" and null count as none), after the XR's
//     crossplane.io/composite label — the root XR's name, for a nested
//     XR — else the XR's name;
//   - the XR's namespace, for a namespaced XR (namespaced);
//   - the composition-resource-name annotation (name, when not "") and the
//     crossplane.io/composite label, added to what the resource has;
//   - the claim labels, when the XR has both, else from its claimRef;
//   - the XR as controller reference, added to the resource's own owner
//     references (one with the XR's uid is replaced).
//
// A resource already controlled by another owner is not changed there:
// the error says so, as Crossplane then fails ("is already controlled
// by").
func ComposedMetadata(obj map[string]any, name string, xr map[string]any, namespaced bool) error {
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	xmd, _ := xr["metadata"].(map[string]any)
	xname, _ := xmd["name"].(string)
	xlabels, _ := xmd["labels"].(map[string]any)
	prefix, _ := xlabels["crossplane.io/composite"].(string)
	if prefix == "" {
		prefix = xname
	}
	n, _ := md["name"].(string)
	gn, _ := md["generateName"].(string)
	if n == "" && gn == "" && prefix != "" {
		delete(md, "name")
		md["generateName"] = prefix + "-"
	}
	if namespaced {
		if ns, _ := xmd["namespace"].(string); ns != "" {
			md["namespace"] = ns
		}
	}
	if name != "" {
		ann, _ := md["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
		}
		ann["crossplane.io/composition-resource-name"] = name
		md["annotations"] = ann
	}
	labels, _ := md["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
	}
	labels["crossplane.io/composite"] = prefix
	cn, _ := xlabels["crossplane.io/claim-name"].(string)
	cns, _ := xlabels["crossplane.io/claim-namespace"].(string)
	if cn != "" && cns != "" {
		labels["crossplane.io/claim-name"], labels["crossplane.io/claim-namespace"] = cn, cns
	} else if ref, ok := spec(xr)["claimRef"].(map[string]any); ok {
		labels["crossplane.io/claim-name"], labels["crossplane.io/claim-namespace"] = ref["name"], ref["namespace"]
	}
	md["labels"] = labels
	av, _ := xr["apiVersion"].(string)
	kind, _ := xr["kind"].(string)
	uid, _ := xmd["uid"].(string)
	owner := map[string]any{"apiVersion": av, "kind": kind, "name": xname, "uid": uid, "controller": true, "blockOwnerDeletion": true}
	refs, _ := md["ownerReferences"].([]any)
	for _, r := range refs {
		rm, _ := r.(map[string]any)
		if c, _ := rm["controller"].(bool); c && rm["uid"] != uid {
			return fmt.Errorf("%v is already controlled by %v %v (UID %v)", md["name"], rm["kind"], rm["name"], rm["uid"])
		}
	}
	out := make([]any, 0, len(refs)+1)
	replaced := false
	for _, r := range refs {
		if rm, _ := r.(map[string]any); rm != nil && rm["uid"] == uid {
			out = append(out, owner)
			replaced = true
			continue
		}
		out = append(out, r)
	}
	if !replaced {
		out = append(out, owner)
	}
	md["ownerReferences"] = out
	return nil
}

func spec(obj map[string]any) map[string]any {
	m, _ := obj["spec"].(map[string]any)
	return m
}

// MetadataNote is the note on a composed resource whose metadata
// ComposedMetadata could not set, worded as crossplane render fails.
func MetadataNote(res Resource, xr map[string]any, err error) Note {
	xmd, _ := xr["metadata"].(map[string]any)
	return Note{Path: res.Path, OnKey: true, Severity: severity.Error, Code: "render",
		Message: fmt.Sprintf("cannot render composed resource %q metadata: cannot set composite resource %q as controller ref of composed resource: %v", res.Name, xmd["name"], err)}
}
