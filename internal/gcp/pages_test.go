package gcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
)

// A listing is read page after page by token; one that names a page it
// already read stops with an error, never with what it had so far.
func TestPagesFollowsTokensAndStopsALoop(t *testing.T) {
	answers := map[string]Page[string]{
		"":   {Items: []string{"a", "b"}, Next: "t1"},
		"t1": {Items: []string{"c"}, Next: ""},
	}
	fetch := func(_ context.Context, token string) (Page[string], error) { return answers[token], nil }
	key := func(s string) string { return s }
	got, err := Pages(context.Background(), remote.RetryPolicy{}, time.Second, &remote.Pager{What: "list"}, fetch, key)
	if err != nil || strings.Join(got, ",") != "a,b,c" {
		t.Fatalf("Pages = %q, %v; want a,b,c", got, err)
	}
	answers["t1"] = Page[string]{Items: []string{"d"}, Next: "t2"}
	answers["t2"] = Page[string]{Items: []string{"e"}, Next: "t2"}
	got, err = Pages(context.Background(), remote.RetryPolicy{}, time.Second, &remote.Pager{What: "list"}, fetch, key)
	if err == nil || got != nil || !strings.Contains(err.Error(), "list: ") {
		t.Errorf("a listing that does not advance: %q, %v; want an error naming it and nothing", got, err)
	}
}
