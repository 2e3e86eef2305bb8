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
			"Whether a key is revoked is asked only of the sources that can list that kind of key: gcpiam and cloudasset for a Google service-account key, awsiam for an AWS access key whose secret sits next to its id, or any source that reported such a key this run, such as an inventory. Another source failing says nothing about a key. " +
			"An AWS key is matched by the hash of its access key id, which the finding shows in place of the id. " +
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
	lookups := make([]*keyLookup, len(keyFamilies)) // each family's keys, read once when a notebook names one
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
		var ks keyState
		for i, fam := range keyFamilies {
			ids := a.Attr(fam.attr)
			if ids == "" {
				continue
			}
			if lookups[i] == nil {
				lookups[i] = fam.lookup(c)
			}
			ks.add(fam, lookups[i], ids)
		}
		for _, k := range ks.live {
			ev = append(ev, fmt.Sprintf("%s is still active (%s)", k.name, k.key.URI))
		}
		for _, k := range ks.unconfirmed {
			ev = append(ev, fmt.Sprintf("%s: not seen, and %s, which can list %s, did not answer fully this run, so it is not known to be revoked", k.name, sourcesText(k.sources), k.what))
		}
		for _, k := range ks.unseen {
			ev = append(ev, fmt.Sprintf("%s: not among the %s that %s listed: revoked, or of an account whose keys were not read", k.name, k.what, sourcesText(k.sources)))
		}
		for _, k := range ks.unknown {
			ev = append(ev, fmt.Sprintf("%s: no source of this run lists %s, so whether it is revoked is unknown", k.name, k.what))
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
			msg += ", and whether its key is revoked is unknown (no source lists such keys)"
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

// keyFamily is a kind of cloud key a notebook can name, and the sources
// that can say whether it still exists.
type keyFamily struct {
	attr    string          // the notebook's attribute that lists the keys it names
	what    string          // the keys, as evidence names them
	label   string          // one key, as evidence names it, before its id
	systems map[string]bool // the systems whose collectors list these keys
	// id is a key artifact's id as the notebook's attribute lists it, from
	// its URI; "" when the URI names no key of this family.
	id func(uri string) string
}

// keyFamilies: Google service-account keys, named by their public key id;
// AWS access keys, named by the short hash of their access key id (the
// notebooks collector does not show the id, which scanners match).
var keyFamilies = []keyFamily{
	{attr: model.AttrKeyIDs, what: "service-account keys", label: "key ", systems: map[string]bool{"gcpiam": true, "cloudasset": true},
		id: func(uri string) string { return lastSegmentAfter(uri, "/keys/") }},
	{attr: model.AttrAWSKeys, what: "AWS access keys", label: "AWS access key with id hash ", systems: map[string]bool{"awsiam": true},
		id: func(uri string) string {
			if !strings.HasPrefix(uri, "awsiam://") {
				return ""
			}
			if id := lastSegmentAfter(uri, "/key/"); id != "" {
				return model.ShortHash(id)
			}
			return ""
		}},
}

// lastSegmentAfter is the URI's last segment when the one before it is
// marker's ("…/keys/<id>"); "" otherwise.
func lastSegmentAfter(uri, marker string) string {
	i := strings.LastIndex(uri, marker)
	if i < 0 {
		return ""
	}
	id := uri[i+len(marker):]
	if id == "" || strings.Contains(id, "/") {
		return ""
	}
	return id
}

// keyLookup is what the run says about one family of keys: the keys seen,
// by id, whether any source can list them, and which of those did not
// answer fully.
type keyLookup struct {
	keys    map[string][]*model.Artifact
	sources []string // the sources that can list such keys
	silent  []string // those of them that did not answer fully
}

// lookup indexes the estate's credentials of the family by id, and finds
// the sources that can list them: those of a system that lists them, and
// any source that reported one this run (an inventory exporting keys).
// Only they can say a key is gone; a source of flags or of consumer groups
// failing says nothing about a key. A key's unit within them is not known
// from the notebook (it names the key's id, not its project or account),
// so any of their units not answering leaves a key not seen unconfirmed.
func (fam keyFamily) lookup(c *rules.Context) *keyLookup {
	out := &keyLookup{keys: map[string][]*model.Artifact{}}
	listed := map[string]bool{}
	for k := range c.Artifacts() {
		if k.Kind != model.KindCredential {
			continue
		}
		if id := fam.id(k.URI); id != "" {
			out.keys[id] = append(out.keys[id], k)
			listed[k.Source] = true
		}
	}
	for _, cv := range c.Index.Estate.Coverage {
		if !fam.systems[cv.System] && !listed[cv.Source] {
			continue
		}
		out.sources = append(out.sources, cv.Source)
		if !cv.Full() {
			out.silent = append(out.silent, cv.Source)
		}
	}
	sort.Strings(out.sources)
	sort.Strings(out.silent)
	return out
}

// keyState sorts the cloud keys a notebook names.
type keyState struct {
	live        []namedKey // seen, and still usable
	unconfirmed []namedKey // not seen while a source of such keys did not answer fully
	unseen      []namedKey // not seen, every source of such keys answering: revoked, or of an account they do not read
	unknown     []namedKey // not seen, and no source of the run lists such keys
}

// namedKey is one key a notebook names, as evidence names it.
type namedKey struct {
	name, what string
	key        *model.Artifact // the key seen, when live
	sources    []string        // the sources of such keys (all of them, or those that did not answer fully)
}

// add sorts the keys of one family that a notebook names (ids,
// comma-separated). A key not seen is taken as revoked only when every
// source that can list such keys answered fully: never conclude "gone"
// from a source that did not.
func (ks *keyState) add(fam keyFamily, l *keyLookup, ids string) {
	list := strings.Split(ids, ",")
	sort.Strings(list)
	for _, id := range list {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		k := namedKey{name: fam.label + id, what: fam.what}
		if len(l.keys[id]) == 0 {
			switch {
			case len(l.sources) == 0:
				ks.unknown = append(ks.unknown, k)
			case len(l.silent) > 0:
				k.sources = l.silent
				ks.unconfirmed = append(ks.unconfirmed, k)
			default:
				k.sources = l.sources
				ks.unseen = append(ks.unseen, k)
			}
			continue
		}
		for _, art := range l.keys[id] {
			if art.State.Live() && art.State != model.StateDisabled {
				k.key = art
				ks.live = append(ks.live, k)
			}
		}
	}
}

func sourcesText(names []string) string {
	if len(names) == 1 {
		return "source " + names[0]
	}
	return "sources " + joinAnd(names)
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
