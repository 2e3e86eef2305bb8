package remote

import (
	"strings"
	"testing"
)

func TestParseAddress(t *testing.T) {
	for _, tt := range []struct{ raw, want, err string }{
		{"https://grafana.example.com", "https://grafana.example.com", ""},
		{"http://proxy:8080/airflow/", "http://proxy:8080/airflow", ""},
		{"http://u:s3cret@rabbit:15672", "http://u:s3cret@rabbit:15672", ""},
		{"", "", "is not an http(s) address"},
		{"grafana:3000", "", "is not an http(s) address"},
		{"ftp://x", "", "is not an http(s) address"},
		{"https://", "", "is not an http(s) address"},
		{"https://x/?token=1", "", "a query or fragment"},
		{"https://x/#a", "", "a query or fragment"},
		{"ftp://u:s3cret@x", "", "is not an http(s) address"},
	} {
		u, err := ParseAddress("url", tt.raw)
		switch {
		case tt.err == "" && (err != nil || u.String() != tt.want):
			t.Errorf("%q: %v, %v; want %s", tt.raw, u, err, tt.want)
		case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), "url: ") || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: %v; want an error naming url and saying %q", tt.raw, err, tt.err)
		case err != nil && strings.Contains(err.Error(), "s3cret"):
			t.Errorf("%q: the error shows the password: %v", tt.raw, err)
		}
	}
}
