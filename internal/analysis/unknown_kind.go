// This file words the finding on an object whose kind no schema serves: what
// the API server would answer, a removed Kubernetes API and what serves it
// now, a near kind.

package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/suggest"
)

// unknownKind is the finding on an object whose kind no schema serves, or
// nil. What the API server would answer decides the severity:
//   - an API Kubernetes removed: an error saying in which release, and
//     what serves the kind now;
//   - a kind of a built-in Kubernetes group that the group does not serve
//     (kind: configmap): an error, whatever the unknownKind setting;
//   - a version the kind's CRD does not serve: an error naming the served
//     versions (kubectl fails with "no matches for kind");
//   - anything else: the unknownKind setting (the CRD may simply not be in
//     the workspace).
func unknownKind(d *document.Doc, gvk schemas.GVK, env Env) []Diagnostic {
	if schemaless[gvk.Group] || IsClientSide(gvk, env.Options.ClientKinds) {
		return nil
	}
	kindAt := fieldpath.Path{fieldpath.Field("kind")}
	if msg, ok := removedAPI(gvk, env.Workspace.Schemas); ok {
		return []Diagnostic{diagnosticAt(d, fieldpath.Path{fieldpath.Field("apiVersion")}, false, severity.Error, "removed-api", msg)}
	}
	if msg, ok := laterKind(gvk, env.Workspace.Schemas); ok {
		return []Diagnostic{diagnosticAt(d, fieldpath.Path{fieldpath.Field("apiVersion")}, false, severity.Error, "unknown-kind", msg)}
	}
	if msg, ok := builtinGroupKind(gvk, env.Workspace.Schemas); ok {
		return []Diagnostic{diagnosticAt(d, kindAt, false, severity.Error, "unknown-kind", msg)}
	}
	if env.Options.UnknownKind == 0 {
		return nil
	}
	if versions, ok := gaOnly(gvk, env.Workspace.Schemas); ok {
		// The bundle holds Kubernetes' GA versions: a beta or alpha
		// version of a built-in kind may well be served.
		return []Diagnostic{diagnosticAt(d, kindAt, false, env.Options.UnknownKind, "unknown-kind",
			fmt.Sprintf("no schema for %s %s: the built-in Kubernetes schemas hold only its GA versions (%s); this version may be served where its feature is enabled", gvk.APIVersion(), gvk.Kind, strings.Join(versions, ", ")))}
	}
	msg, otherVersions := unknownKindMessage(d, gvk, env)
	if otherVersions {
		return []Diagnostic{diagnosticAt(d, fieldpath.Path{fieldpath.Field("apiVersion")}, false, severity.Error, "unknown-kind", msg)}
	}
	return []Diagnostic{diagnosticAt(d, kindAt, false, env.Options.UnknownKind, "unknown-kind", msg)}
}

func isKubernetes(s schemas.Source) bool {
	return s.Kind == schemas.SourceBuiltin && s.Name == "kubernetes" || s.Kind == schemas.SourceBuiltin && strings.HasPrefix(s.Name, "kubernetes ")
}

// gaOnly: the only other versions of gvk's kind known are Kubernetes
// built-ins, and gvk's group/version is not one the bundle holds.
func gaOnly(gvk schemas.GVK, st *schemas.Store) (versions []string, ok bool) {
	if st == nil {
		return nil, false
	}
	for _, k := range st.Kinds() {
		if k.GVK.Group != gvk.Group {
			continue
		}
		if k.GVK.Version == gvk.Version && isKubernetes(k.Source) {
			return nil, false // a GA version the bundle holds: it is complete
		}
		if k.GVK.Kind == gvk.Kind {
			if !isKubernetes(k.Source) {
				return nil, false
			}
			versions = append(versions, k.GVK.Version)
		}
	}
	return versions, len(versions) > 0
}

// builtinGroupKind: gvk's group/version is one Kubernetes serves itself
// (a GA version the built-in bundle holds completely), and no version of
// the group serves the kind. An alpha or beta version the bundle does not
// hold is left to the unknownKind setting.
func builtinGroupKind(gvk schemas.GVK, st *schemas.Store) (string, bool) {
	if st == nil {
		return "", false
	}
	var kinds []string
	for _, k := range st.Kinds() {
		if k.GVK.Group != gvk.Group {
			continue
		}
		if k.GVK.Kind == gvk.Kind {
			return "", false // another version: unknownKindMessage says which
		}
		if isKubernetes(k.Source) && k.GVK.Version == gvk.Version {
			kinds = append(kinds, k.GVK.Kind)
		}
	}
	if len(kinds) == 0 {
		return "", false
	}
	msg := fmt.Sprintf("Kubernetes does not serve a kind %q in %s: the API server rejects it", gvk.Kind, gvk.APIVersion())
	if best, ok := suggest.Closest(gvk.Kind, kinds); ok {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return msg, true
}

// laterKind: the store's built-in Kubernetes schemas are of an older
// minor than the newest built in, and a newer minor serves gvk: the
// target's API server does not ("no matches for kind").
func laterKind(gvk schemas.GVK, st *schemas.Store) (string, bool) {
	if st == nil || !strings.HasSuffix(gvk.Group, ".k8s.io") && strings.Contains(gvk.Group, ".") {
		return "", false // only Kubernetes' own groups
	}
	var release *schemas.KubernetesRelease
	for _, k := range st.Kinds() {
		if isKubernetes(k.Source) && k.Source.Kubernetes != nil {
			release = k.Source.Kubernetes
			break
		}
	}
	from, ok := release.ServedFrom(gvk)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s %s is not served by Kubernetes %s, the targeted version: it is served from Kubernetes %s (crdLsp.kubernetesVersion, --kubernetes-version)", gvk.APIVersion(), gvk.Kind, release.Minor, from), true
}

// removed is when Kubernetes stopped serving an API (the deprecated API
// migration guide): by group/version, every kind of it unless kinds says.
var removed = []struct {
	apiVersion string
	kinds      []string
	release    string
}{
	{"extensions/v1beta1", []string{"DaemonSet", "Deployment", "ReplicaSet", "NetworkPolicy", "PodSecurityPolicy"}, "1.16"},
	{"apps/v1beta1", nil, "1.16"},
	{"apps/v1beta2", nil, "1.16"},
	{"extensions/v1beta1", []string{"Ingress"}, "1.22"},
	{"admissionregistration.k8s.io/v1beta1", nil, "1.22"},
	{"apiextensions.k8s.io/v1beta1", nil, "1.22"},
	{"apiregistration.k8s.io/v1beta1", nil, "1.22"},
	{"authentication.k8s.io/v1beta1", nil, "1.22"},
	{"authorization.k8s.io/v1beta1", nil, "1.22"},
	{"certificates.k8s.io/v1beta1", nil, "1.22"},
	{"coordination.k8s.io/v1beta1", nil, "1.22"},
	{"networking.k8s.io/v1beta1", []string{"Ingress", "IngressClass"}, "1.22"},
	{"rbac.authorization.k8s.io/v1beta1", nil, "1.22"},
	{"scheduling.k8s.io/v1beta1", nil, "1.22"},
	{"storage.k8s.io/v1beta1", []string{"CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"}, "1.22"},
	{"batch/v1beta1", []string{"CronJob"}, "1.25"},
	{"discovery.k8s.io/v1beta1", nil, "1.25"},
	{"events.k8s.io/v1beta1", nil, "1.25"},
	{"autoscaling/v2beta1", nil, "1.25"},
	{"policy/v1beta1", nil, "1.25"},
	{"node.k8s.io/v1beta1", nil, "1.25"},
	{"flowcontrol.apiserver.k8s.io/v1beta1", nil, "1.26"},
	{"autoscaling/v2beta2", nil, "1.26"},
	{"storage.k8s.io/v1beta1", []string{"CSIStorageCapacity"}, "1.27"},
	{"flowcontrol.apiserver.k8s.io/v1beta2", nil, "1.29"},
	{"flowcontrol.apiserver.k8s.io/v1beta3", nil, "1.32"},
}

// removedAPI says when Kubernetes removed gvk and what serves the kind
// now (the built-in bundle's versions of it), if it did.
func removedAPI(gvk schemas.GVK, st *schemas.Store) (string, bool) {
	for _, r := range removed {
		if r.apiVersion != gvk.APIVersion() || r.kinds != nil && !slices.Contains(r.kinds, gvk.Kind) {
			continue
		}
		var now []string
		if st != nil {
			for _, k := range st.Kinds() {
				if k.GVK.Kind == gvk.Kind && isKubernetes(k.Source) {
					now = append(now, k.GVK.APIVersion())
				}
			}
		}
		msg := fmt.Sprintf("%s %s was removed in Kubernetes %s: the API server no longer serves it", gvk.APIVersion(), gvk.Kind, r.release)
		switch {
		case len(now) > 0:
			msg += "; use apiVersion " + strings.Join(now, " or ")
		case gvk.Kind == "PodSecurityPolicy":
			msg += "; it has no successor (Pod Security Admission replaces it, configured by namespace labels)"
		default:
			msg += "; no version of this kind is served now"
		}
		return msg, true
	}
	return "", false
}
