// Package suggest is crd-lsp's one "did you mean": the name a misspelt
// one most likely meant, by one threshold, for every finding that offers
// one (unknown fields, kinds, enum values, PatchSet names).
package suggest

import "strings"

// Closest is the candidate a misspelt name most likely meant: the nearest
// by edit distance with case folded (a case-only difference is distance
// 0), at most 3 edits away and at most half the name's length plus one
// (so a short name is not "corrected" into an unrelated one); among
// equally near candidates, the first in byte order. A name that is itself
// a candidate was not misspelt: nothing is suggested (never "did you
// mean \"tags\"" for tags).
func Closest(name string, candidates []string) (string, bool) {
	for _, c := range candidates {
		if c == name {
			return "", false
		}
	}
	limit := min(3, len(name)/2+1)
	lower := strings.ToLower(name)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if d := EditDistance(lower, strings.ToLower(c)); d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	return best, best != ""
}

// EditDistance is the Levenshtein distance of a and b, in bytes.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
