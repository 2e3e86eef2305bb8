package smithy_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"

	"github.com/bfaudit/bfaudit/testkit/smithy"
)

func schedulerFake(t *testing.T) (*smithy.Server, *[]smithy.Call) {
	ends := time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)
	var calls []smithy.Call
	return smithy.NewServer(t, smithy.AWS(t, "scheduler"), func(c smithy.Call) (map[string]any, *smithy.Error) {
		calls = append(calls, c)
		switch c.Operation {
		case "ListSchedules":
			return map[string]any{"Schedules": []any{map[string]any{
				"Name": "bf-1234-replay", "GroupName": "backfills", "State": "ENABLED", "CreationDate": ends.AddDate(0, -1, 0),
			}}}, nil
		case "GetSchedule":
			if c.Input["Name"] != "bf-1234-replay" {
				return nil, &smithy.Error{Code: "ResourceNotFoundException", Message: "Schedule " + c.Input["Name"].(string) + " does not exist."}
			}
			return map[string]any{
				"Name": "bf-1234-replay", "GroupName": c.Input["GroupName"], "State": "ENABLED",
				"ScheduleExpression": "at(2026-12-01T03:00:00)", "EndDate": ends,
				"FlexibleTimeWindow": map[string]any{"Mode": "OFF"},
				"Target":             map[string]any{"Arn": "arn:aws:lambda:us-east-1:111122223333:function:replay", "RoleArn": "arn:aws:iam::111122223333:role/replay"},
			}, nil
		}
		return nil, &smithy.Error{Code: "AccessDeniedException", Message: "not in this fake", Status: 403}
	}), &calls
}

func TestSchedulerListAndGetWithLabelsAndQuery(t *testing.T) {
	fake, calls := schedulerFake(t)
	client := scheduler.NewFromConfig(smithy.AWSConfig(fake.URL))
	list, err := client.ListSchedules(context.Background(), &scheduler.ListSchedulesInput{GroupName: aws.String("backfills"), State: types.ScheduleStateEnabled, MaxResults: aws.Int32(50)})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Schedules) != 1 || list.Schedules[0].State != types.ScheduleStateEnabled {
		t.Errorf("schedules %+v", list.Schedules)
	}
	got, err := client.GetSchedule(context.Background(), &scheduler.GetScheduleInput{Name: aws.String("bf-1234-replay"), GroupName: aws.String("backfills")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(got.ScheduleExpression) != "at(2026-12-01T03:00:00)" || !aws.ToTime(got.EndDate).Equal(time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("schedule %+v", got)
	}
	// The label, the query parameters and their names in the model.
	if in := (*calls)[0].Input; in["GroupName"] != "backfills" || in["State"] != "ENABLED" || in["MaxResults"] != int64(50) {
		t.Errorf("ListSchedules read %v", in)
	}
	if in := (*calls)[1].Input; in["Name"] != "bf-1234-replay" || in["GroupName"] != "backfills" {
		t.Errorf("GetSchedule read %v", in)
	}
	_, err = client.GetSchedule(context.Background(), &scheduler.GetScheduleInput{Name: aws.String("gone one")})
	var missing *types.ResourceNotFoundException
	if !errors.As(err, &missing) || aws.ToString(missing.Message) != "Schedule gone one does not exist." {
		t.Errorf("error %v (%T), want a ResourceNotFoundException with its message", err, err)
	}
}
