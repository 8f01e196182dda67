package settings

import "strings"

// Closest returns the candidate nearest to s by edit distance (case
// ignored), if it is near enough to be the likely intent: at most a third
// of the longer word's letters apart, and never more than three. ok is
// false when nothing is that close.
func Closest(s string, candidates []string) (best string, ok bool) {
	bestDist := -1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 {
		return "", false
	}
	limit := max(len(s), len(best)) / 3
	limit = min(max(limit, 1), 3)
	return best, bestDist <= limit
}

// editDistance is the Damerau–Levenshtein distance (optimal string
// alignment) of a and b in bytes: insertions, deletions, substitutions and
// swaps of two neighbours each count one, so "HISTROY" is one from
// "HISTORY".
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
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
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// DidYouMean is " (did you mean X?)" for the candidate closest to s, or
// "" when none is close.
func DidYouMean(s string, candidates []string) string {
	if c, ok := Closest(s, candidates); ok {
		return " (did you mean " + c + "?)"
	}
	return ""
}

// DidYouMeanKey is DidYouMean for a key of a YAML file, whose keys are
// the names in lower case.
func DidYouMeanKey(key string, names []string) string {
	if c, ok := Closest(key, names); ok {
		return " (did you mean " + strings.ToLower(c) + "?)"
	}
	return ""
}
