package yamlflow

import (
	"strings"
	"testing"
)

func TestValue(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{map[string]any{"key": "team", "size": int64(3), "on": "yes"}, `{key: team, "on": "yes", size: 3}`},
		{[]any{"a", 1.5, nil, true, map[string]any{}}, `[a, 1.5, null, true, {}]`},
		{"web", `"web"`},
		{nil, "null"},
		{map[string]any{"a b": "x:y"}, `{"a b": "x:y"}`},
	} {
		if got := Value(tc.in); got != tc.want {
			t.Errorf("Value(%#v) = %s, want %s", tc.in, got, tc.want)
		}
	}
	long := []any{strings.Repeat("é", 100)}
	if got := Value(long); !strings.HasSuffix(got, "…") || len(got) > 80+len("…") || !strings.HasPrefix(got, `["é`) {
		t.Errorf("a long value is not cut on a rune boundary: %q", got)
	}
}
