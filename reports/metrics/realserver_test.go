package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
	"github.com/bfaudit/bfaudit/model"
)

func pushgatewayURL(t *testing.T) string {
	u := os.Getenv("BFAUDIT_TEST_PUSHGATEWAY_URL")
	if u == "" {
		t.Skip("set BFAUDIT_TEST_PUSHGATEWAY_URL=http://127.0.0.1:9091 (a running Prometheus Pushgateway; .ci/run starts one from Debian's prometheus-pushgateway package) to run the real-Pushgateway tests")
	}
	return strings.TrimRight(u, "/")
}

// hostileOwner is what the real servers must take and give back whole.
const hostileOwner = "équipe \"données\"\\\nligne 2 🧹"

// uniqueJob keeps runs of the suite (and parallel suites) apart.
func uniqueJob(t *testing.T) string {
	return fmt.Sprintf("bfaudit_test_%s_%d", strings.ToLower(t.Name()[4:]), time.Now().UnixNano())
}

func realReport() *model.Report {
	r := report()
	r.Findings[0].Owner = hostileOwner
	return r
}

// The real Pushgateway takes the push (it refuses a text it cannot parse
// with 400) and serves back the series with the hostile owner whole.
func TestRealPushgateway(t *testing.T) {
	base := pushgatewayURL(t)
	job := uniqueJob(t)
	p, err := NewPusher(PushgatewayConfig{Config: apiclient.Config{URL: base}, Job: job}, nil, remote.RetryPolicy{Attempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteGroup(base, job) })
	if err := p.Push(context.Background(), realReport(), Run{Complete: true, Duration: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	groups := pushedGroups(t, base)
	g, ok := groups[job]
	if !ok {
		t.Fatalf("job %s not in the Pushgateway's groups", job)
	}
	var overdueOfHostile float64
	for _, m := range g[Findings] {
		if m.Labels["owner"] == hostileOwner && m.Labels["overdue"] == "true" {
			fmt.Sscan(m.Value, &overdueOfHostile)
		}
	}
	if overdueOfHostile != 1 {
		t.Errorf("overdue findings of %q = %v; got %+v", hostileOwner, overdueOfHostile, g[Findings])
	}
	if len(g[LastSuccess]) != 1 || len(g[SourceUp]) != 3 {
		t.Errorf("pushed group = %+v", g)
	}

	// An incomplete run keeps the last success the complete one pushed.
	later := realReport()
	later.Now = now.Add(time.Hour)
	if err := p.Push(context.Background(), later, Run{Complete: false}); err != nil {
		t.Fatal(err)
	}
	g = pushedGroups(t, base)[job]
	if ls := g[LastSuccess]; len(ls) != 1 || ls[0].Value != fmt.Sprint(now.Unix()) && ls[0].Value != fmt.Sprintf("%g", float64(now.Unix())) {
		t.Errorf("last success after an incomplete push = %+v, want %d", ls, now.Unix())
	}
}

// What the Pushgateway's API says it holds: job -> metric -> samples.
type pushedSample struct {
	Labels map[string]string `json:"labels"`
	Value  string            `json:"value"`
}

func pushedGroups(t *testing.T, base string) map[string]map[string][]pushedSample {
	t.Helper()
	var doc struct {
		Data []map[string]json.RawMessage `json:"data"`
	}
	getJSON(t, base+"/api/v1/metrics", &doc)
	out := map[string]map[string][]pushedSample{}
	for _, group := range doc.Data {
		var labels struct {
			Job string `json:"job"`
		}
		json.Unmarshal(group["labels"], &labels)
		metrics := map[string][]pushedSample{}
		for name, raw := range group {
			var fam struct {
				Metrics []pushedSample `json:"metrics"`
			}
			if json.Unmarshal(raw, &fam) == nil {
				metrics[name] = fam.Metrics
			}
		}
		out[labels.Job] = metrics
	}
	return out
}

func deleteGroup(base, job string) {
	req, _ := http.NewRequest(http.MethodDelete, base+"/metrics/job/"+job, nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// Prometheus scraping the Pushgateway (honor_labels: true, as
// docs/reports/metrics.md says) sees the pushed series under the pushed
// job, hostile owner and all, within a bounded wait.
func TestRealPrometheusScrapesThePush(t *testing.T) {
	base := pushgatewayURL(t)
	prom := os.Getenv("BFAUDIT_TEST_PROMETHEUS_URL")
	if prom == "" {
		t.Skip("set BFAUDIT_TEST_PROMETHEUS_URL (a Prometheus that scrapes the Pushgateway at BFAUDIT_TEST_PUSHGATEWAY_URL with honor_labels: true; .ci/run starts both) to run the scrape test")
	}
	prom = strings.TrimRight(prom, "/")
	job := uniqueJob(t)
	p, err := NewPusher(PushgatewayConfig{Config: apiclient.Config{URL: base}, Job: job}, nil, remote.RetryPolicy{Attempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteGroup(base, job) })
	if err := p.Push(context.Background(), realReport(), Run{Complete: true}); err != nil {
		t.Fatal(err)
	}
	query := fmt.Sprintf(`bfaudit_findings{job=%q,severity="critical",overdue="true"}`, job)
	deadline := time.Now().Add(60 * time.Second)
	for {
		var doc struct {
			Data struct {
				Result []struct {
					Metric map[string]string `json:"metric"`
					Value  [2]any            `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		getJSON(t, prom+"/api/v1/query?query="+url.QueryEscape(query), &doc)
		if res := doc.Data.Result; len(res) > 0 {
			// report(): one overdue critical of the hostile owner, one of alice.
			owners := map[string]any{}
			for _, r := range res {
				owners[r.Metric["owner"]] = r.Value[1]
			}
			if len(res) != 2 || owners[hostileOwner] != "1" || owners["alice@example.com"] != "1" {
				t.Errorf("Prometheus holds %+v, want one series each of %q and alice valued 1", res, hostileOwner)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus at %s did not show %s within 60s: does it scrape the Pushgateway at %s (honor_labels: true)?", prom, query, base)
		}
		time.Sleep(time.Second)
	}
}

func getJSON(t *testing.T, u string, out any) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}
