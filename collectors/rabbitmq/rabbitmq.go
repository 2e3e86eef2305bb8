// Package rabbitmq collects backfill machinery from RabbitMQ through the
// management HTTP API: queues tied to a backfill by name or by a backfill
// id in their arguments (messages, consumers, idle since, x-expires), and
// the exchanges that exist only to feed them.
package rabbitmq

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
)

//go:embed sample.yaml
var sampleConfig string

// Defaults. 500 is the largest page the management API accepts.
const (
	DefaultPageSize = 500
	MaxPageSize     = 500
	DefaultTimeout  = remote.DefaultCallTimeout
)

func init() {
	collectors.Register("rabbitmq", func() collectors.Collector {
		return &RabbitMQ{PageSize: DefaultPageSize, Timeout: DefaultTimeout}
	}, sampleConfig)
}

// RabbitMQ is one configured RabbitMQ cluster, read through its management
// HTTP API.
type RabbitMQ struct {
	// URL is the management API's base address, e.g.
	// https://rabbitmq.internal:15671 (a path prefix is kept).
	URL string `mapstructure:"url"`
	// Username logs in with HTTP basic auth; PasswordEnv names the
	// environment variable holding its password.
	Username    string `mapstructure:"username"`
	PasswordEnv string `mapstructure:"password_env"`
	// Vhosts to read, each its own coverage scope. Empty: every vhost the
	// user can see, in one paged listing per object type.
	Vhosts []string `mapstructure:"vhosts"`
	// PageSize for paged listings (1..500).
	PageSize int `mapstructure:"page_size"`
	// TLS: ca_file, a PEM bundle to trust for an https URL besides the
	// system roots, and insecure_skip_verify, which turns checks off.
	remote.TLS `mapstructure:",squash"`
	// Timeout bounds each HTTP request, retries of it included; 0 is
	// refused (it would mean no deadline).
	Timeout time.Duration `mapstructure:"timeout"`
	// MaxPages bounds one paged listing whatever page_count the API
	// announces (default remote.DefaultMaxPages).
	MaxPages int `mapstructure:"max_pages"`

	// HTTP is the client; Init builds one when nil, so tests can hand in
	// their own.
	HTTP *http.Client `mapstructure:"-"`
	// Retry governs retries of 429/5xx answers; tests make Sleep a no-op.
	Retry remote.RetryPolicy `mapstructure:"-"`

	// env is the source's name (the host part of URIs), selector and
	// clock, from Init.
	env      collectors.Env
	password string
	base     *url.URL // without credentials
	// vhosts maps each unit Units declared to its vhost.
	vhosts map[string]string
}

func (r *RabbitMQ) sourceName() string {
	if r.env.Source != "" {
		return r.env.Source
	}
	if r.base != nil {
		return r.base.Host
	}
	return "rabbitmq"
}

// Init validates the config, reads the password from the environment and
// builds the HTTP client (when none was handed in). It does not call the
// API: a broker that is down fails the run's coverage, not the config.
// env's source name is the host part of URIs (the URL's host when empty);
// its clock makes "in use now" (a queue with statistics and no
// idle_since) mean in use at the audit's time (--now).
func (r *RabbitMQ) Init(env collectors.Env) error {
	r.env = env
	if r.URL == "" {
		return errors.New("url: missing; set the management API address, e.g. http://rabbitmq:15672")
	}
	u, err := remote.ParseAddress("url", r.URL)
	if err != nil {
		return err
	}
	// Credentials in the URL are accepted (handy locally) but the
	// explicit keys win, and the URL kept for requests carries none.
	if u.User != nil {
		if r.Username == "" {
			r.Username = u.User.Username()
		}
		r.password, _ = u.User.Password()
		u.User = nil
	}
	r.base = u
	if r.Username == "" {
		return errors.New("username: missing; set the management user to log in as")
	}
	if r.PasswordEnv != "" {
		r.password = os.Getenv(r.PasswordEnv)
		if r.password == "" {
			return fmt.Errorf("password_env: environment variable %s is empty or unset", r.PasswordEnv)
		}
	}
	if r.password == "" {
		return fmt.Errorf("password_env: missing; name the environment variable that holds %s's password", r.Username)
	}
	if r.PageSize < 1 || r.PageSize > MaxPageSize {
		return fmt.Errorf("page_size: must be between 1 and %d (the management API's maximum), got %d", MaxPageSize, r.PageSize)
	}
	if err := remote.CheckTimeout("timeout", r.Timeout); err != nil {
		return err
	}
	if r.MaxPages < 0 {
		return fmt.Errorf("max_pages: must be positive, got %d", r.MaxPages)
	}
	for i, v := range r.Vhosts {
		if v == "" {
			return fmt.Errorf("vhosts[%d]: empty; the default vhost is written \"/\"", i)
		}
	}
	redact.Add(r.password)
	if r.HTTP == nil {
		c, err := remote.NewClient(remote.ClientOptions{TLS: r.TLS, Timeout: r.Timeout})
		if err != nil {
			return err
		}
		r.HTTP = c
	}
	return nil
}

// Endpoint is the management API's address without credentials and the
// login Init settled on (the explicit keys over the URL's): the fix
// actions act through the API the collector reads. base is nil before
// Init.
func (r *RabbitMQ) Endpoint() (base *url.URL, username, password string) {
	if r.base == nil {
		return nil, "", ""
	}
	u := *r.base
	return &u, r.Username, r.password
}

// Units logs in (a failure there fails the source) and declares each
// vhost as its own unit: the configured ones, or every vhost the user can
// see (a failed vhost listing fails the source). A unit is
// model.JoinScope(vhost), so "/" is one segment ("%2F").
func (r *RabbitMQ) Units(ctx context.Context) ([]string, error) {
	if r.base == nil {
		return nil, fmt.Errorf("rabbitmq source %s: not initialised (Init was not called)", r.sourceName())
	}
	if err := r.whoami(ctx); err != nil {
		return nil, fmt.Errorf("rabbitmq source %s: log in to %s as %q: %w", r.sourceName(), r.base, r.Username, err)
	}
	vhosts := r.Vhosts
	if len(vhosts) == 0 {
		var err error
		if vhosts, err = r.listVhosts(ctx); err != nil {
			return nil, fmt.Errorf("rabbitmq source %s: list vhosts: %w", r.sourceName(), err)
		}
		if len(vhosts) == 0 {
			return nil, fmt.Errorf("rabbitmq source %s: user %q sees no vhost; grant it permissions, or list vhosts in the config", r.sourceName(), r.Username)
		}
	}
	r.vhosts = make(map[string]string, len(vhosts))
	units := make([]string, len(vhosts))
	for i, vh := range vhosts {
		units[i] = model.JoinScope(vh)
		r.vhosts[units[i]] = vh
	}
	return units, nil
}

// CollectUnit reads one vhost. Every artifact carries the vhost's unit as
// scope, and a vhost whose queues, exchanges or bindings cannot be read is
// an error at that vhost only.
func (r *RabbitMQ) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	vh, ok := r.vhosts[unit]
	if !ok {
		return fmt.Errorf("rabbitmq source %s: %s is not a vhost Units declared", r.sourceName(), unit)
	}
	return r.collectVhost(ctx, vh, sink)
}

// collectVhost reads one vhost and emits what it holds. Any listing that
// fails is returned: the vhost is then not answered, though what was read
// is still emitted.
func (r *RabbitMQ) collectVhost(ctx context.Context, vhost string, sink collectors.Sink) error {
	wrap := func(what string, err error) error {
		return fmt.Errorf("rabbitmq source %s: %s in vhost %q: %w", r.sourceName(), what, vhost, err)
	}
	queues, err := r.listQueues(ctx, vhost)
	if err == nil {
		err = sameVhost(vhost, queues, func(q queue) (string, string) { return q.Vhost, q.Name })
	}
	if err != nil {
		return wrap("list queues", err)
	}
	scope := model.JoinScope(vhost)
	sink.AddRead(scope, "queues", len(queues), 0)
	var failed error
	exchanges, err := r.listExchanges(ctx, vhost)
	if err == nil {
		err = sameVhost(vhost, exchanges, func(x exchange) (string, string) { return x.Vhost, x.Name })
	}
	if err != nil {
		failed = wrap("list exchanges", err)
	} else {
		sink.AddRead(scope, "exchanges", len(exchanges), 0)
	}
	found := r.selectQueues(queues)
	foundX := r.selectExchanges(exchanges)
	var bindings []binding
	if len(found) > 0 || len(foundX) > 0 {
		// Bindings are only needed to tie exchanges to backfill queues;
		// the listing is not paged by the API, so skip it when idle.
		bindings, err = r.listBindings(ctx, vhost)
		if err == nil {
			err = sameVhost(vhost, bindings, func(b binding) (string, string) { return b.Vhost, b.Source })
		}
		if err != nil && failed == nil {
			failed = wrap("list bindings", err)
		}
		if err == nil {
			sink.AddRead(scope, "bindings", len(bindings), 0)
		}
	}
	for _, a := range r.queueArtifacts(found, bindings) {
		sink.AddArtifact(a)
	}
	for _, a := range r.exchangeArtifacts(exchanges, foundX, found, bindings) {
		sink.AddArtifact(a)
	}
	return failed
}

// sameVhost checks that a vhost's listing holds only that vhost's objects:
// each is reported under the vhost asked for, so an answer mixing vhosts
// is not trusted.
func sameVhost[T any](vhost string, items []T, of func(T) (vh, name string)) error {
	for _, it := range items {
		if vh, name := of(it); vh != vhost {
			return fmt.Errorf("the answer holds %q of vhost %q", name, vh)
		}
	}
	return nil
}
