// Package pushgateway collects the metric groups a backfill's replay
// pushed to a Prometheus Pushgateway (its progress: the last interval
// done, the rows written). The Pushgateway keeps a group until someone
// deletes it, so a finished replay's progress is scraped forever and
// dashboards and alerts go on reading it. Each group tied to a backfill
// is checkpoint state (BF020, BF021); `bfaudit fix` deletes it.
package pushgateway

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
	"github.com/bfaudit/bfaudit/model"
)

//go:embed sample.yaml
var sampleConfig string

func init() {
	collectors.Register("pushgateway", func() collectors.Collector { return New() })
}

// New returns a Pushgateway collector with its defaults filled in.
func New() *Pushgateway {
	return &Pushgateway{Config: apiclient.Config{Timeout: remote.DefaultCallTimeout}}
}

// Pushgateway is one Pushgateway, read whole: its API lists every group
// in one answer (no paging), read up to apiclient.MaxAnswerBytes.
type Pushgateway struct {
	apiclient.Config `mapstructure:",squash"`

	// HTTP is the client; Init builds one when nil, so tests can hand in
	// their own. Retry governs retries of 429/5xx answers.
	HTTP  *http.Client       `mapstructure:"-"`
	Retry remote.RetryPolicy `mapstructure:"-"`

	env    collectors.Env
	client *apiclient.Client
}

// SampleConfig returns the documented sample source entry.
func (p *Pushgateway) SampleConfig() string { return sampleConfig }

// Init validates the settings and builds the client, without calling the
// server: one that is down fails the run's coverage, not the config.
func (p *Pushgateway) Init(env collectors.Env) error {
	p.env = env
	if p.URL == "" {
		return errors.New("url: missing; set the Pushgateway address, e.g. http://pushgateway:9091")
	}
	c, err := apiclient.New(p.Config, p.HTTP, p.Retry)
	p.client = c
	return err
}

// Units: the gateway is one listing, so one unit, the whole source.
func (p *Pushgateway) Units(context.Context) ([]string, error) { return []string{""}, nil }

// group is one entry of GET /api/v1/metrics: its grouping key and the
// time of its last successful push. The metric families beside them are
// not read.
type group struct {
	Labels   map[string]string `json:"labels"`
	PushTime struct {
		Metrics []struct {
			Value string `json:"value"`
		} `json:"metrics"`
	} `json:"push_time_seconds"`
}

// pushed is the group's last push, to the millisecond, so the audit and
// the fix read the same time from the same answer.
func (g group) pushed() (time.Time, error) {
	if len(g.PushTime.Metrics) == 0 {
		return time.Time{}, errors.New("no push_time_seconds")
	}
	f, err := strconv.ParseFloat(g.PushTime.Metrics[0].Value, 64)
	if err != nil || f < 0 || f > 1e11 {
		return time.Time{}, fmt.Errorf("push_time_seconds %q is not a Unix time", redact.Line(g.PushTime.Metrics[0].Value, 40))
	}
	return time.UnixMilli(int64(math.Round(f * 1000))).UTC(), nil
}

// list reads every group. An answer that is not the API's success, or a
// group it cannot name or date, fails the listing: a malformed answer is
// never read as "no groups".
func list(ctx context.Context, c *apiclient.Client) ([]group, error) {
	var ans struct {
		Status string  `json:"status"`
		Data   []group `json:"data"`
	}
	if err := c.Get(ctx, "/api/v1/metrics", nil, &ans); err != nil {
		return nil, err
	}
	if ans.Status != "success" || ans.Data == nil {
		return nil, fmt.Errorf("GET %s/api/v1/metrics: not a Pushgateway answer (status %q, no data)", c.Base(), redact.Line(ans.Status, 40))
	}
	for i, g := range ans.Data {
		_, err := g.pushed()
		if err == nil {
			err = checkKey(g.Labels)
		}
		if err != nil {
			return nil, fmt.Errorf("GET %s/api/v1/metrics: group %d: %w", c.Base(), i, err)
		}
	}
	return ans.Data, nil
}

// CollectUnit lists the groups and reports those tied to a backfill: by a
// label of the grouping key (backfill_id="BF-1234"), a plan's declared
// assets, or the job's name (bf_1234_replay).
func (p *Pushgateway) CollectUnit(ctx context.Context, _ string, sink collectors.Sink) error {
	groups, err := list(ctx, p.client)
	if err != nil {
		return fmt.Errorf("pushgateway source %s: %w", p.env.Source, err)
	}
	sink.AddRead("", "metric groups", len(groups), 0)
	for _, g := range groups {
		uri := groupURI(p.env.Source, g.Labels)
		id, how, ok := p.env.Selector.Match(uri, g.Labels["job"], g.Labels)
		if !ok {
			continue
		}
		pushed, _ := g.pushed()
		sink.AddArtifact(model.Artifact{Kind: model.KindCheckpoint, System: "pushgateway", Source: p.env.Source, URI: uri,
			Name: groupName(g.Labels), BackfillID: id, Correlation: how, Labels: g.Labels, State: model.StateActive, ModifiedAt: pushed,
			Attributes: model.Attrs(model.AttrCheckpointType, "metric_group", model.AttrAPIURL, p.client.Base())})
	}
	return nil
}
