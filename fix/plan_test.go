package fix_test

import (
	"bytes"
	"encoding/json"
	_ "github.com/bfaudit/bfaudit/collectors/all" // every system's commands
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

func all(remedy.Action) bool { return true }

// stepOf finds the plan's step s.
func stepOf(t *testing.T, bp fix.BackfillPlan, s model.Step) fix.StepPlan {
	t.Helper()
	for _, sp := range bp.Steps {
		if sp.Step == s {
			return sp
		}
	}
	t.Fatalf("no step %s in %+v", s, bp.Steps)
	return fix.StepPlan{}
}

func actions(sp fix.StepPlan) []string {
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
	p, err := fix.NewPlan(fixtest.Inputs(t, fixtest.Estate(false)), "bf_1234", all)
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
	p, err := fix.NewPlan(fixtest.Inputs(t, fixtest.Estate(true)), "BF-1234", all)
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
	est := fixtest.Estate(true)
	est.Artifacts = append(est.Artifacts, model.Artifact{Kind: model.KindAlert, System: "prometheus", Source: "prom", State: model.StateEnabled,
		URI: "prometheus://prom/rules/x/g/alerting/Lag", Name: "Lag", BackfillID: "BF-1234", Attributes: model.Attrs(model.AttrWatchesOnly, "true")})
	est.Coverage = append(est.Coverage, model.Coverage{Source: "prom", Status: model.CoverageOK})
	p, _ := fix.NewPlan(fixtest.Inputs(t, est), "BF-1234", all)
	// Access goes first (TestAccessGoesBeforeNormalized); the deletions
	// wait for the alert.
	ret := stepOf(t, p.Backfills[0], model.StepRetired)
	if !strings.Contains(ret.Waits, "step normalized is not done: BF007") {
		t.Errorf("retired should wait for the alert: %q", ret.Waits)
	}

	onlyPause := func(a remedy.Action) bool { return a.Name == remedy.PauseJob }
	p, _ = fix.NewPlan(fixtest.Inputs(t, fixtest.Estate(true)), "BF-1234", onlyPause)
	ret = stepOf(t, p.Backfills[0], model.StepRetired)
	if !strings.Contains(ret.Waits, "step access revoked is not done: BF003") {
		t.Errorf("retired should wait for the grant no command revokes: %q", ret.Waits)
	}
}

// Machinery of a backfill nobody describes is never removed by the plan:
// its commands wait, with a plan to write.
func TestPlanHoldsOrphans(t *testing.T) {
	est := fixtest.Estate(true)
	est.Artifacts = append(est.Artifacts, model.Artifact{Kind: model.KindTable, System: "postgres", Source: "pg", Scope: "analytics", State: model.StateActive,
		URI: "postgres://pg/analytics/scratch.bf_4242_x", Name: "scratch.bf_4242_x", BackfillID: "BF-4242", Attributes: model.TagsOf(map[string]string{"object": "table"})})
	p, err := fix.NewPlan(fixtest.Inputs(t, est), "BF-4242", all)
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
	if _, err := fix.NewPlan(fixtest.Inputs(t, est), "BF-9999", all); err == nil {
		t.Error("a backfill the audit does not know should be an error")
	}
}

// Waived findings get no commands.
func TestPlanSkipsWaived(t *testing.T) {
	in := fixtest.Inputs(t, fixtest.Estate(true))
	in.Accepted = map[string]bool{}
	for _, f := range in.Report.Findings {
		if f.RuleID == "BF005" {
			in.Accepted[f.Fingerprint] = true
		}
	}
	p, _ := fix.NewPlan(in, "BF-1234", all)
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
	p, _ := fix.NewPlan(fixtest.Inputs(t, fixtest.Estate(false)), "BF-1234", all)
	var b bytes.Buffer
	if err := fix.WriteScript(&b, p); err != nil {
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

	p, _ = fix.NewPlan(fixtest.Inputs(t, fixtest.Estate(true)), "BF-1234", all)
	b.Reset()
	_ = fix.WriteScript(&b, p)
	ran = runScript(t, b.String())
	if want := "psql -X -v ON_ERROR_STOP=1 -q\nairflow dags pause bf_1234_replay\nairflow dags delete --yes bf_1234_replay\n" +
		"psql -X -v ON_ERROR_STOP=1 -q\nrabbitmqadmin --vhost=/ delete queue name=bf_1234.retry\n"; ran != want {
		t.Errorf("after archiving, the retire step should run:\n%s", ran)
	}
}

// A message holding a newline cannot add a live line to the script.
func TestScriptCommentsEveryLine(t *testing.T) {
	in := fixtest.Inputs(t, fixtest.Estate(false))
	for i := range in.Report.Findings {
		in.Report.Findings[i].Message = "x\ntouch pwned"
	}
	p, _ := fix.NewPlan(in, "BF-1234", all)
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
	_ = fix.WriteScript(&b, p)
	runScript(t, b.String())
}

func TestPlanJSON(t *testing.T) {
	p, _ := fix.NewPlan(fixtest.Inputs(t, fixtest.Estate(false)), "BF-1234", all)
	var b bytes.Buffer
	if err := fix.WriteJSON(&b, p); err != nil {
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
	if back.Version != fix.PlanVersion || back.Backfills[0].ID != "BF-1234" || len(steps) != 5 || steps[1].Step != "verified" ||
		steps[1].Items[0].Action.Shell != "airflow dags pause bf_1234_replay" || !strings.Contains(steps[4].Waits, "decision record not archived") {
		t.Errorf("plan JSON: %s", b.String())
	}
}
