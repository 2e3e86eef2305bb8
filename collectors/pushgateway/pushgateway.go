// Package pushgateway reads the metric groups a replay pushed its progress
// to. A Pushgateway keeps a group until it is deleted, so dashboards and
// alerts read a finished replay's progress forever: checkpoint state.
package pushgateway

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
	"github.com/bfaudit/bfaudit/model"
)

//go:embed sample.yaml
var sampleConfig string

func init() { collectors.Register("pushgateway", New, sampleConfig) }

// New returns a Pushgateway collector with its defaults filled in.
func New() *Pushgateway {
	return &Pushgateway{Config: apiclient.Config{Timeout: remote.DefaultCallTimeout}}
}

// Pushgateway is one Pushgateway; tests set Retry to shorten its waits.
type Pushgateway struct {
	apiclient.Config `mapstructure:",squash"`
	Retry            remote.RetryPolicy `mapstructure:"-"`
	env              collectors.Env
	client           *apiclient.Client
}

// Init builds the client without calling the server: one that is down
// fails the run's coverage, not the config.
func (p *Pushgateway) Init(env collectors.Env) (err error) {
	p.env = env
	p.client, err = apiclient.Connect(p.Config, "the Pushgateway address, e.g. http://pushgateway:9091", p.Retry)
	return err
}

// Units: the API lists every group in one answer, so the gateway is one unit.
func (p *Pushgateway) Units(context.Context) ([]string, error) { return []string{""}, nil }

// group is an entry of GET /api/v1/metrics: its key, and when it was last
// pushed to (push_time_seconds' time stamp, which a failed push moves too).
type group struct {
	Labels   map[string]string `json:"labels"`
	PushTime struct {
		At time.Time `json:"time_stamp"`
	} `json:"push_time_seconds"`
}

// list reads every group (up to apiclient.MaxAnswerBytes, in the call's
// timeout); a malformed answer fails, never read as "no groups".
func list(ctx context.Context, c *apiclient.Client) ([]group, error) {
	var ans struct {
		Data []group `json:"data"`
	}
	if err := c.Get(ctx, "/api/v1/metrics", nil, &ans); err != nil {
		return nil, err
	}
	if ans.Data == nil {
		return nil, fmt.Errorf("GET %s/api/v1/metrics: not a Pushgateway's list of groups", c.Base())
	}
	for i, g := range ans.Data {
		ok := g.Labels["job"] != "" && !g.PushTime.At.IsZero()
		for k := range g.Labels {
			ok = ok && labelName.MatchString(k)
		}
		if !ok {
			return nil, fmt.Errorf("GET %s/api/v1/metrics: group %d: no job, no push_time_seconds, or a label name Prometheus refuses", c.Base(), i)
		}
	}
	return ans.Data, nil
}

// CollectUnit reports the groups tied to a backfill: by a grouping label
// (backfill_id="BF-1234"), a plan's declared assets, or the job (bf_1234_replay).
func (p *Pushgateway) CollectUnit(ctx context.Context, _ string, sink collectors.Sink) error {
	groups, err := list(ctx, p.client)
	if err != nil {
		return fmt.Errorf("pushgateway source %s: %w", p.env.Source, err)
	}
	sink.AddRead("", "metric groups", len(groups), 0)
	for _, g := range groups {
		key := keyPath(g.Labels)
		uri := "pushgateway://" + p.env.Source + key
		if id, how, ok := p.env.Selector.Match(uri, g.Labels["job"], g.Labels); ok {
			sink.AddArtifact(model.Artifact{Kind: model.KindCheckpoint, System: "pushgateway", Source: p.env.Source, URI: uri,
				Name: key[1:], BackfillID: id, Correlation: how, Labels: model.TagsOf(g.Labels), State: model.StateActive,
				ModifiedAt: model.At(g.PushTime.At), Attributes: model.Attrs(model.AttrCheckpointType, "metric_group", model.AttrAPIURL, p.client.Base())})
		}
	}
	return nil
}
