package fix_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// dueInputs is BF-1234 (archived) with due dates and notices set as the
// history store would give them under --due: the job is due and was
// announced long ago; the grant is not due for 3 days; the temp table is due
// but nobody was told; the queue is due but its owner was told only
// yesterday; the second grant finding (BF102) is waived.
func dueInputs(t *testing.T) fix.Inputs {
	t.Helper()
	in := fixtest.Inputs(t, fixtest.Estate(true))
	g := &fix.DueGate{Now: fixtest.Now, NoticeDays: 2, Notified: map[string]time.Time{}}
	for i := range in.Report.Findings {
		f := &in.Report.Findings[i]
		switch f.RuleID {
		case "BF001":
			f.DueAt = fixtest.Now.Add(-due.Day)
			g.Notified[f.Fingerprint] = fixtest.Now.Add(-5 * due.Day)
		case "BF003":
			f.DueAt = fixtest.Now.Add(3 * due.Day)
			g.Notified[f.Fingerprint] = fixtest.Now.Add(-5 * due.Day)
		case "BF005":
			f.DueAt = fixtest.Now.Add(-due.Day)
		case "BF006":
			f.DueAt = fixtest.Now
			g.Notified[f.Fingerprint] = fixtest.Now.Add(-due.Day)
		case "BF101":
			f.DueAt = fixtest.Now.Add(-due.Day) // a human act: never held
		}
	}
	// A waived plan finding: the plan's elevated access has no expiry
	// (BF102 on a live grant is folded into BF003, so it is made here).
	for _, f := range in.Report.Findings {
		if f.RuleID == "BF101" {
			f.RuleID, f.ArtifactURI, f.Message = "BF102", "plan#elevated_access[0]", "elevated access of BF-1234 is not time-bound"
			f.Fingerprint = model.Fingerprint(f.RuleID, f.Key, f.ArtifactURI)
			f.Waiver = &model.Waiver{Reason: "kept for the audit", Origin: "config", Expires: fixtest.Now.AddDate(0, 1, 0)}
			in.Report.Findings = append(in.Report.Findings, f)
			break
		}
	}
	in.Due = g
	return in
}

// itemOf finds the item of rule (its command when it has one).
func itemOf(t *testing.T, p *fix.Plan, rule, action string) (fix.Item, fix.StepPlan) {
	t.Helper()
	for _, sp := range p.Backfills[0].Steps {
		for _, it := range sp.Items {
			if it.RuleID == rule && (action == "" || it.Action != nil && it.Action.Name == action) {
				return it, sp
			}
		}
	}
	t.Fatalf("no %s %s in the plan", rule, action)
	return fix.Item{}, fix.StepPlan{}
}

// Under --due only the command of a finding due and announced in time is
// ready; the others carry the reason a user reads: not due (due in 3d),
// not announced (never, or only 1d ago), waived. A held revoke keeps the
// later deletions waiting for the lifecycle, as a blocked step does.
func TestDuePlanHolds(t *testing.T) {
	p, err := fix.NewPlan(dueInputs(t), "BF-1234", all)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Due {
		t.Error("the plan should say it was made with --due")
	}
	if it, sp := itemOf(t, p, "BF001", remedy.PauseJob); it.Hold != nil || !it.Ready(sp) {
		t.Errorf("the due, announced job should be paused: hold %+v, step waits %q", it.Hold, sp.Waits)
	}
	for _, c := range []struct{ rule, action, status, reason string }{
		{"BF003", remedy.RevokeGrant, fix.StatusNotDue, "due in 3d (2026-12-03)"},
		{"BF005", remedy.DropTable, fix.StatusNotAnnounced, "owner never notified"},
		{"BF006", remedy.DeleteQueue, fix.StatusNotAnnounced, "owner notified only 1d ago (2026-11-29); notice_days is 2: acts from 2026-12-01"},
		{"BF102", "", fix.StatusWaived, "waived (config): kept for the audit, until 2026-12-30"},
	} {
		it, sp := itemOf(t, p, c.rule, c.action)
		if it.Hold == nil || it.Hold.Status != c.status || !strings.Contains(it.Hold.Reason, c.reason) {
			t.Errorf("%s %s: hold %+v, want %s with %q", c.rule, c.action, it.Hold, c.status, c.reason)
		}
		if it.Ready(sp) {
			t.Errorf("%s %s: held but ready", c.rule, c.action)
		}
	}
	if it, _ := itemOf(t, p, "BF101", ""); it.Hold != nil {
		t.Errorf("a human act is not held: %+v", it.Hold)
	}
	// The grant stays (not due), so access is not revoked and the retire
	// step waits for it: the job's deletion, due and announced, too.
	if it, sp := itemOf(t, p, "BF001", remedy.DeleteJob); it.Hold != nil || it.Ready(sp) || !strings.Contains(sp.Waits, "step access revoked is not done") {
		t.Errorf("retired should wait for the held revoke: hold %+v, waits %q", it.Hold, sp.Waits)
	}

	// Without --due nothing is held and the waived finding is not listed.
	in := dueInputs(t)
	in.Due = nil
	plain, err := fix.NewPlan(in, "BF-1234", all)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range plain.Backfills[0].Steps {
		for _, it := range sp.Items {
			if it.Hold != nil || it.RuleID == "BF102" {
				t.Errorf("without --due: %s held %+v", it.RuleID, it.Hold)
			}
		}
	}
}

// A finding whose rule the policy gives no due date is never due.
func TestDueNoDueDate(t *testing.T) {
	in := dueInputs(t)
	for i := range in.Report.Findings {
		if f := &in.Report.Findings[i]; f.RuleID == "BF001" {
			f.DueAt = time.Time{}
		}
	}
	p, err := fix.NewPlan(in, "BF-1234", all)
	if err != nil {
		t.Fatal(err)
	}
	it, _ := itemOf(t, p, "BF001", remedy.PauseJob)
	if it.Hold == nil || it.Hold.Status != fix.StatusNotDue || !strings.Contains(it.Hold.Reason, "no due date") {
		t.Errorf("hold %+v", it.Hold)
	}
}

// --dry-run lists what --apply would do under --due, touching nothing
// (no system is configured: a read or an action would fail), and the
// script comments the held commands out with the reason.
func TestDueDryRunAndScript(t *testing.T) {
	p, err := fix.NewPlan(dueInputs(t), "BF-1234", all)
	if err != nil {
		t.Fatal(err)
	}
	ap := &fix.Applier{Allowed: func(string) bool { return true }, DryRun: true}
	got := map[string]fix.Result{}
	for _, r := range ap.Apply(context.Background(), p) {
		key := r.Item.RuleID
		if r.Item.Action != nil {
			key += " " + r.Item.Action.Name
		}
		got[key] = r
	}
	for key, want := range map[string]string{
		"BF001 pause_job":    fix.StatusWouldApply,
		"BF003 revoke_grant": fix.StatusNotDue,
		"BF001 delete_job":   fix.StatusWaits,
		"BF005 drop_table":   fix.StatusNotAnnounced,
		"BF006 delete_queue": fix.StatusNotAnnounced,
		"BF102":              fix.StatusWaived,
		"BF101":              fix.StatusByHand,
	} {
		if got[key].Status != want {
			t.Errorf("%s: %q (%s), want %q", key, got[key].Status, got[key].Reason, want)
		}
	}
	var out bytes.Buffer
	if err := fix.WriteResults(&out, ap.Apply(context.Background(), p)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "1 would apply") || !strings.Contains(out.String(), "not due       BF003 revoke_grant") {
		t.Errorf("results:\n%s", out.String())
	}

	var sh bytes.Buffer
	if err := fix.WriteScript(&sh, p); err != nil {
		t.Fatal(err)
	}
	s := sh.String()
	for _, want := range []string{
		"# NOT DUE: due in 3d (2026-12-03)\n# revoke_grant:",
		"# NOT ANNOUNCED: owner never notified",
		"# WAIVED: waived (config)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	if live := liveCommands(s); len(live) != 1 || !strings.Contains(live[0], "airflow dags pause") {
		t.Errorf("the pause should be the only live command:\n%s", strings.Join(live, "\n"))
	}
}
