// Package alertmanager collects the Alertmanager silences a backfill left
// behind: silences whose matchers or comment name a backfill id, read from
// the API v2 (/api/v2/silences), with who created them, when they start
// and end, and whether they mute a severity="critical" alert. Inhibition
// rules are out of scope.
package alertmanager

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
)

//go:embed sample.yaml
var sampleConfig string

// ScopeSilences is the unit of everything this collector reports: the
// silence listing and the alert listing that says which alerts each
// silence mutes. A failed silence listing fails the whole source.
const ScopeSilences = "silences"

// readSilences is the kind of object the silences unit says it read.
const readSilences = "silences"

func init() {
	collectors.Register("alertmanager", New, sampleConfig)
}

// New returns an Alertmanager collector with its defaults filled in.
func New() *Alertmanager {
	return &Alertmanager{Config: apiclient.Config{Timeout: remote.DefaultCallTimeout}, CheckAlerts: true}
}

// Alertmanager is one Alertmanager (or one cluster behind one address).
type Alertmanager struct {
	apiclient.Config `mapstructure:",squash"`
	// CheckAlerts reads /api/v2/alerts once to learn which alerts each
	// backfill silence mutes right now (a muted severity="critical" alert
	// makes its finding critical).
	CheckAlerts bool `mapstructure:"check_alerts"`

	// Retry governs retries of 429/5xx answers; tests make Sleep a no-op.
	Retry remote.RetryPolicy `mapstructure:"-"`

	env    collectors.Env
	client *apiclient.Client
}

// Init validates the config, reads the secrets it names and builds the
// client. It does not call the server: one that is down fails the run's
// coverage, not the config. env names the source (the host part of its
// URIs) and holds the selector that says which silences are backfill
// machinery; its Assets are read at collect time.
func (a *Alertmanager) Init(env collectors.Env) (err error) {
	a.env = env
	a.client, err = apiclient.Connect(a.Config, "the Alertmanager address, e.g. http://alertmanager:9093", a.Retry)
	return err
}

// Units: the source is one listing, read whole. Its reads and errors are
// at ScopeSilences, within the whole source.
func (a *Alertmanager) Units(context.Context) ([]string, error) { return []string{""}, nil }

// CollectUnit lists the silences (a failure fails the source), keeps those
// tied to a backfill, and when one of them is live reads the alerts to
// count the ones each mutes (a failure there degrades the silences unit:
// their severity evidence is missing).
func (a *Alertmanager) CollectUnit(ctx context.Context, _ string, sink collectors.Sink) error {
	if a.client == nil {
		return fmt.Errorf("alertmanager source %s: not initialised (Init was not called)", a.env.Source)
	}
	list, err := a.listSilences(ctx)
	if err != nil {
		return fmt.Errorf("alertmanager source %s: list silences: %w", a.env.Source, err)
	}
	var found []tiedSilence
	live := false
	understood := 0
	for i, s := range list {
		if err := s.check(); err != nil {
			sink.AddError(ScopeSilences, fmt.Errorf("alertmanager source %s: GET %s/api/v2/silences: entry %d: %w", a.env.Source, a.client.Base(), i, err))
			continue
		}
		understood++
		t, ok := a.tie(s)
		if !ok {
			continue
		}
		found = append(found, t)
		live = live || s.Status.State != stateExpired
	}
	var muted map[string]mutedCount
	partial := 0 // tied live silences whose muted alerts are unknown
	if a.CheckAlerts && live {
		alerts, err := a.listAlerts(ctx)
		if err != nil {
			sink.AddError(ScopeSilences, fmt.Errorf("alertmanager source %s: list the alerts silences mute: %w", a.env.Source, err))
			for _, t := range found {
				if t.Status.State != stateExpired {
					partial++
				}
			}
		} else {
			muted = countMuted(alerts)
		}
	}
	// Every silence understood was read, tied or not; a live one tied to
	// a backfill was read only in part when the alerts it mutes could not
	// be.
	sink.AddRead(ScopeSilences, readSilences, understood, partial)
	for _, t := range found {
		sink.AddArtifact(a.artifact(t, muted))
	}
	return nil
}

var _ collectors.Collector = (*Alertmanager)(nil)
