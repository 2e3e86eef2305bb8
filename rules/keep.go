package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/duration"
	"github.com/bfaudit/bfaudit/model"
)

// KeepLabelInvalidID is the rule that reports a keep label the audit does
// not honour (rules/builtin registers it); its max_keep parameter is also
// what the engine holds keep labels to.
const (
	KeepLabelInvalidID = "BF028"
	MaxKeepParam       = "max_keep"
	DefaultMaxKeep     = "90d"
)

// Keep is a keep label read from an artifact (model.AttrKeepUntil and
// its siblings): an opt-out written by the artifact's owners on the
// artifact itself.
type Keep struct {
	Until  time.Time
	Raw    string // the keep-until value as written
	Reason string
	By     string
	// Problems say why the label is not honoured; empty when it is.
	Problems []string
}

// Valid reports whether the label is honoured as a waiver.
func (k Keep) Valid() bool { return len(k.Problems) == 0 }

// ReadKeep reads an artifact's keep label and judges it: it needs a date
// and a reason, and the date may lie at most maxKeep after the audit's
// time. An expired label is valid: it ends, and BF900 reports it.
func ReadKeep(a *model.Artifact, now time.Time, maxKeep time.Duration) Keep {
	k := Keep{Raw: a.Attr(model.AttrKeepUntil), Reason: a.Attr(model.AttrKeepReason), By: a.Attr(model.AttrKeepBy)}
	var ok bool
	switch k.Until, ok = model.ParseKeepUntil(k.Raw); {
	case k.Raw == "":
		k.Problems = append(k.Problems, "keep-until: missing: a keep label needs an end date (2027-01-31)")
	case !ok:
		k.Problems = append(k.Problems, fmt.Sprintf("keep-until: %q is not a date (2027-01-31)", k.Raw))
	case k.Until.Sub(now) > maxKeep:
		k.Problems = append(k.Problems, fmt.Sprintf("keep-until: %s is more than %s after the audit (%s), the longest keep allowed (rules.params.%s.%s)",
			day(k.Until), human(maxKeep), day(now), KeepLabelInvalidID, MaxKeepParam))
	}
	if strings.TrimSpace(k.Reason) == "" {
		k.Problems = append(k.Problems, "keep-reason: missing: say why the artifact is kept")
	}
	return k
}

// maxKeep is the configured longest keep, or the rule's default.
func (e *Engine) maxKeep() time.Duration {
	v := DefaultMaxKeep
	if r, ok := Lookup(KeepLabelInvalidID); ok {
		if p := r.param(MaxKeepParam); p != nil {
			v = p.Default
		}
	}
	if s, ok := e.params[KeepLabelInvalidID][MaxKeepParam]; ok {
		v = s
	}
	d, err := duration.Parse(v)
	if err != nil {
		panic(fmt.Sprintf("rules: %s.%s: %v", KeepLabelInvalidID, MaxKeepParam, err))
	}
	return d
}

// MaxKeep is the longest keep this engine honours.
func (e *Engine) MaxKeep() time.Duration { return e.maxKeep() }
