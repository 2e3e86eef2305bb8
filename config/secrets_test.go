package config

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// canary returns a distinct secret per place, so each registration is
// proven on its own.
func canary(place string) string { return hostile.Canary + "-" + place }

// masked asserts that redact masks secret inside text, also upper-cased.
func masked(t *testing.T, where, secret string) {
	t.Helper()
	for _, s := range []string{secret, strings.ToUpper(secret)} {
		if out := redact.String("error: " + s + " refused"); strings.Contains(strings.ToLower(out), strings.ToLower(secret)) {
			t.Errorf("%s: not registered with redact: %q", where, out)
		}
	}
}

// Every configured secret is registered when the config loads, so it is
// masked in every error, log and report: sinks' tokens and URLs, DSNs,
// and any token/password/secret/dsn/webhook key of any source section,
// set in the file or through the environment variable an _env key names.
func TestLoadRegistersSecrets(t *testing.T) {
	redact.Reset()
	t.Cleanup(redact.Reset)
	t.Setenv("GITHUB_TOKEN", canary("github-env"))
	t.Setenv("SLACK_BOT_TOKEN", canary("slack-bot"))
	// A stray space around the webhook URL used to defeat the exact match.
	webhook := "https://hooks.slack.com/services/T000/B000/" + canary("webhook")
	t.Setenv("BFAUDIT_TEST_WEBHOOK", " "+webhook+" ")
	t.Setenv("BFAUDIT_TEST_HISTORY_DSN", "postgres://bfaudit:"+canary("history-env")+"@127.0.0.1:5432/h")
	t.Setenv("BFAUDIT_TEST_PG_DSN_ENV", "host=127.0.0.1 user=bfaudit password="+canary("pg-env")+" dbname=w")
	t.Setenv("BFAUDIT_TEST_AIRFLOW_TOKEN", canary("airflow-token"))
	t.Setenv("BFAUDIT_TEST_AIRFLOW_PASSWORD", canary("airflow-password"))
	t.Setenv("BFAUDIT_RABBITMQ_PASSWORD_TEST", canary("rabbit-env"))
	body := `
github:
  repo: o/r
  token: ` + canary("github-token") + `
  dry_run: true
slack:
  channel: "#leads"
  webhook_url_env: BFAUDIT_TEST_WEBHOOK
  period: every
history:
  driver: postgres
  dsn_env: BFAUDIT_TEST_HISTORY_DSN
sources:
  - type: postgres
    name: pg-inline
    dsn: postgres://bfaudit:` + canary("pg-inline") + `@127.0.0.1:5432/w?sslmode=disable
  - type: postgres
    name: pg-env
    dsn_env: BFAUDIT_TEST_PG_DSN_ENV
  - type: airflow
    name: af-token
    url: http://127.0.0.1:1
    token_env: BFAUDIT_TEST_AIRFLOW_TOKEN
  - type: airflow
    name: af-password
    url: http://127.0.0.1:1
    username: bfaudit
    password_env: BFAUDIT_TEST_AIRFLOW_PASSWORD
  - type: rabbitmq
    name: rabbit-url
    url: http://guest:` + canary("rabbit-url") + `@127.0.0.1:15672
  - type: rabbitmq
    name: rabbit-env
    url: http://127.0.0.1:15672
    username: guest
    password_env: BFAUDIT_RABBITMQ_PASSWORD_TEST
`
	if _, err := Load(NewViper(), write(t, body)); err != nil {
		t.Fatal(err)
	}
	for _, place := range []string{"github-env", "slack-bot", "history-env", "pg-env", "airflow-token", "airflow-password", "rabbit-env", "github-token", "pg-inline", "rabbit-url"} {
		masked(t, place, canary(place))
	}
	masked(t, "webhook", webhook)
	if out := redact.String("posting to HTTPS://HOOKS.SLACK.COM/SERVICES/T000/B000/" + strings.ToUpper(canary("webhook"))); strings.Contains(strings.ToLower(out), hostile.Canary) {
		t.Errorf("upper-cased webhook URL printed whole: %q", out)
	}
	// Names of variables are not secrets: hints that name them stay readable.
	if out := redact.String("set $BFAUDIT_TEST_AIRFLOW_TOKEN"); strings.Contains(out, redact.Mask) {
		t.Errorf("a variable name was masked: %q", out)
	}
}

// A key no collector knows yet is still registered by its name, and before
// decoding: the config error it causes cannot leak it.
func TestUnknownSecretKeysRegistered(t *testing.T) {
	redact.Reset()
	t.Cleanup(redact.Reset)
	t.Setenv("BFAUDIT_TEST_NEW_SECRET", canary("new-env"))
	body := "sources:\n  - type: inventory\n    files: [a.yaml]\n    api_secret: " + canary("new-inline") +
		"\n    client_secret_env: BFAUDIT_TEST_NEW_SECRET\n    nested:\n      - webhook: " + canary("nested") + "\n"
	_, err := Load(NewViper(), write(t, body))
	if err == nil {
		t.Fatal("unknown keys loaded")
	}
	for _, place := range []string{"new-env", "new-inline", "nested"} {
		masked(t, place, canary(place))
	}
	if strings.Contains(err.Error(), hostile.Canary) {
		t.Errorf("config error holds a secret: %v", err)
	}
}

func TestSecretKey(t *testing.T) {
	for k, want := range map[string]bool{
		"token": true, "token_env": true, "password_env": true, "dsn": true, "webhook_url_env": true, "client_secret": true, "API_KEY": true,
		"ca_file": false, "credentials_file": false, "url": false, "username": false, "label_keys": false, "secret_path": false,
	} {
		if got := secretKey(k); got != want {
			t.Errorf("secretKey(%q) = %v, want %v", k, got, want)
		}
	}
}
