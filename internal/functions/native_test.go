package functions

import (
	"context"
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestRequestData: the request as function-go-templating's templates see
// it: protojson names, whole numbers as int64, credentials' bytes as
// base64, required resources also under extraResources.
func TestRequestData(t *testing.T) {
	xr, _ := structpb.NewStruct(map[string]any{"apiVersion": "example.org/v1", "kind": "XR", "spec": map[string]any{"count": 3, "ratio": 0.5}})
	item, _ := structpb.NewStruct(map[string]any{"kind": "ConfigMap"})
	req := &fnv1.RunFunctionRequest{
		Observed:          &fnv1.State{Composite: &fnv1.Resource{Resource: xr, ConnectionDetails: map[string][]byte{"pw": []byte("s3cret")}}},
		Credentials:       map[string]*fnv1.Credentials{"c": {Source: &fnv1.Credentials_CredentialData{CredentialData: &fnv1.CredentialData{Data: map[string][]byte{"k": []byte("v")}}}}},
		RequiredResources: map[string]*fnv1.Resources{"cm": {Items: []*fnv1.Resource{{Resource: item}}}},
	}
	m, err := RequestData(req)
	if err != nil {
		t.Fatal(err)
	}
	get := func(v any, keys ...string) any {
		for _, k := range keys {
			v = v.(map[string]any)[k]
		}
		return v
	}
	if got := get(m, "observed", "composite", "resource", "spec", "count"); got != int64(3) {
		t.Errorf("count: %#v", got)
	}
	if got := get(m, "observed", "composite", "resource", "spec", "ratio"); got != 0.5 {
		t.Errorf("ratio: %#v", got)
	}
	if got := get(m, "observed", "composite", "connectionDetails", "pw"); got != "czNjcmV0" {
		t.Errorf("connection details: %#v", got)
	}
	if got := get(m, "credentials", "c", "credentialData", "data", "k"); got != "dg==" {
		t.Errorf("credentials: %#v", got)
	}
	if got := get(m, "requiredResources", "cm", "items").([]any); len(got) != 1 {
		t.Errorf("requiredResources: %#v", got)
	}
	// Offering them as extraResources too is function-go-templating's
	// (v0.12.0 on), not the protocol's.
	if _, ok := m["extraResources"]; ok {
		t.Errorf("extraResources: %#v", m["extraResources"])
	}
}

// TestNativeRequirements: a native runner's requirements are fetched and
// the step is called again with them, as Crossplane does for a function.
func TestNativeRequirements(t *testing.T) {
	calls := 0
	native := Native(func(_ context.Context, _ Step, req NativeRequest) (NativeResponse, error) {
		calls++
		d := req.Desired
		rsp := NativeResponse{Desired: d, Requirements: []Selector{{Name: "cms", APIVersion: "v1", Kind: "ConfigMap", MatchLabels: map[string]string{"app": "x"}}}}
		if items := req.RequiredResources["cms"]; len(items) > 0 {
			d.Resources["found"] = Resource{Object: items[0]}
		}
		return rsp, nil
	})
	comp := map[string]any{"spec": map[string]any{"pipeline": []any{map[string]any{"step": "s", "functionRef": map[string]any{"name": "f"}}}}}
	resources := []map[string]any{
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "labels": map[string]any{"app": "x"}}},
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "b", "labels": map[string]any{"app": "y"}}},
	}
	out := Run(context.Background(), Input{Composition: comp, XR: map[string]any{"apiVersion": "example.org/v1", "kind": "XR"}, Resources: resources,
		Route: func(Step) (Runner, string) { return native, "native" }, Timeout: time.Minute})
	if out.Stopped != -1 || calls != 2 {
		t.Fatalf("stopped %d after %d calls: %+v", out.Stopped, calls, out.Steps)
	}
	if got := out.Desired.Resources["found"].Object["metadata"].(map[string]any)["name"]; got != "a" {
		t.Errorf("found %v", got)
	}
}
