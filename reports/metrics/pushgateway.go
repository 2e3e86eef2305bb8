package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
	"github.com/bfaudit/bfaudit/model"
)

// Pusher pushes a run's metrics to a Pushgateway.
type Pusher struct {
	client *apiclient.Client
	job    string
}

// NewPusher builds a pusher from the section; hc is used when not nil
// (tests, --verbose logging).
func NewPusher(cfg PushgatewayConfig, hc *http.Client, retry remote.RetryPolicy) (*Pusher, error) {
	cfg = cfg.WithDefaults()
	c, err := apiclient.New(cfg.Config, hc, retry)
	if err != nil {
		return nil, fmt.Errorf("metrics: pushgateway: %w", err)
	}
	return &Pusher{client: c, job: cfg.Job}, nil
}

// Push sends r's metrics under the job. A complete run replaces the job's
// whole group (PUT), so a finding, owner or source gone since the last
// push goes from the Pushgateway too. An incomplete run replaces only the
// metrics it sends (POST) and sends no last-success time, so the one the
// last complete run pushed stays for a stale-success alert to measure.
func (p *Pusher) Push(ctx context.Context, r *model.Report, run Run) error {
	method, text, err := p.request(r, run)
	if err != nil {
		return err
	}
	if err := p.client.Send(ctx, method, p.path(), ContentType, text); err != nil {
		return fmt.Errorf("metrics: pushgateway: %w", err)
	}
	return nil
}

// Plan writes, as one JSON line, the push Push would make, and makes
// none (--dry-run).
func (p *Pusher) Plan(w io.Writer, r *model.Report, run Run) error {
	method, text, err := p.request(r, run)
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(struct {
		Sink   string `json:"sink"`
		Method string `json:"method"`
		URL    string `json:"url"`
		Body   string `json:"body"`
	}{"pushgateway", method, p.client.Base() + p.path(), string(text)})
}

func (p *Pusher) path() string { return "/metrics/job/" + p.job }

func (p *Pusher) request(r *model.Report, run Run) (method string, text []byte, err error) {
	method = http.MethodPut
	if !run.Complete {
		method = http.MethodPost
		run.PreviousSuccess = time.Time{}
	}
	if text, err = Text(Families(r, run)); err != nil {
		return "", nil, fmt.Errorf("metrics: pushgateway: %w", err)
	}
	return method, text, nil
}
