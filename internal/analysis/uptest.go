// This file lets uptest examples through: its random-subdomain variable gets a
// valid value, and findings on values holding its other variables are dropped.

package analysis

import (
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// uptest (the test runner of upjet providers) substitutes template
// variables in example manifests before it applies them:
// ${Rand.RFC1123Subdomain} becomes a random RFC 1123 subdomain, ${data.…}
// a value of its data source. With Env.Options.UptestPlaceholders, a document is
// validated as uptest would apply it: the random subdomain is replaced
// by a valid one of the same kind, and findings on values holding any
// other variable are dropped (their values are not known).

const (
	uptestRand = "${Rand.RFC1123Subdomain}"
	// uptestRandValue stands for what uptest puts in its place: lowercase
	// letters and digits, valid wherever an RFC 1123 subdomain is.
	uptestRandValue = "random"
)

// withUptestValues returns m with ${Rand.RFC1123Subdomain} replaced in
// every string (m itself when none holds it); m is not modified.
func withUptestValues(m map[string]any) map[string]any {
	out, changed := uptestValue(m)
	if !changed {
		return m
	}
	return out.(map[string]any)
}

func uptestValue(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		if strings.Contains(x, uptestRand) {
			return strings.ReplaceAll(x, uptestRand, uptestRandValue), true
		}
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			if ne, ok := uptestValue(e); ok {
				if out == nil {
					out = make(map[string]any, len(x))
					for k2, e2 := range x {
						out[k2] = e2
					}
				}
				out[k] = ne
			}
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, e := range x {
			if ne, ok := uptestValue(e); ok {
				if out == nil {
					out = append([]any(nil), x...)
				}
				out[i] = ne
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// withoutUptestVariables drops findings on values that hold an uptest
// variable besides the random subdomain (${data.aws_account_id}): uptest
// fills them from its data source, so their value is not known here.
func withoutUptestVariables(errs []schemas.Error, m map[string]any, env Env) []schemas.Error {
	if !env.Options.UptestPlaceholders {
		return errs
	}
	kept := errs[:0:0]
	for _, e := range errs {
		if s, ok := valueAt(m, e.Path).(string); ok && strings.Contains(s, "${") && strings.Contains(s[strings.Index(s, "${"):], "}") {
			continue
		}
		kept = append(kept, e)
	}
	return kept
}
