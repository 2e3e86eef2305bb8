package iamcond

import (
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
)

// FuzzExpiry: any condition text either reads (a UTC bound, or none) or
// fails with an error that says where; never a panic, and the same text
// reads the same way twice.
func FuzzExpiry(f *testing.F) {
	for _, s := range []string{
		`request.time < timestamp("2026-03-01T00:00:00Z")`,
		`timestamp('2026-03-01T01:00:00+01:00') >= request.time && resource.name.startsWith("projects/_/buckets/bf")`,
		`request.time < timestamp("2026-02-01T00:00:00Z") || request.time < timestamp("2026-03-01T00:00:00Z")`,
		`!(request.time >= timestamp("2026-03-01T00:00:00Z"))`,
		`request.time < timestamp("next week")`,
		`request.time < timestamp(`,
		`request.time < timestamp("2026-03-01T00:00:00Z") + duration("24h")`,
		strings.Repeat("(", 300) + "a" + strings.Repeat(")", 300),
		strings.Repeat(`request.time < timestamp("2026-03-01T00:00:00Z") && `, 100) + "true",
		"\x00\xff",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		exp, ok, err := Expiry(expr)
		if err != nil {
			if ok || !exp.IsZero() {
				t.Fatalf("Expiry(%q) = %v, %v with error %v", expr, exp, ok, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "iamcond: ") || !strings.Contains(msg, "line ") {
				t.Fatalf("Expiry(%q): error %q does not say where", expr, msg)
			}
			return
		}
		if ok && exp.Location() != time.UTC {
			t.Fatalf("Expiry(%q) = %v: not UTC", expr, exp)
		}
		if !ok && !exp.IsZero() {
			t.Fatalf("Expiry(%q) = %v without a bound", expr, exp)
		}
		exp2, ok2, err2 := Expiry(expr)
		if !exp2.Equal(exp) || ok2 != ok || err2 != nil {
			t.Fatalf("Expiry(%q) not stable: %v %v %v then %v %v %v", expr, exp, ok, err, exp2, ok2, err2)
		}
	})
}

// FuzzMember: member parsing never panics, normalising is idempotent, and
// a service account's e-mail comes back lowercased without its prefix.
func FuzzMember(f *testing.F) {
	for _, s := range []string{
		"serviceAccount:Runner@p.iam.gserviceaccount.com",
		"deleted:serviceAccount:bf_77_x@p.iam.gserviceaccount.com?uid=123",
		"user:alice@example.com",
		"principal://iam.googleapis.com/locations/global/workforcePools/p/subject/s",
		"principalSet://goog/public:all",
		"bf-1@p.iam.gserviceaccount.com",
		"deleted:",
		":",
		"?uid=",
		"",
		"SERVICEACCOUNT:X@Y.IAM.GSERVICEACCOUNT.COM",
	} {
		f.Add(s)
	}
	m := NewMatcher(correlate.MustSelector(), []Principal{{Member: "serviceAccount:bf-1@p.iam.gserviceaccount.com", BackfillID: "BF-1"}})
	f.Fuzz(func(t *testing.T, member string) {
		norm := NormalizeMember(member)
		if NormalizeMember(norm) != norm {
			t.Fatalf("NormalizeMember not idempotent on %q", member)
		}
		_ = MemberEmail(member)
		if email, ok := ServiceAccountEmail(member); ok {
			if email != strings.ToLower(email) || strings.HasPrefix(email, "serviceaccount:") {
				t.Fatalf("ServiceAccountEmail(%q) = %q", member, email)
			}
		}
		id, how := m.Member(member)
		if (id == "") != (how == "") && how != "declared" {
			t.Fatalf("Member(%q) = %q, %q", member, id, how)
		}
		m.Text(member)
	})
}
