package builtin_test

import "github.com/bfaudit/bfaudit/model"

// Cases of BF022 beyond the described backfill: a credential is a finding
// whoever forgot the plan.
func init() {
	firing = append(firing, notebookFiring...)
}

// ofUnknown ties a notebook to a backfill no plan or record describes.
func ofUnknown(a *model.Artifact) {
	a.BackfillID, a.URI, a.Name = "BF-9", "notebooks:///fix/bf_9.ipynb", "fix/bf_9.ipynb"
}

var notebookFiring = []ruleCase{
	{rule: "BF022", name: "a notebook of a backfill no plan describes still keeps its key", want: 1,
		check: all(severity(model.SeverityHigh), mentions("notebook fix/bf_9.ipynb of backfill BF-9 (which no plan or record describes) keeps 1 credential(s)"),
			mentions("gcp-service-account-key in cell 2 line 4 (sha256 3f9a1c0d2b7e)")),
		build: func() *estate { return newEstate().plan(completed).artifact(notebook(withKey("8a1f"), ofUnknown)) }},
	{rule: "BF022", name: "a key of a backfill no plan describes, still active: critical", want: 1,
		check: all(severity(model.SeverityCritical), mentions("still active")),
		build: func() *estate {
			return newEstate().plan(completed).artifact(notebook(withKey("8a1f"), ofUnknown)).artifact(gcpKey("8a1f", model.StateActive))
		}},
	{rule: "BF022", name: "a notebook tied to no backfill keeps a key", want: 1,
		check: all(severity(model.SeverityHigh), mentions("notebook scratch/keys.ipynb, tied to no backfill, keeps 1 credential(s)")),
		build: func() *estate {
			return newEstate().plan(completed).artifact(notebook(withKey("8a1f"), func(a *model.Artifact) {
				a.BackfillID, a.URI, a.Name = "", "notebooks:///scratch/keys.ipynb", "scratch/keys.ipynb"
			}))
		}},
	{rule: "BF022", name: "more credentials than the notebook lists are counted", want: 1,
		check: mentions("keeps 240 credential(s)"),
		build: func() *estate {
			return newEstate().plan(completed).artifact(notebook(withKey("8a1f"), attr("secrets_total", "240")))
		}},
}
