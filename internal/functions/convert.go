// This file converts between plain Go values and the function protocol's
// protobuf types, as Crossplane and function-go-templating do.

package functions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/crd-lsp/crd-lsp/internal/jsonnum"
)

// ToStruct converts a decoded YAML/JSON object into a protobuf Struct, as
// Crossplane sends objects to functions.
func ToStruct(m map[string]any) (*structpb.Struct, error) {
	if m == nil {
		return nil, nil
	}
	if s, err := structpb.NewStruct(m); err == nil {
		return s, nil
	}
	// Values structpb does not know (typed maps or slices): through JSON.
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	s := &structpb.Struct{}
	if err := protojson.Unmarshal(b, s); err != nil {
		return nil, err
	}
	return s, nil
}

// FromStruct converts a Struct into a plain object the way Crossplane reads
// a function's response (protojson, then JSON into unstructured): whole
// numbers become int64, others float64.
func FromStruct(s *structpb.Struct) map[string]any {
	if s == nil {
		return nil
	}
	m, _ := jsonnum.NormalizeDoubles(s.AsMap()).(map[string]any)
	return m
}

// Tag identifies a request as Crossplane's does: the SHA-256 of its
// deterministic protobuf encoding.
func Tag(req *fnv1.RunFunctionRequest) string {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func toResource(r Resource) (*fnv1.Resource, error) {
	s, err := ToStruct(r.Object)
	if err != nil {
		return nil, err
	}
	out := &fnv1.Resource{Resource: s, ConnectionDetails: r.ConnectionDetails}
	switch r.Ready {
	case ReadyTrue:
		out.Ready = fnv1.Ready_READY_TRUE
	case ReadyFalse:
		out.Ready = fnv1.Ready_READY_FALSE
	}
	return out, nil
}

func fromResource(r *fnv1.Resource) Resource {
	out := Resource{Object: FromStruct(r.GetResource()), ConnectionDetails: r.GetConnectionDetails()}
	switch r.GetReady() {
	case fnv1.Ready_READY_TRUE:
		out.Ready = ReadyTrue
	case fnv1.Ready_READY_FALSE:
		out.Ready = ReadyFalse
	}
	return out
}

// ToState converts a plain State into the protocol's.
func ToState(s State) (*fnv1.State, error) {
	out := &fnv1.State{}
	if s.Composite.Object != nil || s.Composite.ConnectionDetails != nil || s.Composite.Ready != "" {
		c, err := toResource(s.Composite)
		if err != nil {
			return nil, fmt.Errorf("composite: %w", err)
		}
		out.Composite = c
	}
	if len(s.Resources) > 0 {
		out.Resources = make(map[string]*fnv1.Resource, len(s.Resources))
		for name, r := range s.Resources {
			pr, err := toResource(r)
			if err != nil {
				return nil, fmt.Errorf("resource %q: %w", name, err)
			}
			out.Resources[name] = pr
		}
	}
	return out, nil
}

// FromState converts the protocol's State into a plain one.
func FromState(s *fnv1.State) State {
	out := State{Resources: map[string]Resource{}}
	if c := s.GetComposite(); c != nil {
		out.Composite = fromResource(c)
	}
	for name, r := range s.GetResources() {
		out.Resources[name] = fromResource(r)
	}
	return out
}

func contextStruct(m map[string]any) (*structpb.Struct, error) {
	if m == nil {
		return &structpb.Struct{Fields: map[string]*structpb.Value{}}, nil
	}
	return ToStruct(m)
}

// RequestData is a request as function-go-templating's templates see it
// (its convertToMap): the protojson form of the whole request (observed,
// desired, context, input, credentials with base64 data, extra and
// required resources, meta), decoded with whole numbers as int64.
func RequestData(req *fnv1.RunFunctionRequest) (map[string]any, error) {
	b, err := protojson.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("cannot marshal request from proto to json: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("cannot unmarshal json to map[string]any: %w", err)
	}
	v, _ := jsonnum.Normalize(m)
	m, _ = v.(map[string]any)
	return m, nil
}
