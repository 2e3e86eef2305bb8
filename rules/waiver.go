package rules

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Waiver accepts findings for a while. It names either one finding by its
// fingerprint, or a rule and a selector (backfill id, artifact URI glob,
// owner; every part given must match). Reason, approver and expiry are
// required: a waiver is a decision someone made, and it ends.
//
// Until Expires a matching finding stays in the report with Finding.Waiver
// set and does not count toward the exit code. From Expires on (the exact
// instant included) the finding is no longer hidden and the waiver itself
// is reported (BF900). A waiver that matches no finding is reported as
// stale (BF901), but only when every source answered: a finding that is
// missing because its source did not answer has not been fixed.
type Waiver struct {
	Fingerprint string
	Rule        string
	Backfill    string
	// Artifact is a glob over the artifact URI: * matches any run of
	// characters (slashes included), ? one character.
	Artifact string
	Owner    string
	Reason   string
	Approver string
	Expires  time.Time
	// Source is where the waiver is written (the config file and line).
	Source model.Location
	// Key names the waiver in messages, e.g. "waivers[2]".
	Key string

	backfill model.BackfillID // Backfill, parsed when the waiver is compiled
	glob     *regexp.Regexp
}

// FieldError is a waiver problem in one of its keys.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

var fingerprintRE = regexp.MustCompile(`^[0-9a-f]{16}$`)

// Validate checks a waiver's own fields (not whether its rule exists).
func (w *Waiver) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
	}
	selector := w.Backfill != "" || w.Artifact != "" || w.Owner != ""
	switch {
	case w.Fingerprint != "" && (w.Rule != "" || selector):
		return bad("fingerprint", "give either a fingerprint or a rule with a selector, not both")
	case w.Fingerprint != "" && !fingerprintRE.MatchString(w.Fingerprint):
		return bad("fingerprint", "%q is not a finding fingerprint (16 hex digits, as in the JSON report)", w.Fingerprint)
	case w.Fingerprint == "" && w.Rule == "":
		return bad("rule", "missing: name a fingerprint, or a rule with backfill, artifact or owner")
	case w.Fingerprint == "" && !selector:
		return bad("rule", "a rule alone would waive it everywhere: add backfill, artifact or owner (or disable the rule in rules.disabled)")
	case strings.TrimSpace(w.Reason) == "":
		return bad("reason", "missing: say why the finding is accepted")
	case strings.TrimSpace(w.Approver) == "":
		return bad("approver", "missing: name who approved the waiver")
	case w.Expires.IsZero():
		return bad("expires", "missing: every waiver needs an expiry date (2026-12-31)")
	}
	return w.compile()
}

func (w *Waiver) compile() error {
	w.Fingerprint = strings.ToLower(strings.TrimSpace(w.Fingerprint))
	w.backfill = model.ParseID(w.Backfill)
	if w.Artifact == "" {
		w.glob = nil
		return nil
	}
	var b strings.Builder
	// (?s): * and ? match any character, a newline in a URI included.
	b.WriteString("(?s)^")
	for _, r := range w.Artifact {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return &FieldError{Field: "artifact", Err: fmt.Errorf("glob %q: %v", w.Artifact, err)}
	}
	w.glob = re
	return nil
}

// Matches reports whether the waiver covers a finding.
func (w *Waiver) Matches(f *model.Finding) bool {
	if w.Fingerprint != "" {
		return f.Fingerprint == w.Fingerprint
	}
	if !strings.EqualFold(f.RuleID, w.Rule) {
		return false
	}
	if w.Backfill != "" && w.backfill != f.Key {
		return false
	}
	if w.glob != nil && !w.glob.MatchString(f.ArtifactURI) {
		return false
	}
	if w.Owner != "" && !strings.EqualFold(w.Owner, f.Owner) {
		return false
	}
	return true
}

// ID is a stable name for the waiver: its fingerprint, or its rule and
// selector. It does not depend on the waiver's position in the config, so
// the fingerprint of a BF900/BF901 finding survives reordering.
func (w *Waiver) ID() string {
	if w.Fingerprint != "" {
		return "fingerprint=" + w.Fingerprint
	}
	parts := []string{"rule=" + w.Rule}
	if w.Backfill != "" {
		parts = append(parts, "backfill="+string(w.backfill))
	}
	if w.Artifact != "" {
		parts = append(parts, "artifact="+w.Artifact)
	}
	if w.Owner != "" {
		parts = append(parts, "owner="+strings.ToLower(w.Owner))
	}
	return strings.Join(parts, ",")
}

func (w *Waiver) name() string {
	if w.Key != "" {
		return w.Key + " (" + w.ID() + ")"
	}
	return w.ID()
}
