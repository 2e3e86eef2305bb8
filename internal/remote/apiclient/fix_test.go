package apiclient

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A fix's re-read: an object that is there is decoded, one that is gone
// (404) is found false with no error, and a refusal or an answer that is
// not JSON is an error naming the address.
func TestLookup(t *testing.T) {
	url := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/flags/here":
			w.Write([]byte(`{"name": "here"}`))
		case "/flags/gone":
			http.NotFound(w, r)
		case "/flags/broken":
			w.Write([]byte(`<html>`))
		default:
			w.WriteHeader(http.StatusForbidden)
		}
	})
	c := client(t, Config{URL: url})
	var v struct{ Name string }
	if found, err := c.Lookup(context.Background(), "/flags/here", &v); !found || err != nil || v.Name != "here" {
		t.Errorf("here: found %v, err %v, %+v", found, err, v)
	}
	if found, err := c.Lookup(context.Background(), "/flags/gone", &v); found || err != nil {
		t.Errorf("gone: found %v, err %v", found, err)
	}
	for _, path := range []string{"/flags/broken", "/flags/refused"} {
		found, err := c.Lookup(context.Background(), path, &v)
		if found || err == nil || !strings.Contains(err.Error(), "GET "+url+path) {
			t.Errorf("%s: found %v, err %v", path, found, err)
		}
	}
}

// A fix's delete: done when the object is deleted or already gone; a
// refusal names the address; a server that does not answer is cut off at
// the call timeout.
func TestRemove(t *testing.T) {
	url := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodDelete {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		switch r.URL.Path {
		case "/flags/here":
			w.WriteHeader(http.StatusNoContent)
		case "/flags/gone":
			http.NotFound(w, r)
		case "/flags/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		default:
			w.WriteHeader(http.StatusForbidden)
		}
	})
	c := client(t, Config{URL: url, Timeout: 200 * time.Millisecond})
	for _, path := range []string{"/flags/here", "/flags/gone"} {
		if err := c.Remove(context.Background(), path); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	for _, path := range []string{"/flags/refused", "/flags/slow"} {
		if err := c.Remove(context.Background(), path); err == nil || !strings.Contains(err.Error(), "DELETE "+url+path) {
			t.Errorf("%s: %v", path, err)
		}
	}
}
