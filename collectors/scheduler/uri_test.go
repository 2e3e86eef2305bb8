package scheduler

import (
	"testing"

	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// A schedule's URI built from hostile names (as a hostile server may answer
// them) reads back to the same parts; anything else is refused.
func TestURIRoundTrip(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		if name == "" {
			continue
		}
		want := Schedule{Account: baseAccount, Region: mainRegion, Group: name + "group", Name: name}
		uri := ScheduleURI(name, baseAccount, mainRegion, name+"group", name)
		if got, ok := ParseSchedule(uri); !ok || got != want {
			t.Errorf("%q read back as %+v (%v), want %+v", uri, got, ok, want)
		}
	}
	for _, uri := range []string{
		"scheduler://s/111111111111/eu-west-1/g", "scheduler://s/111111111111/eu-west-1/g/s/extra", "scheduler://s/111111111111//g/s",
		"scheduler://s/111111111111/eu-west-1/g/", "glue://s/111111111111/eu-west-1/g/s", "scheduler://s/1/r/g/%zz",
	} {
		if s, ok := ParseSchedule(uri); ok {
			t.Errorf("%q read as %+v", uri, s)
		}
	}
	if arn := groupARN("cn-north-1", "1", "g"); arn != "arn:aws-cn:scheduler:cn-north-1:1:schedule-group/g" {
		t.Errorf("ARN in China: %s", arn)
	}
}
