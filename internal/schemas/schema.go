// This file defines Schema, one kind's schema from one source, and builds its
// structural schema and validators as the API server does.

package schemas

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/xcrd"
)

type role int

const (
	roleMain  role = iota // the CRD / MRD kind, or an XRD's composite resource
	roleClaim             // an XRD's claim
)

// Schema is one GVK's schema from one source. Its exported fields come from
// the index scan; everything derived from the schema itself is built on
// first use.
type Schema struct {
	GVK    GVK
	Scope  Scope
	Source Source
	Plural string
	// CRDName is metadata.name of the defining CRD, XRD or MRD.
	CRDName string
	// Description is the first sentence of the version's
	// openAPIV3Schema.description ("" if none).
	Description string
	// Path is the store path (WithFile's path) that defined the schema.
	Path string
	// ClaimKind is, for an XR kind whose XRD offers a claim, the claim's
	// kind (same group and version).
	ClaimKind string
	// LegacyXR is set on the composite resource kind of a v1 XRD or a
	// scope LegacyCluster one: Crossplane's fields sit at the top of its
	// spec, it may have claims and write a connection secret.
	LegacyXR bool

	docIndex int
	role     role
	def      *defRef
}

// FromXRD says the kind is an XRD's composite resource or claim.
func (s *Schema) FromXRD() bool { return s.def != nil && s.def.kind == defXRD }

// IsClaim says the kind is an XRD's claim.
func (s *Schema) IsClaim() bool { return s.role == roleClaim }

// defRef is one definition document as indexed: its content key and,
// when the store keeps texts, the text; otherwise the way to read its file
// again and where the document sits in it. The build is looked up in the
// build cache (cache.go) on every use.
type defRef struct {
	kind defKind
	key  docKey
	text []byte // nil when open is set

	open func() ([]byte, error)
	off  int    // the document's byte offset in what open returns
	path string // for messages

	// lazy: restored from a persisted index (dirindex.go), key is known
	// once the file has been read and checked.
	lazy *lazyKey
}

func (r *defRef) built() *built {
	key := r.key
	if r.lazy != nil {
		var err error
		if key, err = r.resolve(); err != nil {
			return &built{kind: r.kind, readErr: err, transient: true}
		}
	}
	return cache.get(r, key)
}

// built holds what is derived from one definition document's content.
type built struct {
	text []byte // until load has read it
	kind defKind
	// readErr: the document could not be read again as indexed; transient:
	// the cache does not keep this build.
	readErr   error
	transient bool

	once sync.Once
	// pb is each role's CRD in protobuf, as the decoded cache holds it:
	// the decoded CRD is not kept, as it weighs as much as the structural
	// schemas built from it (issue 35). first is the decoding load made,
	// handed to the first build; a later build of another version decodes
	// pb again; kept is what CRD() decoded (or a CRD without protobuf).
	pb   map[role][]byte
	errs map[role]error

	mu       sync.Mutex
	first    map[role]*apiextensionsv1.CustomResourceDefinition
	kept     map[role]*apiextensionsv1.CustomResourceDefinition
	versions map[versionKey]*versionValidator
}

// crd is the CRD of role r for a build, which must not keep it; keep
// says to hold it for later calls (CRD()).
func (b *built) crd(r role, keep bool) (*apiextensionsv1.CustomResourceDefinition, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c := b.kept[r]; c != nil {
		return c, nil
	}
	c := b.first[r]
	delete(b.first, r)
	if c == nil && b.pb[r] != nil {
		c = &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Unmarshal(b.pb[r]); err != nil {
			return nil, fmt.Errorf("decoding the definition again: %w", err) // (it decoded once: not seen)
		}
	}
	if c == nil {
		return nil, b.errs[r]
	}
	if keep {
		b.kept[r] = c
	}
	return c, nil
}

type versionKey struct {
	role    role
	version string
}

// versionValidator is everything the API server builds to serve one
// version of a CRD.
type versionValidator struct {
	once       sync.Once
	scope      Scope
	gvk        GVK
	structural *structuralschema.Structural // with defaults pruned, as served
	validator  *openAPIValidator
	cel        *cel.Validator
	preserve   bool // spec.preserveUnknownFields: no pruning
	hasStatus  bool // the status subresource: create drops status
	// nonStructural: structural is usable for pruning and defaulting but
	// is not a valid structural schema (err says why).
	nonStructural bool
	err           error // the schema cannot be served
	// invalid says why the API server would refuse the CRD Crossplane
	// derives from an XRD ("" when it would not): Crossplane then never
	// establishes the kind.
	invalid string
}

// builds counts structural schema builds, for tests.
var builds atomic.Int64

func (b *built) load() {
	b.once.Do(func() {
		b.errs = map[role]error{}
		b.kept = map[role]*apiextensionsv1.CustomResourceDefinition{}
		text := b.text
		b.text = nil // the build keeps what it derives, not the text
		if b.readErr != nil {
			b.errs[roleMain], b.errs[roleClaim] = b.readErr, b.readErr
			return
		}
		e := decodeDefinition(b.kind, text)
		b.errs, b.pb = e.errs, e.pb
		b.mu.Lock()
		b.first = e.crds
		for r, crd := range e.crds {
			if b.pb[r] == nil {
				b.kept[r] = crd // not encoded (normalize failed): kept as decoded
			}
		}
		b.mu.Unlock()
	})
}

// decodeText decodes a definition document's YAML: a CRD or MRD to its
// CRD, an XRD to the CRDs of its composite resource and claim.
func decodeText(kind defKind, text []byte) *decodedEntry {
	e := &decodedEntry{crds: map[role]*apiextensionsv1.CustomResourceDefinition{}, errs: map[role]error{}}
	switch kind {
	case defCRD, defMRD:
		// An MRD's spec mirrors a CRD's; its apiVersion and kind are
		// not read by the conversion.
		var crd apiextensionsv1.CustomResourceDefinition
		if err := sigsyaml.Unmarshal(text, &crd); err != nil {
			e.errs[roleMain] = fmt.Errorf("reading the definition: %w", err)
			return e
		}
		e.crds[roleMain] = &crd
	case defXRD:
		var obj map[string]any
		if err := sigsyaml.Unmarshal(text, &obj); err != nil {
			e.errs[roleMain] = fmt.Errorf("reading the XRD: %w", err)
			e.errs[roleClaim] = e.errs[roleMain]
			return e
		}
		if xr, err := xcrd.ForCompositeResource(obj); err != nil {
			e.errs[roleMain] = fmt.Errorf("deriving the composite resource schema: %w", err)
		} else {
			e.crds[roleMain] = xr
		}
		if claim, err := xcrd.ForCompositeResourceClaim(obj); err != nil {
			e.errs[roleClaim] = fmt.Errorf("deriving the claim schema: %w", err)
		} else {
			e.crds[roleClaim] = claim
		}
	}
	return e
}

func (sc *Schema) validatorFor() *versionValidator {
	b := sc.def.built()
	b.load()
	key := versionKey{sc.role, sc.GVK.Version}
	b.mu.Lock()
	if b.versions == nil {
		b.versions = map[versionKey]*versionValidator{}
	}
	vv := b.versions[key]
	if vv == nil {
		vv = &versionValidator{}
		b.versions[key] = vv
	}
	b.mu.Unlock()
	vv.once.Do(func() {
		crd, err := b.crd(sc.role, false)
		if crd == nil {
			vv.err = err
			if vv.err == nil {
				vv.err = fmt.Errorf("%s defines no schema for %s", sc.CRDName, sc.GVK)
			}
			return
		}
		vv.build(crd, sc.GVK)
		if sc.def.kind == defXRD {
			vv.invalid = derivedInvalid(crd)
		}
	})
	return vv
}

// derivedInvalid runs the API server's CRD validation on a CRD derived
// from an XRD and says, in a few words, why it fails ("" when it passes).
func derivedInvalid(crd *apiextensionsv1.CustomResourceDefinition) string {
	crd = crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	var internal apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, &internal, nil); err != nil {
		return err.Error()
	}
	errs := apiextensionsvalidation.ValidateCustomResourceDefinition(context.Background(), &internal)
	var kept []string
	for _, e := range errs {
		if strings.HasPrefix(e.Field, "status.") {
			continue // storedVersions: what creating it fills in
		}
		kept = append(kept, e.Error())
	}
	switch len(kept) {
	case 0:
		return ""
	case 1:
		return kept[0]
	}
	return fmt.Sprintf("%s (and %d more)", kept[0], len(kept)-1)
}

// Invalid says why the definition of this kind is one the API server
// refuses (an XRD whose derived CRD fails the API server's validation:
// Crossplane never establishes the kind); "" when it is not.
func (sc *Schema) Invalid() string {
	if sc.def == nil || sc.def.kind != defXRD {
		return ""
	}
	return sc.validatorFor().invalid
}

// build does what the API server's CRD handler does to serve a version:
// convert the v1 schema to the internal type, make it structural, prune
// defaults, and build the OpenAPI schema validator and CEL validator.
func (vv *versionValidator) build(crd *apiextensionsv1.CustomResourceDefinition, gvk GVK) {
	builds.Add(1)
	vv.gvk = gvk
	vv.scope = Cluster
	if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
		vv.scope = Namespaced
	}
	vv.preserve = crd.Spec.PreserveUnknownFields
	var v1val *apiextensionsv1.CustomResourceValidation
	found := false
	for i := range crd.Spec.Versions {
		if v := &crd.Spec.Versions[i]; v.Name == gvk.Version {
			v1val, found = v.Schema, true
			vv.hasStatus = v.Subresources != nil && v.Subresources.Status != nil
		}
	}
	if !found {
		vv.err = fmt.Errorf("%s has no version %s", crd.Name, gvk.Version)
		return
	}
	if v1val == nil || v1val.OpenAPIV3Schema == nil {
		// No schema: the API server accepts anything (and prunes nothing
		// only with preserveUnknownFields; v1 CRDs must have a schema, which
		// ValidateCRD reports).
		vv.preserve = true
		vv.structural = &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Extensions: structuralschema.Extensions{XPreserveUnknownFields: true}}
		return
	}
	var internal apiextensions.CustomResourceValidation
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v1val, &internal, nil); err != nil {
		vv.err = fmt.Errorf("converting the schema: %w", err)
		return
	}
	_, openapi, err := validation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		vv.err = fmt.Errorf("building the schema validator: %w", err)
		return
	}
	vv.validator = newOpenAPIValidator(openapi)
	ss, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		vv.err = fmt.Errorf("the schema is not structural: %w", err)
		return
	}
	// PruneDefaults prunes default values in place, and NewStructural
	// shares them with the internal schema: the API server deep-copies the
	// whole structural schema first; copying the defaults alone (all that
	// PruneDefaults changes besides ss's own property maps) does the same.
	copyDefaults(ss)
	if err := structuraldefaulting.PruneDefaults(ss); err != nil {
		vv.err = fmt.Errorf("pruning defaults: %w", err)
		return
	}
	vv.structural = ss
	if errs := structuralschema.ValidateStructural(nil, ss); len(errs) > 0 {
		// The API server would not have accepted this CRD (ValidateCRD
		// says why). Prune, default and validate with what there is; CEL
		// rules need a structural schema.
		vv.err = fmt.Errorf("the schema is not structural: %v", errs.ToAggregate())
		vv.nonStructural = true
		return
	}
	vv.cel = cel.NewValidator(ss, true, celconfig.PerCallLimit)
}

// copyDefaults replaces every default value of s, where PruneDefaults
// looks (properties, items, additionalProperties), by a deep copy, and
// reports whether there was one.
func copyDefaults(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	found := false
	if s.Default.Object != nil {
		s.Default.Object = runtime.DeepCopyJSONValue(s.Default.Object)
		found = true
	}
	found = copyDefaults(s.Items) || found
	if s.AdditionalProperties != nil {
		found = copyDefaults(s.AdditionalProperties.Structural) || found
	}
	for k, p := range s.Properties {
		if copyDefaults(&p) {
			s.Properties[k] = p // a property is held by value
			found = true
		}
	}
	return found
}

// Structural returns the structural schema of this GVK as the API server
// serves it (defaults pruned), built on first use and cached by the content
// digest of the defining document. Callers must not modify it.
func (sc *Schema) Structural() (*structuralschema.Structural, error) {
	vv := sc.validatorFor()
	if vv.invalid != "" {
		return nil, fmt.Errorf("%s is invalid: %s", sc.CRDName, vv.invalid)
	}
	if vv.structural == nil || vv.nonStructural {
		return nil, vv.err
	}
	return vv.structural, nil
}

// CRD returns the CustomResourceDefinition this schema belongs to: the
// document itself for a CRD or MRD, the derived XR or claim CRD for an XRD.
// Callers must not modify it.
func (sc *Schema) CRD() (*apiextensionsv1.CustomResourceDefinition, error) {
	b := sc.def.built()
	b.load()
	return b.crd(sc.role, true)
}

// Validate checks obj (a JSON-compatible value: map[string]any, []any,
// string, int64, float64, bool, nil) as the API server would on create. obj
// is not modified. The result is sorted by path, then message.
func (sc *Schema) Validate(ctx context.Context, obj map[string]any) []Error {
	return sc.validate(ctx, obj, false)
}

// ValidateThrough is Validate, but the CEL rules the API server skips on
// an object with blocking errors (a missing required field, a wrong type)
// are evaluated all the same and their findings marked Deferred: one
// mistake does not hide another that the API server would report once it
// is fixed. For what a Composition composes, whose mistakes are found in
// one pass of the editor.
func (sc *Schema) ValidateThrough(ctx context.Context, obj map[string]any) []Error {
	return sc.validate(ctx, obj, true)
}

func (sc *Schema) validate(ctx context.Context, obj map[string]any, through bool) []Error {
	vv := sc.validatorFor()
	if vv.invalid != "" {
		// One mistake, one finding: the XRD's own errors say what is
		// wrong; objects of its kind are not judged by a schema Crossplane
		// never serves.
		return []Error{{OnKey: true, Severity: severity.Warning, Code: "invalid-definition",
			Message: fmt.Sprintf("not checked: the XRD %s that defines %s %s is invalid (see its own findings): Crossplane cannot create its CRD, so the kind is not served until the XRD is fixed", sourceName(sc.Source), sc.GVK.APIVersion(), sc.GVK.Kind)}}
	}
	if vv.validator == nil && vv.structural == nil {
		return []Error{{OnKey: true, Severity: severity.Warning, Code: "schema",
			Message: fmt.Sprintf("cannot validate against %s from %s: %v", sc.GVK, sourceName(sc.Source), vv.err)}}
	}
	out := validateObject(ctx, vv, obj, through)
	if sc.Source.Kind == SourceBuiltin {
		out = builtinTypes(vv, obj, out)
		out = laterFields(sc, out)
	}
	if sc.kubeValidated() {
		out = withKubeValidation(ctx, obj, out)
	}
	return out
}

func sourceName(s Source) string {
	if s.Name != "" {
		return s.Name
	}
	return s.File
}
