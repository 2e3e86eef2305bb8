package model

import (
	"strconv"
	"strings"
)

// NormalizeID folds a backfill id so that the spellings systems allow all
// meet: BigQuery labels are lowercase only and many systems forbid '-', so
// "BF-1234", "bf_1234" and "bf-1234" are one backfill.
func NormalizeID(id string) string {
	id = strings.TrimSpace(strings.ToUpper(id))
	return strings.ReplaceAll(id, "_", "-")
}

// SameID reports whether two spellings name the same backfill.
func SameID(a, b string) bool { return a != "" && NormalizeID(a) == NormalizeID(b) }

func itoa(i int) string { return strconv.Itoa(i) }
