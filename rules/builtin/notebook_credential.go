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
			"A credential that still works (a key a source of cloud keys reports active), or one whose key is not known to be revoked because the source that lists cloud keys did not answer, is critical, and so is any credential on classified data, as for its sibling BF004. " +
			"Whether a key is revoked is asked only of the sources that can list cloud keys (gcpiam, cloudasset, or any source that reported one this run, such as an inventory): another source failing says nothing about a key. " +
			"With no such source at all the finding says the key's state is unknown, and its severity comes from the notebook's own content and its backfill's classification.",
		Practice:    rules.PracticeInventory,
		Kinds:       []model.Kind{model.KindNotebook, model.KindCredential},
		Remediation: "Rotate or revoke the credential first, then clear the notebook's outputs (jupyter nbconvert --clear-output --inplace) and remove the secret from its cells and the repository's history.",
		Severity:    model.SeverityHigh, Step: model.StepAccessRevoked,
		Ladder: []rules.Rung{
			{Severity: model.SeverityHigh, When: "when the notebook keeps a credential not known to work: its key is revoked, it names no cloud key, or no source of the run lists cloud keys (the finding says so)"},
			{Severity: model.SeverityCritical, When: "when a key it names is still active, or not known to be revoked because a source that lists cloud keys did not answer fully; or on classified data: financial, customer, security, compliance"},
		},
		Check: notebookCredential,
		Remedy: &remedy.Recipe{Build: remedy.Remove(model.StepAccessRevoked), Kind: model.KindNotebook,
			Examples: []remedy.ExampleOf{remedy.ExampleOn("notebook-key")}},
	})
	rules.Register(&rules.Rule{
		ID: "BF023", Name: "lingering-notebook", Title: "Correction notebook of a finished backfill left in place",
		Rationale: "A correction notebook without credentials is the fix's evidence, kept with the decision record, not machinery: it is not reported for being there (nor as an undeclared asset, BF014). " +
			"It is reported only where there is a reason to move it: its plan lists it in assets_to_remove, so the team decided it goes once the backfill is done and it is still where it can be run again; " +
			"or part of it was too large to scan, so nobody can say it keeps no credential. A notebook with a credential is BF022's.",
		Practice:    rules.PracticeInventory,
		Kinds:       []model.Kind{model.KindNotebook},
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

// attrUnscanned is the notebooks collector's count of the cells, outputs
// or texts past its scan bounds, left unscanned.
const attrUnscanned = "unscanned"

// notebookCredential reports a notebook holding a credential, whatever
// the state of its backfill, whether or not any plan describes it, and
// when it is tied to no backfill at all: a secret does not wait for the
// replay to end, nor for someone to write the plan or the id (an id
// nobody describes is BF011's as well). It names the
// detection rule, where each credential is and a short hash, never the
// value. A key the IAM collector reports active makes it critical.
func notebookCredential(c *rules.Context) {
	var keys map[string][]*model.Artifact // cloud keys by id, read once when a notebook names one
	var sources keySourceSet
	judge := func(b *model.Backfill, a *model.Artifact) {
		secrets := a.Attr(model.AttrSecrets)
		if secrets == "" || a.Kind != model.KindNotebook {
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
			sources = keySources(c, keys)
		}
		ks := keyStates(keys, sources, a.Attr(model.AttrKeyIDs))
		for _, k := range ks.live {
			ev = append(ev, fmt.Sprintf("key %s is still active (%s)", keyID(k.URI), k.URI))
		}
		for _, id := range ks.unconfirmed {
			ev = append(ev, fmt.Sprintf("key %s: not seen, and %s, which can list cloud keys, did not answer fully this run, so it is not known to be revoked", id, sourcesText(sources.silent)))
		}
		for _, id := range ks.unknown {
			ev = append(ev, fmt.Sprintf("key %s: no source of this run lists cloud keys, so whether it is revoked is unknown", id))
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
		case len(ks.live) > 0:
			msg += ", and a key among them is still active"
		case len(ks.unconfirmed) > 0:
			msg += ", and a key among them is not known to be revoked"
		case len(ks.unknown) > 0:
			msg += ", and whether its key is revoked is unknown (no source lists cloud keys)"
		}
		sev := accessSeverity(b)
		if len(ks.live)+len(ks.unconfirmed) > 0 {
			sev = model.SeverityCritical
		}
		if b != nil && b.Classification.Classified() {
			ev = append(ev, classifiedNote(b))
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a, Severity: sev, Message: msg, Evidence: append(ev, stateNote(a))})
	}
	c.Tied(judge)
	for _, id := range c.Index.Unknown {
		for a := range c.ArtifactsOf(id) {
			if a.Kind == model.KindNotebook && a.State.Live() {
				judge(nil, a)
			}
		}
	}
	for a := range c.Artifacts() {
		if a.Kind == model.KindNotebook && a.BackfillID == "" && a.State.Live() {
			judge(nil, a)
		}
	}
}

// cloudKeys indexes the estate's credentials whose URI ends in
// /keys/<id> by that id.
func cloudKeys(c *rules.Context) map[string][]*model.Artifact {
	out := map[string][]*model.Artifact{}
	for k := range c.Artifacts() {
		if k.Kind == model.KindCredential {
			if id := keyID(k.URI); id != "" {
				out[id] = append(out[id], k)
			}
		}
	}
	return out
}

// keySystems are the systems whose collectors list cloud keys.
var keySystems = map[string]bool{"gcpiam": true, "cloudasset": true}

// keySourceSet is what the run says about who can see cloud keys: whether
// any source can, and which of them did not answer fully.
type keySourceSet struct {
	any    bool
	silent []string
}

// keySources finds the sources that can list cloud keys: those of a
// system that lists them, and any source that reported one this run (an
// inventory exporting keys). Only they can say a key is gone; a source of
// flags or of consumer groups failing says nothing about a key. A key's
// unit within them is not known from the notebook (it names the key's id,
// not its project), so any of their units not answering leaves a key not
// seen unconfirmed.
func keySources(c *rules.Context, keys map[string][]*model.Artifact) keySourceSet {
	listed := map[string]bool{}
	for _, ks := range keys {
		for _, k := range ks {
			listed[k.Source] = true
		}
	}
	var out keySourceSet
	for _, cv := range c.Index.Estate.Coverage {
		if !keySystems[cv.System] && !listed[cv.Source] {
			continue
		}
		out.any = true
		if !cv.Full() {
			out.silent = append(out.silent, cv.Source)
		}
	}
	sort.Strings(out.silent)
	return out
}

// keyState sorts the cloud key ids a notebook names.
type keyState struct {
	live        []*model.Artifact // seen, and still usable
	unconfirmed []string          // not seen while a source of keys did not answer fully
	unknown     []string          // not seen, and no source of the run lists keys
}

// keyStates sorts the cloud key ids of a notebook (comma-separated). A key
// not seen is taken as revoked only when every source that can list keys
// answered fully: never conclude "gone" from a source that did not.
func keyStates(keys map[string][]*model.Artifact, sources keySourceSet, ids string) keyState {
	var out keyState
	for _, id := range strings.Split(ids, ",") {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		if len(keys[id]) == 0 {
			switch {
			case !sources.any:
				out.unknown = append(out.unknown, id)
			case len(sources.silent) > 0:
				out.unconfirmed = append(out.unconfirmed, id)
			}
			continue
		}
		for _, k := range keys[id] {
			if k.State.Live() && k.State != model.StateDisabled {
				out.live = append(out.live, k)
			}
		}
	}
	sort.Strings(out.unconfirmed)
	sort.Strings(out.unknown)
	return out
}

func sourcesText(names []string) string {
	if len(names) == 1 {
		return "source " + names[0]
	}
	return "sources " + joinAnd(names)
}

func keyID(uri string) string {
	_, id, ok := strings.Cut(uri, "/keys/")
	if !ok {
		return ""
	}
	return id
}

// lingeringNotebook reports a notebook without credentials tied to a
// completed backfill past grace (one with credentials is BF022's), only
// where there is a reason to move it: its plan lists it in
// assets_to_remove, or part of it was left unscanned. Otherwise it is the
// fix's evidence.
func lingeringNotebook(c *rules.Context) {
	grace := c.Duration("grace")
	c.Tied(func(b *model.Backfill, a *model.Artifact) {
		if a.Attr(model.AttrSecrets) != "" {
			return
		}
		var reason string
		switch n, _ := strconv.Atoi(a.Attr(attrUnscanned)); {
		case declared(b, a):
			reason = fmt.Sprintf("plan %s lists it in assets_to_remove", b.Source)
		case n > 0:
			reason = fmt.Sprintf("%d part(s) too large to scan: nobody can say it keeps no credential", n)
		default:
			return // the fix's evidence, not machinery
		}
		over, why := c.GraceOver(b, grace)
		if !over {
			return
		}
		c.Report(rules.Issue{Backfill: b, Artifact: a, Evidence: []string{stateNote(a), why, reason},
			Message: fmt.Sprintf("notebook %s of backfill %s is still in place", nameOr(a), b.ID)})
	})
}
