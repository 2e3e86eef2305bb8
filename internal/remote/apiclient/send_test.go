package apiclient

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// Send re-sends the whole body on a retry: a push that met a 503 once
// must not arrive empty the second time.
func TestSendRetriesWithTheWholeBody(t *testing.T) {
	var tries atomic.Int32
	var bodies []string
	url := server(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type")+" "+r.Header.Get("Authorization")+" "+string(b))
		if tries.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	})
	t.Setenv("T_TOK", "tok-123456")
	c := client(t, Config{URL: url + "/gw", TokenEnv: "T_TOK"})
	if err := c.Send(context.Background(), http.MethodPut, "/metrics/job/x", "text/plain", []byte("a 1\n")); err != nil {
		t.Fatal(err)
	}
	want := "PUT /gw/metrics/job/x text/plain Bearer tok-123456 a 1\n"
	if len(bodies) != 2 || bodies[0] != want || bodies[1] != want {
		t.Errorf("requests = %q, want twice %q", bodies, want)
	}
}

func TestSendNamesTheAddressOnRefusal(t *testing.T) {
	url := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "pushed metrics are invalid", http.StatusBadRequest)
	})
	c := client(t, Config{URL: url})
	err := c.Send(context.Background(), http.MethodPut, "/metrics/job/x", "text/plain", []byte("a 1\n"))
	if err == nil || !strings.Contains(err.Error(), "PUT "+url+"/metrics/job/x") || !strings.Contains(err.Error(), "400") {
		t.Errorf("err = %v", err)
	}
}
