package bench

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/bfaudit/bfaudit/rules"
)

// BenchmarkStage times each stage of `bfaudit audit --from` on the bench
// estate alone, so that a regression names its stage: decode (the saved
// estate into the model), correlate (the index), one rule family at a
// time (the built-in rules of one section of docs/practice.md, and the
// five CEL rules of bench/run.sh's cel case), assemble (every rule, then
// folding, waivers and sorting: the whole engine), report (lifecycles and
// summary), due (due dates and teams), redact, and each report writer.
// Each stage starts from the output of the ones before it, made once.
//
//	go test -run '^$' -bench Stage -benchmem ./bench/
func BenchmarkStage(b *testing.B) {
	in := stageInputs(b)
	perArtifact := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/nArtifacts, "ns/artifact")
	}
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := audit.LoadEstate(in.path); err != nil {
				b.Fatal(err)
			}
		}
		perArtifact(b)
	})
	b.Run("correlate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			view := *in.est
			correlate.Correlate(&view, correlate.MustSelector())
		}
		perArtifact(b)
	})
	for _, fam := range ruleFamilies() {
		b.Run("rules/"+fam.name, func(b *testing.B) {
			eng := familyEngine(b, fam)
			b.ReportAllocs()
			var n int
			for b.Loop() {
				n = len(eng.Evaluate(in.ix, Now))
			}
			perArtifact(b)
			b.ReportMetric(float64(n), "findings")
		})
	}
	b.Run("assemble", func(b *testing.B) {
		eng, err := rules.New(rules.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			eng.Evaluate(in.ix, Now)
		}
		perArtifact(b)
	})
	b.Run("report", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			audit.BuildReport(in.ix, in.findings, Now)
		}
		perArtifact(b)
	})
	b.Run("due", func(b *testing.B) {
		r := audit.BuildReport(in.ix, in.findings, Now)
		teams := benchTeams()
		pol := due.DefaultPolicy()
		b.ReportAllocs()
		for b.Loop() {
			due.Stamp(r, pol)
			team := teams.Namer()
			for i := range r.Findings {
				r.Findings[i].Team = team(r.Findings[i].Owner)
			}
		}
		perArtifact(b)
	})
	b.Run("redact", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			audit.Redact(in.report)
		}
		perArtifact(b)
	})
	for _, format := range reports.Formats() {
		b.Run("write/"+format, func(b *testing.B) {
			w, err := reports.New(format, reports.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := w.Write(context.Background(), io.Discard, in.report); err != nil {
					b.Fatal(err)
				}
			}
			perArtifact(b)
		})
	}
}

// stageInput is the bench estate at every stage, made once per process.
type stageInput struct {
	path     string
	est      *model.Estate
	ix       *correlate.Index
	findings []model.Finding
	report   *model.Report // dated, with teams, redacted
}

var (
	stageOnce sync.Once
	stageIn   stageInput
	stageErr  error
)

func stageInputs(b *testing.B) *stageInput {
	b.Helper()
	stageOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bfaudit-stages")
		if err != nil {
			stageErr = err
			return
		}
		in := &stageIn
		in.path = filepath.Join(dir, "estate.json")
		if stageErr = audit.SaveEstate(in.path, Estate(nArtifacts, nBackfills)); stageErr != nil {
			return
		}
		if in.est, stageErr = audit.LoadEstate(in.path); stageErr != nil {
			return
		}
		view := *in.est
		in.ix = correlate.Correlate(&view, correlate.MustSelector())
		eng, err := rules.New(rules.Options{})
		if err != nil {
			stageErr = err
			return
		}
		in.findings = eng.Evaluate(in.ix, Now)
		in.report = audit.BuildReport(in.ix, append([]model.Finding(nil), in.findings...), Now)
		due.Stamp(in.report, due.DefaultPolicy())
		team := benchTeams().Namer()
		for i := range in.report.Findings {
			in.report.Findings[i].Team = team(in.report.Findings[i].Owner)
		}
		audit.Redact(in.report)
	})
	if stageErr != nil {
		b.Fatal(stageErr)
	}
	return &stageIn
}

// benchTeams groups the generated owners (owner0-49, team0-39) in ten
// teams, so the team stage has names to find.
func benchTeams() model.Teams {
	teams := model.Teams{}
	for i := range 10 {
		var t model.Team
		for j := i; j < 50; j += 10 {
			t.Members = append(t.Members, "owner"+strconv.Itoa(j)+"@example.com", "team"+strconv.Itoa(j)+"@example.com")
		}
		teams["team-"+strconv.Itoa(i)] = t
	}
	return teams
}

// ruleFamily is the built-in rules of one section of docs/practice.md, or
// the five CEL rules of bench/run.sh (cel).
type ruleFamily struct {
	name     string
	practice string
	cel      bool
}

func ruleFamilies() []ruleFamily {
	var out []ruleFamily
	for anchor := range rules.PracticeTitles {
		out = append(out, ruleFamily{name: anchor, practice: anchor})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return append(out, ruleFamily{name: "cel", cel: true})
}

// familyEngine runs only the family's rules.
func familyEngine(b *testing.B, fam ruleFamily) *rules.Engine {
	b.Helper()
	opts := rules.Options{Only: func(r *rules.Rule) bool { return r.Practice == fam.practice }}
	if fam.cel {
		user, err := rules.CompileUserRules(fiveAsCEL)
		if err != nil {
			b.Fatal(err)
		}
		opts = rules.Options{User: user, Only: func(r *rules.Rule) bool { return r.User() }}
	}
	eng, err := rules.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	return eng
}

// fiveAsCEL are bench/run.sh's cel case: BF001, BF003, BF005, BF011 and
// BF012 written as CEL user rules.
var fiveAsCEL = func() []rules.UserRuleSpec {
	const live = `artifact.state != "deleted" && artifact.state != "expired"`
	grace := func(d string) string {
		t := "backfill.timeline"
		at := func(f string) string {
			return "has(" + t + "." + f + ") ? now >= " + t + "." + f + ` + duration("` + d + `")`
		}
		return `backfill.status in ["replayed", "verified", "archived", "retired"] && (` +
			at("completed_at") + " : " + at("verified_at") + " : " + at("archived_at") + " : " + at("retired_at") + " : true)"
	}
	rule := func(id, title string, sev model.Severity, expr string) rules.UserRuleSpec {
		return rules.UserRuleSpec{ID: id, Title: title, Severity: sev, Remediation: "r", AppliesTo: rules.AppliesToArtifact, Expr: expr}
	}
	return []rules.UserRuleSpec{
		rule("C001", "job still scheduled", model.SeverityMedium, `artifact.kind == "scheduler_job" && has(backfill.id) && `+live+
			` && artifact.state != "paused" && artifact.state != "disabled" && !("runbook" in artifact.attributes) && ((has(backfill.expiry) && now >= backfill.expiry) || (has(artifact.expires_at) && now >= artifact.expires_at) || (`+grace("168h")+`))`),
		rule("C003", "grant still in force", model.SeverityHigh, `artifact.kind == "grant" && has(backfill.id) && `+live+
			` && ((has(artifact.expires_at) && now >= artifact.expires_at) || (`+grace("48h")+`))`),
		rule("C005", "temporary table left", model.SeverityMedium, `(artifact.kind == "table" || artifact.kind == "checkpoint") && has(backfill.id) && `+live+
			` && ((has(artifact.expires_at) && now >= artifact.expires_at) || (!has(artifact.expires_at) && `+grace("168h")+`))`),
		rule("C011", "orphan artifact", model.SeverityMedium, `has(artifact.backfill_id) && !has(backfill.id) && !has(record.backfill_id) && `+live),
		rule("C012", "unowned artifact", model.SeverityLow, `has(backfill.id) && `+live+
			` && artifact.kind != "job_run" && artifact.owner == "" && backfill.owner == "" && record.approving_owner == ""`),
	}
}()
