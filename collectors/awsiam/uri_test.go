package awsiam

import (
	"testing"

	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// What the collector writes as a URI, the commands and the fix actions
// read back to the same parts, for every shape and whatever the names
// hold; an empty part is never read as an object.
func TestURIRoundTrip(t *testing.T) {
	const source, account = "aws iam/prod?", "111111111111"
	for _, name := range remedytest.HostileNames {
		for _, kind := range []string{kindRole, kindUser, kindGroup} {
			shapes := []struct {
				uri  string
				want Object
			}{
				{PrincipalURI(source, account, kind, name), Object{Account: account, Kind: kind, Name: name}},
				{AttachedURI(source, account, kind, name, "arn:aws:iam::aws:policy/"+name), Object{Account: account, Kind: kind, Name: name, PolicyARN: "arn:aws:iam::aws:policy/" + name}},
				{InlineURI(source, account, kind, name, name), Object{Account: account, Kind: kind, Name: name, Inline: name}},
				{StatementURI(source, account, kind, name, "p", name), Object{Account: account, Kind: kind, Name: name, Inline: "p", Statement: name}},
			}
			if kind == kindUser {
				shapes = append(shapes, struct {
					uri  string
					want Object
				}{KeyURI(source, account, name, "AKIA"+name), Object{Account: account, Kind: kind, Name: name, KeyID: "AKIA" + name}})
			}
			for _, s := range shapes {
				got, ok := ParseURI(s.uri)
				if name == "" {
					if ok {
						t.Errorf("%q read as %+v, but it has an empty part", s.uri, got)
					}
					continue
				}
				if !ok || got != s.want {
					t.Errorf("%q read back as %+v (%v), want %+v", s.uri, got, ok, s.want)
				}
			}
		}
	}
	for _, uri := range []string{"awsiam://s/111111111111/policy/x", "awsiam://s/111111111111/role/r/key/k", "awsiam://s/111111111111/role/r/inline/p/statement",
		"awsiam://s/111111111111/role/r/other/x", "s3://s/111111111111/role/r", "awsiam://s/111111111111/role/%zz"} {
		if o, ok := ParseURI(uri); ok {
			t.Errorf("%q read as %+v: no such shape", uri, o)
		}
	}
}
