// This file validates an object with kube-openapi's validator, as the API
// server's create path does, caching child validators.

package schemas

import (
	"sync"
	"sync/atomic"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// maxCachedValidators bounds the field and item validators one version
// keeps (a few hundred bytes each): objects with many distinct map keys or
// long lists stop adding to the cache and are validated as the API server
// does, building what they need.
const maxCachedValidators = 2048

// openAPIValidator validates an object as the API server's create path
// does — kube-openapi's SchemaValidator over the converted schema (what
// validation.NewSchemaValidator returns; without an old object,
// ratcheting validates exactly so) — but keeps the validator kube-openapi
// builds for each field and list item of the objects it has seen. The API
// server builds every one of them again for each object, which was about
// a third of crd-lsp's validation of a managed resource.
//
// Reuse is sound because a validator's Validate reads only what its
// constructor set (schema, path, formats, options), and a child is keyed
// by what determines those: its parent and its field name or list index.
// A parent with patternProperties can validate one name against several
// schemas, so its children are not cached.
type openAPIValidator struct {
	root   *validate.SchemaValidator
	cached atomic.Int64
}

func newOpenAPIValidator(schema *spec.Schema) *openAPIValidator {
	v := &openAPIValidator{}
	v.root = v.build(schema, nil, "", strfmt.Default)
	return v
}

// Validate implements validation.SchemaCreateValidator.
func (v *openAPIValidator) Validate(obj any, _ ...validation.ValidationOption) *validate.Result {
	return v.root.Validate(obj)
}

// validatorNode holds the children of one schema validator.
type validatorNode struct {
	v        *openAPIValidator
	patterns bool
	mu       sync.Mutex
	fields   map[string]*validate.SchemaValidator
	items    map[int]*validate.SchemaValidator
}

func (v *openAPIValidator) build(schema *spec.Schema, root any, path string, formats strfmt.Registry) *validate.SchemaValidator {
	n := &validatorNode{v: v, patterns: schema != nil && len(schema.PatternProperties) > 0}
	return validate.NewSchemaValidator(schema, root, path, formats, func(o *validate.SchemaValidatorOptions) {
		o.NewValidatorForField = n.field
		o.NewValidatorForIndex = n.index
	})
}

func (n *validatorNode) field(name string, schema *spec.Schema, root any, path string, formats strfmt.Registry, _ ...validate.Option) validate.ValueValidator {
	if n.patterns {
		return n.v.build(schema, root, path, formats)
	}
	return child(n, &n.fields, name, func() *validate.SchemaValidator { return n.v.build(schema, root, path, formats) })
}

func (n *validatorNode) index(i int, schema *spec.Schema, root any, path string, formats strfmt.Registry, _ ...validate.Option) validate.ValueValidator {
	return child(n, &n.items, i, func() *validate.SchemaValidator { return n.v.build(schema, root, path, formats) })
}

// child is the cached validator of key in *m, built (and kept while the
// cache has room) on first use.
func child[K comparable](n *validatorNode, m *map[K]*validate.SchemaValidator, key K, build func() *validate.SchemaValidator) *validate.SchemaValidator {
	n.mu.Lock()
	defer n.mu.Unlock()
	if c, ok := (*m)[key]; ok {
		return c
	}
	c := build()
	if n.v.cached.Add(1) <= maxCachedValidators {
		if *m == nil {
			*m = map[K]*validate.SchemaValidator{}
		}
		(*m)[key] = c
	}
	return c
}
