package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/severity"
)

// sizedWidgetCRD defines example.org/v1 Widget with spec.size of the given type.
func sizedWidgetCRD(sizeType string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.org
spec:
  group: example.org
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: {type: ` + sizeType + `}
`
}

// Two versions of one configuration in a workspace each validate their
// own examples: the definition nearest the document in the folder tree
// wins. The document's name is the editor's URI (escaped: a space,
// non-ASCII) or the CLI's path, and both pick the same definition.
func TestNearestDefinitionUnderEscapedFolders(t *testing.T) {
	for _, tc := range []struct{ dir, uriDir string }{
		{"/w/my proj", "/w/my%20proj"},
		{"/w/café", "/w/caf%C3%A9"},
		{"/w/plain", "/w/plain"},
	} {
		store := schemas.NewStore().WithFiles([]schemas.FileInput{
			{Source: schemas.Source{Kind: schemas.SourceWorkspace}, Path: tc.dir + "/v1/crd.yaml", Content: []byte(sizedWidgetCRD("integer"))},
			{Source: schemas.Source{Kind: schemas.SourceWorkspace}, Path: tc.dir + "/v2/crd.yaml", Content: []byte(sizedWidgetCRD("string"))},
		})
		env := Env{Workspace: Workspace{Schemas: store, CrossplaneMajor: 2}}
		text := "apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  size: large\n"
		for _, name := range []string{"file://" + tc.uriDir + "/v2/widget.yaml", tc.dir + "/v2/widget.yaml"} {
			diags := Diagnose(context.Background(), document.Parse(name, 1, []byte(text)), env)
			for _, d := range diags {
				if d.Severity <= severity.Warning {
					t.Errorf("%s: validated against v1's integer size, not the nearer v2's string: %s", name, d.Message)
				}
			}
		}
		// The example next to v1 is held to v1's definition.
		name := "file://" + tc.uriDir + "/v1/widget.yaml"
		diags := Diagnose(context.Background(), document.Parse(name, 1, []byte(text)), env)
		if len(diags) == 0 || !strings.Contains(diags[0].Message, "integer") {
			t.Errorf("%s: want v1's type error on spec.size, got %+v", name, diags)
		}
	}
}
