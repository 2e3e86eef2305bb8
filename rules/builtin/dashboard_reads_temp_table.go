package builtin

import (
	"fmt"
	"sort"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF019", Name: "dashboard-reads-temp-table", Title: "Live dashboard or alert rule reads a backfill's temporary table",
		Rationale: "A validation query does not prove that downstream models, exports or dashboards consumed the corrected data. " +
			"A dashboard still reading a backfill's temporary table shows numbers that are not the final data, and breaks the day the table is dropped: " +
			"the panel is repointed or retired before the table goes.",
		Practice:    rules.PracticeInventory,
		Kinds:       []model.Kind{model.KindDashboard, model.KindAlert},
		Remediation: "Repoint the panel or alert query to the final table named in the decision record, or retire it; only then drop the temporary table.",
		Severity:    model.SeverityMedium, Step: model.StepNormalized,
		Check: dashboardReadsTempTable,
		Remedy: &remedy.Recipe{Build: remedy.RepointReader, Kind: model.KindDashboard,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("grafana-reader")}},
	})
}

// dashboardReadsTempTable reports, once per dashboard or alert rule and
// backfill, the live ones whose queries read what a completed backfill
// made (the collector ties each read by the selector, as it ties
// artifacts). Its step comes before the table's removal, so the lifecycle
// and `bfaudit fix` hold the drop back until the panel is repointed. A
// backfill's own dashboard reading its own tables is its machinery, judged
// by BF007, not a reader.
func dashboardReadsTempTable(c *rules.Context) {
	for a := range c.Artifacts() {
		if (a.Kind != model.KindDashboard && a.Kind != model.KindAlert) || !a.State.Live() {
			continue
		}
		reads := a.Reads()
		if len(reads) == 0 {
			continue
		}
		byBackfill := map[model.BackfillID][]model.Read{}
		for _, r := range reads {
			id := model.ParseID(r.BackfillID)
			if !c.Index.Serves(a, id) { // its own backfills' tables: BF007's
				byBackfill[id] = append(byBackfill[id], r)
			}
		}
		ids := make([]model.BackfillID, 0, len(byBackfill))
		for id := range byBackfill {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for _, id := range ids {
			b := c.Index.Backfill(id)
			if b == nil || !b.Status.Completed() {
				continue // during the replay a dashboard may well watch its tables
			}
			var ev, names []string
			for _, r := range byBackfill[id] {
				line := r.Identifier
				if t := tableOf(c, id, r.Identifier); t != nil {
					line += fmt.Sprintf(" (%s, %s)", t.URI, orState(t.State))
				}
				if r.Where != "" {
					line = r.Where + " reads " + line
				}
				ev = append(ev, line)
				names = append(names, r.Identifier)
			}
			ev = append(ev, stateNote(a))
			c.Report(rules.Issue{Backfill: b, Artifact: a, Evidence: ev,
				Message: fmt.Sprintf("%s %s reads %s of backfill %s: repoint or retire it before the table is dropped",
					a.Kind, nameOr(a), joinAnd(dedupe(names)), b.ID)})
		}
	}
}

// tableOf finds the backfill's table or checkpoint that a query's
// identifier names: the same name, or one ending in it after a dot
// (project.dataset.table against dataset.table).
func tableOf(c *rules.Context, id model.BackfillID, ident string) *model.Artifact {
	ident = strings.ToLower(strings.Trim(ident, "`\""))
	for _, t := range c.Index.ArtifactsOf(id) {
		if t.Kind != model.KindTable && t.Kind != model.KindCheckpoint {
			continue
		}
		name := strings.ToLower(t.Name)
		if name == "" {
			continue
		}
		if name == ident || strings.HasSuffix(ident, "."+name) || strings.HasSuffix(name, "."+ident) {
			return t
		}
	}
	return nil
}

func orState(s model.State) string {
	if s == "" {
		return "state unknown"
	}
	return string(s)
}

func dedupe(items []string) []string {
	seen := map[string]bool{}
	out := items[:0:0]
	for _, s := range items {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
