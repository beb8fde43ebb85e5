package suggest

import "testing"

func TestClosest(t *testing.T) {
	for _, tc := range []struct {
		name       string
		candidates []string
		want       string // "" for no suggestion
	}{
		// A name among the candidates was not misspelt (issue 22 saw
		// `unknown field "tags"; did you mean "tags"?`).
		{"tags", []string{"tag", "tags", "labels"}, ""},
		{"tgas", []string{"tags", "labels"}, "tags"},
		{"Tags", []string{"tags"}, "tags"}, // case only: distance 0
		{"replcas", []string{"replicas", "selector"}, "replicas"},
		// At most 3 edits, and at most half the name plus one.
		{"containerz", []string{"containers"}, "containers"},
		{"imagePullSecretz", []string{"imagePullSecrets"}, "imagePullSecrets"},
		{"imgPulSecret", []string{"imagePullSecrets"}, ""}, // 4 edits
		{"abc", []string{"xyz"}, ""},                       // 3 edits > 3/2+1
		{"ab", []string{"xy"}, "xy"},                       // 2 edits ≤ 2/2+1
		{"x", []string{"yz"}, ""},                          // 2 edits > 1/2+1
		// Equally near: the first in byte order, whatever the order given.
		{"commn", []string{"common", "commo"}, "commo"}, // both 1 edit away
		{"dbb", []string{"dba", "dbc", "db"}, "db"},
		{"ab1", []string{"ab3", "ab2"}, "ab2"},
		{"", []string{"a", "bb"}, "a"},
		{"spec", nil, ""},
	} {
		got, ok := Closest(tc.name, tc.candidates)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Closest(%q, %q) = %q, %v; want %q", tc.name, tc.candidates, got, ok, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"tags", "tgas", 2}, {"same", "same", 0},
	} {
		if got := EditDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
