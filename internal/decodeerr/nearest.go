package decodeerr

import "strings"

// Nearest returns the known key closest to key, or "" when none is close
// enough to be what was meant: a typo (expirey), a missing suffix
// (completed for completed_at) or '-' for '_'.
func Nearest(key string, known []string) string {
	k := normalize(key)
	if k == "" {
		return ""
	}
	best, bestDist := "", -1
	for _, cand := range known {
		c := normalize(cand)
		d := distance(k, c)
		// A key that is the start of a known one (completed, completed_at)
		// is as near as a one-letter typo.
		if strings.HasPrefix(c, k) && len(k) >= 4 {
			d = min(d, 1)
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = cand, d
		}
	}
	if bestDist < 0 || bestDist > max(2, len(k)/3) {
		return ""
	}
	return best
}

func normalize(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")
}

// Distance is the edit distance of two short ASCII words (Levenshtein, a
// swap of neighbours counting as one edit), for telling a misspelt key.
func Distance(a, b string) int { return distance(a, b) }

// distance is the Levenshtein distance between a and b, in bytes (keys
// are ASCII), counting a swap of neighbours as one edit.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		// No key is this long; do not spend time on pasted text.
		return max(len(a), len(b))
	}
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
