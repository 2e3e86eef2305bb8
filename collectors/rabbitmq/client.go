package rabbitmq

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/bfaudit/bfaudit/collectors"
)

// Columns asked of each listing: the API returns much more per object
// (message rates, GC and backing-queue details) that bfaudit never reads.
const (
	queueColumns    = "name,vhost,arguments,messages,consumers,idle_since,state,type,durable,auto_delete,exclusive,policy,effective_policy_definition"
	exchangeColumns = "name,vhost,type,durable,auto_delete,internal,arguments"
)

// page is the envelope of a paged listing (?page=&page_size=).
type page[T any] struct {
	Items     []T `json:"items"`
	Page      int `json:"page"`
	PageCount int `json:"page_count"`
}

// get fetches one API path (already escaped) into out.
func (r *RabbitMQ) get(ctx context.Context, path string, query url.Values, out any) error {
	u := r.base.String() + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	resp, err := collectors.DoHTTP(ctx, r.HTTP, r.Retry, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.SetBasicAuth(r.Username, r.password)
		req.Header.Set("Accept", "application/json")
		return req, nil
	})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("GET %s: decode answer: %w", r.base.String()+path, err)
	}
	return nil
}

// paged walks every page of a listing, handing each item to fn.
func paged[T any](ctx context.Context, r *RabbitMQ, path, columns string, fn func(T)) error {
	for n := 1; ; n++ {
		q := url.Values{
			"page":      {strconv.Itoa(n)},
			"page_size": {strconv.Itoa(r.PageSize)},
			"columns":   {columns},
		}
		var p page[T]
		if err := r.get(ctx, path, q, &p); err != nil {
			return err
		}
		for _, it := range p.Items {
			fn(it)
		}
		// Stop on the last page, and on an empty one in case objects
		// were deleted while paging and page_count shrank under us.
		if n >= p.PageCount || len(p.Items) == 0 {
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
