package fix

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
)

var testNow = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// estate is BF-1234 after its replay: verified long ago, with a scheduler
// job still enabled, an elevated grant, a temp table and a retry queue,
// and (when archived) an archived decision record.
func estate(archived bool) *model.Estate {
	done := time.Date(2026, 9, 20, 0, 0, 0, 0, time.UTC)
	est := &model.Estate{
		Backfills: []model.Backfill{{ID: "BF-1234", Origin: model.OriginPlan, Status: model.StatusVerified, Owner: "alice@example.com",
			Approver: "carol@example.com", Purpose: "refund fix", JobID: "daily_revenue", Expiry: done.AddDate(0, 0, 20),
			Timeline: model.Timeline{CompletedAt: done, VerifiedAt: done},
			Range:    model.Interval{Start: done.AddDate(0, -3, 0), End: done.AddDate(0, 0, -10)},
			Source:   model.Location{Source: "plans", Path: "plans/bf-1234.yaml"},
			AssetsToRemove: []string{"airflow://scheduler/dags/bf_1234_replay", "postgres://pg/analytics/scratch.bf_1234_tmp",
				"rabbitmq://mq/%2F/queue/bf_1234.retry"},
			ElevatedAccess: []model.ElevatedAccess{{Principal: "bf_1234_loader", Expiry: done}}}},
		Artifacts: []model.Artifact{
			{Kind: model.KindSchedulerJob, System: "airflow", Source: "scheduler", Scope: "bf_1234_replay", State: model.StateEnabled,
				URI: "airflow://scheduler/dags/bf_1234_replay", Name: "bf_1234_replay", BackfillID: "BF-1234"},
			{Kind: model.KindGrant, System: "postgres", Source: "pg", Scope: "analytics/grants", State: model.StateActive,
				URI: "postgres://pg/analytics/grant/bf_1234_loader/table/revenue.daily", Name: "INSERT on table revenue.daily to bf_1234_loader",
				BackfillID: "BF-1234", Attributes: map[string]string{model.AttrPrincipal: "bf_1234_loader", model.AttrRole: "INSERT", "object": "table", model.AttrTimeBound: "false"}},
			{Kind: model.KindTable, System: "postgres", Source: "pg", Scope: "analytics", State: model.StateActive,
				URI: "postgres://pg/analytics/scratch.bf_1234_tmp", Name: "scratch.bf_1234_tmp", BackfillID: "BF-1234", Attributes: map[string]string{"object": "table"}},
			{Kind: model.KindQueue, System: "rabbitmq", Source: "mq", Scope: "%2F", State: model.StateActive,
				URI: "rabbitmq://mq/%2F/queue/bf_1234.retry", Name: "bf_1234.retry", BackfillID: "BF-1234"},
		},
		Coverage: []model.Coverage{{Source: "plans", Status: model.CoverageOK}, {Source: "scheduler", Status: model.CoverageOK},
			{Source: "pg", Status: model.CoverageOK}, {Source: "mq", Status: model.CoverageOK}},
	}
	if archived {
		est.Records = []model.DecisionRecord{{BackfillID: "BF-1234", Purpose: "refund fix", Range: est.Backfills[0].Range, JobID: "daily_revenue",
			ValidationQuery: "select 1", ApprovingOwner: "carol@example.com", FinalDataLocation: "revenue.daily",
			ArchivedAt: done.AddDate(0, 0, 5), Source: model.Location{Source: "plans", Path: "records/bf-1234.md"}}}
	}
	return est
}

func inputs(t *testing.T, est *model.Estate) Inputs {
	t.Helper()
	eng, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Evaluate(est, correlate.MustSelector(), eng, testNow)
}

func all(remedy.Action) bool { return true }

// stepOf finds the plan's step s.
func stepOf(t *testing.T, bp BackfillPlan, s model.Step) StepPlan {
	t.Helper()
	for _, sp := range bp.Steps {
		if sp.Step == s {
			return sp
		}
	}
	t.Fatalf("no step %s in %+v", s, bp.Steps)
	return StepPlan{}
}

func actions(sp StepPlan) []string {
	var out []string
	for _, it := range sp.Items {
		if it.Action != nil {
			out = append(out, it.Action.Name)
		}
	}
	return out
}

// Nothing that deletes tables or job definitions runs before the record
// is archived: those commands wait, with the reason; pausing the job and
// revoking access do not.
func TestPlanWaitsForTheRecord(t *testing.T) {
	p, err := NewPlan(inputs(t, estate(false)), "bf_1234", all)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Backfills) != 1 {
		t.Fatalf("backfills %+v", p.Backfills)
	}
	bp := p.Backfills[0]
	stop := stepOf(t, bp, model.StepVerified)
	if stop.Waits != "" || strings.Join(actions(stop), ",") != remedy.PauseJob {
		t.Errorf("verified: %+v", stop)
	}
	rev := stepOf(t, bp, model.StepAccessRevoked)
	if rev.Waits != "" || strings.Join(actions(rev), ",") != remedy.RevokeGrant {
		t.Errorf("access revoked: waits %q, actions %v", rev.Waits, actions(rev))
	}
	arch := stepOf(t, bp, model.StepArchived)
	if arch.Items[0].Human == nil || arch.Items[0].RuleID != "BF008" {
		t.Errorf("archived should ask for the record: %+v", arch.Items)
	}
	ret := stepOf(t, bp, model.StepRetired)
	if !strings.Contains(ret.Waits, "step archived is not done") || !strings.Contains(ret.Waits, "decision record not archived") {
		t.Errorf("retired should wait for the record: %q", ret.Waits)
	}
	if got := strings.Join(actions(ret), ","); got != "delete_job,drop_table,delete_queue" {
		t.Errorf("retired actions %s", got)
	}
	for _, it := range ret.Items {
		if it.Ready(ret) {
			t.Errorf("%s ready before the record is archived", it.Action.Name)
		}
	}
}

// Once the record is archived, tables, queues and the job go.
func TestPlanRetiresAfterArchive(t *testing.T) {
	p, err := NewPlan(inputs(t, estate(true)), "BF-1234", all)
	if err != nil {
		t.Fatal(err)
	}
	ret := stepOf(t, p.Backfills[0], model.StepRetired)
	if ret.Waits != "" || len(actions(ret)) != 3 {
		t.Errorf("retired: waits %q, actions %v", ret.Waits, actions(ret))
	}
}

// A step whose blocker only a person can clear holds every later step
// but the access-revoked one,
// and so does one whose command will not run (not allowed under --apply).
func TestPlanWaitsForHumanAndDisallowed(t *testing.T) {
	est := estate(true)
	est.Artifacts = append(est.Artifacts, model.Artifact{Kind: model.KindAlert, System: "prometheus", Source: "prom", State: model.StateEnabled,
		URI: "prometheus://prom/rules/x/g/alerting/Lag", Name: "Lag", BackfillID: "BF-1234", Attributes: map[string]string{model.AttrWatchesOnly: "true"}})
	est.Coverage = append(est.Coverage, model.Coverage{Source: "prom", Status: model.CoverageOK})
	p, _ := NewPlan(inputs(t, est), "BF-1234", all)
	// Access goes first (TestAccessGoesBeforeNormalized); the deletions
	// wait for the alert.
	ret := stepOf(t, p.Backfills[0], model.StepRetired)
	if !strings.Contains(ret.Waits, "step normalized is not done: BF007") {
		t.Errorf("retired should wait for the alert: %q", ret.Waits)
	}

	onlyPause := func(a remedy.Action) bool { return a.Name == remedy.PauseJob }
	p, _ = NewPlan(inputs(t, estate(true)), "BF-1234", onlyPause)
	ret = stepOf(t, p.Backfills[0], model.StepRetired)
	if !strings.Contains(ret.Waits, "step access revoked is not done: BF003") {
		t.Errorf("retired should wait for the grant no command revokes: %q", ret.Waits)
	}
}

// Machinery of a backfill nobody describes is never removed by the plan:
// its commands wait, with a plan to write.
func TestPlanHoldsOrphans(t *testing.T) {
	est := estate(true)
	est.Artifacts = append(est.Artifacts, model.Artifact{Kind: model.KindTable, System: "postgres", Source: "pg", Scope: "analytics", State: model.StateActive,
		URI: "postgres://pg/analytics/scratch.bf_4242_x", Name: "scratch.bf_4242_x", BackfillID: "BF-4242", Attributes: map[string]string{"object": "table"}})
	p, err := NewPlan(inputs(t, est), "BF-4242", all)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range p.Backfills[0].Steps {
		for _, it := range sp.Items {
			if it.Ready(sp) {
				t.Errorf("%s on an unknown backfill is ready", it.Action.Name)
			}
		}
	}
	if _, err := NewPlan(inputs(t, est), "BF-9999", all); err == nil {
		t.Error("a backfill the audit does not know should be an error")
	}
}

// Waived findings get no commands.
func TestPlanSkipsWaived(t *testing.T) {
	in := inputs(t, estate(true))
	in.Accepted = map[string]bool{}
	for _, f := range in.Report.Findings {
		if f.RuleID == "BF005" {
			in.Accepted[f.Fingerprint] = true
		}
	}
	p, _ := NewPlan(in, "BF-1234", all)
	for _, sp := range p.Backfills[0].Steps {
		for _, it := range sp.Items {
			if it.RuleID == "BF005" {
				t.Errorf("accepted finding planned: %+v", it)
			}
		}
	}
}

// The script runs exactly the commands that may run now, access first
// (the grant's revoke before the job's pause), then in lifecycle order;
// the rest are comments. Programs are stubs that log their calls.
func TestScriptRunsOnlyReadyCommands(t *testing.T) {
	p, _ := NewPlan(inputs(t, estate(false)), "BF-1234", all)
	var b bytes.Buffer
	if err := WriteScript(&b, p); err != nil {
		t.Fatal(err)
	}
	ran := runScript(t, b.String())
	if want := "psql -X -v ON_ERROR_STOP=1 -q\nairflow dags pause bf_1234_replay\n"; ran != want {
		t.Errorf("ran:\n%s\nwant:\n%s\nscript:\n%s", ran, want, b.String())
	}
	for _, want := range []string{"# -- step retired: WAITS, step archived is not done: BF008 no decision record for BF-1234",
		"# rabbitmqadmin --vhost=/ delete queue name=bf_1234.retry", "# TODO (by hand): Write the decision record"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("script lacks %q:\n%s", want, b.String())
		}
	}

	p, _ = NewPlan(inputs(t, estate(true)), "BF-1234", all)
	b.Reset()
	_ = WriteScript(&b, p)
	ran = runScript(t, b.String())
	if want := "psql -X -v ON_ERROR_STOP=1 -q\nairflow dags pause bf_1234_replay\nairflow dags delete --yes bf_1234_replay\n" +
		"psql -X -v ON_ERROR_STOP=1 -q\nrabbitmqadmin --vhost=/ delete queue name=bf_1234.retry\n"; ran != want {
		t.Errorf("after archiving, the retire step should run:\n%s", ran)
	}
}

// A message holding a newline cannot add a live line to the script.
func TestScriptCommentsEveryLine(t *testing.T) {
	in := inputs(t, estate(false))
	for i := range in.Report.Findings {
		in.Report.Findings[i].Message = "x\ntouch pwned"
	}
	p, _ := NewPlan(in, "BF-1234", all)
	// A summary names estate text too: it labels the live command.
	for _, bp := range p.Backfills {
		for _, sp := range bp.Steps {
			for _, it := range sp.Items {
				if it.Action != nil {
					it.Action.Summary += "'\ntouch pwned\n'$(touch pwned)"
				}
			}
		}
	}
	var b bytes.Buffer
	_ = WriteScript(&b, p)
	runScript(t, b.String())
}

func TestPlanJSON(t *testing.T) {
	p, _ := NewPlan(inputs(t, estate(false)), "BF-1234", all)
	var b bytes.Buffer
	if err := WriteJSON(&b, p); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Version   int `json:"version"`
		Backfills []struct {
			ID    string `json:"id"`
			Steps []struct {
				Step  string `json:"step"`
				Waits string `json:"waits"`
				Items []struct {
					Action *struct {
						Name  string `json:"action"`
						Shell string `json:"shell"`
					} `json:"action"`
				} `json:"items"`
			} `json:"steps"`
		} `json:"backfills"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	steps := back.Backfills[0].Steps
	if back.Version != PlanVersion || back.Backfills[0].ID != "BF-1234" || len(steps) != 5 || steps[1].Step != "verified" ||
		steps[1].Items[0].Action.Shell != "airflow dags pause bf_1234_replay" || !strings.Contains(steps[4].Waits, "decision record not archived") {
		t.Errorf("plan JSON: %s", b.String())
	}
}
