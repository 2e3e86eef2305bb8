package rabbitmq

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
	amqp "github.com/rabbitmq/amqp091-go"
)

// fixture is a small set of backfill queues and exchanges in vhost "/".
type fixture struct {
	n, id                        string
	retry, args, consumed, plain string
	onlyX, sharedX, dlx          string
}

// newFixture declares, for one random backfill id:
//   - bf_<n>_retry (tied by name) holding 3 messages;
//   - a queue tied by x-backfill-id with x-expires 1h;
//   - a queue tied by a "backfill" argument, with a consumer attached;
//   - an unrelated queue;
//   - an exchange bound only to the retry queue, one also bound to the
//     unrelated queue, and an unbound exchange tied by name.
//
// It waits until the broker's statistics show the messages, the consumer
// and the idle queue.
func newFixture(t *testing.T, b broker) fixture {
	t.Helper()
	n := uniqueN()
	f := fixture{n: n, id: "BF-" + n,
		retry: "bf_" + n + "_retry", args: "bfaudit_q_" + n + "_args",
		consumed: "bfaudit_q_" + n + "_consumed", plain: "bfaudit_q_" + n + "_plain",
		onlyX: "bfaudit_x_" + n + "_only", sharedX: "bfaudit_x_" + n + "_shared", dlx: "bf_" + n + "_dlx"}
	b.deleteAtEnd(t, "/", []string{f.retry, f.args, f.consumed, f.plain}, []string{f.onlyX, f.sharedX, f.dlx})

	ch := b.channel(t)
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	declare := func(name string, args amqp.Table) {
		_, err := ch.QueueDeclare(name, true, false, false, false, args)
		must("declare "+name, err)
	}
	declare(f.retry, nil)
	declare(f.args, amqp.Table{"x-backfill-id": f.id, "x-expires": int32(3_600_000)})
	declare(f.consumed, amqp.Table{"backfill": f.id})
	declare(f.plain, nil)
	for _, x := range []string{f.onlyX, f.sharedX, f.dlx} {
		must("declare "+x, ch.ExchangeDeclare(x, "direct", true, false, false, false, nil))
	}
	must("bind", ch.QueueBind(f.retry, "r", f.onlyX, false, nil))
	must("bind", ch.QueueBind(f.retry, "r", f.sharedX, false, nil))
	must("bind", ch.QueueBind(f.plain, "p", f.sharedX, false, nil))
	for i := 0; i < 3; i++ {
		must("publish", ch.PublishWithContext(context.Background(), "", f.retry, false, false, amqp.Publishing{Body: []byte("replayed")}))
	}
	consumerCh := b.channel(t)
	_, err := consumerCh.Consume(f.consumed, "", false, false, false, false, nil)
	must("consume", err)

	b.waitQueue(t, "/", f.retry, func(q map[string]any) bool { return q["messages"] == float64(3) })
	b.waitQueue(t, "/", f.consumed, func(q map[string]any) bool { return q["consumers"] == float64(1) })
	b.waitQueue(t, "/", f.args, func(q map[string]any) bool { return q["idle_since"] != nil && q["consumers"] != nil })
	return f
}

func (f fixture) queueURI(name string) string    { return "rabbitmq://test-rmq/%2F/queue/" + name }
func (f fixture) exchangeURI(name string) string { return "rabbitmq://test-rmq/%2F/exchange/" + name }

func TestCollectBackfillQueues(t *testing.T) {
	b := testBroker(t)
	f := newFixture(t, b)
	for _, size := range []int{DefaultPageSize, 2} {
		t.Run("page_size="+itoa(size), func(t *testing.T) {
			ct := &countingTransport{}
			r := newCollector(t, b, func(r *RabbitMQ) { r.PageSize = size; r.HTTP = &http.Client{Transport: ct} })
			sink := collectors.NewTestSink()
			if err := collectors.Collect(context.Background(), r, sink); err != nil {
				t.Fatalf("Collect: %v", err)
			}
			if len(sink.Errors) > 0 {
				t.Fatalf("scope errors: %+v", sink.Errors)
			}
			if size == 2 && ct.count("/api/queues//") < 2 {
				t.Errorf("with page_size 2 and at least 4 queues, /api/queues/%%2F was called %d times", ct.count("/api/queues//"))
			}
			checkFixture(t, f, sink)
		})
	}
}

func checkFixture(t *testing.T, f fixture, sink *collectors.TestSink) {
	get := func(t *testing.T, uri string) *model.Artifact {
		t.Helper()
		a := sink.Artifact(uri)
		if a == nil {
			t.Fatalf("no artifact %s among %d", uri, len(sink.Artifacts))
		}
		return a
	}
	t.Run("queue tied by name holds its backlog", func(t *testing.T) {
		a := get(t, f.queueURI(f.retry))
		if a.Kind != model.KindQueue || a.Scope != "%2F" || a.Correlation != "name" || !model.SameID(a.BackfillID, f.id) {
			t.Errorf("kind=%s scope=%s how=%s id=%s", a.Kind, a.Scope, a.Correlation, a.BackfillID)
		}
		if a.Attr(model.AttrMessages) != "3" || a.Attr(model.AttrConsumers) != "0" {
			t.Errorf("messages=%q consumers=%q", a.Attr(model.AttrMessages), a.Attr(model.AttrConsumers))
		}
		if a.LastUsedAt.IsZero() {
			t.Errorf("last used unknown")
		}
		want := "bfaudit_x_" + f.n + "_only:r,bfaudit_x_" + f.n + "_shared:r"
		if a.Attr(attrBindings) != want {
			t.Errorf("bindings=%q, want %q", a.Attr(attrBindings), want)
		}
	})
	t.Run("queue tied by x-backfill-id expires an hour after it went idle", func(t *testing.T) {
		a := get(t, f.queueURI(f.args))
		if a.Correlation != "label" || a.BackfillID != f.id || a.Labels.Get("x-backfill-id") != f.id || a.Labels.Get("x-expires") != "3600000" {
			t.Errorf("how=%s id=%s labels=%v", a.Correlation, a.BackfillID, a.Labels)
		}
		if a.Attr(attrExpiresAfter) != "1h0m0s" || a.LastUsedAt.IsZero() || !a.ExpiresAt.Time().Equal(a.LastUsedAt.Time().Add(time.Hour)) {
			t.Errorf("expires_after=%q last_used=%s expires=%s", a.Attr(attrExpiresAfter), a.LastUsedAt, a.ExpiresAt)
		}
	})
	t.Run("queue tied by a backfill argument is still consumed", func(t *testing.T) {
		a := get(t, f.queueURI(f.consumed))
		if a.Correlation != "label" || a.Attr(model.AttrConsumers) != "1" || a.State != model.StateActive {
			t.Errorf("how=%s consumers=%q state=%s", a.Correlation, a.Attr(model.AttrConsumers), a.State)
		}
	})
	t.Run("unrelated queue and shared exchange are not machinery", func(t *testing.T) {
		for _, uri := range []string{f.queueURI(f.plain), f.exchangeURI(f.sharedX)} {
			if sink.Artifact(uri) != nil {
				t.Errorf("%s emitted", uri)
			}
		}
	})
	t.Run("exchange that only feeds a backfill queue", func(t *testing.T) {
		a := get(t, f.exchangeURI(f.onlyX))
		if a.Kind != model.KindQueue || a.Attr(attrObject) != "exchange" || a.Correlation != correlationBinding ||
			!model.SameID(a.BackfillID, f.id) || a.Attr(attrBindings) != "queue:"+f.retry || a.Attr(attrExchangeType) != "direct" {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("exchange tied by name", func(t *testing.T) {
		a := get(t, f.exchangeURI(f.dlx))
		if a.Correlation != "name" || !model.SameID(a.BackfillID, f.id) {
			t.Errorf("got %+v", a)
		}
	})
}

func TestUnreadableVhostDegradesOnlyThatScope(t *testing.T) {
	b := testBroker(t)
	f := newFixture(t, b)
	vhost, user, password := "bfaudit_vh_"+f.n, "bfaudit_u_"+f.n, "pw-"+f.n
	t.Cleanup(func() {
		b.call(t, http.MethodDelete, "/api/users/"+user, nil)
		b.call(t, http.MethodDelete, "/api/vhosts/"+vhost, nil)
	})
	for _, req := range []struct {
		path string
		body any
	}{
		{"/api/vhosts/" + vhost, nil},
		{"/api/users/" + user, map[string]string{"password": password, "tags": "management"}},
		{"/api/permissions/%2F/" + user, map[string]string{"configure": "", "write": "", "read": ""}}, // no rights at all: the entry alone lets it list
	} {
		if code, body := b.call(t, http.MethodPut, req.path, req.body); code >= 300 {
			t.Fatalf("PUT %s: %d %s", req.path, code, body)
		}
	}
	t.Setenv("BFAUDIT_TEST_RMQ_PASSWORD", password)
	r := newCollector(t, b, func(r *RabbitMQ) {
		r.Username, r.PasswordEnv = user, "BFAUDIT_TEST_RMQ_PASSWORD"
		r.Vhosts = []string{"/", vhost}
	})
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), r, sink); err != nil {
		t.Fatalf("Collect failed the whole source: %v", err)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != vhost || !strings.Contains(sink.Errors[0].Error, "test-rmq") {
		t.Fatalf("want one error scoped to %s naming the source, got %+v", vhost, sink.Errors)
	}
	if sink.Artifact(f.queueURI(f.retry)) == nil {
		t.Errorf("the readable vhost was not collected")
	}
}

func TestWrongCredentialsFailTheSource(t *testing.T) {
	b := testBroker(t)
	password := "wrong-" + uniqueN()
	t.Setenv("BFAUDIT_TEST_RMQ_PASSWORD", password)
	r := newCollector(t, b, func(r *RabbitMQ) { r.PasswordEnv = "BFAUDIT_TEST_RMQ_PASSWORD" })
	err := collectors.Collect(context.Background(), r, collectors.NewTestSink())
	if err == nil {
		t.Fatal("Collect succeeded with a wrong password")
	}
	if !strings.Contains(err.Error(), "rabbitmq source test-rmq") || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), password) {
		t.Errorf("error should name the source and the 401 and hide the password: %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Every vhost says what it read, machinery or not: its queues (orders
// too), its exchanges (the broker's own amq.* too) and, since it holds a
// backfill queue, its bindings; a small page size makes the listings page.
func TestReadsOfEveryUnit(t *testing.T) {
	b := testBroker(t)
	n := uniqueN()
	vh := "bfaudit_reads_" + n
	if code, body := b.call(t, http.MethodPut, "/api/vhosts/"+vh, map[string]any{}); code/100 != 2 {
		t.Fatalf("create vhost: %d %s", code, body)
	}
	t.Cleanup(func() { b.call(t, http.MethodDelete, "/api/vhosts/"+vh, nil) })
	put := func(path string, body any) {
		t.Helper()
		if code, out := b.call(t, http.MethodPut, path, body); code/100 != 2 {
			t.Fatalf("PUT %s: %d %s", path, code, out)
		}
	}
	put("/api/permissions/"+vh+"/"+b.api.User.Username(), map[string]string{"configure": ".*", "write": ".*", "read": ".*"})
	for _, q := range []string{"bf_" + n + "_retry", "orders", "payments"} {
		put("/api/queues/"+vh+"/"+q, map[string]any{"durable": true})
	}
	put("/api/exchanges/"+vh+"/bfaudit_x_"+n, map[string]any{"type": "direct"})
	if code, out := b.call(t, http.MethodPost, "/api/bindings/"+vh+"/e/bfaudit_x_"+n+"/q/bf_"+n+"_retry", map[string]any{"routing_key": "r"}); code/100 != 2 {
		t.Fatalf("bind: %d %s", code, out)
	}
	count := func(path string) int {
		t.Helper()
		_, body := b.call(t, http.MethodGet, path, nil)
		var items []json.RawMessage
		if err := json.Unmarshal(body, &items); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return len(items)
	}
	exchanges, bindings := count("/api/exchanges/"+vh), count("/api/bindings/"+vh)
	if exchanges < 2 || bindings < 1 {
		t.Fatalf("the broker lists %d exchanges, %d bindings in %s", exchanges, bindings, vh)
	}
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), newCollector(t, b, func(r *RabbitMQ) { r.Vhosts, r.PageSize = []string{vh}, 2 }), sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	if len(sink.Errors) != 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	for what, want := range map[string]int{"queues": 3, "exchanges": exchanges, "bindings": bindings} {
		if got, p := sink.Read(vh, what); got != want || p != 0 {
			t.Errorf("%s: read %d %s (%d in part), want %d", vh, got, what, p, want)
		}
	}
}
