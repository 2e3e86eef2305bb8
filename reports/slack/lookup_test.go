package slack

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports/history"
)

// A token without users:read.email makes every lookup fail; the fallback
// must say why, or the lead cannot tell a scope problem from unknown people.
func TestOwnerLookupFailureSaysWhy(t *testing.T) {
	f := newFakeSlack(t)
	f.LookupErr = "missing_scope"
	store := openStore(t, history.Config{Path: t.TempDir() + "/h.db"})
	s := newBotSink(t, f, Config{OwnerMessages: true}, model.Owners{"alice": {Email: "alice@example.com"}}, store)
	res, err := audit(t, store, s, estate(day(0), 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Fallbacks) != 1 || !strings.Contains(res.Fallbacks[0], "missing_scope") {
		t.Errorf("fallbacks %v, want alice's saying missing_scope", res.Fallbacks)
	}
	if txt := allText(f.Sent()); !strings.Contains(txt, "missing_scope") {
		t.Errorf("the digest thread does not say why alice got no message:\n%s", txt)
	}
}
