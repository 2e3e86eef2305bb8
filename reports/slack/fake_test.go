package slack

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/jackc/pgx/v5"
	"github.com/slack-go/slack/slacktest"
)

// sent is one chat.postMessage call as the fake saw it.
type sent struct {
	Channel, ThreadTS, Text string
	Blocks                  []any // decoded JSON
	TS                      string
	Metadata                map[string]any // decoded "metadata", nil when none
}

// request is one HTTP request as the fake received it.
type request struct {
	Path, Query, Body, Auth string
}

// fakeSlack is slack-go's slacktest server with handlers that capture
// chat.postMessage and users.lookupByEmail and can answer with errors. Like
// Slack, it takes the bot token from the Authorization header; unlike Slack,
// it accepts it nowhere else, and answers not_authed without it.
type fakeSlack struct {
	srv *slacktest.Server

	mu       sync.Mutex
	requests []request
	posts    []sent
	lookups  []string
	users    map[string]string // e-mail -> user id
	// lookupErr, when set, is the error code every lookup answers with.
	lookupErr string
	// answer, when set, may answer the nth postMessage call (1-based)
	// itself, e.g. with a 429; it returns false to let it succeed.
	answer func(n int, w http.ResponseWriter) bool
	calls  int
	// now dates the ts of each message, as Slack's ts is its post time
	// (default the wall clock).
	now func() time.Time
	// reads counts conversations.history and conversations.replies calls.
	reads int
}

func newFakeSlack(t *testing.T) *fakeSlack {
	f := &fakeSlack{users: map[string]string{}, now: time.Now}
	f.srv = slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/chat.postMessage", f.authed(f.postMessage))
		c.Handle("/users.lookupByEmail", f.authed(f.lookupByEmail))
		c.Handle("/conversations.history", f.authed(f.history))
		c.Handle("/conversations.replies", f.authed(f.replies))
		c.Handle("/conversations.open", f.authed(f.open))
		c.Handle("/conversations.list", f.authed(f.list))
	})
	f.srv.Start()
	t.Cleanup(f.srv.Stop)
	return f
}

// authed records every request whole and refuses those without the bot
// token in the Authorization header.
func (f *fakeSlack) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		auth := r.Header.Get("Authorization")
		f.mu.Lock()
		f.requests = append(f.requests, request{Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body), Auth: auth})
		f.mu.Unlock()
		if auth != "Bearer "+testToken {
			writeJSON(w, map[string]any{"ok": false, "error": "not_authed"})
			return
		}
		h(w, r)
	}
}

func (f *fakeSlack) postMessage(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.answer != nil && f.answer(f.calls, w) {
		return
	}
	var blocks []any
	if b := r.Form.Get("blocks"); b != "" {
		if err := json.Unmarshal([]byte(b), &blocks); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	ch := r.Form.Get("channel")
	switch {
	case ch == "#leads":
		ch = "C0LEADS" // Slack answers with the channel id
	case strings.HasPrefix(ch, "U"):
		ch = "D" + ch[1:] // a DM opened with the user
	}
	var meta map[string]any
	if m := r.Form.Get("metadata"); m != "" {
		if err := json.Unmarshal([]byte(m), &meta); err != nil {
			writeJSON(w, map[string]any{"ok": false, "error": "invalid_metadata_format"})
			return
		}
	}
	ts := fmt.Sprintf("%d.%06d", f.now().Unix(), len(f.posts)+1)
	f.posts = append(f.posts, sent{Channel: ch, ThreadTS: r.Form.Get("thread_ts"), Text: r.Form.Get("text"), Blocks: blocks, TS: ts, Metadata: meta})
	writeJSON(w, map[string]any{"ok": true, "channel": ch, "ts": ts})
}

// history is conversations.history: a channel's top-level messages newest
// first, after oldest (exclusive), limit a page (default 100), a cursor
// (here the offset) in response_metadata.next_cursor; metadata only with
// include_all_metadata. Like Slack it wants a channel id, not a #name.
func (f *fakeSlack) history(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	ch := r.Form.Get("channel")
	if strings.HasPrefix(ch, "#") || ch == "" {
		writeJSON(w, map[string]any{"ok": false, "error": "channel_not_found"})
		return
	}
	var msgs []sent
	for i := len(f.posts) - 1; i >= 0; i-- {
		p := f.posts[i]
		if p.Channel == ch && p.ThreadTS == "" && tsAfter(p.TS, r.Form.Get("oldest")) {
			msgs = append(msgs, p)
		}
	}
	f.page(w, r, msgs)
}

// replies is conversations.replies: the parent at ts, then its replies,
// oldest first, paged like history.
func (f *fakeSlack) replies(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	ch, ts := r.Form.Get("channel"), r.Form.Get("ts")
	var msgs []sent
	for _, p := range f.posts {
		if p.Channel == ch && (p.TS == ts || p.ThreadTS == ts) && tsAfter(p.TS, r.Form.Get("oldest")) {
			msgs = append(msgs, p)
		}
	}
	if len(msgs) == 0 {
		writeJSON(w, map[string]any{"ok": false, "error": "thread_not_found"})
		return
	}
	f.page(w, r, msgs)
}

// page answers one page of msgs (f.mu held).
func (f *fakeSlack) page(w http.ResponseWriter, r *http.Request, msgs []sent) {
	limit, _ := strconv.Atoi(r.Form.Get("limit"))
	if limit <= 0 || limit > 999 {
		limit = 100
	}
	from, _ := strconv.Atoi(r.Form.Get("cursor"))
	end := min(from+limit, len(msgs))
	withMeta := r.Form.Get("include_all_metadata") == "1"
	out := []map[string]any{}
	for _, p := range msgs[min(from, len(msgs)):end] {
		m := map[string]any{"type": "message", "ts": p.TS, "text": p.Text, "blocks": p.Blocks}
		if p.ThreadTS != "" {
			m["thread_ts"] = p.ThreadTS
		}
		if withMeta && p.Metadata != nil {
			m["metadata"] = p.Metadata
		}
		out = append(out, m)
	}
	next := ""
	if end < len(msgs) {
		next = strconv.Itoa(end)
	}
	writeJSON(w, map[string]any{"ok": true, "messages": out, "has_more": next != "", "response_metadata": map[string]any{"next_cursor": next}})
}

// tsAfter compares Slack timestamps; an empty oldest lets all through.
func tsAfter(ts, oldest string) bool {
	if oldest == "" {
		return true
	}
	a, _ := strconv.ParseFloat(ts, 64)
	b, _ := strconv.ParseFloat(oldest, 64)
	return a > b
}

// open is conversations.open for one user: the DM channel D... that
// chat.postMessage to U... lands in.
func (f *fakeSlack) open(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	u := r.Form.Get("users")
	if !strings.HasPrefix(u, "U") || strings.Contains(u, ",") {
		writeJSON(w, map[string]any{"ok": false, "error": "user_not_found"})
		return
	}
	writeJSON(w, map[string]any{"ok": true, "no_op": true, "already_open": true, "channel": map[string]any{"id": "D" + u[1:]}})
}

// list is conversations.list: the one channel #leads, id C0LEADS.
func (f *fakeSlack) list(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{"ok": true, "channels": []map[string]any{{"id": "C0LEADS", "name": "leads", "is_channel": true}},
		"response_metadata": map[string]any{"next_cursor": ""}})
}

func (f *fakeSlack) lookupByEmail(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	email := r.Form.Get("email")
	f.mu.Lock()
	f.lookups = append(f.lookups, email)
	id, ok := f.users[email]
	code := f.lookupErr
	f.mu.Unlock()
	if code != "" {
		writeJSON(w, map[string]any{"ok": false, "error": code})
		return
	}
	if !ok {
		writeJSON(w, map[string]any{"ok": false, "error": "users_not_found"})
		return
	}
	writeJSON(w, map[string]any{"ok": true, "user": map[string]any{"id": id, "name": email}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeSlack) lookedUp() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lookups...)
}

func (f *fakeSlack) seen() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.requests...)
}

func (f *fakeSlack) sent() []sent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sent(nil), f.posts...)
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

func openStore(t *testing.T, cfg history.Config) *history.Store {
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
			Backfill: model.Backfill{ID: id, Owner: owner, Status: model.StatusReplayed}, Known: true,
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

// audit records r in the store and posts it, as the pipeline does.
func audit(t *testing.T, store *history.Store, s *Sink, r *model.Report) (Result, error) {
	t.Helper()
	if store != nil {
		if err := store.Record(context.Background(), r); err != nil {
			t.Fatalf("Record: %v", err)
		}
	}
	return s.Post(context.Background(), r)
}

const testToken = "xoxb-test-token"

func botEnv(name string) string {
	if name == DefaultTokenEnv {
		return testToken
	}
	return ""
}

func newBotSink(t *testing.T, f *fakeSlack, cfg Config, owners model.Owners, store *history.Store, opts ...Option) *Sink {
	t.Helper()
	if cfg.Channel == "" {
		cfg.Channel = "#leads"
	}
	base := []Option{WithAPIURL(f.srv.GetAPIURL()), WithEnv(botEnv),
		WithSleep(func(context.Context, time.Duration) error { return nil })}
	s, err := New(cfg, owners, store, append(base, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}
