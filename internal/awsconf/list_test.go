package awsconf

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// A listing's pages are read whole, each entry kept once; a service that
// always answers with its list refuses a page without one, or an entry
// without a name.
func TestList(t *testing.T) {
	type page struct{ items []string }
	read := func(pages []page, service string) ([]string, error) {
		n := 0
		return List(context.Background(), time.Second, func() bool { return n < len(pages) },
			func(context.Context) (page, error) { n++; return pages[n-1], nil },
			Listing[page, string]{Items: func(p page) []string { return p.items }, Key: func(s string) string { return s }, Service: service})
	}
	got, err := read([]page{{[]string{"a", "b"}}, {[]string{"b", "c"}}, {nil}}, "")
	if err != nil || !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("got %q, %v; want a b c", got, err)
	}
	if got, err := read([]page{{[]string{"", ""}}}, ""); err != nil || len(got) != 2 {
		t.Errorf("unnamed entries of a lax service: %q, %v; want both kept", got, err)
	}
	for _, pages := range [][]page{{{[]string{"a"}}, {nil}}, {{[]string{"a", ""}}}} {
		if _, err := read(pages, "Glue"); err == nil || !strings.Contains(err.Error(), "not an answer of Glue") {
			t.Errorf("%v: %v; want not an answer of Glue", pages, err)
		}
	}
}
