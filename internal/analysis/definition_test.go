package analysis

// Definition and references at the analysis layer: each location as
// file:line:col and the text it covers — a kind to its CRD or XRD, a
// Composition's compositeTypeRef and base kinds, fieldPath strings to the
// property that declares the field, patchSetName to its patchSet.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
)

// locations writes one location a line: file:line:col [covered text],
// the file relative to the fixture workspace.
func locations(locs []Location) string {
	var b strings.Builder
	for _, l := range locs {
		rel, err := filepath.Rel(fixtureRoot, l.File.URI)
		if err != nil {
			rel = l.File.URI
		}
		line, col := l.File.Mapper.LineCol(l.Span.Start)
		fmt.Fprintf(&b, "%s:%d:%d [%s]\n", rel, line, col, spanText(l.File, l.Span))
	}
	return b.String()
}

func testDefinition(t *testing.T, env Env, read FileReader) {
	definition := func(f *document.File, off int, env Env) string {
		return locations(Definition(context.Background(), f, off, env, read))
	}
	runFeature(t, "def.yaml", env, []featureCase{
		// internal/lsp's TestDefinitionOfKind, at this layer.
		{name: "kind to its CRD", text: "apiVersion: example.org/v1\nkind: Data‸base\nmetadata:\n  name: orders\n", want: "crd.yaml:7:17 [Database]\n" +
			""},
		{name: "apiVersion to its CRD", text: "apiVersion: exam‸ple.org/v1\nkind: Database\n", want: "crd.yaml:7:17 [Database]\n" +
			""},
		{name: "a field: nothing", text: "apiVersion: example.org/v1\nkind: Database\nspec:\n  eng‸ine: mysql\n", want: ""},
		{name: "built-in kind: no file", text: "apiVersion: v1\nkind: Config‸Map\n", want: ""},
		{name: "XR kind to its XRD", text: "apiVersion: database.example.org/v1alpha1\nkind: XPostgreSQL‸Instance\n", want: "xrd.yaml:8:11 [XPostgreSQLInstance]\n" +
			""},
		{name: "claim kind to its XRD's claimNames", text: "apiVersion: database.example.org/v1alpha1\nkind: PostgreSQL‸Instance\n", want: "xrd.yaml:11:11 [PostgreSQLInstance]\n" +
			""},
	}, definition)
}

// rdsLocations are where the RDS CRD declares what the definition cases
// jump to (file:line:col): its kind, and v1beta1's
// spec.forProvider.allocatedStorage and status.atProvider.address.
type rdsLocations struct{ kind, allocatedStorage, address string }

// excerptRDS are those of feature_test.go's rdsCRD.
var excerptRDS = rdsLocations{kind: "rds.yaml:13:11", allocatedStorage: "rds.yaml:53:19", address: "rds.yaml:95:19"}

// testDefinitionComposition: internal/lsp's TestCompositionNavigation and
// TestDefinitionFromCompositeTypeRef, at this layer.
func testDefinitionComposition(t *testing.T, env Env, read FileReader, rds rdsLocations) {
	definition := func(f *document.File, off int, env Env) string {
		return locations(Definition(context.Background(), f, off, env, read))
	}
	at := func(old, marked string) string { return replaceOnce(hoverComposition, old, marked) }
	runFeature(t, "composition.yaml", env, []featureCase{
		{name: "compositeTypeRef kind to the XRD", text: at("kind: XPostgreSQLInstance", "kind: XPostgreSQL‸Instance"), want: "xrd.yaml:8:11 [XPostgreSQLInstance]\n" +
			""},
		{name: "base kind to the CRD", text: at("kind: Instance", "kind: Inst‸ance"), want: rds.kind + " [Instance]\n" +
			""},
		{name: "fromFieldPath to the XRD property", text: at("fromFieldPath: spec.parameters.storageGB", "fromFieldPath: spec.parameters.stor‸ageGB"), want: "xrd.yaml:27:21 [storageGB]\n" +
			""},
		{name: "toFieldPath to the CRD property", text: at("toFieldPath: spec.forProvider.allocatedStorage", "toFieldPath: spec.forProvider.alloc‸atedStorage"), want: rds.allocatedStorage + " [allocatedStorage]\n" +
			""},
		{name: "ToCompositeFieldPath's fromFieldPath reads the base's CRD", text: at("fromFieldPath: status.atProvider.address", "fromFieldPath: status.atProvider.addr‸ess"), want: rds.address + " [address]\n" +
			""},
		{name: "a path the XRD declares nothing of: the version", text: at("toFieldPath: status.address", "toFieldPath: status.addr‸ess"), want: "xrd.yaml:14:7 [name]\n" +
			""},
		{name: "patchSetName to the patchSet's name", text: at("patchSetName: common", "patchSetName: com‸mon"), want: "composition.yaml:18:19 [common]\n" +
			""},
		{name: "the Composition's own kind: built in", text: at("kind: Composition", "kind: Compo‸sition"), want: ""},
	}, definition)
}

func testReferences(t *testing.T, env Env, _ FileReader) {
	refs := func(decl bool) func(f *document.File, off int, env Env) string {
		return func(f *document.File, off int, env Env) string {
			return locations(References(context.Background(), f, off, env, decl))
		}
	}
	at := func(old, marked string) string { return replaceOnce(hoverComposition, old, marked) }
	runFeature(t, "composition.yaml", env, []featureCase{
		{name: "from the patchSet's name", text: at("- name: common", "- name: com‸mon"), want: "composition.yaml:18:19 [common]\n" +
			"composition.yaml:32:31 [common]\n" +
			""},
		{name: "from a use", text: at("patchSetName: common", "patchSetName: com‸mon"), want: "composition.yaml:18:19 [common]\n" +
			"composition.yaml:32:31 [common]\n" +
			""},
		{name: "elsewhere: none", text: at("instanceClass", "instance‸Class"), want: ""},
	}, refs(true))
	runFeature(t, "composition.yaml", env, []featureCase{
		{name: "without the declaration", text: at("- name: common", "- name: com‸mon"), want: "composition.yaml:32:31 [common]\n" +
			""},
	}, refs(false))
}
