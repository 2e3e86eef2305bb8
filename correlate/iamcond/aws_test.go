package iamcond

import (
	"strings"
	"testing"
	"time"
)

func TestAWSExpiry(t *testing.T) {
	mar1 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	feb1 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name, cond string
		want       time.Time
		ok         bool
	}{
		{"current time", `{"DateLessThan": {"aws:CurrentTime": "2026-03-01T00:00:00Z"}}`, mar1, true},
		{"or equals, another case", `{"datelessthanequals": {"AWS:currenttime": "2026-03-01T00:00:00Z"}}`, mar1, true},
		{"IfExists", `{"DateLessThanIfExists": {"aws:CurrentTime": "2026-03-01T00:00:00Z"}}`, mar1, true},
		{"offset and fraction", `{"DateLessThan": {"aws:CurrentTime": "2026-03-01T01:00:00.000+01:00"}}`, mar1, true},
		{"a date alone", `{"DateLessThan": {"aws:CurrentTime": "2026-03-01"}}`, mar1, true},
		{"epoch as a string", `{"DateLessThan": {"aws:EpochTime": "1772323200"}}`, mar1, true},
		{"epoch as a number", `{"NumericLessThan": {"aws:EpochTime": 1772323200}}`, mar1, true},
		{"epoch key with an ISO date", `{"DateLessThan": {"aws:EpochTime": "2026-03-01T00:00:00Z"}}`, mar1, true},
		{"values are alternatives: the latest", `{"DateLessThan": {"aws:CurrentTime": ["2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"]}}`, mar1, true},
		{"operators all hold: the earliest", `{"DateLessThan": {"aws:CurrentTime": "2026-03-01T00:00:00Z"}, "NumericLessThan": {"aws:EpochTime": 1769904000}}`, feb1, true},
		{"window", `{"DateGreaterThan": {"aws:CurrentTime": "2026-01-01T00:00:00Z"}, "DateLessThan": {"aws:CurrentTime": "2026-03-01T00:00:00Z"}}`, mar1, true},
		{"with other keys", `{"StringEquals": {"aws:PrincipalTag/team": "data"}, "DateLessThan": {"aws:CurrentTime": "2026-03-01T00:00:00Z"}}`, mar1, true},
		{"lower bound only", `{"DateGreaterThan": {"aws:CurrentTime": "2026-03-01T00:00:00Z"}}`, time.Time{}, false},
		{"another date key", `{"DateLessThan": {"aws:TokenIssueTime": "2026-03-01T00:00:00Z"}}`, time.Time{}, false},
		{"a set operator is not read", `{"ForAnyValue:DateLessThan": {"aws:CurrentTime": "2026-03-01T00:00:00Z"}}`, time.Time{}, false},
		{"no time at all", `{"Bool": {"aws:SecureTransport": "true"}}`, time.Time{}, false},
		{"empty", ``, time.Time{}, false},
		{"null", `null`, time.Time{}, false},
		{"empty block", `{}`, time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := AWSExpiry([]byte(tt.cond))
			if err != nil || ok != tt.ok || !got.Equal(tt.want) {
				t.Fatalf("AWSExpiry(%s) = %v, %v, %v; want %v, %v", tt.cond, got, ok, err, tt.want, tt.ok)
			}
		})
	}
}

func TestAWSExpiryErrorsNameTheBound(t *testing.T) {
	for _, tt := range []struct{ cond, want string }{
		{`{"DateLessThan": {"aws:CurrentTime": "next week"}}`, `DateLessThan aws:CurrentTime: "next week" is not a date`},
		{`{"DateLessThan": {"aws:CurrentTime": []}}`, "DateLessThan aws:CurrentTime: no value"},
		{`{"DateLessThan": {"aws:CurrentTime": {"a": 1}}}`, "is not a date"},
		{`{"NumericLessThan": {"aws:EpochTime": -5}}`, "epoch seconds"},
		{`["DateLessThan"]`, "not an object of operators"},
		{`{"DateLessThan": "aws:CurrentTime"}`, "not an object of operators"},
	} {
		_, ok, err := AWSExpiry([]byte(tt.cond))
		if err == nil || ok || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "iamcond: ") {
			t.Errorf("AWSExpiry(%s) = %v, %v; want an error saying %q", tt.cond, ok, err, tt.want)
		}
	}
}

// FuzzAWSExpiry: any block either reads (a UTC bound, or none) or fails
// with an error; never a panic, and the same block reads the same twice.
func FuzzAWSExpiry(f *testing.F) {
	for _, s := range []string{
		`{"DateLessThan": {"aws:CurrentTime": "2026-03-01T00:00:00Z"}}`,
		`{"DateLessThan": {"aws:CurrentTime": ["x", "2026-03-01"]}, "DateLessThan": {"aws:EpochTime": 99999999999999}}`,
		`{"NumericLessThanEquals": {"aws:EpochTime": 1.5e9}}`,
		`{"a": {"b": null}}`, `{`, "\x00", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cond string) {
		exp, ok, err := AWSExpiry([]byte(cond))
		if err != nil {
			if ok || !exp.IsZero() || !strings.HasPrefix(err.Error(), "iamcond: ") {
				t.Fatalf("AWSExpiry(%q) = %v, %v with error %v", cond, exp, ok, err)
			}
			return
		}
		if ok && exp.Location() != time.UTC {
			t.Fatalf("AWSExpiry(%q) = %v, not UTC", cond, exp)
		}
		exp2, ok2, err2 := AWSExpiry([]byte(cond))
		if !exp2.Equal(exp) || ok2 != ok || err2 != nil {
			t.Fatalf("AWSExpiry(%q) read twice: %v %v %v, then %v %v %v", cond, exp, ok, err, exp2, ok2, err2)
		}
	})
}
