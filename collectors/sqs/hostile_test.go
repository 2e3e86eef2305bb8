package sqs

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// hostileWant is what the error of each of collectortest's hostile
// servers says through the SDK (an SDK call is a POST, and an answer over
// the cap is cut by the transport: no "GET" in it).
var hostileWant = map[string]string{
	"stall":                "no answer within",
	"drip":                 "no answer within",
	"503 Retry-After 3600": "503",
	"header-echoing 502":   "502",
	"50 MB answer":         "",
	"answer over the cap":  "answer larger than",
}

// Each hostile server in the place of the whole service, and a port that
// accepts and never answers: the source fails within its bounds, saying
// why, and neither the canaries nor the server's page is in any text.
func TestHostileWholeServer(t *testing.T) {
	cases := append([]collectortest.HostileCase{{Name: "accepts and stalls (TCP)"}}, collectortest.HostileCases...)
	hostileWant["accepts and stalls (TCP)"] = "no answer within"
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			url := ""
			if tc.Handler == nil {
				url = "http://" + hostile.AcceptAndStall(t)
			} else {
				url = hostile.Server(t, tc.Handler()).URL
			}
			c := newOn(t, url, func(c *Collector) {
				c.Accounts = []accountSetting{{ID: baseAccount}}
				c.Timeout = 2 * time.Second
				if strings.Contains(tc.Name, "50 MB") || strings.Contains(tc.Name, "over the cap") { // reading 16 MiB takes seconds under -race
					c.Timeout = 15 * time.Second
				}
			})
			sink, err := collectortest.Collect(t, c)
			if err == nil || !strings.Contains(err.Error(), hostileWant[tc.Name]) {
				t.Fatalf("Collect = %v, want the source failed saying %q", err, hostileWant[tc.Name])
			}
			out, _ := json.Marshal(sink)
			noCanary(t, err.Error(), string(out))
		})
	}
}

// Each hostile server behind one unit only (the other account's SQS):
// the error stays at that unit, and the base account is read.
func TestHostileUnit(t *testing.T) {
	for _, tc := range collectortest.HostileCases {
		t.Run(tc.Name, func(t *testing.T) {
			e := newEstate(t)
			e.addQueue(fakeQueue{name: "bf-7001-retries"})
			e.breakUnit(otherAccount+"/"+mainRegion+"/sqs", tc.Handler())
			c := newOn(t, e.URL, func(c *Collector) {
				c.Accounts = []accountSetting{{ID: baseAccount}, {ID: otherAccount, Role: "bfaudit-read"}}
				c.SNS = false
				c.Timeout = 2 * time.Second
				if strings.Contains(tc.Name, "50 MB") || strings.Contains(tc.Name, "over the cap") { // reading 16 MiB takes seconds under -race
					c.Timeout = 15 * time.Second
				}
			})
			sink := collectortest.CollectBroken(t, c, otherAccount+"/"+mainRegion, hostileWant[tc.Name])
			if _, ok := byURI(sink)[q+"bf-7001-retries"]; !ok {
				t.Error("the base account was not read")
			}
		})
	}
}

// The canary: the secret key and session token of the base and assumed
// credentials appear in no error, coverage, report or fix script, with a
// role refused and a unit failing.
func TestNoCredentialInAnyOutput(t *testing.T) {
	e := newEstate(t)
	standard(t, e)
	e.addQueue(fakeQueue{account: otherAccount, region: "us-east-1", name: "bf-7001-retries", visible: 1})
	e.refuse(otherAccount)
	e.breakUnit(baseAccount+"/us-east-1/sqs", hostile.EchoHeaders(http.StatusBadGateway))
	c := newOn(t, e.URL, func(c *Collector) {
		c.Regions = []string{mainRegion, "us-east-1"}
		c.Accounts = []accountSetting{{ID: baseAccount}, {ID: otherAccount, Role: "bfaudit-read"}}
	})
	report := collectortest.Audit(t, []collectors.Instance{{Name: "aws-queues", Type: "sqs", Collector: c},
		{Name: "plans", Type: "records", Collector: collectortest.PlannedAs{"BF-7001": true}}}, time.Now())
	if report.Summary.Complete {
		t.Error("the run is complete though a role was refused")
	}
	out, _ := json.Marshal(report)
	var script bytes.Buffer
	in := fixtest.Audit(t, correlate.MustSelector(), fixtest.PlanSource(t, "BF-7001", true),
		collectors.Instance{Name: "aws-queues", Type: "sqs", Collector: newOn(t, e.URL)})
	p, err := fix.NewPlan(in, "BF-7001", func(remedy.Action) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if err := fix.WriteScript(&script, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(script.String(), "aws sqs delete-queue") {
		t.Errorf("the script has no command: %s", script.String())
	}
	if !strings.Contains(string(out), "arn:aws:iam::222222222222:role/bfaudit-read") {
		t.Error("the refused role is not named in the report")
	}
	noCanary(t, string(out), script.String())
}

func noCanary(t *testing.T, texts ...string) {
	t.Helper()
	for _, s := range texts {
		for _, secret := range []string{canarySecret, canaryToken, hostile.Canary, "<html"} {
			if strings.Contains(s, secret) {
				t.Errorf("an output holds %q: %.300s", secret, s)
			}
		}
	}
}
