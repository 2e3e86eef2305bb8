package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsscheduler "github.com/aws/aws-sdk-go-v2/service/scheduler"
	schedtypes "github.com/aws/aws-sdk-go-v2/service/scheduler/types"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/awssource"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
)

// Attributes of a schedule, beside model.AttrSchedule (its expression)
// and model.AttrStartDate.
const (
	AttrGroup                 = "group"                   // the schedule group
	AttrEndDate               = "end_date"                // RFC 3339: when a rate() or cron() schedule stops firing
	AttrTimeZone              = "timezone"                // the time zone of its expression
	AttrTargetARN             = "target_arn"              // what it invokes (a state machine, a function, an ECS cluster...)
	AttrOneOff                = "one_off"                 // "true" for an at() schedule: it fires once
	AttrActionAfterCompletion = "action_after_completion" // NONE (it stays when done) or DELETE
)

// correlationTarget ties a schedule through what it invokes
// (arn:aws:states:…:stateMachine:bf_1234_replay).
const correlationTarget = "target"

// maxResults is the largest page ListScheduleGroups and ListSchedules answer.
const maxResults = 100

// service is EventBridge Scheduler's name in an error about an answer that
// is not its: it always answers with its list, and names every entry.
const service = "EventBridge Scheduler"

type tie struct{ id, how string }

// group is a schedule group and what its tags say.
type group struct {
	name, arn string
	tags      map[string]string
	unread    bool // its tags did not read: its schedules are not reported
	schedules int
	partial   int
}

// regionRead is the read of one unit: one account in one region.
type regionRead struct {
	c      *Collector
	place  awsconf.Place
	unit   string
	sink   collectors.Sink
	client *awsscheduler.Client
}

func (r *regionRead) scope(group string) string {
	return model.JoinScope(r.place.Account, r.place.Region, group)
}

// read lists the groups and schedules, reads the groups' tags, and reads
// each schedule tied to a backfill (GetSchedule: its expression, dates
// and target). A group whose tags do not read is an error at its scope,
// and none of its schedules is reported: one tagged for a backfill
// cannot be told from one that is not.
func (r *regionRead) read(ctx context.Context) error {
	groups, err := r.groups(ctx)
	if err != nil {
		return fmt.Errorf("scheduler: %s: list schedule groups: %w", r.place, err)
	}
	r.sink.AddRead(r.unit, "schedule groups", len(groups), 0)
	for _, g := range groups {
		r.readTags(ctx, g)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	schedules, err := r.schedules(ctx)
	if err != nil {
		return fmt.Errorf("scheduler: %s: list schedules: %w", r.place, err)
	}
	byName := map[string]*group{}
	for _, g := range groups {
		byName[g.name] = g
	}
	for _, s := range schedules {
		gname := aws.ToString(s.GroupName)
		g := byName[gname]
		if g == nil { // made since the groups were listed
			g = &group{name: gname}
			byName[gname] = g
			groups = append(groups, g)
		}
		g.schedules++
		if g.unread {
			g.partial++
			continue
		}
		tt, ok := r.tie(s, g)
		if !ok {
			continue
		}
		if !r.report(ctx, s, g, tt) {
			g.partial++
		}
	}
	for _, g := range groups {
		r.sink.AddRead(r.scope(g.name), "schedules", g.schedules, g.partial)
	}
	return ctx.Err()
}

// groups lists the unit's schedule groups, each once.
func (r *regionRead) groups(ctx context.Context) ([]*group, error) {
	pager := awsscheduler.NewListScheduleGroupsPaginator(r.client, &awsscheduler.ListScheduleGroupsInput{MaxResults: aws.Int32(maxResults)})
	listed, err := awsconf.List(ctx, r.c.Timeout, pager.HasMorePages,
		func(ctx context.Context) (*awsscheduler.ListScheduleGroupsOutput, error) { return pager.NextPage(ctx) },
		awsconf.Listing[*awsscheduler.ListScheduleGroupsOutput, schedtypes.ScheduleGroupSummary]{Service: service,
			Items: func(p *awsscheduler.ListScheduleGroupsOutput) []schedtypes.ScheduleGroupSummary {
				return p.ScheduleGroups
			},
			Key: func(g schedtypes.ScheduleGroupSummary) string { return aws.ToString(g.Name) }})
	out := make([]*group, len(listed))
	for i, g := range listed {
		out[i] = &group{name: aws.ToString(g.Name), arn: aws.ToString(g.Arn)}
	}
	return out, err
}

// schedules lists every schedule of the unit, of every group, each once.
func (r *regionRead) schedules(ctx context.Context) ([]schedtypes.ScheduleSummary, error) {
	pager := awsscheduler.NewListSchedulesPaginator(r.client, &awsscheduler.ListSchedulesInput{MaxResults: aws.Int32(maxResults)})
	return awsconf.List(ctx, r.c.Timeout, pager.HasMorePages,
		func(ctx context.Context) (*awsscheduler.ListSchedulesOutput, error) { return pager.NextPage(ctx) },
		awsconf.Listing[*awsscheduler.ListSchedulesOutput, schedtypes.ScheduleSummary]{Service: service,
			Items: func(p *awsscheduler.ListSchedulesOutput) []schedtypes.ScheduleSummary { return p.Schedules },
			Key: func(s schedtypes.ScheduleSummary) string {
				name, g := aws.ToString(s.Name), aws.ToString(s.GroupName)
				if name == "" || g == "" {
					return ""
				}
				return g + "/" + name
			}})
}

// readTags reads a group's tags (ListTagsForResource on its ARN): a
// schedule has none of its own, so its group's are what someone set on it.
func (r *regionRead) readTags(ctx context.Context, g *group) {
	arn := g.arn
	if arn == "" {
		arn = groupARN(r.place.Region, r.place.Account, g.name)
	}
	out, err := awsconf.Call(ctx, r.c.Timeout, func(ctx context.Context) (*awsscheduler.ListTagsForResourceOutput, error) {
		return r.client.ListTagsForResource(ctx, &awsscheduler.ListTagsForResourceInput{ResourceArn: aws.String(arn)})
	})
	if untaggable(err, g.name) {
		return
	}
	if err != nil {
		g.unread = true
		if ctx.Err() == nil {
			r.sink.AddError(r.scope(g.name), fmt.Errorf("scheduler: %s: tags of schedule group %s: %w", r.place, g.name, err))
		}
		return
	}
	g.tags = awssource.Tags(out.Tags, func(t schedtypes.Tag) (*string, *string) { return t.Key, t.Value })
}

// untaggable reports an answer that says the group holds no tags: it is
// gone since it was listed (its schedules with it), or it is the default
// group, which every account has without creating it, refused as a
// resource of tags. Any other error leaves its tags unknown.
func untaggable(err error, group string) bool {
	var gone *schedtypes.ResourceNotFoundException
	var invalid *schedtypes.ValidationException
	return errors.As(err, &gone) || (group == defaultGroup && errors.As(err, &invalid))
}

// defaultGroup is the group of a schedule made without one.
const defaultGroup = "default"

// tie says which backfill a listed schedule belongs to, in the order of
// docs/correlation.md: its group's tags, a plan's asset, its name, its
// group's name, what it invokes. Its target's input, read for the
// schedules kept, comes first when it carries an id (report).
func (r *regionRead) tie(s schedtypes.ScheduleSummary, g *group) (tie, bool) {
	sel := r.c.Env.Selector
	uri := ScheduleURI(r.c.Source(), r.place.Account, r.place.Region, g.name, aws.ToString(s.Name))
	if id, how, ok := sel.Match(uri, aws.ToString(s.Name), g.tags); ok {
		return tie{id, how}, true
	}
	if id, ok := sel.FromName(g.name); ok {
		return tie{id, "folder"}, true
	}
	if s.Target != nil {
		if id, ok := sel.FromName(resourceName(aws.ToString(s.Target.Arn))); ok {
			return tie{id, correlationTarget}, true
		}
	}
	return tie{}, false
}

// report reads a kept schedule (GetSchedule) and reports it; false when
// it did not read (an error at its group's scope). One deleted since it
// was listed is not reported.
func (r *regionRead) report(ctx context.Context, s schedtypes.ScheduleSummary, g *group, tt tie) bool {
	name := aws.ToString(s.Name)
	out, err := awsconf.Call(ctx, r.c.Timeout, func(ctx context.Context) (*awsscheduler.GetScheduleOutput, error) {
		return r.client.GetSchedule(ctx, &awsscheduler.GetScheduleInput{Name: aws.String(name), GroupName: aws.String(g.name)})
	})
	var gone *schedtypes.ResourceNotFoundException
	switch {
	case errors.As(err, &gone):
		return true
	case err == nil && aws.ToString(out.ScheduleExpression) == "":
		err = errors.New("the answer has no schedule expression (not an answer of EventBridge Scheduler)")
	}
	if err != nil {
		if ctx.Err() == nil {
			r.sink.AddError(r.scope(g.name), fmt.Errorf("scheduler: %s: schedule %s of group %s: %w", r.place, name, g.name, err))
		}
		return false
	}
	if out.Target != nil {
		if id, ok := r.c.Env.Selector.FromLabels(inputLabels(aws.ToString(out.Target.Input))); ok {
			tt = tie{id, "label"}
		}
	}
	r.sink.AddArtifact(r.artifact(out, g, tt))
	return true
}

// artifact is a schedule as BF001 and BF002 read a scheduler job: enabled
// or disabled, its expression and dates, and its own end: the time of an
// at() one-off (it fires then and never again) or the end date of a
// rate() or cron() schedule. EventBridge Scheduler keeps no runs of a
// schedule, so nothing here is a job run.
func (r *regionRead) artifact(s *awsscheduler.GetScheduleOutput, g *group, tt tie) model.Artifact {
	name := aws.ToString(s.Name)
	a := model.Artifact{
		Kind: model.KindSchedulerJob, Scope: r.scope(g.name), URI: ScheduleURI(r.c.Source(), r.place.Account, r.place.Region, g.name, name),
		Name: g.name + "/" + name, BackfillID: tt.id, Correlation: tt.how, Owner: awssource.OwnerTag(g.tags), Labels: model.TagsOf(g.tags),
		State: model.StateEnabled, CreatedAt: model.At(utc(s.CreationDate)), ModifiedAt: model.At(utc(s.LastModificationDate)),
	}
	if s.State == schedtypes.ScheduleStateDisabled {
		a.State = model.StateDisabled
	}
	expr := aws.ToString(s.ScheduleExpression)
	a.SetAttr(model.AttrSchedule, expr)
	a.SetAttr(AttrGroup, g.name)
	zone := aws.ToString(s.ScheduleExpressionTimezone)
	if zone != "" {
		a.SetAttr(AttrTimeZone, zone)
	}
	if t := utc(s.StartDate); !t.IsZero() {
		a.SetAttr(model.AttrStartDate, t.Format(time.RFC3339))
	}
	if t := utc(s.EndDate); !t.IsZero() {
		a.SetAttr(AttrEndDate, t.Format(time.RFC3339))
		a.ExpiresAt = model.At(t)
	}
	if at, ok := oneOff(expr, zone); ok {
		a.SetAttr(AttrOneOff, "true")
		a.ExpiresAt = model.At(at)
	}
	if s.Target != nil && aws.ToString(s.Target.Arn) != "" {
		a.SetAttr(AttrTargetARN, aws.ToString(s.Target.Arn))
	}
	if v := string(s.ActionAfterCompletion); v != "" {
		a.SetAttr(AttrActionAfterCompletion, v)
	}
	a.KeepFromText(aws.ToString(s.Description))
	a.SetKeep(g.tags[model.KeepUntilKey], g.tags[model.KeepReasonKey], "")
	return a
}

// oneOff reads the time of an at() expression, at(yyyy-mm-ddThh:mm:ss),
// in the schedule's time zone (UTC when none). A zone this machine does
// not know gives no time: the schedule's end is then not known.
func oneOff(expr, zone string) (time.Time, bool) {
	inner, isAt := strings.CutPrefix(strings.TrimSpace(expr), "at(")
	inner, closed := strings.CutSuffix(inner, ")")
	if !isAt || !closed {
		return time.Time{}, false
	}
	loc := time.UTC
	if zone != "" {
		l, err := time.LoadLocation(zone)
		if err != nil {
			return time.Time{}, false
		}
		loc = l
	}
	t, err := time.ParseInLocation("2006-01-02T15:04:05", strings.TrimSpace(inner), loc)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// inputLabels reads the string members of a target's input when it is a
// JSON object ({"backfill_id": "BF-1234", "start": ...}), for the
// selector's label keys alone to be read: an input may hold anything,
// secrets too, and nothing of it is kept.
func inputLabels(input string) map[string]string {
	var obj map[string]any
	if json.Unmarshal([]byte(input), &obj) != nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range obj {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// resourceName is the name an ARN ends with: a state machine's
// (arn:aws:states:…:stateMachine:name), a function's (…:function:name), a
// cluster's (…:cluster/name).
func resourceName(arn string) string {
	if i := strings.LastIndexAny(arn, ":/"); i >= 0 {
		return arn[i+1:]
	}
	return arn
}

func utc(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}
