// This file adds to the findings on a built-in Kubernetes kind what
// kube-apiserver's own create validation says of it
// (internal/kubevalidation: the strategy's Validate, pkg/apis/<group>/validation),
// at the Kubernetes minor whose code crd-lsp links.

package schemas

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/kubevalidation"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/yamlflow"
)

// CodeKubernetes is the code of a finding of Kubernetes' own validation
// of a built-in kind (a missing field keeps the code "required", one on
// metadata the code "metadata").
const CodeKubernetes = "k8s-validation"

// KubernetesValidationMinor is the Kubernetes minor whose kube-apiserver
// validation crd-lsp runs on built-in kinds: only schemas of that minor
// get it (the code of one release is linked; another minor's rules
// differ).
const KubernetesValidationMinor = kubevalidation.Minor

// KubernetesValidates reports whether Validate runs kube-apiserver's own
// create validation on obj: a built-in Kubernetes kind of the linked
// minor whose validation is linked. Its findings then stand for
// Kubernetes' declarative rules too (the API server runs them as part of
// that validation).
func (sc *Schema) KubernetesValidates(obj map[string]any) bool {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	return sc.kubeValidated() && kubevalidation.Handles(av, k)
}

// kubeValidated reports whether objects of sc's kind get kube-apiserver's
// own validation: a built-in Kubernetes schema of the linked minor.
func (sc *Schema) kubeValidated() bool {
	return sc.Source.Kind == SourceBuiltin && sc.Source.Kubernetes != nil && sc.Source.Kubernetes.Minor == kubevalidation.Minor
}

// withKubeValidation adds what kube-apiserver's create validation says of
// obj to the schema's findings out: one finding per mistake, so an error
// at a path the schema already reports on is left to the schema's
// finding (on metadata, the strategy's own name rule replaces the
// generic ObjectMeta one, as the API server reports only it).
func withKubeValidation(ctx context.Context, obj map[string]any, out []Error) []Error {
	res, ok := kubevalidation.Validate(ctx, obj)
	if !ok {
		return out
	}
	switch {
	case res.Panic != "":
		out = append(out, Error{OnKey: true, Severity: severity.Warning, Code: CodeKubernetes,
			Message: "kube-apiserver's own validation of this object panicked (the API server answers such a request with an internal error): " + res.Panic})
	case res.Failed != nil:
		out = append(out, Error{OnKey: true, Severity: severity.Warning, Code: CodeKubernetes,
			Message: "kube-apiserver's own validation of this object could not complete: " + res.Failed.Error()})
	case res.DecodeError != nil:
		for _, e := range out {
			if e.Severity == severity.Error {
				return out // the schema's findings say why it does not decode
			}
		}
		out = append(out, kubeDecodeError(obj, res.DecodeError))
	default:
		out = mergeKube(withoutOpenAPIOnly(out), kubeErrors(obj, res.Errors))
	}
	sortErrors(out)
	// A generated name's errors are generateName's, said once.
	return dedupe(out)
}

// kubeDecodeError is the API server's refusal to decode obj into its Go type,
// on the field it names when it names one.
func kubeDecodeError(obj map[string]any, err error) Error {
	msg := err.Error()
	if e, ok := structFieldError(obj, msg); ok {
		e.Code = CodeKubernetes
		return e
	}
	return Error{OnKey: true, Severity: severity.Error, Code: CodeKubernetes, Message: "the API server cannot decode it: " + msg}
}

// kubeErrors converts the API server's field errors.
func kubeErrors(obj map[string]any, errs field.ErrorList) []Error {
	r := &resolver{in: obj}
	meta, _ := obj["metadata"].(map[string]any)
	generated := false
	if meta != nil {
		name, _ := meta["name"].(string)
		gen, _ := meta["generateName"].(string)
		generated = name == "" && gen != ""
	}
	out := make([]Error, 0, len(errs))
	for _, fe := range errs {
		if generated && fe.Field == "metadata.name" {
			// The name the registry generated from generateName:
			// generateName is what the user wrote.
			c := *fe
			c.Field, c.BadValue = "metadata.generateName", meta["generateName"]
			fe = &c
		}
		out = append(out, r.kubeError(fe))
	}
	return out
}

// kubeError is one field error of kube-apiserver's validation, worded as
// the API server words it after the path ("Unsupported value: "udp":
// supported values: …"), placed by the conventions of Error: a missing
// field on its object's key, naming the field; anything else on the
// value (the key of an object or a list).
func (r *resolver) kubeError(fe *field.Error) (e Error) {
	defer func() { e.Message = clipMessage(e.Message) }()
	p := r.resolve(fe.Field)
	e = Error{Severity: severity.Error, Path: p, Code: CodeKubernetes}
	if fe.Type == field.ErrorTypeRequired {
		e.Code = "required"
		last, ok := p.Last()
		parent, _ := r.at(p.Parent()).(map[string]any)
		v, present := parent[last.Field]
		if ok && last.Kind == fieldpath.KindField && !present {
			e.Path, e.OnKey, e.Field = p.Parent(), true, last.Field
			e.Message = fmt.Sprintf("missing required field %q", last.Field)
			if fe.Detail != "" {
				e.Message += ": " + fe.Detail
			}
			return e
		}
		if present {
			// Set, but to what Go's zero value is: unset to the API
			// server.
			e.Message = fmt.Sprintf("Required value: %s counts as unset", yamlflow.Value(v))
			if fe.Detail != "" {
				e.Message += ": " + fe.Detail
			}
			return e
		}
	}
	msg := fe.Type.String()
	if v, ok := badValue(fe); ok {
		msg += ": " + v
	}
	if fe.Detail != "" {
		msg += ": " + fe.Detail
	}
	e.Message = msg
	if len(p) > 0 && p[0] == fieldpath.Field("metadata") {
		e.Code = "metadata" // the ObjectMeta rules' code, whoever applies them
	}
	switch r.at(p).(type) {
	case map[string]any, []any:
		e.OnKey = true
	}
	r.refineMapEntry(&e, fe.BadValue)
	r.refineEntry(&e, fe.BadValue)
	return e
}

// refineEntry positions an error kube-apiserver reports on a whole map
// (a container's resources.requests, a nodeSelector) on the one entry
// whose key or value is the bad value.
func (r *resolver) refineEntry(e *Error, bad any) {
	m, ok := r.at(e.Path).(map[string]any)
	if !ok || !isScalar(bad) {
		return
	}
	want := fmt.Sprint(bad)
	if _, isKey := m[want]; isKey {
		e.Path, e.OnKey = e.Path.Child(fieldpath.Field(want)), true
		return
	}
	found := ""
	for k, v := range m {
		if isScalar(v) && fmt.Sprint(v) == want {
			if found != "" {
				return // two entries hold it: the map it is
			}
			found = k
		}
	}
	if found != "" {
		e.Path, e.OnKey = e.Path.Child(fieldpath.Field(found)), false
	}
}

// badValue quotes the value a field error is about as field.Error does
// (the types that print it), in flow form and bounded.
func badValue(fe *field.Error) (quoted string, ok bool) {
	defer func() {
		if recover() != nil { // an internal type that refuses to be marshalled
			quoted, ok = "", false
		}
	}()
	switch fe.Type {
	case field.ErrorTypeInvalid, field.ErrorTypeTypeInvalid, field.ErrorTypeNotSupported, field.ErrorTypeNotFound, field.ErrorTypeDuplicate, field.ErrorTypeTooMany, field.ErrorTypeTooFew:
	default:
		return "", false
	}
	if _, omitted := fe.BadValue.(field.OmitValueType); omitted {
		return "", false
	}
	b, err := json.Marshal(fe.BadValue)
	if err != nil {
		return "", false
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", false
	}
	return yamlflow.Value(v), true
}

// openAPIOnly are the codes of schema findings kube-apiserver does not
// make of a built-in kind that decodes: it checks no OpenAPI schema. Its
// typed decoding refuses wrong types and formats (the object then does
// not decode, and these findings stay), its strict field validation
// unknown fields (kept); required fields, enums, patterns, ranges,
// lengths and list keys are its hand-written and declarative
// validation's business, which says them itself; and its strategy
// applies its own ObjectMeta rules (a Role's name is any path segment, a
// Service's a DNS label) instead of the generic ones (code "metadata").
var openAPIOnly = map[string]bool{"type": true, "format": true, "required": true, "enum": true, "pattern": true, "range": true, "length": true, "duplicate": true, "metadata": true, "invalid": true}

// withoutOpenAPIOnly drops the schema's errors kube-apiserver does not
// make of a built-in object that decodes (openAPIOnly).
func withoutOpenAPIOnly(out []Error) []Error {
	kept := out[:0]
	for _, e := range out {
		if e.Severity == severity.Error && openAPIOnly[e.Code] && !strings.HasPrefix(e.Message, "invalid metadata: ") {
			continue
		}
		kept = append(kept, e)
	}
	return kept
}

// mergeKube adds the API server's findings kube to the schema's out,
// one per mistake: a finding at a path the schema already reports on
// (the same field, for a missing one; the list item, for a duplicate
// key) is the schema's, except on metadata, where the strategy's own rule
// replaces the generic ObjectMeta finding.
func mergeKube(out, kube []Error) []Error {
	subject := func(e Error) string {
		if e.Code == "required" && e.Field != "" {
			return e.Path.Child(fieldpath.Field(e.Field)).String()
		}
		return e.Path.String()
	}
	said := map[string]int{}
	for i, e := range out {
		if e.Severity == severity.Error {
			said[subject(e)] = i
		}
	}
	drop := map[int]bool{}
	var added []Error
	for _, k := range kube {
		s := subject(k)
		if i, ok := said[s]; ok {
			if len(k.Path) > 0 && k.Path[0] == fieldpath.Field("metadata") && out[i].Code == "metadata" {
				drop[i] = true
				added = append(added, k)
			}
			continue
		}
		if strings.HasPrefix(k.Message, field.ErrorTypeDuplicate.String()) && len(k.Path) > 1 {
			if i, ok := said[k.Path.Parent().String()]; ok && out[i].Code == "duplicate" {
				continue // the list-map's duplicate key, said on the item
			}
		}
		added = append(added, k)
	}
	kept := out[:0]
	for i, e := range out {
		if !drop[i] {
			kept = append(kept, e)
		}
	}
	return append(kept, added...)
}
