package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/fileuri"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema compiles the published SARIF 2.1.0 schema: the file
// CRD_LSP_SARIF_SCHEMA names, else where .ci/sarif-schema.sh puts it.
// Without it the test skips, and fails under CI=true.
func sarifSchemaValidator(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := os.Getenv("CRD_LSP_SARIF_SCHEMA")
	if path == "" { // the script's folder: ${XDG_CACHE_HOME:-$HOME/.cache}
		cache := os.Getenv("XDG_CACHE_HOME")
		if home, err := os.UserHomeDir(); cache == "" && err == nil {
			cache = filepath.Join(home, ".cache")
		}
		if cache != "" {
			path = filepath.Join(cache, "crd-lsp-ci", "sarif", "sarif-2.1.0-rtm.5.json")
		}
	}
	f, err := os.Open(path)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the SARIF 2.1.0 schema: %v (bash .ci/sarif-schema.sh fetches it)", err)
		}
		t.Skipf("the SARIF 2.1.0 schema: %v (bash .ci/sarif-schema.sh fetches it)", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type sarifOut struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID   string `json:"id"`
					Help struct {
						Text string `json:"text"`
					} `json:"help"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine, StartColumn, EndLine, EndColumn, ByteOffset, ByteLength int
					} `json:"region"`
				} `json:"physicalLocation"`
				LogicalLocations []struct {
					FullyQualifiedName string `json:"fullyQualifiedName"`
				} `json:"logicalLocations"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

// TestSARIF: check --output sarif through the binary validates against
// the SARIF 2.1.0 schema and says what --output json says, finding for
// finding: rule ids from the codes (each rule with help), levels, regions
// (columns in UTF-16 code units: a non-ASCII character before a finding
// shifts them from JSON's byte columns), field paths; the exit status is
// check's.
func TestSARIF(t *testing.T) {
	schema := sarifSchemaValidator(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "cm.yaml"), `apiVersion: v1
kind: ConfigMap
metadata:
  name: ok
  labels: {a: "é", b: 5}
data:
  k: v
`)
	sawLabel := false
	for _, target := range []string{quickstart, dir} {
		code, out, errOut := runBin(t, nil, "", "check", target, "--output", "sarif")
		jcode, jout, _ := runBin(t, nil, "", "check", target, "--output", "json")
		if code != 1 || jcode != 1 {
			t.Fatalf("%s: exit %d (json %d), stderr %q; want 1", target, code, jcode, errOut)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(out)))
		if err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", target, err, out)
		}
		if err := schema.Validate(inst); err != nil {
			t.Fatalf("%s: the SARIF does not validate: %v", target, err)
		}
		// What the schema checks is checked: a level SARIF lacks fails.
		if bad, _ := jsonschema.UnmarshalJSON(strings.NewReader(strings.Replace(out, `"level": "error"`, `"level": "fatal"`, 1))); schema.Validate(bad) == nil {
			t.Errorf("%s: a result with level fatal validates", target)
		}
		var s sarifOut
		var j struct{ Files []checkedFile }
		if err := json.Unmarshal([]byte(out), &s); err != nil || len(s.Runs) != 1 {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(jout), &j); err != nil {
			t.Fatal(err)
		}
		run := s.Runs[0]
		if run.Tool.Driver.Name != "crd-lsp" {
			t.Errorf("driver %q", run.Tool.Driver.Name)
		}
		i := 0
		for _, f := range j.Files {
			text, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			m := document.NewMapper(text)
			for _, d := range f.Diagnostics {
				if i >= len(run.Results) {
					t.Fatalf("%s: %d SARIF results, JSON has more", target, len(run.Results))
				}
				r := run.Results[i]
				i++
				loc := r.Locations[0]
				reg := loc.PhysicalLocation.Region
				wantLevel := map[string]string{"error": "error", "warning": "warning", "info": "note"}[d.Severity]
				if r.RuleID != d.Code || r.Level != wantLevel || r.Message.Text != d.Message {
					t.Errorf("%s:%d: SARIF %s/%s %q, JSON %s/%s %q", f.Path, d.Line, r.RuleID, r.Level, r.Message.Text, d.Code, d.Severity, d.Message)
				}
				if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID || run.Tool.Driver.Rules[r.RuleIndex].Help.Text == "" {
					t.Errorf("result's rule %d is not %s, or has no help", r.RuleIndex, r.RuleID)
				}
				wantURI := filepath.ToSlash(filepath.Clean(f.Path)) // relative to the working folder
				if filepath.IsAbs(f.Path) {
					wantURI = "file://" + wantURI // (outside it)
				}
				if loc.PhysicalLocation.ArtifactLocation.URI != wantURI {
					t.Errorf("artifact %q, file %q", loc.PhysicalLocation.ArtifactLocation.URI, f.Path)
				}
				// The region is the finding's: from its bytes, in UTF-16.
				start, _ := m.Position(reg.ByteOffset, document.UTF16)
				end, _ := m.Position(reg.ByteOffset+reg.ByteLength, document.UTF16)
				if reg.StartLine != d.Line || reg.EndLine != d.EndLine || reg.StartLine != start.Line+1 || reg.StartColumn != start.Character+1 || reg.EndColumn != end.Character+1 {
					t.Errorf("%s: region %+v; JSON %d:%d-%d:%d", f.Path, reg, d.Line, d.Column, d.EndLine, d.EndColumn)
				}
				if l, c := m.LineCol(reg.ByteOffset); l != d.Line || c != d.Column {
					t.Errorf("%s: byteOffset %d is %d:%d; JSON says %d:%d", f.Path, reg.ByteOffset, l, c, d.Line, d.Column)
				}
				if d.Field != "" && (len(loc.LogicalLocations) != 1 || loc.LogicalLocations[0].FullyQualifiedName != d.Field) {
					t.Errorf("field path %q missing from %+v", d.Field, loc.LogicalLocations)
				}
				if strings.HasSuffix(f.Path, "cm.yaml") && d.Field == "metadata.labels.b" {
					sawLabel = true
				}
				if strings.HasSuffix(f.Path, "cm.yaml") && d.Field == "metadata.labels.b" && reg.StartColumn != d.Column-1 {
					t.Errorf("after é the UTF-16 column is one less than the byte column: SARIF %d, JSON %d", reg.StartColumn, d.Column)
				}
			}
		}
		if i != len(run.Results) || i == 0 {
			t.Errorf("%s: %d SARIF results, %d JSON findings", target, len(run.Results), i)
		}
	}
	// No findings: an empty run, still valid.
	clean := t.TempDir()
	writeFile(t, filepath.Join(clean, "ok.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n")
	code, out, _ := runBin(t, nil, "", "check", "--output=sarif", clean)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil || code != 0 {
		t.Fatalf("clean: exit %d, %v", code, err)
	}
	if err := schema.Validate(inst); err != nil || !strings.Contains(out, `"results": []`) {
		t.Errorf("clean: %v\n%s", err, out)
	}
	if !sawLabel {
		t.Error("no finding on metadata.labels.b (after the é)")
	}
}

// TestGitHubAnnotations: under GitHub Actions check writes workflow
// commands (unless --output says otherwise), one per finding, escaped as
// the runner requires.
func TestGitHubAnnotations(t *testing.T) {
	code, out, errOut := runBin(t, []string{"GITHUB_ACTIONS=true"}, "", "check", quickstart)
	if code != 1 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	_, jout, _ := runBin(t, nil, "", "check", "--output", "json", quickstart)
	var j struct{ Files []checkedFile }
	if err := json.Unmarshal([]byte(jout), &j); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	n := 0
	for _, f := range j.Files {
		for _, d := range f.Diagnostics {
			level := map[string]string{"error": "error", "warning": "warning", "info": "notice"}[d.Severity]
			want := "::" + level + " file=" + filepath.ToSlash(f.Path) + ",line=" + itoa(d.Line) + ",endLine=" + itoa(d.EndLine)
			if n >= len(lines) || !strings.HasPrefix(lines[n], want) || !strings.Contains(lines[n], ",title=crd-lsp "+d.Code+"::") || !strings.HasSuffix(lines[n], d.Message) {
				t.Errorf("annotation %d: want %q…%s, got %q", n, want, d.Message, lines[min(n, len(lines)-1)])
			}
			n++
		}
	}
	if n == 0 || len(lines) != n+1 || !strings.Contains(lines[n], "files checked") {
		t.Errorf("%d findings, output:\n%s", n, out)
	}
	if _, out, _ := runBin(t, []string{"GITHUB_ACTIONS=true"}, "", "check", "--output", "text", quickstart); strings.Contains(out, "::error") {
		t.Errorf("--output text under GitHub Actions wrote annotations:\n%s", out)
	}
	if _, out, _ := runBin(t, nil, "", "check", "--output", "github", quickstart); !strings.HasPrefix(out, "::") {
		t.Errorf("--output github:\n%s", out)
	}

	// Escaping, as text.
	f := finding{diag: jsonDiagnostic{Severity: "warning", Code: "cel", Message: "100% wrong:\r\nsecond, line", Field: "spec.a"},
		utf16: document.Range{Start: document.Position{Line: 2, Character: 4}, End: document.Position{Line: 2, Character: 9}}}
	got := githubAnnotation("dir,x/a:b%.yaml", f)
	want := "::warning file=dir%2Cx/a%3Ab%25.yaml,line=3,endLine=3,col=5,endColumn=9,title=crd-lsp cel::spec.a: 100%25 wrong:%0D%0Asecond, line\n"
	if got != want {
		t.Errorf("annotation\n got %q\nwant %q", got, want)
	}
	f.utf16.End = document.Position{Line: 4, Character: 1}
	f.diag.Severity = "info"
	if got := githubAnnotation("a.yaml", f); got != "::notice file=a.yaml,line=3,endLine=5,title=crd-lsp cel::spec.a: 100%25 wrong:%0D%0Asecond, line\n" {
		t.Errorf("multi-line annotation %q", got)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestSarifURI: a file under the working folder is a relative artifact
// URI with forward slashes; one outside it an absolute file: URI, escaped
// as every URI crd-lsp sends (internal/fileuri).
func TestSarifURI(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got := sarifURI(filepath.Join(wd, "my dir", "zoë.yaml")); got != "my%20dir/zo%C3%AB.yaml" {
		t.Errorf("inside the working folder: %q", got)
	}
	outside := filepath.Join(filepath.Dir(wd), "other project", "x.yaml")
	if got, want := sarifURI(outside), fileuri.URI(outside); got != want || !strings.Contains(got, "other%20project") {
		t.Errorf("outside the working folder: %q, want %q", got, want)
	}
}
