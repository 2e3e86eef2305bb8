package slack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/bfaudit/bfaudit/testkit/slackfake"
	"github.com/jackc/pgx/v5"
)

// The fake is testkit/slackfake's; these names keep the tests short.
type (
	fakeSlack = slackfake.Server
	sent      = slackfake.Message
)

func newFakeSlack(t testing.TB) *fakeSlack { return slackfake.New(t, testToken) }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// topLevel counts messages that start a thread (digests, not replies).
func topLevel(ps []sent) int {
	n := 0
	for _, p := range ps {
		if p.ThreadTS == "" {
			n++
		}
	}
	return n
}

// texts collects every "text" string in a payload's blocks.
func texts(v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "text" {
				out = append(out, s)
			} else {
				out = append(out, texts(e)...)
			}
		}
	case []any:
		for _, e := range x {
			out = append(out, texts(e)...)
		}
	}
	return out
}

func allText(ps []sent) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Text + "\n")
		for _, s := range texts(p.Blocks) {
			b.WriteString(s + "\n")
		}
	}
	return b.String()
}

// checkLimits fails when a message breaks Block Kit's limits.
func checkLimits(t *testing.T, ps []sent) {
	t.Helper()
	for i, p := range ps {
		if len(p.Blocks) > maxBlocks {
			t.Errorf("message %d has %d blocks, over Slack's %d", i+1, len(p.Blocks), maxBlocks)
		}
		for _, s := range texts(p.Blocks) {
			if runes(s) > maxText {
				t.Errorf("message %d has a text of %d characters, over Slack's %d", i+1, runes(s), maxText)
			}
		}
	}
}

// --- stores ---

const pgEnv = "BFAUDIT_TEST_PG_DSN"

// eachStore runs fn with a history config on SQLite and, when
// BFAUDIT_TEST_PG_DSN is set, on PostgreSQL in a schema dropped afterwards.
func eachStore(t *testing.T, fn func(t *testing.T, cfg history.Config)) {
	t.Run("sqlite", func(t *testing.T) {
		fn(t, history.Config{Path: filepath.Join(t.TempDir(), "history.db")})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := os.Getenv(pgEnv)
		if dsn == "" {
			t.Skipf("PostgreSQL variant skipped: set %s, e.g. %s='postgres://postgres@127.0.0.1:5432/test?sslmode=disable'", pgEnv, pgEnv)
		}
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		schema := "bfaudit_slack_test_" + hex.EncodeToString(b)
		t.Cleanup(func() {
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Errorf("drop schema %s: %v", schema, err)
				return
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS "`+schema+`" CASCADE`); err != nil {
				t.Errorf("drop schema %s: %v", schema, err)
			}
		})
		fn(t, history.Config{Driver: history.DriverPostgres, DSNEnv: pgEnv, Schema: schema})
	})
}

func openStore(t testing.TB, cfg history.Config) *history.Store {
	t.Helper()
	s, err := history.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("history.Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// --- reports ---

var monday = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) // ISO week 2026-W10

func day(n int) time.Time { return monday.AddDate(0, 0, n) }

func bfID(i int) string { return fmt.Sprintf("BF-%d", 1000+i) }

func issueURL(i int) string { return fmt.Sprintf("https://github.com/acme/data/issues/%d", i) }

// estate builds a report of n backfills, each with an issue and one
// lingering temp table; every third also keeps a grant.
func estate(now time.Time, n int) *model.Report {
	r := &model.Report{Version: model.ReportVersion, Tool: "bfaudit", Now: now,
		Coverage: []model.Coverage{{Source: "bq", System: "bigquery", Status: model.CoverageOK},
			{Source: "gcp", System: "gcp", Status: model.CoverageOK}}}
	owners := []string{"alice", "bob", "carol"}
	for i := range n {
		id, owner := bfID(i), owners[i%len(owners)]
		r.Backfills = append(r.Backfills, model.BackfillReport{
			Backfill: &model.Backfill{ID: id, Owner: owner, Status: model.StatusReplayed}, Known: true,
			Lifecycle: model.Lifecycle{Reached: model.StepVerified, Next: model.StepNormalized},
			IssueURL:  issueURL(i)})
		r.Findings = append(r.Findings, mkFinding("BF005", id, fmt.Sprintf("bigquery://proj/ds/tmp_%d", i), "bq", owner, model.SeverityMedium))
		if i%3 == 0 {
			r.Findings = append(r.Findings, mkFinding("BF003", id, fmt.Sprintf("gcp://proj/iam/grant_%d", i), "gcp", owner, model.SeverityHigh))
		}
	}
	return r
}

func mkFinding(rule, bf, uri, source, owner string, sev model.Severity) model.Finding {
	return model.Finding{RuleID: rule, Title: "lingering " + rule, Severity: sev, BackfillID: bf, ArtifactURI: uri,
		Owner: owner, Message: "still there", Source: source, Fingerprint: model.Fingerprint(rule, model.ParseID(bf), uri)}
}

// without drops the findings on artifact uri.
func without(r *model.Report, uri string) *model.Report {
	var fs []model.Finding
	for _, f := range r.Findings {
		if f.ArtifactURI != uri {
			fs = append(fs, f)
		}
	}
	r.Findings = fs
	return r
}

// audit records r in the store and posts it, then marks the run
// delivered, as the pipeline does.
func audit(t testing.TB, store *history.Store, s *Sink, r *model.Report) (Result, error) {
	t.Helper()
	if store != nil {
		if err := store.Record(context.Background(), r); err != nil {
			t.Fatalf("Record: %v", err)
		}
	}
	res, err := s.Post(context.Background(), r)
	if store != nil {
		if err := store.MarkDelivered(context.Background(), r.Now); err != nil {
			t.Fatalf("MarkDelivered: %v", err)
		}
	}
	return res, err
}

const testToken = "xoxb-test-token"

func botEnv(name string) string {
	if name == DefaultTokenEnv {
		return testToken
	}
	return ""
}

func newBotSink(t testing.TB, f *fakeSlack, cfg Config, owners model.Owners, store *history.Store, opts ...Option) *Sink {
	t.Helper()
	if cfg.Channel == "" {
		cfg.Channel = "#leads"
	}
	base := []Option{WithAPIURL(f.APIURL()), WithEnv(botEnv),
		WithSleep(func(context.Context, time.Duration) error { return nil })}
	s, err := New(cfg, owners, store, append(base, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}
