package scheduler

import (
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("scheduler", remedy.System{Pause: pause, Remove: removal, Infer: infer, Acts: remedy.ActsOn(newActor)})
}

// disableQuery is the JMESPath that turns get-schedule's answer into
// update-schedule's input: the whole schedule, as it is when the command
// runs, with State DISABLED. UpdateSchedule replaces a schedule whole, so
// a member left out would be lost; members the schedule does not have are
// left out (the CLI refuses a null), and those update-schedule does not
// take (Arn, CreationDate, LastModificationDate) are not copied.
const disableQuery = "merge({Name: Name, GroupName: GroupName, ScheduleExpression: ScheduleExpression, " +
	"FlexibleTimeWindow: FlexibleTimeWindow, Target: Target, State: `\"DISABLED\"`}, " +
	"ScheduleExpressionTimezone && {ScheduleExpressionTimezone: ScheduleExpressionTimezone} || `{}`, " +
	"StartDate && {StartDate: StartDate} || `{}`, EndDate && {EndDate: EndDate} || `{}`, " +
	"Description && {Description: Description} || `{}`, KmsKeyArn && {KmsKeyArn: KmsKeyArn} || `{}`, " +
	"ActionAfterCompletion && {ActionAfterCompletion: ActionAfterCompletion} || `{}`)"

// pause disables the schedule (pause_job, reversible: enable it again):
// read it, and write it back whole with State DISABLED. The target's
// input goes from one command to the other in a shell variable: it is
// never printed (it may hold anything).
func pause(r *remedy.Remedy, a *model.Artifact) {
	s, ok := ParseSchedule(a.URI)
	if !ok {
		return
	}
	read := remedy.Command([]string{"aws", "scheduler", "get-schedule"}, append(s.flags(), "--output=json", remedy.Flag("--query", disableQuery)))
	write := remedy.Command([]string{"aws", "scheduler", "update-schedule"}, []string{remedy.Flag("--region", s.Region)}) + ` --cli-input-json "$schedule"`
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.PauseJob, Step: model.StepVerified, Resolves: true,
		Summary: "disable schedule " + s.Group + "/" + s.Name + s.in(),
		Shell:   remedy.InAWSAccount(s.Account, "schedule=$("+read+")\n"+write)})
}

// removal deletes the schedule (delete_job: fix.allow must name it for
// --apply to take it). Each command runs only in the schedule's account
// (remedy.InAWSAccount): a schedule's name is the same in every account
// of an organisation, and the commands name no account.
func removal(r *remedy.Remedy, a *model.Artifact) {
	s, ok := ParseSchedule(a.URI)
	if !ok {
		return
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.DeleteJob, Step: model.StepRetired, Resolves: true,
		Summary: "delete schedule " + s.Group + "/" + s.Name + s.in(),
		Shell:   remedy.InAWSAccount(s.Account, remedy.Command([]string{"aws", "scheduler", "delete-schedule"}, s.flags()))})
}

// flags name the schedule as the aws CLI's scheduler commands take it.
func (s Schedule) flags() []string {
	return []string{remedy.Flag("--region", s.Region), remedy.Flag("--group-name", s.Group), remedy.Flag("--name", s.Name)}
}

func (s Schedule) in() string { return " (account " + s.Account + ", " + s.Region + ")" }

// infer: a schedule's URI names its account, region, group and name.
func infer(a *model.Artifact) {
	if s, ok := ParseSchedule(a.URI); ok {
		a.Kind, a.Name = model.KindSchedulerJob, s.Group+"/"+s.Name
		a.SetAttr(AttrGroup, s.Group)
	}
}
