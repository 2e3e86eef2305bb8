package scheduler

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

type accountSetting = awsconf.Account

// fakeSchedules is one account's EventBridge Scheduler in one region,
// answering as it does: pages of at most pageSize with NextToken,
// ResourceNotFoundException, a schedule replaced whole by UpdateSchedule.
type fakeSchedules struct {
	account, region string

	mu          sync.Mutex
	groups      []string
	tags        map[string]map[string]string // by group
	schedules   []map[string]any             // as GetSchedule answers them
	failingTags map[string]bool              // groups whose tags do not read
	invalidTags map[string]bool              // groups whose tags AWS refuses to list (ValidationException)
	gets        int
	updates     []map[string]any
	deleted     []string
}

const pageSize = 2

func (f *fakeSchedules) groupARN(g string) string {
	return "arn:aws:scheduler:" + f.region + ":" + f.account + ":schedule-group/" + g
}

// add adds a schedule to group (made with its group when new).
func (f *fakeSchedules) add(group string, s map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !slices.Contains(f.groups, group) {
		f.groups = append(f.groups, group)
	}
	s["GroupName"] = group
	s["Arn"] = "arn:aws:scheduler:" + f.region + ":" + f.account + ":schedule/" + group + "/" + s["Name"].(string)
	s["CreationDate"], s["LastModificationDate"] = created, modified
	if s["State"] == nil {
		s["State"] = "ENABLED"
	}
	s["FlexibleTimeWindow"] = map[string]any{"Mode": "OFF"}
	f.schedules = append(f.schedules, s)
}

func pageOf[T any](items []T, c smithy.Call) ([]T, string) {
	from, _ := strconv.Atoi(fmt.Sprint(c.Input["NextToken"]))
	to := min(from+pageSize, len(items))
	next := ""
	if to < len(items) {
		next = strconv.Itoa(to)
	}
	return items[from:to], next
}

func withNext(out map[string]any, next string) map[string]any {
	if next != "" {
		out["NextToken"] = next
	}
	return out
}

func (f *fakeSchedules) handle(c smithy.Call) (map[string]any, *smithy.Error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	notFound := &smithy.Error{Code: "ResourceNotFoundException", Message: "Schedule not found."}
	switch c.Operation {
	case "ListScheduleGroups":
		groups, next := pageOf(f.groups, c)
		var out []any
		for _, g := range groups {
			out = append(out, map[string]any{"Name": g, "Arn": f.groupARN(g), "State": "ACTIVE", "CreationDate": created})
		}
		return withNext(map[string]any{"ScheduleGroups": append([]any{}, out...)}, next), nil
	case "ListSchedules":
		page, next := pageOf(f.schedules, c)
		var out []any
		for _, s := range page {
			out = append(out, map[string]any{"Name": s["Name"], "GroupName": s["GroupName"], "Arn": s["Arn"], "State": s["State"],
				"Target": map[string]any{"Arn": s["Target"].(map[string]any)["Arn"]}, "CreationDate": created, "LastModificationDate": s["LastModificationDate"]})
		}
		return withNext(map[string]any{"Schedules": append([]any{}, out...)}, next), nil
	case "ListTagsForResource":
		arn := c.Input["ResourceArn"].(string)
		for _, g := range f.groups {
			if f.groupARN(g) != arn {
				continue
			}
			if f.invalidTags[g] {
				return nil, &smithy.Error{Code: "ValidationException", Message: "Invalid resource ARN"}
			}
			if f.failingTags[g] {
				return nil, &smithy.Error{Code: "InternalServerException", Message: "Unexpected error", Status: 500}
			}
			tags := []any{}
			for k, v := range f.tags[g] {
				tags = append(tags, map[string]any{"Key": k, "Value": v})
			}
			return map[string]any{"Tags": tags}, nil
		}
		return nil, notFound
	case "GetSchedule":
		f.gets++
		if i := f.find(c); i >= 0 {
			return f.schedules[i], nil
		}
		return nil, notFound
	case "UpdateSchedule":
		i := f.find(c)
		if i < 0 {
			return nil, notFound
		}
		f.updates = append(f.updates, c.Input)
		s := f.schedules[i]
		for _, k := range []string{"ScheduleExpression", "ScheduleExpressionTimezone", "StartDate", "EndDate", "Description", "State",
			"KmsKeyArn", "Target", "FlexibleTimeWindow", "ActionAfterCompletion"} {
			if v, ok := c.Input[k]; ok {
				s[k] = v
			} else {
				delete(s, k) // UpdateSchedule replaces the schedule whole
			}
		}
		s["LastModificationDate"] = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		return map[string]any{"ScheduleArn": s["Arn"]}, nil
	case "DeleteSchedule":
		i := f.find(c)
		if i < 0 {
			return nil, notFound
		}
		f.deleted = append(f.deleted, f.schedules[i]["GroupName"].(string)+"/"+f.schedules[i]["Name"].(string))
		f.schedules = slices.Delete(f.schedules, i, i+1)
		return nil, nil
	}
	return nil, &smithy.Error{Code: "AccessDeniedException", Message: "not in this fake", Status: 403}
}

func (f *fakeSchedules) find(c smithy.Call) int {
	group, _ := c.Input["GroupName"].(string)
	if group == "" {
		group = "default"
	}
	return slices.IndexFunc(f.schedules, func(s map[string]any) bool { return s["Name"] == c.Input["Name"] && s["GroupName"] == group })
}

// fakeAWS is AWS with EventBridge Scheduler in each account and region.
type fakeAWS struct {
	*smithy.Places
	mu     sync.Mutex
	places map[string]*fakeSchedules
}

func newFakeAWS(t *testing.T) *fakeAWS {
	f := &fakeAWS{places: map[string]*fakeSchedules{}}
	f.Places = smithy.NewPlaces(t, smithy.AWS(t, "scheduler"), func(account, region string) smithy.Handler {
		return f.at(account, region).handle
	})
	return f
}

func (f *fakeAWS) at(account, region string) *fakeSchedules {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := account + "/" + region
	if f.places[k] == nil {
		f.places[k] = &fakeSchedules{account: account, region: region, tags: map[string]map[string]string{}, failingTags: map[string]bool{}, invalidTags: map[string]bool{}}
	}
	return f.places[k]
}

var (
	created  = time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	modified = time.Date(2026, 1, 6, 8, 0, 0, 0, time.UTC)
)

// schedule is a schedule as GetSchedule answers it (add fills the rest).
func schedule(name, expr, target string, more ...any) map[string]any {
	s := map[string]any{"Name": name, "ScheduleExpression": expr,
		"Target": map[string]any{"Arn": target, "RoleArn": "arn:aws:iam::111111111111:role/scheduler-invoke"}}
	for i := 0; i+1 < len(more); i += 2 {
		s[more[i].(string)] = more[i+1]
	}
	return s
}

const (
	replayMachine = "arn:aws:states:eu-west-1:111111111111:stateMachine:refund_replay"
	dailyMachine  = "arn:aws:states:eu-west-1:111111111111:stateMachine:daily_revenue"
)

// estate is BF-1234's schedules after its replay, and what is not its: in
// the caller's account, the one-off that fired the replay (its input
// names the backfill), the production job's schedule, a schedule tied by
// the state machine it starts, a disabled schedule of a group made for
// the backfill, a one-off of a group tagged for BF-2001 in Berlin time,
// and a group whose tags do not read; in roleAccount, reached through its
// role, a rate() schedule named for the backfill.
func estate(t *testing.T) *fakeAWS {
	f := newFakeAWS(t)
	s := f.at(baseAccount, mainRegion)
	s.add("default", schedule("bf_1234_replay_once", "at(2026-05-20T02:00:00)", replayMachine,
		"Target", map[string]any{"Arn": replayMachine, "RoleArn": "arn:aws:iam::111111111111:role/scheduler-invoke",
			"Input": `{"backfill_id": "BF-1234", "start": "2026-01-01", "api_key": "input-secret-do-not-print"}`},
		"ActionAfterCompletion", "NONE", "Description", "refund replay, fires once"))
	s.add("default", schedule("daily_revenue", "cron(0 2 * * ? *)", dailyMachine))
	s.add("default", schedule("nightly_export", "rate(1 day)", "arn:aws:states:eu-west-1:111111111111:stateMachine:bf_1234_export"))
	s.add("bf-1234-replays", schedule("ledger_replay", "rate(1 hour)", replayMachine,
		"State", "DISABLED", "StartDate", time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), "EndDate", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)))
	s.add("finance", schedule("ledger_once", "at(2026-02-01T03:00:00)", replayMachine, "ScheduleExpressionTimezone", "Europe/Berlin"))
	s.tags["finance"] = map[string]string{"backfill_id": "bf-2001", "owner": "fin-eng"}
	s.add("broken", schedule("bf_1234_lost", "rate(1 day)", replayMachine))
	s.failingTags["broken"] = true
	f.at(roleAccount, mainRegion).add("default", schedule("bf_1234_replay", "rate(5 minutes)", "arn:aws:lambda:eu-west-1:222222222222:function:replay"))
	return f
}
