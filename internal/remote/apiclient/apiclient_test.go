package apiclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/remote"
)

func server(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func client(t *testing.T, cfg Config) *Client {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	c, err := New(cfg, nil, remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAnswers(t *testing.T) {
	const marker = "SECRET-MARKER-123"
	tests := []struct {
		name   string
		status int
		body   string
		want   string // in the error; "" for success
	}{
		{"a document", 200, `{"a": "x"}`, ""},
		{"null", 200, `null`, "empty or null"},
		{"empty", 200, ``, "empty or null"},
		{"not JSON", 200, `<html>` + marker, "not JSON"},
		{"another shape", 200, `[1, "` + marker + `"]`, "shape"},
		{"Prometheus error", 400, `{"status":"error","errorType":"bad_data","error":"invalid parameter \"type\""}`, `HTTP 400: invalid parameter "type"`},
		{"Alertmanager error", 422, `{"code":601,"message":"silenceID in path must be of type uuid"}`, "HTTP 422: silenceID in path must be of type uuid"},
		{"HTML error page", 404, `<html>` + marker + `</html>`, "HTTP 404"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := server(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			})
			var out struct{ A string }
			err := client(t, Config{URL: url}).Get(context.Background(), "/api/x", nil, &out)
			switch {
			case tt.want == "" && (err != nil || out.A != "x"):
				t.Errorf("Get = %v, %+v", err, out)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Get = %v, want an error saying %q", err, tt.want)
			case err != nil && (strings.Contains(err.Error(), marker) || !strings.Contains(err.Error(), url+"/api/x")):
				t.Errorf("the error quotes the answer or names no address: %v", err)
			case err != nil && strings.Count(err.Error(), url+"/api/x") != 1:
				t.Errorf("the error names its address more than once: %v", err)
			}
		})
	}
}

func TestAnswerOverTheCap(t *testing.T) {
	url := server(t, func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat("a", 1<<20))
		w.Write([]byte(`"`))
		for range MaxAnswerBytes>>20 + 1 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	var out string
	err := client(t, Config{URL: url, Timeout: 5 * time.Minute}).Get(context.Background(), "/big", nil, &out)
	if err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Errorf("Get = %v, want the answer refused for its size", err)
	}
}

func TestAuthAndQuery(t *testing.T) {
	var got *http.Request
	url := server(t, func(w http.ResponseWriter, r *http.Request) {
		got = r
		w.Write([]byte(`{}`))
	})
	t.Setenv("T_PW", "pw-123456")
	t.Setenv("T_TOK", "tok-123456")
	var out struct{}
	c := client(t, Config{URL: url + "/prefix/", Username: "u", PasswordEnv: "T_PW"})
	if err := c.Get(context.Background(), "/api/v1/rules", map[string][]string{"group_limit": {"2"}}, &out); err != nil {
		t.Fatal(err)
	}
	if u, p, ok := got.BasicAuth(); !ok || u != "u" || p != "pw-123456" || got.URL.Path != "/prefix/api/v1/rules" || got.URL.Query().Get("group_limit") != "2" {
		t.Errorf("request %s %v", got.URL, got.Header)
	}
	c = client(t, Config{URL: url, TokenEnv: "T_TOK"})
	if err := c.Get(context.Background(), "/x", nil, &out); err != nil || got.Header.Get("Authorization") != "Bearer tok-123456" {
		t.Errorf("bearer: %v %v", err, got.Header)
	}
	if c.Base() != url {
		t.Errorf("Base = %s", c.Base())
	}
}

// auth_scheme: Unleash's admin API takes the token alone as the header;
// another scheme word replaces Bearer.
func TestAuthScheme(t *testing.T) {
	var got string
	url := server(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Authorization")
		w.Write([]byte(`{}`))
	})
	t.Setenv("T_TOK", "*:*.tok-123456")
	for scheme, want := range map[string]string{"": "Bearer *:*.tok-123456", "raw": "*:*.tok-123456", "RAW": "*:*.tok-123456", "token": "token *:*.tok-123456"} {
		var out struct{}
		if err := client(t, Config{URL: url, TokenEnv: "T_TOK", AuthScheme: scheme}).Get(context.Background(), "/x", nil, &out); err != nil || got != want {
			t.Errorf("auth_scheme %q: %v, header %q, want %q", scheme, err, got, want)
		}
	}
	for _, bad := range []string{"Bearer x", "a:b", "é"} {
		_, err := New(Config{URL: url, TokenEnv: "T_TOK", AuthScheme: bad, Timeout: time.Second}, nil, remote.RetryPolicy{})
		if err == nil || !strings.HasPrefix(err.Error(), "auth_scheme") || strings.Contains(err.Error(), "tok-123456") {
			t.Errorf("auth_scheme %q: %v, want it refused naming the key", bad, err)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	t.Setenv("T_EMPTY", "")
	for _, tt := range []struct {
		cfg Config
		key string
	}{
		{Config{URL: "http://x", Timeout: -time.Second}, "timeout"},
		{Config{URL: "ftp://x", Timeout: time.Second}, "url"},
		{Config{URL: "http://u:p@x", Timeout: time.Second}, "url"},
		{Config{URL: "http://x/?a=b", Timeout: time.Second}, "url"},
		{Config{URL: "http://x", Timeout: time.Second, TokenEnv: "T_EMPTY"}, "token_env"},
		{Config{URL: "http://x", Timeout: time.Second, TLS: remote.TLS{CAFile: "/nonexistent"}}, "ca_file"},
	} {
		if _, err := New(tt.cfg, nil, remote.RetryPolicy{}); err == nil || !strings.HasPrefix(err.Error(), tt.key) {
			t.Errorf("%+v: %v, want an error about %s", tt.cfg, err, tt.key)
		}
	}
}

// A source reads its server or the answers saved from it: one of url and
// export_dir, each missing or doubled one said the same way for every
// collector.
func TestConnectOrSaved(t *testing.T) {
	if _, err := Connect(Config{Timeout: time.Second}, "the X address, e.g. http://x:1", remote.RetryPolicy{}); err == nil ||
		err.Error() != "url: missing; set the X address, e.g. http://x:1" {
		t.Errorf("no url: %v", err)
	}
	if c, err := Connect(Config{URL: "http://x:1", Timeout: time.Second}, "", remote.RetryPolicy{}); err != nil || c.Base() != "http://x:1" {
		t.Errorf("url: %v, %v", c, err)
	}
	for _, tt := range []struct {
		url, dir  string
		saved, ok bool
	}{
		{"", "", false, true},
		{"http://x", "", false, true},
		{"", "saved", true, true},
		{"http://x", "saved", true, false},
	} {
		saved, err := Saved(tt.url, tt.dir)
		if saved != tt.saved || (err == nil) != tt.ok || (err != nil && !strings.HasPrefix(err.Error(), "url and export_dir: set one")) {
			t.Errorf("Saved(%q, %q) = %v, %v", tt.url, tt.dir, saved, err)
		}
	}
}
