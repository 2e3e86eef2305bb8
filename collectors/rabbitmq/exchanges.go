package rabbitmq

import (
	"sort"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// builtIn reports whether an exchange comes with every vhost (the default
// exchange and amq.*): never backfill machinery.
func builtIn(name string) bool { return name == "" || strings.HasPrefix(name, "amq.") }

// backfillExchange is an exchange the selector kept on its own merits.
type backfillExchange struct {
	x      exchange
	uri    string
	labels map[string]string
	m      match
}

// selectExchanges keeps exchanges tied to a backfill by name, arguments or
// a plan's declared assets (a dead-letter exchange made for a replay).
func (r *RabbitMQ) selectExchanges(xs []exchange) map[vhostName]backfillExchange {
	out := map[vhostName]backfillExchange{}
	for _, x := range xs {
		if builtIn(x.Name) {
			continue
		}
		uri := r.uri(x.Vhost, partExchange, x.Name)
		labels := argumentLabels(x.Arguments)
		if id, how, ok := r.env.Selector.Match(uri, x.Name, matchLabels(labels)); ok {
			out[vhostName{x.Vhost, x.Name}] = backfillExchange{x: x, uri: uri, labels: labels, m: match{id, how}}
		}
	}
	return out
}

// exchangeArtifacts emits the backfill exchanges, and the exchanges whose
// every binding leads to a backfill queue or exchange: they exist only for
// the replay and outlive its queues unless someone deletes them. Bindings
// themselves are not artifacts: they disappear with their queue or
// exchange, so they are listed in the bindings attribute instead.
func (r *RabbitMQ) exchangeArtifacts(all []exchange, selected map[vhostName]backfillExchange, queues []backfillQueue, bindings []binding) []model.Artifact {
	bfQueue := map[vhostName]match{}
	for _, q := range queues {
		bfQueue[vhostName{q.q.Vhost, q.q.Name}] = q.m
	}
	known := map[vhostName]exchange{}
	for _, x := range all {
		known[vhostName{x.Vhost, x.Name}] = x
	}
	from := map[vhostName]*routes{}
	for _, b := range bindings {
		if builtIn(b.Source) {
			continue
		}
		k := vhostName{b.Vhost, b.Source}
		rt := from[k]
		if rt == nil {
			rt = &routes{}
			from[k] = rt
		}
		rt.dests = append(rt.dests, b.DestinationType+":"+b.Destination)
		dest := vhostName{b.Vhost, b.Destination}
		if m, ok := bfQueue[dest]; ok && b.DestinationType == "queue" {
			rt.matches = append(rt.matches, m)
		} else if x, ok := selected[dest]; ok && b.DestinationType == "exchange" {
			rt.matches = append(rt.matches, x.m)
		} else {
			rt.other = true
		}
	}

	var out []model.Artifact
	for k, x := range selected {
		out = append(out, r.exchangeArtifact(k, x.x, x.uri, x.labels, x.m, from[k].destinations()))
	}
	for k, rt := range from {
		if _, done := selected[k]; done || rt.other || len(rt.matches) == 0 {
			continue
		}
		x, ok := known[k]
		if !ok {
			// Listed in a binding but not in the exchange listing (it
			// failed, or the exchange was just deleted): still report it.
			x = exchange{Name: k.name, Vhost: k.vhost}
		}
		m := match{id: commonID(rt.matches), how: correlationBinding}
		uri := r.uri(k.vhost, partExchange, k.name)
		out = append(out, r.exchangeArtifact(k, x, uri, argumentLabels(x.Arguments), m, rt.dests))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}

// routes is where one exchange's bindings lead.
type routes struct {
	dests   []string // "queue:<name>" or "exchange:<name>"
	matches []match  // the backfill of each backfill destination
	other   bool     // some binding leads to something not backfill machinery
}

func (rt *routes) destinations() []string {
	if rt == nil {
		return nil
	}
	return rt.dests
}

func (r *RabbitMQ) exchangeArtifact(k vhostName, x exchange, uri string, labels map[string]string, m match, dests []string) model.Artifact {
	a := model.Artifact{
		Kind:        model.KindQueue,
		Scope:       model.JoinScope(k.vhost),
		URI:         uri,
		Name:        k.name,
		BackfillID:  m.id,
		Correlation: m.how,
		Owner:       owner(labels),
		Labels:      model.TagsOf(labels),
		State:       model.StateActive,
	}
	a.SetAttr(attrObject, "exchange")
	keepFromArguments(&a, labels)
	setNonEmpty(&a, attrExchangeType, x.Type)
	if x.Type != "" {
		a.SetAttr(attrDurable, strconv.FormatBool(x.Durable))
		a.SetAttr(attrAutoDel, strconv.FormatBool(x.AutoDelete))
	}
	if len(dests) > 0 {
		sort.Strings(dests)
		a.SetAttr(attrBindings, strings.Join(dests, ","))
	}
	return a
}

// commonID is the backfill all matches agree on, or "" when they differ
// (the exchange then belongs to several backfills, and correlate decides).
func commonID(ms []match) string {
	id := ms[0].id
	for _, m := range ms[1:] {
		if !model.SameID(m.id, id) {
			return ""
		}
	}
	return id
}
