package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsscheduler "github.com/aws/aws-sdk-go-v2/service/scheduler"
	schedtypes "github.com/aws/aws-sdk-go-v2/service/scheduler/types"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// newActor: the source disables and deletes schedules with the
// configuration it reads with, in the schedule's account (through the
// role it assumes there) and region.
func newActor(c *Collector) (remedy.Actor, error) { return c, nil }

// clientFor is a client of the schedule's account and region, which must
// be ones the source reads.
func (c *Collector) clientFor(ctx context.Context, a *model.Artifact) (*awsscheduler.Client, Schedule, awsconf.Place, error) {
	s, ok := ParseSchedule(a.URI)
	if !ok {
		return nil, s, awsconf.Place{}, fmt.Errorf("scheduler: %s is not a schedule bfaudit can act on", a.URI)
	}
	if !slices.Contains(c.Regions, s.Region) {
		return nil, s, awsconf.Place{}, fmt.Errorf("scheduler: region %s is not one this source reads", s.Region)
	}
	p, err := c.PlaceOf(ctx, s.Account, s.Region)
	if err != nil {
		return nil, s, p, fmt.Errorf("scheduler: %w", err)
	}
	return awsscheduler.NewFromConfig(p.Config()), s, p, nil
}

// get reads the schedule; nil when it is gone.
func (c *Collector) get(ctx context.Context, client *awsscheduler.Client, s Schedule, p awsconf.Place) (*awsscheduler.GetScheduleOutput, error) {
	out, err := awsconf.Call(ctx, c.Timeout, func(ctx context.Context) (*awsscheduler.GetScheduleOutput, error) {
		return client.GetSchedule(ctx, &awsscheduler.GetScheduleInput{Name: aws.String(s.Name), GroupName: aws.String(s.Group)})
	})
	var gone *schedtypes.ResourceNotFoundException
	switch {
	case errors.As(err, &gone):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("scheduler: %s: read schedule %s/%s: %w", p, s.Group, s.Name, err)
	case aws.ToString(out.Name) != s.Name || aws.ToString(out.ScheduleExpression) == "" || out.Target == nil || out.FlexibleTimeWindow == nil:
		return nil, fmt.Errorf("scheduler: %s: read schedule %s/%s: the answer is not that schedule", p, s.Group, s.Name)
	}
	return out, nil
}

// Read reads the schedule again: gone, or its state, expression and target.
func (c *Collector) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	client, s, p, err := c.clientFor(ctx, a)
	if err != nil {
		return remedy.Observed{}, err
	}
	out, err := c.get(ctx, client, s, p)
	if err != nil || out == nil {
		return remedy.Observed{}, err
	}
	state := model.StateEnabled
	if out.State == schedtypes.ScheduleStateDisabled {
		state = model.StateDisabled
	}
	return remedy.Observed{Found: true, State: map[string]string{
		"state": string(state), "expression": aws.ToString(out.ScheduleExpression), "target": aws.ToString(out.Target.Arn)}}, nil
}

// Expected: the expression and target the audit saw (a schedule made
// anew under the same name is another job), and, to disable it, its
// state. Deleting does not look at the state: the disabling just before
// it changed it.
func (c *Collector) Expected(a *model.Artifact, act remedy.Action) map[string]string {
	out := map[string]string{"expression": a.Attr(model.AttrSchedule), "target": a.Attr(AttrTargetARN)}
	if act.Name == remedy.PauseJob {
		out["state"] = string(a.State)
	}
	return out
}

// Act disables the schedule (UpdateSchedule with the whole schedule as it
// reads now, State DISABLED: the call replaces it whole) or deletes it.
func (c *Collector) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	client, s, p, err := c.clientFor(ctx, a)
	if err != nil {
		return err
	}
	switch act.Name {
	case remedy.PauseJob:
		out, err := c.get(ctx, client, s, p)
		if err != nil || out == nil {
			return err
		}
		_, err = awsconf.Call(ctx, c.Timeout, func(ctx context.Context) (*awsscheduler.UpdateScheduleOutput, error) {
			return client.UpdateSchedule(ctx, disabled(out))
		})
		if err != nil {
			return fmt.Errorf("scheduler: %s: disable schedule %s/%s: %w", p, s.Group, s.Name, err)
		}
	case remedy.DeleteJob:
		_, err := awsconf.Call(ctx, c.Timeout, func(ctx context.Context) (*awsscheduler.DeleteScheduleOutput, error) {
			return client.DeleteSchedule(ctx, &awsscheduler.DeleteScheduleInput{Name: aws.String(s.Name), GroupName: aws.String(s.Group)})
		})
		var gone *schedtypes.ResourceNotFoundException
		if err != nil && !errors.As(err, &gone) {
			return fmt.Errorf("scheduler: %s: delete schedule %s/%s: %w", p, s.Group, s.Name, err)
		}
	default:
		return fmt.Errorf("scheduler: no %s on %s", act.Name, a.URI)
	}
	return nil
}

// disabled is the schedule s, whole, with State DISABLED.
func disabled(s *awsscheduler.GetScheduleOutput) *awsscheduler.UpdateScheduleInput {
	return &awsscheduler.UpdateScheduleInput{
		Name: s.Name, GroupName: s.GroupName, ScheduleExpression: s.ScheduleExpression,
		ScheduleExpressionTimezone: s.ScheduleExpressionTimezone, StartDate: s.StartDate, EndDate: s.EndDate,
		Description: s.Description, FlexibleTimeWindow: s.FlexibleTimeWindow, Target: s.Target, KmsKeyArn: s.KmsKeyArn,
		ActionAfterCompletion: s.ActionAfterCompletion, State: schedtypes.ScheduleStateDisabled,
	}
}
