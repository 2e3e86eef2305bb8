package collectortest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// HostileCase is one misbehaving server and what the error it causes
// must say: Want, or one of its alternatives separated by "|".
type HostileCase struct {
	Name    string
	Handler func() http.Handler
	Want    string
}

// Says reports whether text says want or one of its "|" alternatives,
// as a HostileCase's error must.
func Says(text, want string) bool {
	for _, w := range strings.Split(want, "|") {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// HostileCases are the servers every collector that talks HTTP meets:
// one that never answers, one that drips, one that asks to come back in
// an hour, one that echoes the request's headers (the credentials) in an
// HTML error page, and answers too large to hold. A 50 MB answer may be
// read within the call timeout or not (the machine's speed decides), and
// what is wrong with it then depends on the reader: it must end in an
// error, whatever it says (Want ""). One over every cap names the request
// (a REST API's GET, cut off by the cap or by the deadline while it is
// read) or the cap (an AWS SDK's POST names its operation instead);
// apiclient's tests pin the cap.
var HostileCases = []HostileCase{
	{"stall", hostile.Stall, "deadline"},
	{"drip", func() http.Handler { return hostile.Drip(50 * time.Millisecond) }, "deadline"},
	{"503 Retry-After 3600", func() http.Handler { return hostile.RetryAfter(503, 3600) }, "HTTP 503"},
	{"header-echoing 502", func() http.Handler { return hostile.EchoHeaders(502) }, "HTTP 502"},
	{"50 MB answer", func() http.Handler { return hostile.Huge(50 << 20) }, ""},
	{"answer over the cap", func() http.Handler { return hostile.Huge(70 << 20) }, "GET|larger than"},
}

// HostileWholeServer puts each hostile server, and a port that accepts
// and never answers, in the place of the whole service: the source fails
// within its bounds, saying why, and neither the credential
// (hostile.Canary, which newOn must configure as its secret) nor the
// server's page is in any text. newOn builds and initialises the
// collector for a base URL, with a short call timeout and retry waits.
func HostileWholeServer(t *testing.T, newOn func(t *testing.T, url string) collectors.Collector) {
	t.Helper()
	cases := append([]HostileCase{{Name: "accepts and stalls (TCP)", Want: "deadline"}}, HostileCases...)
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			url := ""
			if tt.Handler == nil {
				url = "http://" + hostile.AcceptAndStall(t)
			} else {
				url = hostile.Server(t, tt.Handler()).URL
			}
			sink, err := Collect(t, newOn(t, url))
			if err == nil || !Says(err.Error(), tt.Want) {
				t.Fatalf("Collect = %v, want the source failed saying %q", err, tt.Want)
			}
			out, _ := json.Marshal(sink)
			for _, s := range []string{err.Error(), string(out)} {
				if strings.Contains(s, hostile.Canary) || strings.Contains(s, "<html") {
					t.Errorf("the answer or the credential leaked: %s", s)
				}
			}
		})
	}
}

// HostileUnit puts each hostile server behind one unit only: serve
// returns the base URL of the collector's fake with that unit's endpoint
// answered by h. The error stays at unit, says why, and leaks nothing;
// check, when set, asserts what the other units still reported.
func HostileUnit(t *testing.T, unit string, newOn func(t *testing.T, url string) collectors.Collector,
	serve func(t *testing.T, h http.Handler) string, check func(t *testing.T, sink *collectors.TestSink)) {
	t.Helper()
	for _, tt := range HostileCases {
		t.Run(tt.Name, func(t *testing.T) {
			sink := CollectBroken(t, newOn(t, serve(t, tt.Handler())), unit, tt.Want)
			if check != nil {
				check(t, sink)
			}
		})
	}
}
