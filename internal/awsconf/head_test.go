package awsconf

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A server that goes on writing after its answer to HEAD (a broken proxy,
// the hostile suite's drip) must not hand those bytes to the next request:
// the next one, to another bucket, gets its own answer at once.
func TestAHeadAnswerDoesNotPoisonTheNextRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodHead {
			io.WriteString(w, "ok")
			return
		}
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
		buf.Flush()
		for range 40 {
			time.Sleep(50 * time.Millisecond)
			if _, err := conn.Write([]byte("x")); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	cfg, err := Load(context.Background(), Settings{Regions: []string{"eu-west-1"}, Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := http.NewRequest(http.MethodHead, srv.URL+"/streaming", nil)
	resp, err := cfg.HTTPClient.Do(head)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	get, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/scratch", nil)
	resp, err = cfg.HTTPClient.Do(get)
	if err != nil {
		t.Fatalf("the request after HEAD: %v", err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); string(b) != "ok" {
		t.Errorf("the request after HEAD read %q", b)
	}
}
