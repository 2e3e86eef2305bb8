package pubsub

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzRedactEndpoint: a push endpoint never comes back with its query,
// fragment or password (tokens live there), whatever its shape.
func FuzzRedactEndpoint(f *testing.F) {
	for _, s := range []string{
		"https://worker.example.com/push?token=s3cret",
		"https://user:s3cret@worker.example.com/push",
		"https://worker.example.com/push#frag",
		"https://worker.example.com/push?",
		"http://[::1]:8080/p?x=1",
		"%zz",
		"",
		"://",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := redactEndpoint(raw)
		u, err := url.Parse(raw)
		if err != nil {
			if got != "(unparseable endpoint)" {
				t.Fatalf("redactEndpoint(%q) = %q for an unparseable URL", raw, got)
			}
			return
		}
		if p, ok := u.User.Password(); ok && len(p) > 3 && strings.Contains(got, p) {
			t.Fatalf("redactEndpoint(%q) = %q keeps the password", raw, got)
		}
		if len(u.RawQuery) > 3 && strings.Contains(got, u.RawQuery) {
			t.Fatalf("redactEndpoint(%q) = %q keeps the query", raw, got)
		}
		if len(u.Fragment) > 3 && strings.Contains(got, u.Fragment) && !strings.Contains(u.Path, u.Fragment) && !strings.Contains(u.Host, u.Fragment) {
			t.Fatalf("redactEndpoint(%q) = %q keeps the fragment", raw, got)
		}
	})
}

// FuzzNames: resource names of any shape give a short name without "/",
// and the artifact URI built from it stays under its project.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"projects/p/topics/t", "_deleted-topic_", "", "/", "projects/p/topics/", "a/b/c/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		short := lastSegment(name)
		if strings.Contains(short, "/") {
			t.Fatalf("lastSegment(%q) = %q", name, short)
		}
		if !strings.HasSuffix(name, short) {
			t.Fatalf("lastSegment(%q) = %q is not its end", name, short)
		}
	})
}
