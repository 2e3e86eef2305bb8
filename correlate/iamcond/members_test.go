package iamcond

import (
	"testing"

	"github.com/bfaudit/bfaudit/correlate"
)

func TestMatcherMember(t *testing.T) {
	m := NewMatcher(correlate.MustSelector(), []Principal{
		{Member: "serviceAccount:Runner@p.iam.gserviceaccount.com", BackfillID: "BF-1"},
		{Member: "alice@example.com", BackfillID: "BF-2"},
		{Member: "group:bf-3-team@example.com"},
	})
	tests := []struct {
		member, id, how string
	}{
		{"serviceAccount:runner@p.iam.gserviceaccount.com", "BF-1", "declared"},
		{"user:Alice@example.com", "BF-2", "declared"},
		{"group:bf-3-team@example.com", "bf-3", "declared"},
		{"serviceAccount:bf-1234-replay@p.iam.gserviceaccount.com", "bf-1234", "name"},
		{"deleted:serviceAccount:bf_77_x@p.iam.gserviceaccount.com?uid=123", "bf_77", "name"},
		{"user:bob@example.com", "", ""},
		{"user:alice@example.org", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.member, func(t *testing.T) {
			id, how := m.Member(tt.member)
			if id != tt.id || how != tt.how {
				t.Fatalf("Member(%q) = %q, %q; want %q, %q", tt.member, id, how, tt.id, tt.how)
			}
		})
	}
}

func TestMatcherText(t *testing.T) {
	m := NewMatcher(correlate.MustSelector(), nil)
	tests := []struct {
		text, id string
	}{
		{"BF-2001 replay write", "BF-2001"},
		{"temporary access for BF_33's replay", "BF_33"},
		{"(bf-9) until March", "bf-9"},
		{"temporary admin", ""},
		{"buffer 12", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			id, ok := m.Text(tt.text)
			if id != tt.id || ok != (tt.id != "") {
				t.Fatalf("Text(%q) = %q, %v; want %q", tt.text, id, ok, tt.id)
			}
		})
	}
}

func TestServiceAccountEmail(t *testing.T) {
	tests := []struct {
		member, email string
		ok            bool
	}{
		{"serviceAccount:X@p.iam.gserviceaccount.com", "x@p.iam.gserviceaccount.com", true},
		{"x@p.iam.gserviceaccount.com", "x@p.iam.gserviceaccount.com", true},
		{"user:x@example.com", "", false},
		{"group:x@p.iam.gserviceaccount.com", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.member, func(t *testing.T) {
			email, ok := ServiceAccountEmail(tt.member)
			if email != tt.email || ok != tt.ok {
				t.Fatalf("ServiceAccountEmail(%q) = %q, %v", tt.member, email, ok)
			}
		})
	}
}
