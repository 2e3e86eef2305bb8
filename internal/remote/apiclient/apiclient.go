// Package apiclient reads a JSON HTTP API the common way: a base URL, a
// bearer token from the environment (token_env) or a basic login
// (username, password_env), TLS, a per-call timeout. Collectors and fix
// actions of such a server (Prometheus /api/v1, Alertmanager /api/v2, a
// new one) embed Config and call Get: every call has a deadline, is
// retried under a bounded policy and reads a bounded answer, through
// package remote.
package apiclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
)

// Config is the connection part of a source entry; collectors embed it
// with `mapstructure:",squash"`, so its keys sit beside their own.
type Config struct {
	// URL is the server's base address, e.g. http://prometheus:9090 (a
	// path prefix, as behind a proxy, is kept).
	URL string `mapstructure:"url"`
	// Username and PasswordEnv log in with HTTP basic auth; TokenEnv names
	// an environment variable holding a bearer token instead.
	Username    string `mapstructure:"username"`
	PasswordEnv string `mapstructure:"password_env"`
	TokenEnv    string `mapstructure:"token_env"`
	// AuthScheme is the word sent before the token_env token in the
	// Authorization header: Bearer when empty; "raw" sends the token
	// alone, as Unleash's admin API documents it.
	AuthScheme string `mapstructure:"auth_scheme"`
	// TLS: ca_file, a PEM bundle trusted for an https URL besides the
	// system roots, and insecure_skip_verify, which turns checks off.
	remote.TLS `mapstructure:",squash"`
	// Timeout bounds each call, retries and reading the answer included.
	Timeout time.Duration `mapstructure:"timeout"`
}

// MaxAnswerBytes caps one answer: far above the rules or silences of any
// real server, and small enough that a hostile server cannot fill memory.
const MaxAnswerBytes = 64 << 20

// Client calls one server.
type Client struct {
	base    *url.URL
	http    *http.Client
	auth    string // the Authorization header, or ""
	retry   remote.RetryPolicy
	timeout time.Duration
}

// New validates cfg, reads the secrets it names (registering them with the
// redactor) and returns a client. hc is used when not nil (tests); it is
// given the call timeout when it has none or a longer one.
func New(cfg Config, hc *http.Client, retry remote.RetryPolicy) (*Client, error) {
	if err := remote.CheckTimeout("timeout", cfg.Timeout); err != nil {
		return nil, err
	}
	u, err := remote.ParseAddress("url", cfg.URL)
	if err != nil {
		return nil, err
	}
	if u.User != nil {
		return nil, errors.New("url: must not carry credentials; use username and password_env, or token_env")
	}
	c := &Client{base: u, retry: retry, timeout: cfg.Timeout}
	if c.auth, err = authHeader(cfg); err != nil {
		return nil, err
	}
	switch {
	case hc == nil:
		if hc, err = remote.NewClient(remote.ClientOptions{TLS: cfg.TLS, Timeout: cfg.Timeout}); err != nil {
			return nil, err
		}
	case hc.Timeout == 0 || hc.Timeout > cfg.Timeout:
		cp := *hc
		cp.Timeout = cfg.Timeout
		hc = &cp
	}
	c.http = hc
	return c, nil
}

// Connect is how a source that reads one server builds its client: the
// one check of url every such source makes, then New. address is what the
// message for a missing url asks for, e.g. "the Alertmanager address, e.g.
// http://alertmanager:9093".
func Connect(cfg Config, address string, retry remote.RetryPolicy) (*Client, error) {
	if cfg.URL == "" {
		return nil, fmt.Errorf("url: missing; set %s", address)
	}
	return New(cfg, nil, retry)
}

// Saved says whether a source that can read either its server (url) or
// answers saved from it (export_dir) reads the saved ones; both set is
// refused, the one message every such source gives. Neither set is left to
// Connect.
func Saved(url, exportDir string) (bool, error) {
	if exportDir == "" {
		return false, nil
	}
	if url != "" {
		return true, errors.New("url and export_dir: set one, the server or the answers saved from it")
	}
	return true, nil
}

func authHeader(cfg Config) (string, error) {
	switch {
	case cfg.TokenEnv != "" && (cfg.Username != "" || cfg.PasswordEnv != ""):
		return "", errors.New("token_env and username/password_env: set one way to log in, not both")
	case cfg.TokenEnv != "":
		tok := os.Getenv(cfg.TokenEnv)
		if tok == "" {
			return "", fmt.Errorf("token_env: environment variable %s is empty or unset", cfg.TokenEnv)
		}
		redact.Add(tok)
		switch {
		case cfg.AuthScheme == "":
			return "Bearer " + tok, nil
		case strings.EqualFold(cfg.AuthScheme, AuthRaw):
			return tok, nil
		case !isToken(cfg.AuthScheme):
			return "", fmt.Errorf("auth_scheme: %q is not one word such as Bearer, or raw for the token alone", redact.Line(cfg.AuthScheme, 40))
		}
		return cfg.AuthScheme + " " + tok, nil
	case cfg.PasswordEnv != "":
		if cfg.Username == "" {
			return "", errors.New("username: missing; password_env is set, so username is needed too")
		}
		pw := os.Getenv(cfg.PasswordEnv)
		if pw == "" {
			return "", fmt.Errorf("password_env: environment variable %s is empty or unset", cfg.PasswordEnv)
		}
		redact.Add(pw)
		h := remote.BasicAuth(cfg.Username, pw)
		redact.Add(strings.TrimPrefix(h, "Basic "))
		return h, nil
	case cfg.Username != "":
		return "", fmt.Errorf("password_env: missing; name the environment variable that holds %s's password", cfg.Username)
	}
	return "", nil
}

// AuthRaw is the auth_scheme that sends the token_env token alone as the
// Authorization header.
const AuthRaw = "raw"

// isToken reports whether s can be an HTTP auth scheme (RFC 9110 token
// characters, no space).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

// HTTP is the client calls are made with (TLS, call timeout), for what
// acts on the same server.
func (c *Client) HTTP() *http.Client { return c.http }

// Base is the server's address, without credentials.
func (c *Client) Base() string { return c.base.String() }

// Do sends method base+path?query with the source's login, retried under
// its policy; the caller closes the body. The client's timeout bounds the
// call, reading the answer included. Errors are remote.DoHTTP's (a
// *remote.StatusError for a non-2xx answer).
func (c *Client) Do(ctx context.Context, method, path string, query url.Values) (*http.Response, error) {
	target := c.base.String() + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	return c.send(ctx, method, target, "", nil)
}

// Send sends body as contentType with method to base+path (a push: a
// Pushgateway's PUT /metrics/job/<job>), with the source's login, retried
// under its policy (the body is sent whole again on each try) within the
// client's timeout. The answer's body is drained; errors are
// remote.DoHTTP's, naming the address.
func (c *Client) Send(ctx context.Context, method, path, contentType string, body []byte) error {
	where := c.base.String() + path
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.send(ctx, method, where, contentType, body)
	if err != nil {
		return named(method, where, err)
	}
	remote.Drain(resp.Body)
	return nil
}

// named puts the call in front of err unless err names it already (a
// *remote.StatusError does: "GET <address>: HTTP 500"), so an error says
// its address once.
func named(method, where string, err error) error {
	var se *remote.StatusError
	if errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("%s %s: %w", method, where, err)
}

func (c *Client) send(ctx context.Context, method, target, contentType string, body []byte) (*http.Response, error) {
	return remote.Send(ctx, c.http, c.retry, remote.Call{Method: method, URL: target, Body: body, ContentType: contentType, Auth: c.auth})
}

// Get calls GET base+path?query and decodes the JSON answer into out,
// within the call timeout. Errors name the address (never a credential,
// never the answer's body beyond the API's own error fields). An empty
// or null answer is an error: every path read here answers a document.
func (c *Client) Get(ctx context.Context, path string, query url.Values, out any) error {
	return c.getJSON(ctx, path, query, MaxAnswerBytes, out)
}

// getJSON is Get with its answer capped at max.
func (c *Client) getJSON(ctx context.Context, path string, query url.Values, max int64, out any) error {
	where := c.base.String() + path
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.Do(ctx, http.MethodGet, path, query)
	if err != nil {
		return named(http.MethodGet, where, err)
	}
	defer resp.Body.Close()
	if err := remote.DecodeJSON(resp.Body, max, out); err != nil {
		return fmt.Errorf("GET %s: %w", where, err)
	}
	return nil
}
