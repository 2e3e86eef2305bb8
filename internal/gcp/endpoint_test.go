package gcp

import (
	"strings"
	"testing"
)

// An endpoint setting gets the API's base path when it names none, and
// the trailing "/" the generated clients need; a bad one is refused with
// its key and without its credentials.
func TestEndpoint(t *testing.T) {
	for raw, want := range map[string]int{"": 0, "https://bq.example.com": 1, "http://127.0.0.1:9050/": 1, "https://proxy/custom": 1} {
		opts, err := Endpoint("endpoint", raw, "/bigquery/v2/")
		if err != nil || len(opts) != want {
			t.Errorf("%q: %d options, %v; want %d", raw, len(opts), err, want)
		}
	}
	for _, raw := range []string{"bq.example.com", "ftp://x", "https://u:s3cret@x", "https://x/?key=1"} {
		_, err := Endpoint("endpoint", raw, "/bigquery/v2/")
		if err == nil || !strings.HasPrefix(err.Error(), "endpoint: ") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: %v; want an error naming endpoint, without the password", raw, err)
		}
	}
}
