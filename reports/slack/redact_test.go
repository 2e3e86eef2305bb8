package slack

import (
	"errors"
	"strings"
	"testing"

	secrets "github.com/bfaudit/bfaudit/internal/redact"
)

// The webhook URL is masked in any spelling an error may carry, not only
// verbatim (issue 12: "HTTP://…" or a stray space printed it whole).
func TestWebhookURLMaskedInAnySpelling(t *testing.T) {
	const hook = "https://hooks.example.com/services/T000/B000/canarysecret123"
	secrets.Add(hook)
	t.Cleanup(secrets.Reset)
	for _, text := range []string{
		"Post " + hook + ": EOF",
		"Post " + strings.ToUpper(hook) + ": EOF",
		"Post \"hooks.example.com/services/T000/B000/canarysecret123 \": EOF",
	} {
		got := redact(errors.New(text), hook).Error()
		if strings.Contains(strings.ToLower(got), "canarysecret123") {
			t.Errorf("webhook leaked: %s", got)
		}
	}
}
