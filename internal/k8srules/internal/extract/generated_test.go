package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/k8srules"
)

// TestRulesAreGenerated checks every extracted rule against the code
// validation-gen generated from the same tags in k8s.io/kubernetes
// (pkg/apis/<group>/<version>/zz_generated.validations.go): the field's
// block calls the runtime check the rule stands for (with its bound), so
// the extractor reads no tag the API server does not run.
func TestRulesAreGenerated(t *testing.T) {
	apiDir, err := ModuleDir(APIModule)
	if err == nil {
		var kubeDir string
		if kubeDir, err = ModuleDir(KubeModule); err == nil {
			testGenerated(t, apiDir, kubeDir)
			return
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(err)
	}
	t.Skipf("cannot read the modules: %v", err)
}

var checks = map[string]string{
	"minimum": "Minimum", "maximum": "Maximum", "maxItems": "MaxItems", "maxBytes": "MaxBytes", "maxLength": "MaxLength",
	"enum": "Enum", "union": "Union", "zeroOrOneOf": "ZeroOrOneOfUnion",
}

var formatChecks = map[string]string{
	"k8s-short-name": "ShortName", "k8s-long-name": "LongName", "k8s-label-key": "LabelKey", "k8s-prefixed-label-key": "PrefixedLabelKey",
	"k8s-long-name-caseless": "LongNameCaseless", "k8s-label-value": "LabelValue", "k8s-path-segment-name": "PathSegmentName",
	"k8s-uuid": "UUID", "k8s-resource-pool-name": "ResourcePoolName", "k8s-extended-resource-name": "ExtendedResourceName",
	"k8s-resource-fully-qualified-name": "ResourceFullyQualifiedName",
}

func testGenerated(t *testing.T, apiDir, kubeDir string) {
	rules, err := Extract(apiDir, kubeDir)
	if err != nil {
		t.Fatal(err)
	}
	// Rules the API server does not have are not found: the check can fail.
	for _, fake := range []k8srules.Rule{
		{Kind: "RuntimeClass", Path: "handler", Rule: "format", Arg: "k8s-long-name", Source: "node/v1/types.go:1"},
		{Kind: "RuntimeClass", Path: "handler", Rule: "required", Arg: "pointer", Source: "node/v1/types.go:1"},
		{Kind: "EndpointSlice", Path: "endpoints[*].addresses", Rule: "maxItems", Arg: "101", Source: "discovery/v1/types.go:1"},
	} {
		if msg := generated(t, kubeDir, map[string]string{}, fake); msg == "" {
			t.Errorf("%+v: found in the generated validation", fake)
		}
	}
	files := map[string]string{}
	for _, r := range rules {
		if msg := generated(t, kubeDir, files, r); msg != "" {
			t.Error(msg)
		}
	}
	t.Logf("%d rules checked against the generated validation", len(rules))
}

// generated returns "" when the rule's runtime check is in the generated
// validation of its package, else why not.
func generated(t *testing.T, kubeDir string, files map[string]string, r k8srules.Rule) string {
	dir := r.Source[:strings.LastIndex(r.Source, "/")]
	text, ok := files[dir]
	if !ok {
		b, err := os.ReadFile(filepath.Join(kubeDir, "pkg", "apis", dir, "zz_generated.validations.go"))
		if err != nil {
			t.Fatal(err)
		}
		text = string(b)
		files[dir] = text
	}
	fn := checks[r.Rule]
	switch r.Rule {
	case "required":
		fn = map[string]string{"value": "RequiredValue", "pointer": "RequiredPointer", "slice": "RequiredSlice", "map": "RequiredMap"}[r.Arg]
	case "format":
		fn = formatChecks[r.Arg]
	case "unique":
		fn = "SliceUnique"
	}
	call := "validate." + fn
	if fn == "SliceUnique" {
		call = "SliceUnique("
	}
	switch r.Rule {
	case "minimum", "maximum", "maxItems", "maxBytes", "maxLength":
		call += "(ctx, op, fldPath, obj, oldObj, " + r.Arg + ")"
	}
	if r.Each != "" {
		call = strings.TrimPrefix(call, "validate.")
	}
	if r.Rule == "enum" || r.Rule == "union" || r.Rule == "zeroOrOneOf" {
		if !strings.Contains(text, call) {
			return fmt.Sprintf("%s %s %s %s: no %s in %s's generated validation", r.Kind, r.Path, r.Rule, r.Arg, call, dir)
		}
		return ""
	}
	name := r.Path[strings.LastIndex(r.Path, ".")+1:]
	name, _, _ = strings.Cut(name, "[")
	name, _, _ = strings.Cut(name, "{")
	found := false
	for _, block := range strings.Split(text, "{ // field ") {
		if strings.Contains(block, `fldPath.Child("`+name+`")`) && strings.Contains(block, call) {
			found = true
			break
		}
	}
	if !found && strings.Contains(text, `"`+name+`"`) && strings.Contains(text, "validate.Subfield") && strings.Contains(text, call) {
		found = true // a +k8s:subfield rule, generated in its parent's block
	}
	if !found {
		return fmt.Sprintf("%s %s %s %s (%s): no field block of %q calls %s in %s's generated validation", r.Kind, r.Path, r.Rule, r.Arg, r.Source, name, call, dir)
	}
	return ""
}
