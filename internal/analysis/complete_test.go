package analysis

// Completion at the analysis layer: every candidate, in the order
// returned, with its kind, detail, the text it inserts and the text it
// replaces — for a workspace CRD, built-in and upjet kinds, an
// XRD-derived kind, apiVersion and kind values, and inside a
// Composition's strings (fieldPaths, patchSetName, P&T enums).

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
)

var completionKinds = map[CompletionKind]string{CompleteField: "field", CompleteValue: "value", CompleteKind: "kind", CompleteAPIVersion: "apiVersion"}

// completeResult writes one candidate a line:
// label (kind) detail "inserted" [replaced].
func completeResult(f *document.File, off int, env Env) string {
	var b strings.Builder
	for _, c := range Complete(context.Background(), f, off, env) {
		fmt.Fprintf(&b, "%s (%s) %s %q [%s]\n", c.Label, completionKinds[c.Kind], c.Detail, c.InsertText, spanText(f, c.Replace))
	}
	return b.String()
}

const completeDatabase = "apiVersion: example.org/v1\nkind: Database\nmetadata:\n  name: orders\nspec:\n"

func testComplete(t *testing.T, env Env, _ FileReader) {
	runFeature(t, "complete.yaml", env, []featureCase{
		// A workspace CRD: keys (required first), enum and boolean values,
		// keys of a list item.
		{name: "CRD keys", text: completeDatabase + "  ‸\n", want: "engine (field) string (required) \"engine: \" []\n" +
			"labels (field) map of string \"labels:\\n    \" []\n" +
			"size (field) integer (int32) \"size: \" []\n" +
			"users (field) array of object \"users:\\n    - \" []\n" +
			""},
		{name: "CRD keys by prefix", text: completeDatabase + "  si‸\n", want: "size (field) integer (int32) \"size: \" [si]\n" +
			""},
		{name: "CRD enum value", text: completeDatabase + "  engine: ‸\n", want: "mysql (value) string \"mysql\" []\n" +
			"postgres (value) string \"postgres\" []\n" +
			""},
		{name: "CRD list item keys", text: completeDatabase + "  users:\n    - ‸\n", want: "admin (field) boolean \"admin: \" []\n" +
			"name (field) string \"name: \" []\n" +
			""},
		{name: "CRD boolean value", text: completeDatabase + "  users:\n    - admin: ‸\n", want: "false (value) boolean \"false\" []\n" +
			"true (value) boolean \"true\" []\n" +
			""},
		{name: "keys already set are not offered", text: completeDatabase + "  engine: mysql\n  size: 2\n  users: []\n  ‸\n", want: "labels (field) map of string \"labels:\\n    \" []\n" +
			""},
		// apiVersion and kind values.
		{name: "apiVersion of a workspace group", text: "apiVersion: example.o‸\n", want: "example.org/v1 (apiVersion)  \"example.org/v1\" [example.o]\n" +
			""},
		{name: "kind of an apiVersion", text: "apiVersion: example.org/v1\nkind: ‸\n", want: "Database (kind) example.org/v1 \"Database\" []\n" +
			""},
		{name: "kind of an XRD's group", text: "apiVersion: database.example.org/v1alpha1\nkind: ‸\n", want: "PostgreSQLInstance (kind) database.example.org/v1alpha1 \"PostgreSQLInstance\" []\n" +
			"XPostgreSQLInstance (kind) database.example.org/v1alpha1 \"XPostgreSQLInstance\" []\n" +
			""},
		// An XR: its keys come from the XRD.
		{name: "XRD-derived keys", text: "apiVersion: database.example.org/v1alpha1\nkind: XPostgreSQLInstance\nmetadata:\n  name: x\nspec:\n  parameters:\n    ‸\n", want: "storageGB (field) integer (required) \"storageGB: \" []\n" +
			"region (field) string \"region: \" []\n" +
			""},
		// testdata/golden/completion/rds-complete.yaml's cases.
		{name: "built-in boolean", text: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  paused: ‸\n", want: "false (value) boolean \"false\" []\n" +
			"true (value) boolean \"true\" []\n" +
			""},
		{name: "upjet enum", text: "apiVersion: rds.aws.upbound.io/v1beta1\nkind: Instance\nmetadata:\n  name: db\nspec:\n  deletionPolicy: ‸\n", want: "Delete (value) string \"Delete\" []\n" +
			"Orphan (value) string \"Orphan\" []\n" +
			""},
		{name: "upjet key mid-word above a syntax error", text: "apiVersion: rds.aws.upbound.io/v1beta1\nkind: Instance\nmetadata:\n  name: db\nspec:\n  forProvider:\n    reg‸\n    instanceClass: db.t3.micro\n", want: "region (field) string (required) \"region: \" [reg]\n" +
			""},
		{name: "apiVersion of a kind already written", text: "kind: Database\napiVersion: ‸\n", want: "example.org/v1 (apiVersion)  \"example.org/v1\" []\n" +
			""},
		{name: "built-in kind by prefix", text: "apiVersion: apps/v1\nkind: Stateful‸\n", want: "StatefulSet (kind) apps/v1 \"StatefulSet\" [Stateful]\n" +
			""},
		{name: "built-in list item keys by prefix, set ones left out", text: "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          imagePullPolicy: Always\n          ima‸\n", want: "image (field) string \"image: \" [ima]\n" +
			""},
		// Nothing.
		{name: "in a comment", text: completeDatabase + "  # ‸\n", want: ""},
		{name: "unknown kind", text: "apiVersion: example.org/v1\nkind: Nope\nspec:\n  ‸\n", want: ""},
	}, completeResult)
}

// completeComposition is testdata/golden/compositions/complete.yaml's
// first Composition, without the cursor lines.
var completeComposition = ptComposition("complete.pt.database.example.org", `
              - type: FromCompositeFieldPath
                fromFieldPath: spec.parameters.region
                toFieldPath: spec.forProvider.region
                transforms:
                  - type: string
                    string:
                      type: Format
                      fmt: "%s"
`)

func testCompleteComposition(t *testing.T, env Env, _ FileReader) {
	at := func(old, marked string) string { return replaceOnce(completeComposition, old, marked) }
	runFeature(t, "composition.yaml", env, []featureCase{
		{name: "patchSetName", text: at("patchSetName: common", "patchSetName: ‸"), want: "common (value) patchSet \"common\" []\n" +
			""},
		{name: "fromFieldPath, composite side", text: at("fromFieldPath: spec.parameters.region\n                toFieldPath: spec.forProvider.region\n                transforms", "fromFieldPath: spec.parameters.‸\n                toFieldPath: spec.forProvider.region\n                transforms"), want: "region (field) string \"region\" []\n" +
			"storageGB (field) integer \"storageGB\" []\n" +
			""},
		{name: "toFieldPath, composed side, by prefix", text: at("toFieldPath: spec.forProvider.region\n                transforms", "toFieldPath: spec.forProvider.allocated‸\n                transforms"), want: "allocatedStorage (field) number \"allocatedStorage\" [allocated]\n" +
			""},
		{name: "metadata of the composite", text: at("fromFieldPath: spec.parameters.region\n                toFieldPath: spec.forProvider.region\n                transforms", "fromFieldPath: metadata.‸\n                toFieldPath: spec.forProvider.region\n                transforms"), want: "annotations (field) map[string]string \"annotations\" []\n" +
			"generateName (field) string \"generateName\" []\n" +
			"labels (field) map[string]string \"labels\" []\n" +
			"name (field) string \"name\" []\n" +
			"namespace (field) string \"namespace\" []\n" +
			"uid (field) string \"uid\" []\n" +
			""},
		{name: "map key in brackets", text: at("fromFieldPath: spec.parameters.region\n                toFieldPath: spec.forProvider.region\n                transforms", "fromFieldPath: metadata.labels[‸\n                toFieldPath: spec.forProvider.region\n                transforms"), want: "crossplane.io/claim-name (field) string \"crossplane.io/claim-name]\" []\n" +
			"crossplane.io/claim-namespace (field) string \"crossplane.io/claim-namespace]\" []\n" +
			"crossplane.io/composite (field) string \"crossplane.io/composite]\" []\n" +
			""},
		{name: "list index in brackets", text: at("toFieldPath: spec.forProvider.region\n                transforms", "toFieldPath: spec.forProvider.vpcSecurityGroupIds[‸\n                transforms"), want: "0 (field) index \"0]\" []\n" +
			"* (field) wildcard \"*]\" []\n" +
			""},
		{name: "transform enum", text: at("type: Format", "type: ‸"), want: "Convert (value) string \"Convert\" []\n" +
			"Format (value) string \"Format\" []\n" +
			"Join (value) string \"Join\" []\n" +
			"Regexp (value) string \"Regexp\" []\n" +
			"Replace (value) string \"Replace\" []\n" +
			"TrimPrefix (value) string \"TrimPrefix\" []\n" +
			"TrimSuffix (value) string \"TrimSuffix\" []\n" +
			""},
		{name: "base key by prefix", text: at("instanceClass: db.t3.micro", "instanceClass: db.t3.micro\n                  allocated‸"), want: "allocatedStorage (field) number \"allocatedStorage: \" [allocated]\n" +
			""},
		{name: "base kind", text: at("kind: Instance", "kind: Ins‸"), want: "Instance (kind) rds.aws.upbound.io/v1beta1 \"Instance\" [Ins]\n" +
			""},
		{name: "base apiVersion", text: at("apiVersion: rds.aws.upbound.io/v1beta1", "apiVersion: rds.aws.upbound.io/v1‸"), want: "rds.aws.upbound.io/v1beta1 (apiVersion)  \"rds.aws.upbound.io/v1beta1\" [rds.aws.upbound.io/v1]\n" +
			"rds.aws.upbound.io/v1beta2 (apiVersion)  \"rds.aws.upbound.io/v1beta2\" [rds.aws.upbound.io/v1]\n" +
			"rds.aws.upbound.io/v1beta3 (apiVersion)  \"rds.aws.upbound.io/v1beta3\" [rds.aws.upbound.io/v1]\n" +
			""},
	}, completeResult)
}
