package extract

import (
	"fmt"
	"strings"
	"testing"
)

// TestExtract reads a fixture module with every shape of tag and field and
// checks exactly which rules come out: what the API server applies on
// create, and nothing that is alpha, feature-gated, update-only,
// custom-validated, defaulted, opaque, in status or in a pod template, or
// of a kind k8s.io/kubernetes registers no declarative validation for.
func TestExtract(t *testing.T) {
	rules, err := Extract("testdata/api", "testdata/kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rules {
		if r.Group != "example.k8s.io" || r.Version != "v1" || r.Kind != "Widget" {
			t.Errorf("rule of another kind: %+v", r)
		}
		s := fmt.Sprintf("%s %s %s", r.Path, r.Rule, r.Arg)
		if r.Each != "" {
			s += " each=" + r.Each
		}
		if len(r.Keys) > 0 {
			s += " keys=" + strings.Join(r.Keys, ",")
		}
		if len(r.Values) > 0 {
			s += " values=" + strings.Join(r.Values, ",")
		}
		if r.Level != "" {
			s += " level=" + r.Level
		}
		if r.Pointer {
			s += " pointer"
		}
		if !strings.HasPrefix(r.Source, "example/v1/types.go:") {
			t.Errorf("%s: source %q", s, r.Source)
		}
		got = append(got, s)
	}
	want := []string{
		"spec union  values=a,b=",
		"spec zeroOrOneOf  values=c,d",
		"spec.a.name required value",
		"spec.color enum  values=Blue,Red",
		"spec.count required pointer level=beta pointer",
		"spec.items maxItems 4",
		"spec.items unique map keys=name",
		"spec.items[*].name required value",
		"spec.labels format k8s-short-name each=key",
		"spec.labels maxBytes 8 each=val",
		"spec.name format k8s-short-name",
		"spec.name required value",
		"spec.owner format k8s-long-name",
		"spec.ref.name format k8s-long-name",
		"spec.ref.name required value",
		"spec.size maximum 10",
		"spec.size minimum 1",
		"spec.tags unique set",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseTag(t *testing.T) {
	for in, want := range map[string]string{
		`required`:                             "required  level= drop=false",
		`beta(since: "1.37")=+k8s:maxItems=32`: "maxItems 32 level=beta drop=false",
		`alpha(since: "1.37")=+k8s:optional`:   "optional  level=alpha drop=true",
		`format="k8s-short-name"`:              "format k8s-short-name level= drop=false",
		`maximum=1000000000 # Highest`:         "maximum 1000000000 level= drop=false",
		`ifEnabled(Gate)=+k8s:format=k8s-uuid`: "format k8s-uuid level= drop=true",
		`immutable`:                            "immutable  level= drop=true",
		`eachKey=+k8s:format=k8s-short-name`:   "format k8s-short-name level= drop=false each=key",
		`subfield(name)=+k8s:format=k8s-uuid`:  "format k8s-uuid level= drop=false sub=name",
		`alpha(since: "1.37")=+k8s:opaqueType`: "opaqueType  level=alpha drop=false",
		`unionMember(union: "u")`:              "unionMember  level= drop=false union=u",
		`dependentRequired("x")`:               "dependentRequired  level= drop=true",
	} {
		tg := parseTag(in)
		got := fmt.Sprintf("%s %s level=%s drop=%v", tg.name, tg.value, tg.level, tg.drop)
		if tg.each != "" {
			got += " each=" + tg.each
		}
		if tg.sub != "" {
			got += " sub=" + tg.sub
		}
		if u := tg.args["union"]; u != "" {
			got += " union=" + u
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}
