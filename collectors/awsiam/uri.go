package awsiam

import (
	"net/url"

	"github.com/bfaudit/bfaudit/model"
)

// Artifact URIs, built and read here only. IAM is global, so there is no
// region between the account and the name:
//
//	awsiam://<source>/<account>/<kind>/<name>                                        a role, user or group (matched against plans' assets, not emitted)
//	awsiam://<source>/<account>/<kind>/<name>/policy/<policy ARN>                    a managed policy attached to it
//	awsiam://<source>/<account>/<kind>/<name>/inline/<policy name>                   its inline policy
//	awsiam://<source>/<account>/<kind>/<name>/inline/<policy name>/statement/<key>   one statement of it (key: its Sid, or a hash)
//	awsiam://<source>/<account>/user/<name>/key/<access key id>                      a user's access key
//
// <kind> is role, user or group. Every part is path-escaped: a policy
// ARN holds '/', and a source name may hold anything. A name is unique in
// its account whatever its path, so the path is not part of the URI.

// The kinds of principal, as URIs and the aws CLI's commands name them.
const (
	kindRole  = "role"
	kindUser  = "user"
	kindGroup = "group"
)

// Object is what an awsiam URI names: a principal, and one of its
// attached policies, inline policies, statements or access keys.
type Object struct {
	Account, Kind, Name string
	PolicyARN           string // an attached managed policy
	Inline              string // an inline policy's name
	Statement           string // a statement's key in Inline
	KeyID               string // an access key (of a user)
}

// PrincipalURI is the URI of a role, user or group.
func PrincipalURI(source, account, kind, name string) string {
	return "awsiam://" + url.PathEscape(source) + "/" + url.PathEscape(account) + "/" + kind + "/" + url.PathEscape(name)
}

// AttachedURI is the URI of a managed policy attached to a principal.
func AttachedURI(source, account, kind, name, policyARN string) string {
	return PrincipalURI(source, account, kind, name) + "/policy/" + url.PathEscape(policyARN)
}

// InlineURI is the URI of a principal's inline policy.
func InlineURI(source, account, kind, name, policy string) string {
	return PrincipalURI(source, account, kind, name) + "/inline/" + url.PathEscape(policy)
}

// StatementURI is the URI of one statement of an inline policy.
func StatementURI(source, account, kind, name, policy, key string) string {
	return InlineURI(source, account, kind, name, policy) + "/statement/" + url.PathEscape(key)
}

// KeyURI is the URI of a user's access key.
func KeyURI(source, account, user, keyID string) string {
	return PrincipalURI(source, account, kindUser, user) + "/key/" + url.PathEscape(keyID)
}

// ParseURI reads an awsiam URI back into its parts; ok is false for
// anything the functions above do not write.
func ParseURI(uri string) (Object, bool) {
	segs, ok := model.URISegments(uri, "awsiam")
	if !ok || len(segs) < 3 || segs[0] == "" || segs[2] == "" {
		return Object{}, false
	}
	o := Object{Account: segs[0], Kind: segs[1], Name: segs[2]}
	switch o.Kind {
	case kindRole, kindUser, kindGroup:
	default:
		return Object{}, false
	}
	rest := segs[3:]
	switch {
	case len(rest) == 0:
		return o, true
	case len(rest) == 2 && rest[0] == "policy" && rest[1] != "":
		o.PolicyARN = rest[1]
	case len(rest) == 2 && rest[0] == "inline" && rest[1] != "":
		o.Inline = rest[1]
	case len(rest) == 4 && rest[0] == "inline" && rest[1] != "" && rest[2] == "statement" && rest[3] != "":
		o.Inline, o.Statement = rest[1], rest[3]
	case len(rest) == 2 && rest[0] == "key" && rest[1] != "" && o.Kind == kindUser:
		o.KeyID = rest[1]
	default:
		return Object{}, false
	}
	return o, true
}
