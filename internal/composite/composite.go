// Package composite prepares the composite resource (XR) that Crossplane
// hands to a Composition's functions, from an example XR, an example
// claim, or nothing (Synthesize). It models what happens to an XR before
// composing, as Crossplane v1.20 and v2.3 do it:
//
//   - a claim is synced to its XR (internal/controller/apiextensions/claim,
//     syncer_ssa.go): a generated name after the claim's, the claim's labels
//     and annotations without *.kubernetes.io/*.k8s.io keys plus the claim
//     labels, the claim's spec without the claim-only fields, spec.claimRef;
//   - the API server creates it (and the claim before it): namespace filled
//     in (namespaced) or cleared (cluster scoped), a uid, unknown fields
//     pruned, and the structural defaults of its CRD (the XRD's schema
//     defaults and Crossplane's own, e.g. compositionUpdatePolicy);
//   - the XR reconciler (composite/reconciler.go, api.go) adds its
//     finalizer, selects the Composition (the one being rendered), and runs
//     the configurator chain: APINamingConfigurator labels it
//     crossplane.io/composite=<name> unless that label is set, and, for
//     legacy XRs only (v1 XRDs and scope LegacyCluster),
//     APIConfigurator sets spec.writeConnectionSecretToRef to
//     {name: <uid>, namespace: <spec.writeConnectionSecretsToNamespace>} when
//     the Composition names a namespace and the XR has no reference.
//
// What it leaves out: compositionRevisionRef (its name hashes the
// Composition as Crossplane's typed API serialises it; crossplane render
// leaves it unset too), status, and server-side fields such as
// resourceVersion and creationTimestamp.
//
// Invariants: pure functions of maps and schemas; inputs are never
// modified.
package composite

import (
	"strings"

	"github.com/google/uuid"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"

	"github.com/crd-lsp/crd-lsp/internal/gvk"
	"github.com/crd-lsp/crd-lsp/internal/paved"
)

// Labels and the finalizer Crossplane sets on composites.
const (
	labelComposite      = "crossplane.io/composite"
	labelClaimName      = "crossplane.io/claim-name"
	labelClaimNamespace = "crossplane.io/claim-namespace"
	finalizer           = "composite.apiextensions.crossplane.io"
)

// Definition is what preparing a composite needs to know of its kind.
type Definition struct {
	APIVersion, Kind string
	// ClaimKind is the claim kind the XRD offers ("" for none).
	ClaimKind string
	// Legacy: a v1 XRD's or a scope LegacyCluster XR. Crossplane's fields
	// sit at the top of spec and it may write a connection secret; other
	// (v2) XRs keep them under spec.crossplane and write none.
	Legacy bool
	// Namespaced: the XR kind is namespaced.
	Namespaced bool
	// XR and Claim are the structural schemas of the XR and claim CRDs
	// (defaults pruned as the API server serves them); nil skips
	// defaulting.
	XR, Claim *structuralschema.Structural
}

// Origin says where a prepared composite came from.
type Origin int

const (
	FromXR Origin = iota
	FromClaim
	Synthesized
)

// IsClaim reports whether obj is a claim of def rather than its XR.
func (def Definition) IsClaim(obj map[string]any) bool {
	k, _ := obj["kind"].(string)
	return k != def.Kind && (def.ClaimKind == "" || k == def.ClaimKind)
}

// FromExample prepares an example object: an XR of def's kind, or a claim
// (any other kind is read as a claim, as its spec is what reaches the XR).
func FromExample(def Definition, comp map[string]any, ex map[string]any) (map[string]any, Origin) {
	obj, _ := paved.DeepCopy(ex).(map[string]any)
	if obj == nil {
		obj = map[string]any{}
	}
	if !def.IsClaim(obj) {
		return configure(def, comp, obj), FromXR
	}
	if def.Claim != nil {
		// The API server creates the claim: unknown fields pruned, defaults.
		structuralpruning.Prune(obj, def.Claim, true)
		structuraldefaulting.Default(obj, def.Claim)
	}
	return configure(def, comp, xrForClaim(def, obj)), FromClaim
}

// claimOnlyFields are the claim spec fields Crossplane does not copy to the
// XR: xcrd.CompositeResourceClaimSpecProps less xcrd.PropagateSpecProps
// (compositionRef, compositionSelector, compositionUpdatePolicy,
// compositionRevisionSelector). publishConnectionDetailsTo exists in v1.
var claimOnlyFields = []string{"compositeDeletePolicy", "resourceRef", "writeConnectionSecretToRef", "publishConnectionDetailsTo", "compositionRevisionRef"}

// xrForClaim is the XR the claim syncer applies for a claim.
func xrForClaim(def Definition, claim map[string]any) map[string]any {
	cmd, _ := claim["metadata"].(map[string]any)
	name, _ := cmd["name"].(string)
	ns, _ := cmd["namespace"].(string)
	if ns == "" {
		ns = "default" // kubectl's default namespace
	}
	if name == "" {
		name = ClaimName
	}
	md := map[string]any{"generateName": name + "-", "name": name + "-xxxxx"}
	if ann := withoutReserved(cmd["annotations"]); len(ann) > 0 {
		md["annotations"] = ann
	}
	labels := withoutReserved(cmd["labels"])
	labels[labelClaimName] = name
	labels[labelClaimNamespace] = ns
	md["labels"] = labels
	spec := map[string]any{}
	cs, _ := claim["spec"].(map[string]any)
	for k, v := range cs {
		spec[k] = v
	}
	for _, k := range claimOnlyFields {
		if k == "compositionRevisionRef" && cs["compositionUpdatePolicy"] == "Manual" {
			continue // with a manual policy the claim controller owns the reference
		}
		delete(spec, k)
	}
	spec["claimRef"] = map[string]any{"apiVersion": claim["apiVersion"], "kind": claim["kind"], "name": name, "namespace": ns}
	return map[string]any{"apiVersion": def.APIVersion, "kind": def.Kind, "metadata": md, "spec": spec}
}

// withoutReserved copies a label or annotation map without the keys the
// claim syncer keeps off the XR (prefixes ending in kubernetes.io or
// k8s.io).
func withoutReserved(v any) map[string]any {
	out := map[string]any{}
	m, _ := v.(map[string]any)
	for k, x := range m {
		prefix, _, _ := strings.Cut(k, "/")
		if strings.HasSuffix(prefix, "kubernetes.io") || strings.HasSuffix(prefix, "k8s.io") {
			continue
		}
		out[k] = x
	}
	return out
}

// configure applies what the API server and the XR reconciler do before
// composing. xr is modified and returned.
func configure(def Definition, comp map[string]any, xr map[string]any) map[string]any {
	if def.APIVersion != "" {
		xr["apiVersion"], xr["kind"] = def.APIVersion, def.Kind
	}
	md, _ := xr["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		xr["metadata"] = md
	}
	name, _ := md["name"].(string)
	if name == "" {
		if gn, _ := md["generateName"].(string); gn != "" {
			name = gn + "xxxxx"
		} else {
			name = XRName
		}
		md["name"] = name
	}
	// The API server fills in or clears the namespace.
	if def.Namespaced {
		if ns, _ := md["namespace"].(string); ns == "" {
			md["namespace"] = "default"
		}
	} else {
		delete(md, "namespace")
	}
	if uid, _ := md["uid"].(string); uid == "" {
		md["uid"] = UID(def, md)
	}
	if def.XR != nil {
		structuralpruning.Prune(xr, def.XR, true)
		structuraldefaulting.Default(xr, def.XR)
	}
	// The reconciler's finalizer.
	fins, _ := md["finalizers"].([]any)
	has := false
	for _, f := range fins {
		has = has || f == finalizer
	}
	if !has {
		md["finalizers"] = append(fins, finalizer)
	}
	spec, _ := xr["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		xr["spec"] = spec
	}
	// The Composition rendered is the one selected.
	if cname := compositionName(comp); cname != "" {
		holder := spec
		if !def.Legacy {
			cp, _ := spec["crossplane"].(map[string]any)
			if cp == nil {
				cp = map[string]any{}
				spec["crossplane"] = cp
			}
			holder = cp
		}
		holder["compositionRef"] = map[string]any{"name": cname}
	}
	// APINamingConfigurator.
	labels, _ := md["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		md["labels"] = labels
	}
	if v, _ := labels[labelComposite].(string); v == "" {
		labels[labelComposite] = name
	}
	// APIConfigurator: legacy composites only.
	if ns := connectionNamespace(comp); def.Legacy && ns != "" && spec["writeConnectionSecretToRef"] == nil {
		spec["writeConnectionSecretToRef"] = map[string]any{"name": md["uid"], "namespace": ns}
	}
	return xr
}

// UID is the uid a composite without one gets: the one crossplane render
// gives it (a SHA-1 UUID of its GVK, namespace and name), so that
// renders are stable and match Crossplane's own.
func UID(def Definition, md map[string]any) string {
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	id := gvk.Parse(def.APIVersion, def.Kind)
	// schema.GroupVersionKind's String(): "/v1, Kind=…" for the core group.
	gvk := id.Group + "/" + id.Version + ", Kind=" + id.Kind
	return uuid.NewSHA1(uuid.Nil, []byte(gvk+"\x00"+ns+"\x00"+name)).String()
}

func compositionName(comp map[string]any) string {
	md, _ := comp["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	return name
}

// connectionNamespace is the Composition's
// spec.writeConnectionSecretsToNamespace.
func connectionNamespace(comp map[string]any) string {
	spec, _ := comp["spec"].(map[string]any)
	ns, _ := spec["writeConnectionSecretsToNamespace"].(string)
	return ns
}

// patchType is a patch's type, FromCompositeFieldPath when unset.
func patchType(pm map[string]any) string {
	if t, _ := pm["type"].(string); t != "" {
		return t
	}
	return "FromCompositeFieldPath"
}
