package slack

import (
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string // substring of the error; "" for valid
	}{
		{"channel with defaults", Config{Channel: "#leads"}, ""},
		{"webhook without channel", Config{WebhookURLEnv: "HOOK"}, ""},
		{"no channel, no webhook", Config{}, "slack.channel"},
		{"unknown period", Config{Channel: "#x", Period: "monthly"}, "slack.period"},
		{"max_oldest too large", Config{Channel: "#x", MaxOldest: 1000}, "slack.max_oldest"},
		{"api_url not http", Config{Channel: "#x", APIURL: "ftp://x"}, "slack.api_url"},
		{"api_url without /api/", Config{Channel: "#x", APIURL: "https://slack-proxy.example"}, ""},
		// A call without a deadline can hang the audit: zero is refused,
		// not taken for the default.
		{"timeout zero", Config{Channel: "#x", Timeout: new(time.Duration(0))}, "slack.timeout"},
		{"timeout negative", Config{Channel: "#x", Timeout: new(-time.Second)}, "slack.timeout"},
		{"timeout set", Config{Channel: "#x", Timeout: new(5 * time.Second)}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Validate = %v, want an error naming %s", err, tc.want)
			}
		})
	}
	d := Config{}.WithDefaults()
	if d.TokenEnv != "SLACK_BOT_TOKEN" || d.Period != PeriodWeekly || d.MaxOldest != 10 || *d.Timeout != 30*time.Second {
		t.Errorf("defaults = %+v", d)
	}
}

func TestNewRefusesWhatCannotWork(t *testing.T) {
	none := WithEnv(func(string) string { return "" })
	if _, err := New(Config{Channel: "#x", Period: PeriodEvery}, nil, nil, none); err == nil || !strings.Contains(err.Error(), "SLACK_BOT_TOKEN") {
		t.Errorf("New without credentials = %v, want an error naming SLACK_BOT_TOKEN", err)
	}
	if _, err := New(Config{Channel: "#x"}, nil, nil, WithEnv(botEnv)); err == nil || !strings.Contains(err.Error(), "history") {
		t.Errorf("New weekly without a store = %v, want an error saying the history store is needed", err)
	}
}

func TestPeriodKey(t *testing.T) {
	cases := []struct {
		period string
		at     time.Time
		want   string
	}{
		{PeriodWeekly, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), "2026-W10"},
		{PeriodWeekly, time.Date(2026, 3, 8, 23, 59, 0, 0, time.UTC), "2026-W10"},
		{PeriodWeekly, time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC), "2026-W53"}, // ISO year, not calendar year
		{PeriodDaily, time.Date(2026, 3, 2, 23, 30, 0, 0, time.FixedZone("X", -3*3600)), "2026-03-03"},
		{PeriodEvery, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), "run 2026-03-02T09:00:00Z"},
	}
	for _, tc := range cases {
		t.Run(tc.period+" "+tc.at.String(), func(t *testing.T) {
			if got := periodKey(tc.period, tc.at); got != tc.want {
				t.Errorf("periodKey = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAPIBase(t *testing.T) {
	for in, want := range map[string]string{
		"":                                "https://slack.com/api/",
		"https://slack.com":               "https://slack.com/api/",
		"https://slack.com/api":           "https://slack.com/api/",
		"https://slack.com/api/":          "https://slack.com/api/",
		"http://proxy.example:8080/slack": "http://proxy.example:8080/slack/api/",
	} {
		if got := apiBase(in); got != want {
			t.Errorf("apiBase(%q) = %q, want %q", in, got, want)
		}
	}
}
