package redact

import (
	"strings"
	"testing"
)

// A DSN's harmless query values are not secrets: sslmode=disable must not
// mask "disable" in every later text; a token in the query still is.
func TestQueryValuesThatAreNotSecret(t *testing.T) {
	Reset()
	t.Cleanup(Reset)
	Add("postgres://app:s3cretpass@db:5432/x?sslmode=disable&application_name=bfaudit",
		"https://hooks.example.com/x?access_token=tok-9f8e7d6c5b")
	if got := String("disable_key: gcloud iam service-accounts keys disable; app bfaudit"); got != "disable_key: gcloud iam service-accounts keys disable; app bfaudit" {
		t.Errorf("harmless query values masked: %q", got)
	}
	if got := String("p=s3cretpass t=tok-9f8e7d6c5b"); strings.Contains(got, "s3cretpass") || strings.Contains(got, "tok-9f8e7d6c5b") {
		t.Errorf("secrets left: %q", got)
	}
}
