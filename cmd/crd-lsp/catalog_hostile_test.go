package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckCatalogSelfReference: a catalog's JSON Schema whose $refs
// point at itself (the root, a definition, a property) serves its kind:
// check validates what the schema says outright (an integer field) and
// accepts anything where only a reference stood; nothing loops.
func TestCheckCatalogSelfReference(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"$schema":"http://json-schema.org/schema#","$ref":"#","definitions":{"node":{"$ref":"#/definitions/node"}},"type":"object","properties":{"spec":{"$ref":"#","type":"object","properties":{"size":{"type":"integer"},"next":{"$ref":"#/properties/spec"},"node":{"$ref":"#/definitions/node"}}}}}`)
	}))
	defer srv.Close()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	f := filepath.Join(dir, "widget.yaml")
	writeFile(t, f, "apiVersion: example.org/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: big\n  next:\n    size: 1\n    next: {size: 2}\n  node: [1, 2]\n")
	code, out, errOut := runCmd(t, "", "check", "--catalog", srv.URL+"/{{.ResourceKind}}.json", dir)
	if code != 1 || !strings.Contains(out, f+`:6:9: error: must be of type integer: "string"`) || strings.Count(out, "error:") != 1 {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}
