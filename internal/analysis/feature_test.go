package analysis

// This file is the table-test helper of the language features (hover,
// completion, definition, fieldPath resolution): a case is YAML with the
// cursor marked ‸ and an Env in, the feature's plain result out, written
// as text and compared exactly. The fixtures are a small workspace: the
// built-in schemas, one CRD and one XRD written here, the golden XRD and
// the upjet RDS Instance CRD from the shared corpus (the ones the
// end-to-end goldens in testdata/golden use), each at a path the
// FileReader serves, as the loader would.

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	corpusdir "github.com/crd-lsp/crd-lsp/internal/corpus"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/schemas"
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
// FileReader over its files. It skips when the shared corpus (the RDS
// CRD) is absent, as every corpus test does.
func fixtureEnv(t testing.TB) (Env, FileReader) {
	t.Helper()
	rds := filepath.Join(corpusdir.Dir(t), "crds", "providers", "provider-upjet-aws-subset", "v2.6.0", "crds", "rds.aws.upbound.io_instances.yaml")
	fixtureOnce.Do(func() {
		fx := fixture{files: map[string][]byte{filepath.Join(fixtureRoot, "crd.yaml"): []byte(dbCRD)}}
		for name, src := range map[string]string{
			"xrd.yaml": filepath.Join("..", "..", "testdata", "golden", "compositions", "definition.yaml"),
			"rds.yaml": rds,
		} {
			b, err := os.ReadFile(src)
			if err != nil {
				fixtureVal.err = err
				return
			}
			fx.files[filepath.Join(fixtureRoot, name)] = b
		}
		st, err := workspace.Builtins(2)
		if err != nil {
			fixtureVal.err = err
			return
		}
		var in []schemas.FileInput
		for p, b := range fx.files {
			in = append(in, schemas.FileInput{Source: workspace.Source(p), Path: p, Content: b})
		}
		fx.env = Env{Workspace: Workspace{Schemas: st.WithFiles(in), CrossplaneMajor: 2}}
		fixtureVal = fx
	})
	if fixtureVal.err != nil {
		t.Fatal(fixtureVal.err)
	}
	files := fixtureVal.files
	return fixtureVal.env, func(p string) ([]byte, error) {
		if b, ok := files[p]; ok {
			return b, nil
		}
		return nil, os.ErrNotExist
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
