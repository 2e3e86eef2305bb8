package remote

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Send asks for JSON, labels a body, logs in, and sends the whole body
// again when the first answer is a 500.
func TestSend(t *testing.T) {
	var got []string
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		b, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.Header.Get("Accept")+" "+r.Header.Get("Content-Type")+" "+r.Header.Get("Authorization")+" "+string(b))
		if calls == 1 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	p := RetryPolicy{Attempts: 2, Base: time.Millisecond}
	resp, err := Send(context.Background(), srv.Client(), p, Call{Method: http.MethodPost, URL: srv.URL, Body: []byte(`{"a":1}`), Auth: BasicAuth("u", "p")})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `POST application/json application/json Basic dTpw {"a":1}`
	if len(got) != 2 || got[0] != want || got[1] != want {
		t.Errorf("requests %q, want twice %q", got, want)
	}
	got, calls = nil, 1
	resp, err = Send(context.Background(), srv.Client(), p, Call{Method: http.MethodPut, URL: srv.URL, Body: []byte("m 1\n"), ContentType: "text/plain"})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := "PUT application/json text/plain  m 1\n"; len(got) != 1 || got[0] != want {
		t.Errorf("requests %q, want %q", got, want)
	}
}
