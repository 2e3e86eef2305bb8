package gcpiam

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// FuzzAccountNames: whatever e-mail and key name IAM hands back, an
// account's unit is one project, "serviceAccounts" and one e-mail (three
// scope segments, so it never spills into another account's unit), and
// reading a key's name never panics.
func FuzzAccountNames(f *testing.F) {
	for _, s := range [][2]string{
		{"bf-1@p.iam.gserviceaccount.com", "projects/p/serviceAccounts/bf-1@p.iam.gserviceaccount.com/keys/k1"},
		{"app@appspot.gserviceaccount.com", "projects/-/serviceAccounts/x/keys/k"},
		{"a/b@c/d.iam.gserviceaccount.com", "projects//serviceAccounts//keys/"},
		{"@", "projects"},
		{"", ""},
		{"%2F@x.iam.gserviceaccount.com", "k"},
	} {
		f.Add(s[0], s[1], "via-project")
	}
	f.Fuzz(func(t *testing.T, email, keyName, via string) {
		for _, r := range []route{routeBinding, routeDeclared, routeListed} {
			a := account{email: email, project: via, via: via, route: r}
			u := a.unit()
			if email == "" {
				continue
			}
			if n := strings.Count(u, "/"); n != 2 {
				t.Fatalf("unit of %q via %q (route %d) = %q: %d separators", email, via, r, u, n)
			}
			if seg := strings.Split(u, "/"); seg[0] == "" || seg[1] != "serviceAccounts" || !model.ScopeWithin(u, seg[0]+"/serviceAccounts") {
				t.Fatalf("unit %q is not under its project's account listing", u)
			}
		}
		_ = keyProject(keyName)
		if strings.Contains(lastSegment(keyName), "/") {
			t.Fatalf("lastSegment(%q) holds a /", keyName)
		}
	})
}
