package slack

import (
	"net/url"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
)

// A proxy or gateway that logs request bodies or URLs must not capture the
// bot token (issue 13.1): it travels in the Authorization header only, on
// every call (posts, threaded replies, user look-ups).
func TestBotTokenOnlyInAuthorizationHeader(t *testing.T) {
	f := newFakeSlack(t)
	f.Users["alice@example.com"] = "U0ALICE"
	owners := model.Owners{"alice": {Email: "alice@example.com"}, "bob": {Email: "bob@example.com"}}
	store := openStore(t, history.Config{Path: t.TempDir() + "/h.db"})
	s := newBotSink(t, f, Config{OwnerMessages: true}, owners, store)
	res, err := audit(t, store, s, estate(day(0), 120))
	if err != nil || !res.Posted || res.DirectMessages != 1 {
		t.Fatalf("Post = %+v, %v; want the digest and alice's message posted", res, err)
	}
	reqs := f.Seen()
	var paths []string
	for _, r := range reqs {
		paths = append(paths, r.Path)
		if r.Auth != "Bearer "+testToken {
			t.Errorf("%s: Authorization %q, want the bot token as a Bearer header", r.Path, r.Auth)
		}
		for where, text := range map[string]string{"body": r.Body, "URL": r.Query} {
			if strings.Contains(text, testToken) || strings.Contains(text, url.QueryEscape(testToken)) {
				t.Errorf("%s: the token is in the %s: %.200s", r.Path, where, text)
			}
			if v, err := url.ParseQuery(text); err == nil && v.Has("token") {
				t.Errorf("%s: the %s has a token field", r.Path, where)
			}
		}
	}
	joined := strings.Join(paths, " ")
	if !strings.Contains(joined, "/chat.postMessage") || !strings.Contains(joined, "/users.lookupByEmail") || len(reqs) < 4 {
		t.Errorf("requests %v: want posts, threaded replies and look-ups checked", paths)
	}
}
