package redact

import (
	"net/url"
	"testing"
)

func TestURLDropsCredentialsAndSecretQueryValues(t *testing.T) {
	Add("https://hooks.example.com/services/T0/B0/sekrit-path-value")
	defer Reset()
	tests := map[string]string{
		"https://user:pa55word@api.example.com/v1/x?page=2&access_token=abc123&per_page=100": "https://api.example.com/v1/x?access_token=[REDACTED]&page=2&per_page=100",
		"https://storage.example.com/b/o?X-Goog-Signature=f00&X-Goog-Expires=60":             "https://storage.example.com/b/o?X-Goog-Expires=60&X-Goog-Signature=[REDACTED]",
		"https://slack.example.com/api/users.lookupByEmail?email=a%40example.com":            "https://slack.example.com/api/users.lookupByEmail?email=[REDACTED]",
		"https://hooks.example.com/services/T0/B0/sekrit-path-value":                         "[REDACTED]",
		"http://127.0.0.1:8080/api/v1/dags#frag":                                             "http://127.0.0.1:8080/api/v1/dags",
	}
	for in, want := range tests {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := URLOf(u); got != want {
			t.Errorf("URLOf(%s) = %s, want %s", in, got, want)
		}
	}
}
