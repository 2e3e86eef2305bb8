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
// must say.
type HostileCase struct {
	Name    string
	Handler func() http.Handler
	Want    string
}

// HostileCases are the servers every collector that talks HTTP meets:
// one that never answers, one that drips, one that asks to come back in
// an hour, one that echoes the request's headers (the credentials) in an
// HTML error page, and answers too large to hold. A 50 MB answer may be
// read within the call timeout or not (the machine's speed decides), and
// what is wrong with it then depends on the reader: it must end in an
// error, whatever it says (Want ""). apiclient's tests pin the cap.
var HostileCases = []HostileCase{
	{"stall", hostile.Stall, "deadline"},
	{"drip", func() http.Handler { return hostile.Drip(50 * time.Millisecond) }, "deadline"},
	{"503 Retry-After 3600", func() http.Handler { return hostile.RetryAfter(503, 3600) }, "HTTP 503"},
	{"header-echoing 502", func() http.Handler { return hostile.EchoHeaders(502) }, "HTTP 502"},
	{"50 MB answer", func() http.Handler { return hostile.Huge(50 << 20) }, ""},
	{"answer over the cap", func() http.Handler { return hostile.Huge(70 << 20) }, "GET"},
}

// SaysAWS is what each hostile case makes a call of the AWS SDK say
// through internal/awsconf: a call out of time "no answer within" its
// timeout, an error page its status. An answer over the cap ends in an
// error whatever it says, as the 50 MB one does: the SDK decodes the
// answer as it streams, and 16 MiB of it (awsconf's cap) may take longer
// than the call's timeout on a loaded machine or under the race
// detector (awsconf's test pins the cap). AWS sources hand
// it to HostileWholeServerSaying and HostileUnitSaying.
var SaysAWS = map[string]string{
	"accepts and stalls (TCP)": "no answer within",
	"stall":                    "no answer within",
	"drip":                     "no answer within",
	"503 Retry-After 3600":     "HTTP 503",
	"header-echoing 502":       "HTTP 502",
	"50 MB answer":             "",
	"answer over the cap":      "",
}

// HostileWholeServer puts each hostile server, and a port that accepts
// and never answers, in the place of the whole service: the source fails
// within its bounds, saying why, and neither the credential
// (hostile.Canary, which newOn must configure as its secret) nor the
// server's page is in any text. newOn builds and initialises the
// collector for a base URL, with a short call timeout and retry waits.
func HostileWholeServer(t *testing.T, newOn func(t *testing.T, url string) collectors.Collector) {
	t.Helper()
	HostileWholeServerSaying(t, nil, newOn)
}

// HostileWholeServerSaying is HostileWholeServer for a client that words
// the cases otherwise: says maps a case's name to what its error says
// instead of its Want (SaysAWS).
func HostileWholeServerSaying(t *testing.T, says map[string]string, newOn func(t *testing.T, url string) collectors.Collector) {
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
			want := wantOf(tt, says)
			sink, err := Collect(t, newOn(t, url))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("Collect = %v, want the source failed saying %q", err, want)
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

// wantOf is what a case's error says: says' wording when it has one.
func wantOf(tt HostileCase, says map[string]string) string {
	if w, ok := says[tt.Name]; ok {
		return w
	}
	return tt.Want
}

// HostileUnit puts each hostile server behind one unit only: serve
// returns the base URL of the collector's fake with that unit's endpoint
// answered by h. The error stays at unit, says why, and leaks nothing;
// check, when set, asserts what the other units still reported.
func HostileUnit(t *testing.T, unit string, newOn func(t *testing.T, url string) collectors.Collector,
	serve func(t *testing.T, h http.Handler) string, check func(t *testing.T, sink *collectors.TestSink)) {
	t.Helper()
	HostileUnitSaying(t, nil, unit, newOn, serve, check)
}

// HostileUnitSaying is HostileUnit for a client that words the cases
// otherwise (see HostileWholeServerSaying).
func HostileUnitSaying(t *testing.T, says map[string]string, unit string, newOn func(t *testing.T, url string) collectors.Collector,
	serve func(t *testing.T, h http.Handler) string, check func(t *testing.T, sink *collectors.TestSink)) {
	t.Helper()
	for _, tt := range HostileCases {
		t.Run(tt.Name, func(t *testing.T) {
			sink := CollectBroken(t, newOn(t, serve(t, tt.Handler())), unit, wantOf(tt, says))
			if check != nil {
				check(t, sink)
			}
		})
	}
}
