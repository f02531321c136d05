package main

import "slices"

// closest is the candidate nearest to word, for "did you mean": the one
// at the smallest edit distance if that is at most a third of word's
// length (at least 1 and at most 3 edits), else one that word begins or
// that begins with word; "" if none is near. Ties go to the first in
// sorted order.
func closest(word string, candidates []string) string {
	sorted := slices.Sorted(slices.Values(candidates))
	best, bestDist := "", min(max(len(word)/3, 1), 3)+1
	for _, c := range sorted {
		if d := editDistance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best != "" {
		return best
	}
	for _, c := range sorted {
		if len(word) >= 3 && (len(c) > len(word) && c[:len(word)] == word || len(word) > len(c) && word[:len(c)] == c) {
			return c
		}
	}
	return ""
}

// editDistance is the optimal string alignment distance between a and
// b, in bytes: insertions, deletions, substitutions and transpositions of
// adjacent bytes ("tsp" is one edit from "tps").
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
