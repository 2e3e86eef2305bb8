package airflow

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
)

// Pools, connections and variables are deployment-wide objects a backfill
// often creates for itself (a "backfill" pool, a connection to a scratch
// dataset, a variable holding the replay's range) and leaves behind. Each
// is one listing and one unit: "pools", "connections", "variables". A
// listing that fails (a 403 on /connections is common: reading
// connections is a permission of its own) is an error at its unit only.

// Units of the deployment-wide listings, beside "dags".
const (
	scopePools       = "pools"
	scopeConnections = "connections"
	scopeVariables   = "variables"
)

// Airflow-specific attribute keys of pools and connections.
const (
	AttrSlots          = "slots"
	AttrOccupiedSlots  = "occupied_slots"
	AttrRunningSlots   = "running_slots"
	AttrQueuedSlots    = "queued_slots"
	AttrScheduledSlots = "scheduled_slots"
	AttrDeferredSlots  = "deferred_slots"
	AttrOpenSlots      = "open_slots"
	AttrConnType       = "conn_type"
	AttrHost           = "host"
)

// The JSON shapes below decode only what is emitted or needed to tie an
// object. A connection's password, login, extra and URI parts and a
// variable's value are never decoded, so no secret of theirs can reach an
// artifact, an attribute or an error.

// poolCollection is PoolCollection (v1) / PoolCollectionResponse (v2).
type poolCollection struct {
	Pools        []poolJSON `json:"pools"`
	TotalEntries int        `json:"total_entries"`
}

func (c *poolCollection) check() error { return needList(c.Pools == nil, "pools") }

// poolJSON is Pool (v1) / PoolResponse (v2). slots is -1 for a pool
// without a cap.
type poolJSON struct {
	Name           string  `json:"name"`
	Slots          *int    `json:"slots"`
	OccupiedSlots  *int    `json:"occupied_slots"`
	RunningSlots   *int    `json:"running_slots"`
	QueuedSlots    *int    `json:"queued_slots"`
	ScheduledSlots *int    `json:"scheduled_slots"`
	DeferredSlots  *int    `json:"deferred_slots"`
	OpenSlots      *int    `json:"open_slots"`
	Description    *string `json:"description"`
}

// connectionCollection is ConnectionCollection (v1) /
// ConnectionCollectionResponse (v2).
type connectionCollection struct {
	Connections  []connectionJSON `json:"connections"`
	TotalEntries int              `json:"total_entries"`
}

func (c *connectionCollection) check() error {
	return needList(c.Connections == nil, "connections")
}

// connectionJSON keeps ConnectionCollectionItem (v1) / ConnectionResponse
// (v2) without login, password, schema, port and extra.
type connectionJSON struct {
	ConnectionID string  `json:"connection_id"`
	ConnType     string  `json:"conn_type"`
	Description  *string `json:"description"`
	Host         *string `json:"host"`
}

// variableCollection is VariableCollection (v1) / VariableCollectionResponse (v2).
type variableCollection struct {
	Variables    []variableJSON `json:"variables"`
	TotalEntries int            `json:"total_entries"`
}

func (c *variableCollection) check() error { return needList(c.Variables == nil, "variables") }

// variableJSON keeps the key and description of Variable (v1) /
// VariableResponse (v2), never the value: it may be a secret.
type variableJSON struct {
	Key         string  `json:"key"`
	Description *string `json:"description"`
}

// resourceAPI lists the deployment-wide objects. Both the REST API and
// the export implement it; it is apart from api so that interface stays
// about DAGs.
type resourceAPI interface {
	listPools(ctx context.Context) ([]poolJSON, error)
	listConnections(ctx context.Context) ([]connectionJSON, error)
	listVariables(ctx context.Context) ([]variableJSON, error)
}

func poolKey(p poolJSON) string             { return p.Name }
func connectionKey(c connectionJSON) string { return c.ConnectionID }
func variableKey(v variableJSON) string     { return v.Key }

// collectResource lists pools, connections or variables (Units declares
// each when its setting is on) and emits those the selector ties to a
// backfill.
func (c *Airflow) collectResource(ctx context.Context, unit string, sink collectors.Sink) error {
	r := c.src.(resourceAPI)
	switch unit {
	case scopePools:
		return listTied(ctx, c, sink, unit, r.listPools, c.poolArtifact)
	case scopeConnections:
		return listTied(ctx, c, sink, unit, r.listConnections, c.connectionArtifact)
	}
	return listTied(ctx, c, sink, unit, r.listVariables, c.variableArtifact)
}

// listTied reads one listing, emits the items tied to a backfill (those
// listed before a failure too) and returns the listing's failure.
func listTied[T any](ctx context.Context, c *Airflow, sink collectors.Sink, unit string,
	list func(context.Context) ([]T, error), artifact func(T) (model.Artifact, bool)) error {
	items, err := list(ctx)
	if err == nil {
		sink.AddRead(unit, unit, len(items), 0) // the unit is named for what it lists
	}
	for _, it := range items {
		if a, ok := artifact(it); ok {
			sink.AddArtifact(a)
		}
	}
	return c.resourceError(ctx, unit, err)
}

// resourceError is a listing's failure, with a word on the permission it
// needs when the server refused.
func (c *Airflow) resourceError(ctx context.Context, unit string, err error) error {
	if err == nil {
		return nil
	}
	err = c.wrap(ctx, "list "+unit, err)
	if isAuthError(err) {
		err = fmt.Errorf("%w; the user may not read %s: grant it can_read on %s, or set %s: false to not list them",
			err, unit, permissionOf(unit), unit)
	}
	return err
}

// permissionOf names the FAB resource a listing needs can_read on.
func permissionOf(unit string) string {
	switch unit {
	case scopePools:
		return "Pools"
	case scopeConnections:
		return "Connections"
	}
	return "Variables"
}

// tie asks the selector whether an object belongs to a backfill: by its
// URI (a plan's assets_to_remove) or name, then by its description.
func (c *Airflow) tie(uri, name string, description *string) (id, how string, ok bool) {
	if id, how, ok := c.env.Selector.Match(uri, name, nil); ok {
		return id, how, true
	}
	if description != nil {
		if id, ok := c.env.Selector.FromText(*description); ok {
			return id, "description", true
		}
	}
	return "", "", false
}

func (c *Airflow) poolArtifact(p poolJSON) (model.Artifact, bool) {
	uri := c.resourceURI(scopePools, p.Name)
	id, how, ok := c.tie(uri, p.Name, p.Description)
	if !ok {
		return model.Artifact{}, false
	}
	a := model.Artifact{Kind: model.KindPool, Scope: scopePools, URI: uri, Name: p.Name,
		BackfillID: id, Correlation: how, State: model.StateEnabled}
	for _, s := range []struct {
		key string
		v   *int
	}{
		{AttrSlots, p.Slots}, {AttrOccupiedSlots, p.OccupiedSlots}, {AttrRunningSlots, p.RunningSlots},
		{AttrQueuedSlots, p.QueuedSlots}, {AttrScheduledSlots, p.ScheduledSlots},
		{AttrDeferredSlots, p.DeferredSlots}, {AttrOpenSlots, p.OpenSlots},
	} {
		if s.v != nil {
			a.SetAttr(s.key, strconv.Itoa(*s.v))
		}
	}
	return a, true
}

func (c *Airflow) connectionArtifact(conn connectionJSON) (model.Artifact, bool) {
	uri := c.resourceURI(scopeConnections, conn.ConnectionID)
	id, how, ok := c.tie(uri, conn.ConnectionID, conn.Description)
	if !ok {
		return model.Artifact{}, false
	}
	a := model.Artifact{Kind: model.KindCredential, Scope: scopeConnections, URI: uri, Name: conn.ConnectionID,
		BackfillID: id, Correlation: how, State: model.StateEnabled}
	if t := redact.Line(conn.ConnType, 100); t != "" {
		a.SetAttr(AttrConnType, t)
	}
	if conn.Host != nil {
		if h, ok := safeHost(*conn.Host); ok {
			a.SetAttr(AttrHost, h)
		}
	}
	return a, true
}

func (c *Airflow) variableArtifact(v variableJSON) (model.Artifact, bool) {
	uri := c.resourceURI(scopeVariables, v.Key)
	id, how, ok := c.tie(uri, v.Key, v.Description)
	if !ok {
		return model.Artifact{}, false
	}
	return model.Artifact{Kind: model.KindVariable, Scope: scopeVariables, URI: uri, Name: v.Key,
		BackfillID: id, Correlation: how, State: model.StateEnabled}, true
}

// safeHost returns a connection's host when it is only a host: a value
// carrying a user or password (user:pw@host, a URL with userinfo), a
// query, a space or anything redact would mask is left out whole, never
// shown in part.
func safeHost(h string) (string, bool) {
	h = strings.TrimSpace(h)
	if h == "" || len(h) > 255 || strings.ContainsAny(h, "@ \t\r\n?#&;=") {
		return "", false
	}
	if strings.Contains(h, "://") {
		u, err := url.Parse(h)
		if err != nil || u.User != nil || u.RawQuery != "" {
			return "", false
		}
	}
	if redact.Line(h, 0) != h {
		return "", false
	}
	return h, true
}
