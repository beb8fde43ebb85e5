package schemas

import (
	"fmt"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
)

// KubernetesRelease is what a built-in Kubernetes schema knows of the
// release it belongs to (Source.Kubernetes): its minor and the newer
// built-in minors, so a field or kind the target release lacks can say in
// which release it appears.
type KubernetesRelease struct {
	Minor string // "1.34"
	// Newer are the built-in schemas of the newer minors, oldest first
	// (none for the newest).
	Newer []NewerKubernetes
}

// NewerKubernetes is one newer built-in minor; Store opens its schemas on
// first need (callers cache it).
type NewerKubernetes struct {
	Minor string
	Store func() (*Store, error)
}

// ServedFrom is the first newer minor that serves gvk, if any.
func (r *KubernetesRelease) ServedFrom(gvk GVK) (string, bool) {
	if r == nil {
		return "", false
	}
	for _, n := range r.Newer {
		st, err := n.Store()
		if err != nil || st == nil {
			continue
		}
		if sc, ok := st.Lookup(gvk); ok && sc.Source.Kind == SourceBuiltin && sc.Source.Kubernetes != nil {
			return n.Minor, true
		}
	}
	return "", false
}

// AddedIn is the first newer minor whose schema of gvk declares the field
// at path, if any.
func (r *KubernetesRelease) AddedIn(gvk GVK, path fieldpath.Path) (string, bool) {
	if r == nil {
		return "", false
	}
	for _, n := range r.Newer {
		st, err := n.Store()
		if err != nil || st == nil {
			continue
		}
		sc, ok := st.Lookup(gvk)
		if !ok || sc.Source.Kind != SourceBuiltin || sc.Source.Kubernetes == nil {
			continue
		}
		ss, err := sc.Structural()
		if err != nil || ss == nil {
			continue
		}
		if declares(ss, path) {
			return n.Minor, true
		}
	}
	return "", false
}

// declares: path names a property the schema declares (through
// properties, items and additionalProperties).
func declares(ss *structuralschema.Structural, path fieldpath.Path) bool {
	for i, seg := range path {
		if ss == nil {
			return false
		}
		switch seg.Kind {
		case fieldpath.KindField:
			if p, ok := ss.Properties[seg.Field]; ok {
				ss = &p
				continue
			}
			if ss.AdditionalProperties != nil && ss.AdditionalProperties.Structural != nil && i < len(path)-1 {
				ss = ss.AdditionalProperties.Structural
				continue
			}
			return false
		case fieldpath.KindIndex, fieldpath.KindWildcard:
			ss = ss.Items
		}
	}
	return ss != nil
}

// laterFields rewords the unknown-field findings of a built-in Kubernetes
// schema whose fields a newer built-in minor declares: the API server of
// the target release rejects them all the same (strict field validation),
// but the user should learn the field is real, just newer.
func laterFields(sc *Schema, errs []Error) []Error {
	r := sc.Source.Kubernetes
	if r == nil || len(r.Newer) == 0 {
		return errs
	}
	for i := range errs {
		e := &errs[i]
		if e.Code != "unknown-field" || len(e.Path) == 0 {
			continue
		}
		if added, ok := r.AddedIn(sc.GVK, e.Path); ok {
			e.Message = fmt.Sprintf("unknown field %q: %s is not in Kubernetes %s (added in %s)", e.Field, e.Path, r.Minor, added)
			e.Suggestion = ""
		}
	}
	return errs
}
