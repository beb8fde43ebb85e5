package analysis

// This file is the table-test helper of the language features (hover,
// completion, definition, fieldPath resolution): a case is YAML with the
// cursor marked ‸ and an Env in, the feature's plain result out, written
// as text and compared exactly. The fixtures are a small workspace: the
// built-in schemas, a CRD written here, the golden XRD of testdata/golden
// and an excerpt of provider-upjet-aws's RDS Instance CRD (the fields the
// cases use, verbatim), each at a path the FileReader serves, as the
// loader would. The tables need nothing outside the repository;
// corpus_features_test.go runs them again with the whole upstream RDS CRD
// of the shared corpus in place of the excerpt.

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// cursor marks where a case's cursor is; the helper removes it.
const cursor = "‸"

// featureCase is one row of a feature table.
type featureCase struct {
	name string
	// text is the file, with exactly one cursor mark.
	text string
	// want is the feature's plain result at the cursor, as its table's
	// result function writes it ("" for none).
	want string
}

// parseAt parses text without its cursor mark as the file at path, and
// returns the file and the mark's byte offset.
func parseAt(t testing.TB, path, text string) (*document.File, int) {
	t.Helper()
	off := strings.Index(text, cursor)
	if off < 0 || strings.Count(text, cursor) != 1 {
		t.Fatalf("want exactly one %s in %q", cursor, text)
	}
	return document.Parse(path, 1, []byte(text[:off]+text[off+len(cursor):])), off
}

// runFeature runs every case: the file at path (in the fixture workspace
// unless absolute), env, and result(file, offset) compared with want.
func runFeature(t *testing.T, path string, env Env, cases []featureCase, result func(f *document.File, offset int, env Env) string) {
	t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(fixtureRoot, path)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, off := parseAt(t, path, tc.text)
			got := result(f, off, env)
			if diff := cmp.Diff(strings.TrimSpace(tc.want), strings.TrimSpace(got)); diff != "" {
				t.Errorf("result at the cursor (-want +got):\n%s\ngot:\n%s", diff, got)
			}
		})
	}
}

// fixtureRoot is the fixture workspace's folder: files the tests write
// here are paths the FileReader serves, not files on disk.
const fixtureRoot = "/ws"

// dbCRD is a namespaced CRD with an enum, a described field, a map and
// a list: the shapes completion and hover treat differently.
const dbCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: databases.example.org
spec:
  group: example.org
  names: {kind: Database, plural: databases}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          description: A Database is a managed database.
          type: object
          properties:
            spec:
              type: object
              required: [engine]
              properties:
                engine:
                  description: The database engine.
                  type: string
                  enum: [postgres, mysql]
                size:
                  type: integer
                  format: int32
                  minimum: 1
                labels:
                  type: object
                  additionalProperties: {type: string}
                users:
                  type: array
                  items:
                    type: object
                    properties:
                      name: {type: string}
                      admin: {type: boolean}
`

// rdsCRD is an excerpt of provider-upjet-aws v2.6.0's RDS Instance CRD
// (github.com/crossplane-contrib/provider-upjet-aws, commit 857b535dd0eb,
// package/crds/rds.aws.upbound.io_instances.yaml, Apache-2.0; the shared
// corpus holds it whole in crds/providers/provider-upjet-aws-subset/): its
// three versions, and in v1beta1 the fields the cases hover, complete,
// resolve and jump to, with their upstream descriptions, types, enums,
// defaults and required lists. v1beta2 and v1beta3 keep two of those
// fields, so a definition found in them instead of v1beta1's is a
// different line.
const rdsCRD = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: instances.rds.aws.upbound.io
spec:
  group: rds.aws.upbound.io
  names:
    categories:
    - crossplane
    - managed
    - aws
    kind: Instance
    listKind: InstanceList
    plural: instances
    singular: instance
  scope: Cluster
  versions:
  - deprecated: true
    deprecationWarning: This API version is deprecated. Deprecated since v2.6.0.
    name: v1beta1
    schema:
      openAPIV3Schema:
        description: |-
          Instance is the Schema for the Instances API. Provides an RDS instance resource.
          Deprecated: This API version (v1beta1) has been deprecated in release v2.6.0.
        properties:
          apiVersion:
            type: string
          kind:
            type: string
          metadata:
            type: object
          spec:
            description: InstanceSpec defines the desired state of Instance
            properties:
              deletionPolicy:
                default: Delete
                description: |-
                  DeletionPolicy specifies what will happen to the underlying external
                  when this managed resource is deleted - either "Delete" or "Orphan" the
                  external resource.
                  This field is planned to be deprecated in favor of the ManagementPolicies
                  field in a future release. Currently, both could be set independently and
                  non-default values would be honored if the feature flag is enabled.
                  See the design doc for more information: https://github.com/crossplane/crossplane/blob/499895a25d1a1a0ba1604944ef98ac7a1a71f197/design/design-doc-observe-only-resources.md?plain=1#L223
                enum:
                - Orphan
                - Delete
                type: string
              forProvider:
                properties:
                  allocatedStorage:
                    description: The allocated storage in gibibytes. If max_allocated_storage
                      is configured, this argument represents the initial storage allocation
                      and differences from the configuration will be ignored automatically
                      when Storage Autoscaling occurs. If replicate_source_db is set, the
                      value is ignored during the creation of the instance.
                    type: number
                  dbName:
                    description: The name of the database to create when the DB instance
                      is created. If this parameter is not specified, no database is created
                      in the DB instance. Note that this does not apply for Oracle or SQL
                      Server engines. See the AWS documentation for more details on what
                      applies for those engines. If you are providing an Oracle db name,
                      it needs to be in all upper case. Cannot be specified for a replica.
                    type: string
                  instanceClass:
                    description: The instance type of the RDS instance.
                    type: string
                  region:
                    description: |-
                      Region where this resource will be managed. Defaults to the Region set in the provider configuration.
                      Region is the region you'd like your resource to be created in.
                    type: string
                  vpcSecurityGroupIds:
                    description: |-
                      List of VPC security groups to
                      associate.
                    items:
                      type: string
                    type: array
                    x-kubernetes-list-type: set
                required:
                - region
                type: object
            required:
            - forProvider
            type: object
          status:
            description: InstanceStatus defines the observed state of Instance.
            properties:
              atProvider:
                properties:
                  address:
                    description: The hostname of the RDS instance. See also endpoint
                      and port.
                    type: string
                  endpoint:
                    description: The connection endpoint in address:port format.
                    type: string
                  status:
                    description: The RDS instance status.
                    type: string
                type: object
            type: object
        required:
        - spec
        type: object
    served: true
    storage: false
    subresources:
      status: {}
  - name: v1beta2
    schema:
      openAPIV3Schema:
        properties:
          spec:
            properties:
              forProvider:
                properties:
                  allocatedStorage:
                    type: number
                type: object
            type: object
          status:
            properties:
              atProvider:
                properties:
                  address:
                    type: string
                type: object
            type: object
        type: object
    served: true
    storage: false
    subresources:
      status: {}
  - name: v1beta3
    schema:
      openAPIV3Schema:
        properties:
          spec:
            properties:
              forProvider:
                properties:
                  allocatedStorage:
                    type: number
                type: object
            type: object
          status:
            properties:
              atProvider:
                properties:
                  address:
                    type: string
                type: object
            type: object
        type: object
    served: true
    storage: true
    subresources:
      status: {}
`

// ptPipeline is a P&T Composition of the goldens' XPostgreSQLInstance
// (testdata/golden/compositions) whose one step's input opens with a
// patchSet "common"; rest follows it (the input's further keys, indented
// as they stand in the file).
func ptPipeline(name, rest string) string {
	return testfixtures.Composition{Name: name, XRAPIVersion: "database.example.org/v1alpha1", XRKind: "XPostgreSQLInstance", Steps: `
    - step: pt
      functionRef:
        name: function-patch-and-transform
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        patchSets:
          - name: common
            patches:
              - fromFieldPath: spec.parameters.region
                toFieldPath: spec.forProvider.region
` + strings.TrimPrefix(rest, "\n")}.YAML()
}

// ptComposition is ptPipeline with an RDS Instance resource that applies
// the patchSet, then the given patches (further items of that resource's
// patches).
func ptComposition(name, patches string) string {
	return ptPipeline(name, `
        resources:
          - name: rdsinstance
            base:
              apiVersion: rds.aws.upbound.io/v1beta1
              kind: Instance
              spec:
                forProvider:
                  instanceClass: db.t3.micro
            patches:
              - type: PatchSet
                patchSetName: common
`+strings.TrimPrefix(patches, "\n"))
}

// goldenXRD is the XRD the end-to-end goldens compose with.
var goldenXRD = filepath.Join("..", "..", "testdata", "golden", "compositions", "definition.yaml")

type fixture struct {
	env   Env
	files map[string][]byte // path → text, for the FileReader
	err   error
}

var (
	fixtureOnce sync.Once
	fixtureVal  fixture
)

// fixtureEnv is the fixture workspace's Env (Crossplane 2) and the
// FileReader over its files, with the RDS excerpt: nothing outside the
// repository.
func fixtureEnv(t testing.TB) (Env, FileReader) {
	t.Helper()
	fixtureOnce.Do(func() { fixtureVal = newFixture([]byte(rdsCRD)) })
	return fixtureVal.use(t)
}

// newFixture builds the fixture workspace with rds as its RDS CRD.
func newFixture(rds []byte) fixture {
	xrd, err := os.ReadFile(goldenXRD)
	if err != nil {
		return fixture{err: err}
	}
	fx := fixture{files: map[string][]byte{
		filepath.Join(fixtureRoot, "crd.yaml"): []byte(dbCRD),
		filepath.Join(fixtureRoot, "xrd.yaml"): xrd,
		filepath.Join(fixtureRoot, "rds.yaml"): rds,
	}}
	st, err := workspace.Builtins(2)
	if err != nil {
		return fixture{err: err}
	}
	var in []schemas.FileInput
	for p, b := range fx.files {
		in = append(in, schemas.FileInput{Source: workspace.Source(p), Path: p, Content: b})
	}
	fx.env = Env{Workspace: Workspace{Schemas: st.WithFiles(in), CrossplaneMajor: 2}}
	return fx
}

// use returns the fixture's Env and a FileReader over its files.
func (fx fixture) use(t testing.TB) (Env, FileReader) {
	t.Helper()
	if fx.err != nil {
		t.Fatal(fx.err)
	}
	files := fx.files
	return fx.env, func(p string) ([]byte, error) {
		if b, ok := files[p]; ok {
			return b, nil
		}
		return nil, os.ErrNotExist
	}
}

// featureTable is one feature's table of cases, run on an Env and the
// FileReader over its files.
type featureTable struct {
	name string
	run  func(*testing.T, Env, FileReader)
}

// featureTables are every ‸-cursor table; rds says where the RDS CRD in
// the Env declares what the definition cases jump to.
func featureTables(rds rdsLocations) []featureTable {
	return []featureTable{
		{"hover", testHover},
		{"hover composition", testHoverComposition},
		{"hover template", testTemplateHover},
		{"complete", testComplete},
		{"complete composition", testCompleteComposition},
		{"complete template functions", testTemplateCompleteFunctions},
		{"definition", testDefinition},
		{"definition composition", func(t *testing.T, env Env, read FileReader) {
			testDefinitionComposition(t, env, read, rds)
		}},
		{"references", testReferences},
		{"field path target", testFieldPathTarget},
		{"field path target classic", testFieldPathTargetClassic},
	}
}

// TestFeatures runs every feature table on the fixture workspace, which
// needs nothing outside the repository.
func TestFeatures(t *testing.T) {
	env, read := fixtureEnv(t)
	for _, table := range featureTables(excerptRDS) {
		t.Run(table.name, func(t *testing.T) { table.run(t, env, read) })
	}
}

// spanText is the text a result's span covers, for results.
func spanText(f *document.File, s document.Span) string {
	if s.Start < 0 || s.End > len(f.Text) || s.Start > s.End {
		return "<bad span>"
	}
	return string(f.Text[s.Start:s.End])
}

// TestParseAtMarksTheCursor: the helper itself — the offset is the
// mark's, and the mark is not in the parsed text.
func TestParseAtMarksTheCursor(t *testing.T) {
	f, off := parseAt(t, "/x.yaml", "kind: Con‸figMap\n")
	if string(f.Text) != "kind: ConfigMap\n" || off != 9 {
		t.Fatalf("parseAt = %q, %d", f.Text, off)
	}
}
