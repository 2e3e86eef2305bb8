package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// rabbitSystem acts on a RabbitMQ source through the management HTTP API
// the collector reads, with its HTTP client (its TLS settings) and
// credentials.
type rabbitSystem struct {
	base       *url.URL // without credentials
	user, pass string
	client     *http.Client
	retry      remote.RetryPolicy
}

func newRabbitMQ(r *RabbitMQ) (*rabbitSystem, error) {
	base, user, pass := r.Endpoint()
	if base == nil {
		return nil, errors.New("rabbitmq: the source was not initialised (Init was not called)")
	}
	return &rabbitSystem{base: base, user: user, pass: pass, client: r.HTTP, retry: r.Retry}, nil
}

// path is the API path of the artifact's queue or exchange; each part is
// escaped (the default vhost "/" is %2F).
func (s *rabbitSystem) path(a *model.Artifact) (string, RabbitObject, error) {
	o, ok := ParseRabbitMQ(a)
	if !ok {
		return "", o, fmt.Errorf("rabbitmq: %s is not an artifact bfaudit can act on", a.URI)
	}
	kind := "queues"
	if o.Exchange {
		kind = "exchanges"
	}
	return "/api/" + kind + "/" + url.PathEscape(o.Vhost) + "/" + url.PathEscape(o.Name), o, nil
}

func (s *rabbitSystem) do(ctx context.Context, method, path string, query url.Values) (*http.Response, error) {
	target := strings.TrimSuffix(s.base.String(), "/") + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var auth string
	if s.user != "" {
		auth = remote.BasicAuth(s.user, s.pass)
	}
	return remote.Send(ctx, s.client, s.retry, remote.Call{Method: method, URL: target, Auth: auth})
}

func (s *rabbitSystem) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	path, o, err := s.path(a)
	if err != nil {
		return remedy.Observed{}, err
	}
	resp, err := s.do(ctx, http.MethodGet, path, nil)
	if remote.IsStatus(err, http.StatusNotFound) {
		return remedy.Observed{}, nil
	}
	if err != nil {
		return remedy.Observed{}, err
	}
	defer resp.Body.Close()
	var v struct {
		Consumers  *int64 `json:"consumers"`
		Durable    bool   `json:"durable"`
		AutoDelete bool   `json:"auto_delete"`
		Exclusive  bool   `json:"exclusive"`
		Type       string `json:"type"`
	}
	if err := remote.DecodeJSON(resp.Body, remote.MaxObjectAnswer, &v); err != nil {
		return remedy.Observed{}, fmt.Errorf("GET %s: not a queue or exchange: %w", path, err)
	}
	st := map[string]string{"durable": strconv.FormatBool(v.Durable), "auto_delete": strconv.FormatBool(v.AutoDelete)}
	if o.Exchange {
		st["exchange_type"] = v.Type
	} else {
		st["exclusive"] = strconv.FormatBool(v.Exclusive)
		if v.Consumers != nil {
			st["consumers"] = strconv.FormatInt(*v.Consumers, 10)
		}
	}
	return remedy.Observed{Found: true, State: st}, nil
}

// Expected compares what the collector recorded: durability, and for a
// queue its consumers (a consumer that attached since is someone using it).
func (s *rabbitSystem) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	return remedy.Saw(a, "durable", "auto_delete", "exclusive", "exchange_type", model.AttrConsumers)
}

// Act deletes the queue or exchange. A queue that had no consumer at the
// audit is deleted only if it still has none when the broker acts
// (if-unused), so one that attaches after the read is not cut off.
func (s *rabbitSystem) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	path, o, err := s.path(a)
	if err != nil {
		return err
	}
	q := url.Values{}
	if !o.Exchange && (a.Attr(model.AttrConsumers) == "0" || a.Attr(model.AttrConsumers) == "") {
		q.Set("if-unused", "true")
	}
	resp, err := s.do(ctx, http.MethodDelete, path, q)
	if remote.IsStatus(err, http.StatusNotFound) {
		return nil // gone in between: done either way
	}
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}
