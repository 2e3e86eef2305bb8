package scheduler

import (
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
)

// Artifact URIs, built and read here only:
//
//	scheduler://<source>/<account>/<region>/<group>/<schedule>   a schedule of a group
//
// Every part is path-escaped.

const scheme = "scheduler"

// ScheduleURI is the URI of a schedule.
func ScheduleURI(source, account, region, group, schedule string) string {
	return model.JoinURI(scheme, source, account, region, group, schedule)
}

// Schedule is a schedule read from its URI.
type Schedule struct {
	Account, Region, Group, Name string
}

// ParseSchedule reads a schedule from an artifact's URI, and refuses any
// URI ScheduleURI would not write.
func ParseSchedule(uri string) (Schedule, bool) {
	segs, ok := model.NonEmptySegments(uri, scheme, 4)
	if !ok {
		return Schedule{}, false
	}
	return Schedule{Account: segs[0], Region: segs[1], Group: segs[2], Name: segs[3]}, true
}

// groupARN is a schedule group's ARN, for a group listed without one.
func groupARN(region, account, group string) string {
	return "arn:" + awsconf.Partition(region) + ":scheduler:" + region + ":" + account + ":schedule-group/" + group
}
