package remote

import (
	"strconv"
	"strings"
	"testing"
)

// A server answering empty pages, each with a fresh cursor, is stopped at
// the cap too: an empty page repeats nothing, so only the count holds it.
func TestPagerCountsEmptyPages(t *testing.T) {
	p := Pager{What: "bigquery.datasets.list projects/p", Max: 3}
	var err error
	for i := 0; err == nil && i < 10; i++ {
		err = p.Next(strconv.Itoa(i + 2))
	}
	if err == nil || !strings.Contains(err.Error(), "after 3 pages") || p.Pages() != 3 {
		t.Fatalf("after %d empty pages: %v; want stopped after 3", p.Pages(), err)
	}
}
