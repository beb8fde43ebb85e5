package analysis

// fieldPathTarget at the analysis layer: which side a Composition's
// fieldPath string is read against (the composite or the composed
// resource) and whose schema serves it, for every patch shape hover,
// definition, completion and the checks share.

import (
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
)

// fieldPathResult writes fieldPathTarget's answer at the cursor: the side
// and the kind whose schema serves it, "<side> (no schema)" when the
// side is known but no schema is, "" when the string is not a fieldPath.
func fieldPathResult(f *document.File, off int, env Env) string {
	hit, ok := f.At(off)
	if !ok || hit.OnKey {
		return "not in a value"
	}
	obj, err := hit.Doc.Object()
	if err != nil {
		return "no object"
	}
	m, _ := obj.(map[string]any)
	sch, side, ok := fieldPathTarget(hit.Doc, m, hit.Path, env)
	switch {
	case ok:
		return side + " " + sch.GVK.Group + "/" + sch.GVK.Version + " " + sch.GVK.Kind
	case side != "":
		return side + " (no schema)"
	}
	return ""
}

// fieldPathComposition has every kind of patch, in a P&T step.
var fieldPathComposition = ptPipeline("fieldpaths", `
          - name: unused
            patches:
              - toFieldPath: spec.forProvider.dbName
        resources:
          - name: rdsinstance
            base:
              apiVersion: rds.aws.upbound.io/v1beta1
              kind: Instance
            patches:
              - type: PatchSet
                patchSetName: common
              - fromFieldPath: spec.parameters.storageGB
                toFieldPath: spec.forProvider.allocatedStorage
              - type: ToCompositeFieldPath
                fromFieldPath: status.atProvider.address
                toFieldPath: status.address
              - type: CombineFromComposite
                combine:
                  variables:
                    - fromFieldPath: spec.parameters.region
                  strategy: string
                  string: {fmt: "%s"}
                toFieldPath: spec.forProvider.dbName
              - type: CombineToComposite
                combine:
                  variables:
                    - fromFieldPath: status.atProvider.endpoint
                  strategy: string
                  string: {fmt: "%s"}
                toFieldPath: status.endpoint
            connectionDetails:
              - name: host
                fromFieldPath: status.atProvider.address
            readinessChecks:
              - type: MatchString
                fieldPath: status.atProvider.status
                matchString: available
          - name: unknown
            base:
              apiVersion: example.org/v1
              kind: Nope
            patches:
              - fromFieldPath: spec.parameters.region
                toFieldPath: spec.region
`)

func testFieldPathTarget(t *testing.T, env Env, _ FileReader) {
	at := func(old, marked string) string { return replaceOnce(fieldPathComposition, old, marked) }
	const xr = "composite database.example.org/v1alpha1 XPostgreSQLInstance"
	const rds = "base rds.aws.upbound.io/v1beta1 Instance"
	runFeature(t, "composition.yaml", env, []featureCase{
		{name: "default patch reads the composite", text: at("fromFieldPath: spec.parameters.storageGB", "fromFieldPath: spec.‸parameters.storageGB"), want: xr},
		{name: "default patch writes the base", text: at("toFieldPath: spec.forProvider.allocatedStorage", "toFieldPath: spec.‸forProvider.allocatedStorage"), want: rds},
		{name: "ToCompositeFieldPath reads the base", text: at("fromFieldPath: status.atProvider.address\n                toFieldPath", "fromFieldPath: status.‸atProvider.address\n                toFieldPath"), want: rds},
		{name: "ToCompositeFieldPath writes the composite", text: at("toFieldPath: status.address", "toFieldPath: status.‸address"), want: xr},
		{name: "CombineFromComposite's variable reads the composite", text: at("- fromFieldPath: spec.parameters.region\n                  strategy", "- fromFieldPath: spec.‸parameters.region\n                  strategy"), want: xr},
		{name: "CombineFromComposite writes the base", text: at("toFieldPath: spec.forProvider.dbName\n              - type: CombineToComposite", "toFieldPath: spec.‸forProvider.dbName\n              - type: CombineToComposite"), want: rds},
		{name: "CombineToComposite's variable reads the base", text: at("- fromFieldPath: status.atProvider.endpoint", "- fromFieldPath: status.‸atProvider.endpoint"), want: rds},
		{name: "CombineToComposite writes the composite", text: at("toFieldPath: status.endpoint", "toFieldPath: status.‸endpoint"), want: xr},
		{name: "connection detail reads the base", text: at("name: host\n                fromFieldPath: status", "name: host\n                fromFieldPath: st‸atus"), want: rds},
		{name: "readiness check reads the base", text: at("fieldPath: status.atProvider.status", "fieldPath: status.‸atProvider.status"), want: rds},
		{name: "patchSet patch reads the composite", text: at("- fromFieldPath: spec.parameters.region\n                toFieldPath: spec.forProvider.region", "- fromFieldPath: spec.‸parameters.region\n                toFieldPath: spec.forProvider.region"), want: xr},
		{name: "patchSet patch writes its first user's base", text: at("toFieldPath: spec.forProvider.region", "toFieldPath: spec.‸forProvider.region"), want: rds},
		{name: "unused patchSet writes no known base", text: at("- toFieldPath: spec.forProvider.dbName", "- toFieldPath: spec.‸forProvider.dbName"), want: "base (no schema)"},
		{name: "base of an unknown kind", text: at("toFieldPath: spec.region", "toFieldPath: spec.‸region"), want: "base (no schema)"},
		{name: "not a fieldPath key", text: at("patchSetName: common", "patchSetName: com‸mon"), want: ""},
	}, fieldPathResult)
}

// testFieldPathTargetClassic: a classic (mode: Resources) Composition's
// patches resolve as a P&T input's do
// (testdata/golden/compositions-v1/classic.yaml's shapes).
func testFieldPathTargetClassic(t *testing.T, env Env, _ FileReader) {
	const classic = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: classic
spec:
  compositeTypeRef:
    apiVersion: database.example.org/v1alpha1
    kind: XPostgreSQLInstance
  resources:
    - name: rdsinstance
      base:
        apiVersion: rds.aws.upbound.io/v1beta1
        kind: Instance
      patches:
        - fromFieldPath: spec.parameters.storageGB
          toFieldPath: spec.forProvider.allocatedStorage
`
	runFeature(t, "classic.yaml", env, []featureCase{
		{name: "reads the composite", text: replaceOnce(classic, "spec.parameters", "spec.para‸meters"), want: "composite database.example.org/v1alpha1 XPostgreSQLInstance"},
		{name: "writes the base", text: replaceOnce(classic, "spec.forProvider", "spec.for‸Provider"), want: "base rds.aws.upbound.io/v1beta1 Instance"},
		{name: "not a Composition", text: "apiVersion: example.org/v1\nkind: Database\nspec:\n  fromFieldPath: spec.‸x\n", want: ""},
	}, fieldPathResult)
}
