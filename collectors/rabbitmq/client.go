package rabbitmq

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/bfaudit/bfaudit/internal/remote"
)

// Columns asked of each listing: the API returns much more per object
// (message rates, GC and backing-queue details) that bfaudit never reads.
const (
	queueColumns    = "name,vhost,arguments,messages,consumers,idle_since,state,type,durable,auto_delete,exclusive,policy,effective_policy_definition"
	exchangeColumns = "name,vhost,type,durable,auto_delete,internal,arguments"
)

// page is the envelope of a paged listing (?page=&page_size=). Items
// stays raw until checked: a missing or null list is a malformed answer,
// not an empty one.
type page struct {
	Items     json.RawMessage `json:"items"`
	Page      int             `json:"page"`
	PageCount int             `json:"page_count"`
}

// maxAnswerBytes caps one answer of the API: a page of 500 queues with
// the columns asked is well under a megabyte.
const maxAnswerBytes = 64 << 20

// get fetches one API path (already escaped) into out, within the
// source's per-call timeout. An answer that is JSON null is an error:
// every path read here answers an object or a list.
func (r *RabbitMQ) get(ctx context.Context, path string, query url.Values, out any) error {
	where := "GET " + r.base.String() + path
	u := r.base.String() + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	resp, err := remote.Send(ctx, r.HTTP, r.Retry, remote.Call{Method: http.MethodGet, URL: u, Auth: remote.BasicAuth(r.Username, r.password)})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := remote.DecodeJSON(resp.Body, maxAnswerBytes, out); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

// keyed is an item of a paged listing: key names it across pages.
type keyed interface{ key() string }

// paged walks every page of a listing, handing each item to fn. The walk
// is bounded by a remote.Pager (max_pages, a page of items already
// listed); it also stops with an error when the server answers another
// page than the one asked (it ignores paging) and when a page is not a
// paged listing. It ends normally on the last page announced, or on an
// empty page (objects deleted while paging shrink page_count under us).
func paged[T keyed](ctx context.Context, r *RabbitMQ, path, columns string, fn func(T)) error {
	pager := remote.Pager{What: "GET " + r.base.String() + path, Max: r.MaxPages, MaxKey: "max_pages"}
	for n := 1; ; n++ {
		q := url.Values{
			"page":      {strconv.Itoa(n)},
			"page_size": {strconv.Itoa(r.PageSize)},
			"columns":   {columns},
		}
		var p page
		if err := r.get(ctx, path, q, &p); err != nil {
			return err
		}
		where := fmt.Sprintf("GET %s page %d", r.base.String()+path, n)
		if t := bytes.TrimSpace(p.Items); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			return fmt.Errorf("%s: the answer has no items list", where)
		}
		if p.Page != n {
			return fmt.Errorf("%s: the server answered page %d: it does not page this listing", where, p.Page)
		}
		var items []T
		if err := json.Unmarshal(p.Items, &items); err != nil {
			return fmt.Errorf("%s: decode items: %w", where, err)
		}
		next := ""
		if n < p.PageCount && len(items) > 0 {
			next = strconv.Itoa(n + 1)
		}
		keys := make([]string, len(items))
		for i, it := range items {
			keys[i] = it.key()
		}
		if err := pager.Next(next, keys...); err != nil {
			return err
		}
		for _, it := range items {
			fn(it)
		}
		if next == "" {
			return nil
		}
	}
}

// vhostPath is "/api/<kind>" across vhosts, or "/api/<kind>/<vhost>".
func vhostPath(kind, vhost string) string {
	if vhost == "" {
		return "/api/" + kind
	}
	return "/api/" + kind + "/" + url.PathEscape(vhost)
}

func (r *RabbitMQ) whoami(ctx context.Context) error {
	var me struct {
		Name string `json:"name"`
	}
	return r.get(ctx, "/api/whoami", nil, &me)
}

// queue is one item of GET /api/queues. Counters are pointers: the API
// omits them until the first statistics emission after a declare.
type queue struct {
	Name       string                     `json:"name"`
	Vhost      string                     `json:"vhost"`
	Arguments  map[string]json.RawMessage `json:"arguments"`
	Messages   *int64                     `json:"messages"`
	Consumers  *int64                     `json:"consumers"`
	IdleSince  string                     `json:"idle_since"`
	State      string                     `json:"state"`
	Type       string                     `json:"type"`
	Durable    bool                       `json:"durable"`
	AutoDelete bool                       `json:"auto_delete"`
	Exclusive  bool                       `json:"exclusive"`
	Policy     string                     `json:"policy"`
	// EffectivePolicy is an object, or [] from older brokers when no
	// policy applies; read it leniently.
	EffectivePolicy json.RawMessage `json:"effective_policy_definition"`
}

// exchange is one item of GET /api/exchanges.
type exchange struct {
	Name       string                     `json:"name"`
	Vhost      string                     `json:"vhost"`
	Type       string                     `json:"type"`
	Durable    bool                       `json:"durable"`
	AutoDelete bool                       `json:"auto_delete"`
	Internal   bool                       `json:"internal"`
	Arguments  map[string]json.RawMessage `json:"arguments"`
}

func (q queue) key() string    { return q.Vhost + "\x00" + q.Name }
func (x exchange) key() string { return x.Vhost + "\x00" + x.Name }

// binding is one item of GET /api/bindings (not paged by the API).
type binding struct {
	Source          string `json:"source"`
	Vhost           string `json:"vhost"`
	Destination     string `json:"destination"`
	DestinationType string `json:"destination_type"` // queue or exchange
	RoutingKey      string `json:"routing_key"`
}

func (r *RabbitMQ) listQueues(ctx context.Context, vhost string) ([]queue, error) {
	var out []queue
	seen := map[[2]string]bool{}
	err := paged(ctx, r, vhostPath("queues", vhost), queueColumns, func(q queue) {
		// A queue can shift pages while we walk them; keep it once.
		if k := [2]string{q.Vhost, q.Name}; !seen[k] {
			seen[k] = true
			out = append(out, q)
		}
	})
	return out, err
}

func (r *RabbitMQ) listExchanges(ctx context.Context, vhost string) ([]exchange, error) {
	var out []exchange
	err := paged(ctx, r, vhostPath("exchanges", vhost), exchangeColumns, func(x exchange) { out = append(out, x) })
	return out, err
}

func (r *RabbitMQ) listBindings(ctx context.Context, vhost string) ([]binding, error) {
	var out []binding
	err := r.get(ctx, vhostPath("bindings", vhost), nil, &out)
	return out, err
}

// listVhosts names every vhost the user can see.
func (r *RabbitMQ) listVhosts(ctx context.Context) ([]string, error) {
	var out []struct {
		Name string `json:"name"`
	}
	if err := r.get(ctx, "/api/vhosts", url.Values{"columns": {"name"}}, &out); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(out))
	for _, v := range out {
		if v.Name == "" {
			return nil, fmt.Errorf("GET %s/api/vhosts: a vhost without a name", r.base)
		}
		names = append(names, v.Name)
	}
	return names, nil
}
