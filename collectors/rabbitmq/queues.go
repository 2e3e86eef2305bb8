package rabbitmq

import (
	"cmp"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// RabbitMQ-specific attribute keys, next to the model.Attr* ones.
const (
	// attrObject is "queue" or "exchange": exchanges are emitted with the
	// queue kind because they are queue machinery to remove with it.
	attrObject = "object"
	// attrQueueState is the broker's state (running, idle, down...).
	attrQueueState = "queue_state"
	// attrQueueType is classic, quorum or stream.
	attrQueueType = "queue_type"
	// attrExchangeType is direct, fanout, topic or headers.
	attrExchangeType = "exchange_type"
	// attrExpiresAfter is how long the queue may stay unused before the
	// broker deletes it (x-expires, or a policy's expires; the lower).
	attrExpiresAfter = "expires_after"
	// attrBindings lists "exchange:routing_key" bindings into a queue, or
	// "queue:<name>" / "exchange:<name>" destinations of an exchange.
	attrBindings = "bindings"
	attrDurable  = "durable"
	attrAutoDel  = "auto_delete"
	attrExcl     = "exclusive"
	attrPolicy   = "policy"
)

// Correlation of an exchange that has no backfill id of its own but only
// routes into backfill queues.
const correlationBinding = "binding"

// match is how an object was tied to a backfill.
type match struct{ id, how string }

type vhostName struct{ vhost, name string }

// backfillQueue is a queue the selector kept.
type backfillQueue struct {
	q      queue
	uri    string
	labels map[string]string
	m      match
}

// argumentLabels turns queue or exchange arguments into labels: strings
// as they are, numbers and booleans as their JSON text.
func argumentLabels(args map[string]json.RawMessage) map[string]string {
	if len(args) == 0 {
		return nil
	}
	out := make(map[string]string, len(args))
	for k, raw := range args {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			out[k] = s
			continue
		}
		out[k] = string(raw)
	}
	return out
}

// matchLabels adds each x- argument without its prefix, so x-backfill-id
// meets the selector's backfill-id label key.
func matchLabels(labels map[string]string) map[string]string {
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		out[k] = v
		if rest, ok := strings.CutPrefix(strings.ToLower(k), "x-"); ok {
			if _, taken := labels[rest]; !taken {
				out[rest] = v
			}
		}
	}
	return out
}

// selectQueues keeps the queues the selector ties to a backfill.
func (r *RabbitMQ) selectQueues(queues []queue) []backfillQueue {
	var out []backfillQueue
	for _, q := range queues {
		uri := r.uri(q.Vhost, partQueue, q.Name)
		labels := argumentLabels(q.Arguments)
		if id, how, ok := r.env.Selector.Match(uri, q.Name, matchLabels(labels)); ok {
			out = append(out, backfillQueue{q: q, uri: uri, labels: labels, m: match{id, how}})
		}
	}
	return out
}

// queueArtifacts builds one artifact per backfill queue.
func (r *RabbitMQ) queueArtifacts(found []backfillQueue, bindings []binding) []model.Artifact {
	into := map[vhostName][]string{}
	for _, b := range bindings {
		// The default exchange's implicit binding says nothing.
		if b.DestinationType == "queue" && b.Source != "" {
			k := vhostName{b.Vhost, b.Destination}
			into[k] = append(into[k], b.Source+":"+b.RoutingKey)
		}
	}
	now := r.env.Now()
	out := make([]model.Artifact, 0, len(found))
	for _, f := range found {
		q := f.q
		a := model.Artifact{
			Kind:        model.KindQueue,
			Scope:       model.JoinScope(q.Vhost),
			URI:         f.uri,
			Name:        q.Name,
			BackfillID:  f.m.id,
			Correlation: f.m.how,
			Owner:       owner(f.labels),
			Labels:      model.TagsOf(f.labels),
			State:       model.StateActive,
		}
		a.SetAttr(attrObject, "queue")
		keepFromArguments(&a, f.labels)
		if q.Messages != nil {
			a.SetAttr(model.AttrMessages, strconv.FormatInt(*q.Messages, 10))
		}
		if q.Consumers != nil {
			a.SetAttr(model.AttrConsumers, strconv.FormatInt(*q.Consumers, 10))
		}
		idle, idleKnown := parseIdleSince(q.IdleSince)
		switch {
		case idleKnown:
			a.LastUsedAt = model.At(idle)
		case q.Messages != nil:
			// Statistics are in but the queue is not idle: in use now.
			a.LastUsedAt = model.At(now)
		}
		if d, ok := expiresAfter(q); ok {
			a.SetAttr(attrExpiresAfter, d.String())
			// x-expires counts from the last use, and a consumed queue is
			// in use: it only has a deadline when idle with no consumer.
			if idleKnown && q.Consumers != nil && *q.Consumers == 0 {
				a.ExpiresAt = model.At(idle.Add(d))
			}
		}
		setNonEmpty(&a, attrQueueState, q.State)
		setNonEmpty(&a, attrQueueType, q.Type)
		setNonEmpty(&a, attrPolicy, q.Policy)
		a.SetAttr(attrDurable, strconv.FormatBool(q.Durable))
		a.SetAttr(attrAutoDel, strconv.FormatBool(q.AutoDelete))
		a.SetAttr(attrExcl, strconv.FormatBool(q.Exclusive))
		if bs := into[vhostName{q.Vhost, q.Name}]; len(bs) > 0 {
			sort.Strings(bs)
			a.SetAttr(attrBindings, strings.Join(bs, ","))
		}
		out = append(out, a)
	}
	return out
}

// owner reads an owner argument (owner or x-owner), if the team sets one.
func owner(labels map[string]string) string { return cmp.Or(labels["owner"], labels["x-owner"]) }

func setNonEmpty(a *model.Artifact, key, v string) {
	if v != "" {
		a.SetAttr(key, v)
	}
}

// parseIdleSince reads idle_since: RFC 3339 with milliseconds on current
// brokers ("2026-11-30T03:27:32.609+00:00"), "2006-01-02 15:04:05" in UTC
// on older ones.
func parseIdleSince(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), true
	}
	if t, err := time.Parse(time.DateTime, s); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// expiresAfter is the queue's unused-expiry: the x-expires argument or a
// policy's expires (milliseconds); the broker applies the lower of both.
func expiresAfter(q queue) (time.Duration, bool) {
	var ms []int64
	if n, ok := millis(q.Arguments["x-expires"]); ok {
		ms = append(ms, n)
	}
	var policy map[string]json.RawMessage
	if json.Unmarshal(q.EffectivePolicy, &policy) == nil {
		if n, ok := millis(policy["expires"]); ok {
			ms = append(ms, n)
		}
	}
	if len(ms) == 0 {
		return 0, false
	}
	low := ms[0]
	for _, n := range ms[1:] {
		low = min(low, n)
	}
	return time.Duration(low) * time.Millisecond, true
}

func millis(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}
