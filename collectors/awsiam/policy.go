package awsiam

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/correlate/iamcond"
)

// document is an IAM policy document as IAM answers it: JSON, URL-encoded
// (RFC 3986). Its members other than Statement are kept as they are, so
// a document written back with a statement removed loses nothing else.
type document struct {
	members    map[string]json.RawMessage
	statements []statement
}

// statement is one statement of a document: the fields bfaudit reads,
// and the statement itself, compacted, to find it again and write it back.
type statement struct {
	raw       json.RawMessage
	Sid       string          `json:"Sid"`
	Effect    string          `json:"Effect"`
	Principal json.RawMessage `json:"Principal"`
	Condition json.RawMessage `json:"Condition"`
}

// parseDocument decodes a policy document as IAM answers it. The
// document may hold one statement or a list of them.
func parseDocument(encoded string) (document, error) {
	text, err := url.PathUnescape(encoded)
	if err != nil {
		// Not URL-encoded after all (a '%' of its own): read it as it is.
		text = encoded
	}
	var d document
	if err := json.Unmarshal([]byte(text), &d.members); err != nil {
		return document{}, fmt.Errorf("the policy document is not a JSON object: %v", err)
	}
	raw := bytes.TrimSpace(d.members["Statement"])
	if len(raw) == 0 {
		return document{}, errors.New("the policy document has no Statement")
	}
	var list []json.RawMessage
	if raw[0] == '[' {
		if err := json.Unmarshal(raw, &list); err != nil {
			return document{}, fmt.Errorf("the policy document's Statement: %v", err)
		}
	} else {
		list = []json.RawMessage{raw}
	}
	for i, r := range list {
		var s statement
		if err := json.Unmarshal(r, &s); err != nil {
			return document{}, fmt.Errorf("the policy document's statement %d: %v", i, err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, r); err != nil {
			return document{}, fmt.Errorf("the policy document's statement %d: %v", i, err)
		}
		s.raw = buf.Bytes()
		d.statements = append(d.statements, s)
	}
	return d, nil
}

// allows reports whether s allows anything: Deny statements take away.
func (s statement) allows() bool { return strings.EqualFold(s.Effect, "Allow") }

// key names the statement in its policy: its Sid, which IAM keeps unique
// within a policy, or else a hash of the statement.
func (s statement) key() string {
	if s.Sid != "" {
		return s.Sid
	}
	return s.hash()
}

// hash identifies the statement's exact text.
func (s statement) hash() string { return shortHash(s.raw) }

// expiry is when the statement stops allowing: the upper bound its
// Condition block puts on the request time.
func (s statement) expiry() (time.Time, bool, error) { return iamcond.AWSExpiry(s.Condition) }

// expiry is when the document stops allowing anything: the latest end
// of its Allow statements, and only when every one of them ends (one
// without an end keeps the policy in force). allows is false for a
// document that allows nothing.
func (d document) expiry() (end time.Time, bounded, allows bool, err error) {
	bounded = true
	for _, s := range d.statements {
		if !s.allows() {
			continue
		}
		allows = true
		t, ok, err := s.expiry()
		if err != nil {
			return time.Time{}, false, true, err
		}
		if !ok {
			bounded = false
			continue
		}
		if t.After(end) {
			end = t
		}
	}
	if !allows || !bounded {
		return time.Time{}, false, allows, nil
	}
	return end, true, true, nil
}

// hash identifies the document's statements, whatever their spacing.
func (d document) hash() string {
	parts := make([][]byte, len(d.statements))
	for i, s := range d.statements {
		parts[i] = s.raw
	}
	return shortHash(bytes.Join(parts, []byte{'\n'}))
}

// without is the document with the statements of the given keys removed,
// as JSON, and how many statements are left.
func (d document) without(keys []string) (string, int, error) {
	var kept []json.RawMessage
	for _, s := range d.statements {
		if !slices.Contains(keys, s.key()) {
			kept = append(kept, s.raw)
		}
	}
	members := make(map[string]json.RawMessage, len(d.members))
	for k, v := range d.members {
		members[k] = v
	}
	list, err := json.Marshal(kept)
	if err != nil {
		return "", 0, err
	}
	if kept == nil {
		list = []byte("[]")
	}
	members["Statement"] = list
	out, err := json.Marshal(members)
	if err != nil {
		return "", 0, err
	}
	return string(out), len(kept), nil
}

// outsiders lists, sorted, who a role's trust policy lets assume it from
// outside account: any AWS principal ("*"), a principal of another
// account, and federated identities (SAML, OIDC: GitHub, Google...),
// which an identity provider outside AWS vouches for.
func (d document) outsiders(account string) []string {
	var out []string
	add := func(p string) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, s := range d.statements {
		if !s.allows() || len(s.Principal) == 0 {
			continue
		}
		var any string
		if json.Unmarshal(s.Principal, &any) == nil {
			if any == "*" {
				add("*")
			}
			continue
		}
		var byType map[string]json.RawMessage
		if json.Unmarshal(s.Principal, &byType) != nil {
			continue
		}
		for typ, v := range byType {
			for _, p := range stringList(v) {
				switch {
				case strings.EqualFold(typ, "Federated"):
					add(p)
				case strings.EqualFold(typ, "AWS") && principalAccount(p) != account:
					add(p)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// principalAccount is the account of an AWS principal: a bare account id
// or an ARN's account; "*" and anything unreadable are no account.
func principalAccount(p string) string {
	if len(p) == 12 && strings.Trim(p, "0123456789") == "" {
		return p
	}
	if parts := strings.SplitN(p, ":", 6); len(parts) == 6 && parts[0] == "arn" {
		return parts[4]
	}
	return ""
}

// stringList reads a policy's "one value or a list of them".
func stringList(v json.RawMessage) []string {
	var one string
	if json.Unmarshal(v, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(v, &many)
	return many
}

func shortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
