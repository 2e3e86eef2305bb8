package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
)

// Attributes of a consumer group besides the model's.
const (
	AttrGroupState = "group_state" // Empty, Stable, PreparingRebalance, Dead... as the coordinator says
	AttrTopics     = "topics"      // topics it committed offsets for, comma-separated and sorted
	AttrBootstrap  = "bootstrap"   // the first bootstrap broker (host:port), for the printed command
	AttrCluster    = "cluster"     // the cluster name the URI carries
)

// CheckpointConsumerGroup is the checkpoint type of a consumer group.
const CheckpointConsumerGroup = "consumer_group"

// GroupScope is the unit of one consumer group.
func GroupScope(group string) string { return model.JoinScope(group) }

// Units is the whole source (""): every group is found by one listing of
// the cluster and read with the admin client that listed it, which is
// released once they are all read; the groups read are scopes below it.
func (k *Kafka) Units(context.Context) ([]string, error) {
	if k.sel == nil {
		return nil, fmt.Errorf("kafka source %s: not initialised (Init was not called)", k.sourceName())
	}
	return []string{""}, nil
}

// CollectUnit lists the groups (a failure fails the source), keeps those
// tied to a backfill, and describes each, fetches its committed offsets
// and the end offsets of its topics; a group that fails is an error at its
// own scope (GroupScope), the others are still read.
func (k *Kafka) CollectUnit(ctx context.Context, _ string, sink collectors.Sink) error {
	adm, release, err := k.AdminClient()
	if err != nil {
		return err
	}
	defer release()
	var listed kadm.ListedGroups
	err = k.call(ctx, func(cctx context.Context) error {
		var err error
		listed, err = adm.ListGroups(cctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("kafka source %s: list groups: %w", k.sourceName(), err)
	}
	type tied struct{ group, uri, id, how string }
	var found []tied
	// n counts the groups listed that the config asks about.
	n := 0
	for _, g := range listed.Groups() { // sorted
		if !k.allowed(g) {
			continue
		}
		n++
		uri := URI(k.sourceName(), g)
		id, how, ok := k.sel.Match(uri, g, nil)
		if !ok {
			continue
		}
		found = append(found, tied{g, uri, id, how})
	}
	// A group read further (or that failed to be) says so at its own
	// unit, only in part when that read failed; the listing counts the
	// others.
	for i, t := range found {
		if i >= k.MaxGroups {
			sink.AddError(GroupScope(t.group), fmt.Errorf("kafka source %s: group %s not read: more than max_groups (%d) groups are tied to backfills", k.sourceName(), redact.Line(t.group, 200), k.MaxGroups))
			sink.AddRead(GroupScope(t.group), readGroups, 1, 1)
			continue
		}
		g, err := k.readGroup(ctx, adm, t.group)
		if errors.Is(err, errGone) {
			sink.AddRead(GroupScope(t.group), readGroups, 1, 0)
			continue // deleted since the listing: the coordinator said so
		}
		if err != nil {
			sink.AddError(GroupScope(t.group), fmt.Errorf("kafka source %s: group %s: %w", k.sourceName(), redact.Line(t.group, 200), err))
			sink.AddRead(GroupScope(t.group), readGroups, 1, 1)
			continue
		}
		sink.AddRead(GroupScope(t.group), readGroups, 1, 0)
		sink.AddArtifact(k.artifact(g, t.uri, t.id, t.how))
	}
	sink.AddRead("", readGroups, n-len(found), 0)
	return nil
}

// readGroups is what the listing and each group's unit say they read.
const readGroups = "consumer groups"

// errGone says the coordinator does not know the group (any more).
var errGone = errors.New("group not found")

// group is what was read of one consumer group.
type group struct {
	name    string
	state   string
	members int
	offsets []partOffset // sorted by topic, partition
	lag     int64
}

type partOffset struct {
	topic     string
	partition int32
	committed int64
	end       int64 // -1 when unknown
}

// call runs op under the per-call deadline, retrying retriable Kafka
// errors within it.
func (k *Kafka) call(ctx context.Context, op func(context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, k.Timeout)
	defer cancel()
	err := remote.Retry(cctx, k.Retry, func() error {
		err := op(cctx)
		if err != nil && kerr.IsRetriable(err) {
			return remote.Retryable(err, 0)
		}
		return err
	})
	if err != nil && cctx.Err() != nil && ctx.Err() == nil {
		return fmt.Errorf("no answer within the timeout (%s): %w", k.Timeout, err)
	}
	return err
}

// readGroup describes a group and reads its offsets and lag.
func (k *Kafka) readGroup(ctx context.Context, adm *kadm.Client, name string) (group, error) {
	g := group{name: name}
	d, err := k.describe(ctx, adm, name)
	if err != nil {
		return g, err
	}
	g.state, g.members = d.State, len(d.Members)
	var fetched kadm.OffsetResponses
	err = k.call(ctx, func(cctx context.Context) error {
		var err error
		fetched, err = adm.FetchOffsets(cctx, name)
		return err
	})
	if errors.Is(err, kerr.GroupIDNotFound) {
		return g, errGone
	}
	if err != nil {
		return g, fmt.Errorf("fetch committed offsets: %w", err)
	}
	if err := fetched.Error(); err != nil {
		return g, fmt.Errorf("fetch committed offsets: %w", err)
	}
	topics := fetched.Partitions().Topics()
	var ends kadm.ListedOffsets
	if len(topics) > 0 {
		err = k.call(ctx, func(cctx context.Context) error {
			var err error
			ends, err = adm.ListEndOffsets(cctx, topics...)
			return err
		})
		if err != nil {
			return g, fmt.Errorf("list end offsets of %s: %w", strings.Join(topics, ","), err)
		}
	}
	fetched.Each(func(o kadm.OffsetResponse) {
		if o.At < 0 {
			return // no offset committed there
		}
		p := partOffset{topic: o.Topic, partition: o.Partition, committed: o.At, end: -1}
		if e, ok := ends.Lookup(o.Topic, o.Partition); ok && e.Err == nil && e.Offset >= 0 {
			p.end = e.Offset
			g.lag += max(e.Offset-o.At, 0)
		}
		g.offsets = append(g.offsets, p)
	})
	sort.Slice(g.offsets, func(i, j int) bool {
		a, b := g.offsets[i], g.offsets[j]
		if a.topic != b.topic {
			return a.topic < b.topic
		}
		return a.partition < b.partition
	})
	return g, nil
}

// describe asks the group's coordinator about it; errGone when it does not
// know the group.
func (k *Kafka) describe(ctx context.Context, adm *kadm.Client, name string) (kadm.DescribedGroup, error) {
	var ds kadm.DescribedGroups
	err := k.call(ctx, func(cctx context.Context) error {
		var err error
		ds, err = adm.DescribeGroups(cctx, name)
		if err == nil {
			if d, ok := ds[name]; ok && d.Err != nil && kerr.IsRetriable(d.Err) {
				return d.Err
			}
		}
		return err
	})
	if err != nil {
		return kadm.DescribedGroup{}, fmt.Errorf("describe: %w", err)
	}
	d, ok := ds[name]
	switch {
	case !ok || errors.Is(d.Err, kerr.GroupIDNotFound) || (d.Err == nil && d.State == "Dead"):
		return d, errGone
	case d.Err != nil:
		return d, fmt.Errorf("describe: %w", d.Err)
	}
	return d, nil
}

// Describe reads a group's state and members count as the fix action
// needs them: found is false when the coordinator does not know it.
func (k *Kafka) Describe(ctx context.Context, adm *kadm.Client, name string) (state string, members int, found bool, err error) {
	d, err := k.describe(ctx, adm, name)
	if errors.Is(err, errGone) {
		return "", 0, false, nil
	}
	if err != nil {
		return "", 0, false, err
	}
	return d.State, len(d.Members), true, nil
}

// DeleteGroup deletes a consumer group; one already gone is done.
func (k *Kafka) DeleteGroup(ctx context.Context, adm *kadm.Client, name string) error {
	var resp kadm.DeleteGroupResponse
	err := k.call(ctx, func(cctx context.Context) error {
		var err error
		resp, err = adm.DeleteGroup(cctx, name)
		if err == nil && resp.Err != nil && kerr.IsRetriable(resp.Err) {
			return resp.Err
		}
		return err
	})
	if err == nil {
		err = resp.Err
	}
	if errors.Is(err, kerr.GroupIDNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete group %s: %w", redact.Line(name, 200), err)
	}
	return nil
}

// artifact turns a group read into its checkpoint artifact. The commit
// time of the offsets is not kept by the brokers: ModifiedAt stays zero.
func (k *Kafka) artifact(g group, uri, id, how string) model.Artifact {
	a := model.Artifact{Kind: model.KindCheckpoint, System: "kafka", Scope: GroupScope(g.name), URI: uri,
		Name: g.name, BackfillID: id, Correlation: how, State: model.StateActive}
	a.SetAttr(model.AttrCheckpointType, CheckpointConsumerGroup)
	a.SetAttr(model.AttrMembers, strconv.Itoa(g.members))
	a.SetAttr(model.AttrLag, strconv.FormatInt(g.lag, 10))
	a.SetAttr(AttrGroupState, g.state)
	a.SetAttr(AttrCluster, k.sourceName())
	if b := k.Bootstrap(); b != "" {
		a.SetAttr(AttrBootstrap, b)
	}
	var offs, topics []string
	for i, o := range g.offsets {
		if i < MaxOffsetsKept {
			offs = append(offs, o.topic+"/"+strconv.Itoa(int(o.partition))+"="+strconv.FormatInt(o.committed, 10))
		}
		if len(topics) == 0 || topics[len(topics)-1] != o.topic {
			topics = append(topics, o.topic)
		}
	}
	if n := len(g.offsets) - MaxOffsetsKept; n > 0 {
		offs = append(offs, "+"+strconv.Itoa(n)+" more")
	}
	if len(offs) > 0 {
		a.SetAttr(model.AttrOffsets, strings.Join(offs, ","))
		a.SetAttr(AttrTopics, strings.Join(topics, ","))
	}
	return a
}
