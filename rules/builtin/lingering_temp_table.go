package builtin

import (
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF005", Name: "lingering-temp-table", Title: "Temporary backfill table left behind",
		Rationale: "Temporary tables hold partial or superseded copies of corrected data; left behind they get read by mistake and cost storage. " +
			"They are archived, merged or dropped once the range is validated and the decision record says where the final data lives.",
		Practice:    rules.PracticeInventory,
		Kinds:       []model.Kind{model.KindTable},
		Remediation: "Archive, merge or drop the table after validation; set a table expiration on temporary tables when they are created.",
		Severity:    model.SeverityMedium, Step: model.StepRetired,
		Supersedes: []rules.Supersede{foldsUndeclared},
		Params:     []rules.Param{{Name: "grace", Default: "7d", Description: "time after completion before a temporary table with no expiration counts as lingering"}},
		Check:      lingeringTempTable,
		Remedy: &remedy.Recipe{Build: remedy.Remove(model.StepRetired), Kind: model.KindTable,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("bq-table"), remedy.ExampleOn("pg-table")}},
	})
}

func lingeringTempTable(c *rules.Context) {
	grace := c.Duration("grace")
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		if isFinalData(c.Index.Record(b.Key), a) {
			return
		}
		var why string
		switch {
		case c.Past(a.ExpiresAt.Time()):
			why = fmt.Sprintf("past its expiration %s", day(a.ExpiresAt))
		case !a.ExpiresAt.IsZero():
			return // expiration set and still ahead: it will go by itself
		default:
			over, ev := c.GraceOver(b, grace)
			if !over {
				return
			}
			why = "no expiration set; " + ev
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a,
			Message:  fmt.Sprintf("temporary %s %s is still there: %s", tableNoun(a), nameOr(a), why),
			Evidence: []string{stateNote(a), why}})
	})
}

// tableNoun is what a temporary table is called: a folder of an object
// store (s3://bucket/tmp/bf-1234/, its name ending in a slash) is no
// table to the person reading.
func tableNoun(a *model.Artifact) string {
	if strings.HasSuffix(a.Name, "/") {
		return "folder"
	}
	return string(a.Kind)
}

// isFinalData reports whether a table is where the record says the final
// data lives: that one stays.
func isFinalData(r *model.DecisionRecord, a *model.Artifact) bool {
	if r == nil || r.FinalDataLocation == "" {
		return false
	}
	loc := r.FinalDataLocation
	return loc == a.URI || (a.Name != "" && (loc == a.Name || strings.HasSuffix(a.URI, "/"+loc) || strings.HasSuffix(loc, "."+a.Name)))
}

func nameOr(a *model.Artifact) string {
	if a.Name != "" {
		return a.Name
	}
	return a.URI
}
