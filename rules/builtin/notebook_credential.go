package builtin

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
)

func init() {
	rules.Register(&rules.Rule{
		ID: "BF022", Name: "notebook-credential", Title: "Correction notebook keeps a credential",
		Rationale: "A correction notebook keeps credentials long after the data has been fixed: in a cell or a saved output, it is read by everyone who can open the notebook or its repository. " +
			"A credential that still works (a key the IAM collector reports active) is critical; one that may no longer work is high until it is proven revoked.",
		Seed:        seedCleanup + " (its opening: a correction notebook keeps credentials long after the data has been fixed)",
		Remediation: "Rotate or revoke the credential first, then clear the notebook's outputs (jupyter nbconvert --clear-output --inplace) and remove the secret from its cells and the repository's history.",
		Severity:    model.SeverityHigh, Step: model.StepAccessRevoked,
		Check: notebookCredential,
		Remedy: &remedy.Recipe{Build: remedy.Remove(model.StepAccessRevoked), Kind: model.KindNotebook,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("notebook-key")}},
	})
	rules.Register(&rules.Rule{
		ID: "BF023", Name: "lingering-notebook", Title: "Correction notebook of a finished backfill left in place",
		Rationale:   "A correction notebook is replay machinery like the job: once the backfill is done it is archived with the decision record or removed, not left where it can be run again.",
		Seed:        seedCleanup + `, "Inventory the replay surface"`,
		Remediation: "Move the notebook next to the decision record (outputs cleared) or delete it.",
		Severity:    model.SeverityLow, Step: model.StepRetired,
		Params: []rules.Param{{Name: "grace", Default: "14d", Description: "time after completion before a backfill's notebook counts as lingering"}},
		Check:  lingeringNotebook,
		Remedy: &remedy.Recipe{Build: remedy.Remove(model.StepRetired), Kind: model.KindNotebook,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("notebook")}},
	})
}

// attrSecretsTotal is the notebooks collector's count of the credentials
// a notebook holds when there are more than its secrets attribute lists.
const attrSecretsTotal = "secrets_total"

// notebookCredential reports a notebook holding a credential, whatever
// the state of its backfill, whether or not any plan describes it, and
// when it is tied to no backfill at all: a secret does not wait for the
// replay to end, nor for someone to write the plan or the id (an id
// nobody describes is BF011's as well). It names the
// detection rule, where each credential is and a short hash, never the
// value. A key the IAM collector reports active makes it critical.
func notebookCredential(c *rules.Context) {
	var keys map[string][]*model.Artifact // cloud keys by id, read once when a notebook names one
	judge := func(b *model.Backfill, a *model.Artifact) {
		secrets := a.Attr(model.AttrSecrets)
		if secrets == "" {
			return
		}
		var ev []string
		n := 0
		for _, line := range strings.Split(secrets, "\n") {
			f := strings.Split(line, "\t")
			if len(f) < 3 {
				continue
			}
			n++
			ev = append(ev, fmt.Sprintf("%s in %s (sha256 %s)", f[0], f[1], f[2]))
		}
		if n == 0 {
			return
		}
		if total, err := strconv.Atoi(a.Attr(attrSecretsTotal)); err == nil && total > n {
			ev = append(ev, fmt.Sprintf("%d more credential(s) not listed", total-n))
			n = total
		}
		if keys == nil && a.Attr(model.AttrKeyIDs) != "" {
			keys = cloudKeys(c)
		}
		live, unconfirmed := keyStates(c, keys, a.Attr(model.AttrKeyIDs))
		for _, k := range live {
			ev = append(ev, fmt.Sprintf("key %s is still active (%s)", keyID(k.URI), k.URI))
		}
		for _, id := range unconfirmed {
			ev = append(ev, fmt.Sprintf("key %s: not seen, and a source did not answer this run, so it is not known to be revoked", id))
		}
		var msg string
		switch {
		case b != nil:
			msg = fmt.Sprintf("notebook %s of backfill %s keeps %d credential(s) in its cells or outputs", nameOr(a), b.ID, n)
		case a.BackfillID != "":
			msg = fmt.Sprintf("notebook %s of backfill %s (which no plan or record describes) keeps %d credential(s) in its cells or outputs", nameOr(a), a.BackfillID, n)
		default:
			msg = fmt.Sprintf("notebook %s, tied to no backfill, keeps %d credential(s) in its cells or outputs", nameOr(a), n)
		}
		switch {
		case len(live) > 0:
			msg += ", and a key among them is still active"
		case len(unconfirmed) > 0:
			msg += ", and a key among them is not known to be revoked"
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a, Raise: len(live)+len(unconfirmed) > 0, Message: msg, Evidence: append(ev, stateNote(a))})
	}
	tied(c.Index, []model.Kind{model.KindNotebook}, judge)
	for _, id := range c.Index.Unknown {
		for _, a := range c.Index.ArtifactsOf(id) {
			if a.Kind == model.KindNotebook && a.State.Live() {
				judge(nil, a)
			}
		}
	}
	for i := range c.Index.Artifacts {
		if a := &c.Index.Artifacts[i]; a.Kind == model.KindNotebook && a.BackfillID == "" && a.State.Live() {
			judge(nil, a)
		}
	}
}

// cloudKeys indexes the estate's credentials whose URI ends in
// /keys/<id> by that id.
func cloudKeys(c *rules.Context) map[string][]*model.Artifact {
	out := map[string][]*model.Artifact{}
	for i := range c.Index.Artifacts {
		if k := &c.Index.Artifacts[i]; k.Kind == model.KindCredential {
			if id := keyID(k.URI); id != "" {
				out[id] = append(out[id], k)
			}
		}
	}
	return out
}

// keyStates sorts the cloud key ids of a notebook (comma-separated): the
// live credentials among keys, and the ids seen nowhere while a source
// did not answer. A key not seen is taken as revoked only when every
// source answered: never conclude "gone" from a source that did not.
func keyStates(c *rules.Context, keys map[string][]*model.Artifact, ids string) (live []*model.Artifact, unconfirmed []string) {
	complete := model.CoverageComplete(c.Index.Estate.Coverage)
	for _, id := range strings.Split(ids, ",") {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		if len(keys[id]) == 0 {
			if !complete {
				unconfirmed = append(unconfirmed, id)
			}
			continue
		}
		for _, k := range keys[id] {
			if k.State.Live() && k.State != model.StateDisabled {
				live = append(live, k)
			}
		}
	}
	sort.Strings(unconfirmed)
	return live, unconfirmed
}

func keyID(uri string) string {
	_, id, ok := strings.Cut(uri, "/keys/")
	if !ok {
		return ""
	}
	return id
}

// lingeringNotebook reports a notebook without credentials tied to a
// completed backfill past grace (one with credentials is BF022's).
func lingeringNotebook(c *rules.Context) {
	grace := c.Duration("grace")
	tied(c.Index, []model.Kind{model.KindNotebook}, func(b *model.Backfill, a *model.Artifact) {
		if a.Attr(model.AttrSecrets) != "" {
			return
		}
		over, why := c.GraceOver(b, grace)
		if !over {
			return
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a, Evidence: []string{stateNote(a), why},
			Message: fmt.Sprintf("notebook %s of backfill %s is still in place", nameOr(a), b.ID)})
	})
}
