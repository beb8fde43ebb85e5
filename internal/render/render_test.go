package render

import (
	"reflect"
	"strings"
	"testing"
)

// TestComposedMetadata holds ComposedMetadata to Crossplane's
// RenderComposedResourceMetadata (v2.2.1 composition_render.go) and
// crossplane render's SetComposedResourceMetadata.
func TestComposedMetadata(t *testing.T) {
	xr := func(labels map[string]any) map[string]any {
		md := map[string]any{"name": "child-abc", "namespace": "team", "uid": "u-xr"}
		if labels != nil {
			md["labels"] = labels
		}
		return map[string]any{"apiVersion": "example.org/v1", "kind": "XChild", "metadata": md}
	}
	owner := map[string]any{"apiVersion": "example.org/v1", "kind": "XChild", "name": "child-abc", "uid": "u-xr", "controller": true, "blockOwnerDeletion": true}
	for _, tc := range []struct {
		name    string
		md      map[string]any
		xr      map[string]any
		want    map[string]any
		wantErr string
	}{
		{"no name: generated after the XR", map[string]any{}, xr(nil), map[string]any{
			"generateName": "child-abc-", "namespace": "team",
			"annotations": map[string]any{"crossplane.io/composition-resource-name": "db"},
			"labels":      map[string]any{"crossplane.io/composite": "child-abc"}, "ownerReferences": []any{owner}}, ""},
		{"empty and null names count as none", map[string]any{"name": nil}, xr(nil), map[string]any{
			"generateName": "child-abc-", "namespace": "team",
			"annotations": map[string]any{"crossplane.io/composition-resource-name": "db"},
			"labels":      map[string]any{"crossplane.io/composite": "child-abc"}, "ownerReferences": []any{owner}}, ""},
		{"a nested XR: the root's name", map[string]any{"name": "", "labels": map[string]any{"app": "x"}}, xr(map[string]any{"crossplane.io/composite": "root", "crossplane.io/claim-name": "c", "crossplane.io/claim-namespace": "ns"}), map[string]any{
			"generateName": "root-", "namespace": "team",
			"annotations": map[string]any{"crossplane.io/composition-resource-name": "db"},
			"labels":      map[string]any{"app": "x", "crossplane.io/composite": "root", "crossplane.io/claim-name": "c", "crossplane.io/claim-namespace": "ns"}, "ownerReferences": []any{owner}}, ""},
		{"own owner references kept, the controller appended", map[string]any{"name": "fixed", "ownerReferences": []any{map[string]any{"kind": "Other", "name": "o", "uid": "u-other"}}}, xr(nil), map[string]any{
			"name": "fixed", "namespace": "team",
			"annotations":     map[string]any{"crossplane.io/composition-resource-name": "db"},
			"labels":          map[string]any{"crossplane.io/composite": "child-abc"},
			"ownerReferences": []any{map[string]any{"kind": "Other", "name": "o", "uid": "u-other"}, owner}}, ""},
		{"another controller", map[string]any{"name": "fixed", "ownerReferences": []any{map[string]any{"kind": "Other", "name": "o", "uid": "u-other", "controller": true}}}, xr(nil), nil,
			"fixed is already controlled by Other o (UID u-other)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := map[string]any{"metadata": tc.md}
			err := ComposedMetadata(obj, "db", tc.xr, true)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(obj["metadata"], tc.want) {
				t.Errorf("metadata\n got %v\nwant %v", obj["metadata"], tc.want)
			}
		})
	}
}
