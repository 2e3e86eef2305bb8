package rabbitmq

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	amqp "github.com/rabbitmq/amqp091-go"
)

const (
	apiEnv  = "BFAUDIT_TEST_RABBITMQ_API"
	amqpEnv = "BFAUDIT_TEST_RABBITMQ_URL"
)

// testNow is the injected clock: tests never depend on today's date.
var testNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// testEnv is the Env Decode would hand source name, with the fixed clock.
func testEnv(name string) collectors.Env {
	return collectors.Env{Source: name, Selector: correlate.MustSelector(), Now: func() time.Time { return testNow }}
}

var noSleep = remote.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}

// broker is the real RabbitMQ the tests run against.
type broker struct {
	api  *url.URL // management API, with credentials
	amqp string
}

// testBroker returns the broker from the environment, or skips.
func testBroker(t *testing.T) broker {
	t.Helper()
	api, amqpURL := os.Getenv(apiEnv), os.Getenv(amqpEnv)
	if api == "" || amqpURL == "" {
		t.Skipf("%s and %s are unset; run against a real broker with "+
			"`rabbitmq-plugins enable rabbitmq_management` and "+
			"%s=http://guest:guest@127.0.0.1:15672 %s=amqp://guest:guest@127.0.0.1:5672/ go test ./collectors/rabbitmq/ (.ci/run sets them)",
			apiEnv, amqpEnv, apiEnv, amqpEnv)
	}
	u, err := url.Parse(api)
	if err != nil || u.User == nil {
		t.Fatalf("%s must be a URL with credentials, e.g. http://guest:guest@127.0.0.1:15672", apiEnv)
	}
	return broker{api: u, amqp: amqpURL}
}

// call sends an admin request to the management API (fixtures, waits).
func (b broker) call(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = strings.NewReader(string(j))
	}
	u := *b.api
	u.User = nil
	req, err := http.NewRequest(method, u.String()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := b.api.User.Password()
	req.SetBasicAuth(b.api.User.Username(), pw)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// channel opens an AMQP channel closed at the end of the test.
func (b broker) channel(t *testing.T) *amqp.Channel {
	t.Helper()
	conn, err := amqp.Dial(b.amqp)
	if err != nil {
		t.Fatalf("dial %s: %v", amqpEnv, err)
	}
	t.Cleanup(func() { conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatalf("open channel: %v", err)
	}
	return ch
}

// deleteAtEnd removes queues and exchanges through the API at cleanup.
func (b broker) deleteAtEnd(t *testing.T, vhost string, queues, exchanges []string) {
	t.Cleanup(func() {
		for _, q := range queues {
			b.call(t, http.MethodDelete, "/api/queues/"+url.PathEscape(vhost)+"/"+url.PathEscape(q), nil)
		}
		for _, x := range exchanges {
			b.call(t, http.MethodDelete, "/api/exchanges/"+url.PathEscape(vhost)+"/"+url.PathEscape(x), nil)
		}
	})
}

// waitQueue polls the API until the queue's statistics satisfy ok: the
// broker emits them every few seconds, so a fresh publish is not visible
// at once.
func (b broker) waitQueue(t *testing.T, vhost, name string, ok func(map[string]any) bool) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		code, body := b.call(t, http.MethodGet, "/api/queues/"+url.PathEscape(vhost)+"/"+url.PathEscape(name), nil)
		var q map[string]any
		if code == http.StatusOK && json.Unmarshal(body, &q) == nil && ok(q) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("queue %s never reached the expected statistics; last answer %d %s", name, code, body)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func uniqueN() string { return fmt.Sprint(rand.Int64N(1_000_000_000)) }

// newCollector builds an initialised collector for the broker, as Decode
// would, with an instant retry policy and the fixed clock.
func newCollector(t *testing.T, b broker, mods ...func(*RabbitMQ)) *RabbitMQ {
	t.Helper()
	r := &RabbitMQ{URL: b.api.String(), PageSize: DefaultPageSize, Timeout: 10 * time.Second,
		Retry: noSleep}
	for _, m := range mods {
		m(r)
	}
	if err := r.Init(testEnv("test-rmq")); err != nil {
		t.Fatalf("Init: %v", err)
	}
	return r
}

// countingTransport counts requests per path, to show paging happened.
type countingTransport struct {
	mu    sync.Mutex
	paths map[string]int
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if c.paths == nil {
		c.paths = map[string]int{}
	}
	c.paths[req.URL.Path]++
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (c *countingTransport) count(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paths[path]
}
