// Package slackfake is slack-go's slacktest server with the Web API calls
// bfaudit's Slack sink makes, keeping what was posted so a test can read it
// back the way Slack would: chat.postMessage (with metadata),
// conversations.history and .replies (paged, metadata only with
// include_all_metadata), conversations.open and .list, and
// users.lookupByEmail. Like Slack it takes the bot token from the
// Authorization header; unlike Slack it accepts it nowhere else and
// answers not_authed without it.
package slackfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack/slacktest"
)

// Message is one chat.postMessage call as the fake kept it.
type Message struct {
	Channel, ThreadTS, Text string
	Blocks                  []any // decoded JSON
	TS                      string
	Metadata                map[string]any // decoded "metadata", nil when none
}

// Request is one HTTP request as the fake received it.
type Request struct {
	Path, Query, Body, Auth string
}

// Server is the fake. Set its exported fields before the calls they
// affect; they are read under its lock.
type Server struct {
	srv   *slacktest.Server
	token string

	mu       sync.Mutex
	requests []Request
	posts    []Message
	lookups  []string
	calls    int

	// Users maps e-mail to user id for users.lookupByEmail.
	Users map[string]string
	// Channels are the channel names (without #) conversations.list
	// shows; "#name" is id "C0NAME" (#leads is C0LEADS). Default: leads.
	Channels []string
	// LookupErr, when set, is the error code every lookup answers with.
	LookupErr string
	// Answer, when set, may answer the nth postMessage call (1-based)
	// itself, e.g. with a 429; it returns false to let it through.
	Answer func(n int, w http.ResponseWriter) bool
	// Down, when set, answers every call 503 (an outage).
	Down bool
	// Posted, when set, is called after a message was kept and before the
	// answer is written (with the lock released): a test kills the caller
	// there to model a crash between Slack keeping a message and the
	// caller hearing so.
	Posted func(Message)
	// Now dates the ts of each message, as Slack's ts is its post time
	// (default the wall clock).
	Now func() time.Time
	// Latency, when set, is how long each answer takes (in real time),
	// for benchmarks at a real service's pace.
	Latency time.Duration
}

// New starts a fake that accepts token, stopped when the test ends.
func New(t testing.TB, token string) *Server {
	f := &Server{Users: map[string]string{}, Channels: []string{"leads"}, Now: time.Now, token: token}
	handlers := map[string]http.HandlerFunc{
		"chat.postMessage":      f.postMessage,
		"users.lookupByEmail":   f.lookupByEmail,
		"conversations.history": f.history,
		"conversations.replies": f.replies,
		"conversations.open":    f.open,
		"conversations.list":    f.list,
	}
	f.srv = slacktest.NewTestServer(func(c slacktest.Customize) {
		// At the root (APIURL, as slack-go's option takes it) and under
		// /api/ (Slack's own path, which the config's api_url adds).
		for method, h := range handlers {
			c.Handle("/"+method, f.authed(h))
			c.Handle("/api/"+method, f.authed(h))
		}
	})
	f.srv.Start()
	t.Cleanup(f.srv.Stop)
	return f
}

// APIURL is the base URL of the fake's Web API, ending in a slash.
func (f *Server) APIURL() string { return f.srv.GetAPIURL() }

// authed records every request whole and refuses those without the bot
// token in the Authorization header.
func (f *Server) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		auth := r.Header.Get("Authorization")
		f.mu.Lock()
		f.requests = append(f.requests, Request{Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body), Auth: auth})
		down, latency := f.Down, f.Latency
		f.mu.Unlock()
		time.Sleep(latency)
		if down {
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
			return
		}
		if auth != "Bearer "+f.token {
			writeJSON(w, map[string]any{"ok": false, "error": "not_authed"})
			return
		}
		h(w, r)
	}
}

func (f *Server) postMessage(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.calls++
	if f.Answer != nil && f.Answer(f.calls, w) {
		f.mu.Unlock()
		return
	}
	var blocks []any
	if b := r.Form.Get("blocks"); b != "" {
		if err := json.Unmarshal([]byte(b), &blocks); err != nil {
			f.mu.Unlock()
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	ch := r.Form.Get("channel")
	switch {
	case strings.HasPrefix(ch, "#"):
		ch = channelID(strings.TrimPrefix(ch, "#")) // Slack answers with the channel id
	case strings.HasPrefix(ch, "U"):
		ch = "D" + ch[1:] // a DM opened with the user
	}
	var meta map[string]any
	if m := r.Form.Get("metadata"); m != "" {
		if err := json.Unmarshal([]byte(m), &meta); err != nil {
			f.mu.Unlock()
			writeJSON(w, map[string]any{"ok": false, "error": "invalid_metadata_format"})
			return
		}
	}
	ts := fmt.Sprintf("%d.%06d", f.Now().Unix(), len(f.posts)+1)
	m := Message{Channel: ch, ThreadTS: r.Form.Get("thread_ts"), Text: r.Form.Get("text"), Blocks: blocks, TS: ts, Metadata: meta}
	f.posts = append(f.posts, m)
	posted := f.Posted
	f.mu.Unlock()
	if posted != nil {
		posted(m)
	}
	writeJSON(w, map[string]any{"ok": true, "channel": ch, "ts": ts})
}

// history is conversations.history: a channel's top-level messages newest
// first, after oldest (exclusive), limit a page (default 100), a cursor
// (here the offset) in response_metadata.next_cursor; metadata only with
// include_all_metadata. Like Slack it wants a channel id, not a #name.
func (f *Server) history(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := r.Form.Get("channel")
	if strings.HasPrefix(ch, "#") || ch == "" {
		writeJSON(w, map[string]any{"ok": false, "error": "channel_not_found"})
		return
	}
	var msgs []Message
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
func (f *Server) replies(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.mu.Lock()
	defer f.mu.Unlock()
	ch, ts := r.Form.Get("channel"), r.Form.Get("ts")
	var msgs []Message
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
func (f *Server) page(w http.ResponseWriter, r *http.Request, msgs []Message) {
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
func (f *Server) open(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	u := r.Form.Get("users")
	if !strings.HasPrefix(u, "U") || strings.Contains(u, ",") {
		writeJSON(w, map[string]any{"ok": false, "error": "user_not_found"})
		return
	}
	writeJSON(w, map[string]any{"ok": true, "no_op": true, "already_open": true, "channel": map[string]any{"id": "D" + u[1:]}})
}

// channelID is the id of the channel called name.
func channelID(name string) string {
	return "C0" + strings.ToUpper(strings.ReplaceAll(name, "-", ""))
}

// list is conversations.list: Channels, on one page.
func (f *Server) list(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	chans := []map[string]any{}
	for _, n := range f.Channels {
		chans = append(chans, map[string]any{"id": channelID(n), "name": n, "is_channel": true})
	}
	f.mu.Unlock()
	writeJSON(w, map[string]any{"ok": true, "channels": chans, "response_metadata": map[string]any{"next_cursor": ""}})
}

func (f *Server) lookupByEmail(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	email := r.Form.Get("email")
	f.mu.Lock()
	f.lookups = append(f.lookups, email)
	id, ok := f.Users[email]
	code := f.LookupErr
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

// AddUser lets users.lookupByEmail find email as id from now on, while
// calls may be under way.
func (f *Server) AddUser(email, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Users[email] = id
}

// LookedUp is every e-mail looked up, in order.
func (f *Server) LookedUp() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lookups...)
}

// Seen is every request, in order.
func (f *Server) Seen() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

// Sent is every message kept, in order.
func (f *Server) Sent() []Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Message(nil), f.posts...)
}
