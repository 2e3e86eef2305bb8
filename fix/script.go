package fix

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// WriteScript renders the plan as a POSIX sh script. Commands that may run
// now are live lines; commands that must wait, and everything a person has
// to write, are comments with the reason. Every line taken from the estate
// is either a quoted argument (remedy quotes them) or inside a comment
// that covers each of its lines, so no name can add a live line.
//
// Access goes first: the access-revoked step of every backfill is written
// before anything else. Each command runs on its own, in a subshell under
// set -eu: one that fails, or that needs a variable that is not set, is
// skipped with a line on stderr saying why, and the script goes on; a
// later step whose commands rely on it is skipped too. At the end the
// script lists what did not run and exits 1.
func WriteScript(w io.Writer, p *Plan) error {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	b.WriteString(remedy.Comment(fmt.Sprintf("bfaudit fix: cleanup of %s, as audited %s.", planSubject(p), p.Now.UTC().Format(time.RFC3339))) + "\n")
	b.WriteString(scriptHeader)
	if p.Due {
		b.WriteString("# --due: a command runs only for a finding past its due date whose owner was\n")
		b.WriteString("# told in time; the others are commented out with the reason (NOT DUE,\n")
		b.WriteString("# NOT ANNOUNCED, WAIVED).\n")
	}
	b.WriteString("# psql connects with the usual PG* variables (PGHOST, PGUSER, PGPASSWORD).\n")
	b.WriteString(scriptPrelude)
	if len(p.Backfills) == 0 {
		b.WriteString("\n# Nothing to fix: no open findings.\n")
	}
	first := map[int]bool{} // the backfills whose access step is written first
	for i, bp := range p.Backfills {
		for _, sp := range bp.Steps {
			if securityFirst(sp.Step) {
				first[i] = true
				b.WriteString("\n" + remedy.Comment(backfillHeading(bp)+": access first") + "\n")
				writeStep(&b, sp)
			}
		}
	}
	for i, bp := range p.Backfills {
		heading := backfillHeading(bp)
		if first[i] {
			heading += ": the other steps, in lifecycle order"
		}
		b.WriteString("\n" + remedy.Comment(heading) + "\n")
		for _, sp := range bp.Steps {
			if !securityFirst(sp.Step) {
				writeStep(&b, sp)
			}
		}
	}
	b.WriteString(scriptEnd)
	_, err := io.WriteString(w, redact.String(b.String()))
	return err
}

const scriptHeader = `# Read it before you run it. Access goes first: the revocations and key
# disables of every backfill are at the top and run as soon as the replay
# has finished. Then the steps follow the cleanup order: verify,
# normalize, archive the decision record, and only then retire tables and
# jobs.
# Each command runs on its own: one that fails, or that needs a variable
# that is not set (a token), is skipped with a line on stderr saying why,
# and the script goes on; a later step that relies on it is skipped too.
# At the end the script lists what did not run and exits 1.
# A step that must wait is printed commented out, with the reason; run
# bfaudit fix again once it is unblocked.
`

// scriptPrelude defines what each command runs in. bf_at names the step
// of the commands after it and holds them when a command of an earlier
// step they rely on did not run; bf_can says whether one command may run
// (held, or a variable it needs not set: it says why and lists it);
// bf_ran records how it ended. The variables bf_can reads are named by
// remedy (Action.Needs), never by the estate.
const scriptPrelude = `
bf_not_run='' bf_undone='' bf_step='' bf_held='' bf_label='' bf_ok=0
bf_at() {
	bf_step=$1 bf_held=''
	shift
	for bf_s in "$@"; do
		case " $bf_undone " in *" $bf_s "*) bf_held="step $bf_s did not complete"; return 0 ;; esac
	done
}
bf_can() {
	bf_label=$1
	shift
	if [ -n "$bf_held" ]; then bf_skip "$bf_held"; return 1; fi
	for bf_v in "$@"; do
		eval "bf_val=\${$bf_v:-}"
		if [ -z "$bf_val" ]; then bf_skip "$bf_v is not set"; return 1; fi
	done
	printf 'bfaudit fix: running %s\n' "$bf_label" >&2
}
bf_ran() {
	if [ "$1" -eq 0 ]; then bf_ok=$((bf_ok + 1)); return 0; fi
	printf 'bfaudit fix: FAILED %s (exit %s)\n' "$bf_label" "$1" >&2
	bf_missed "failed (exit $1)"
}
bf_skip() {
	printf 'bfaudit fix: SKIPPED %s: %s\n' "$bf_label" "$1" >&2
	bf_missed "skipped, $1"
}
bf_missed() {
	bf_not_run="$bf_not_run
  $bf_label: $1"
	case " $bf_undone " in *" $bf_step "*) ;; *) bf_undone="$bf_undone $bf_step" ;; esac
}
`

const scriptEnd = `
# -- the end: what did not run
if [ -n "$bf_not_run" ]; then
	printf 'bfaudit fix: %s command(s) ran; these did not:%s\n' "$bf_ok" "$bf_not_run" >&2
	exit 1
fi
printf 'bfaudit fix: %s command(s) ran, none failed or skipped\n' "$bf_ok" >&2
`

// writeStep writes one step: its heading, the step its commands are of
// (and the earlier steps they rely on), and its items.
func writeStep(b *strings.Builder, sp StepPlan) {
	b.WriteString("\n" + remedy.Comment(stepHeading(sp)) + "\n")
	at := []string{stepWord(sp.Step)}
	if sp.relies {
		for _, s := range model.Steps() {
			if s < sp.Step {
				at = append(at, stepWord(s))
			}
		}
	}
	if hasReadyItem(sp) {
		b.WriteString("bf_at " + strings.Join(at, " ") + "\n")
	}
	for _, it := range sp.Items {
		b.WriteString(renderItem(it, sp))
	}
}

func hasReadyItem(sp StepPlan) bool {
	for _, it := range sp.Items {
		if it.Ready(sp) {
			return true
		}
	}
	return false
}

// stepWord is a step's name as one shell word.
func stepWord(s model.Step) string { return strings.ReplaceAll(s.String(), " ", "-") }

// envName is what a variable an action needs may be called: bf_can reads
// it with eval.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// liveCommand wraps a ready command: bf_can checks it may run, the
// command runs in a subshell under set -eu (a failure or an unset
// variable ends that command only), bf_ran records how it ended.
func liveCommand(it Item) string {
	label := strings.Join(strings.FieldsFunc(it.RuleID+" "+it.Action.Name+": "+it.Action.Summary, func(r rune) bool {
		return r == ' ' || unicode.IsControl(r)
	}), " ")
	words := []string{"if bf_can", remedy.Quote(label)}
	for _, v := range it.Action.Needs {
		if !envName.MatchString(v) {
			panic(fmt.Sprintf("fix: action %s needs %q, not a variable name", it.Action.Name, v))
		}
		words = append(words, v)
	}
	return strings.Join(words, " ") + "; then ( set -eu\n" + it.Action.Shell + "\n); bf_ran $?; fi\n"
}

func planSubject(p *Plan) string {
	if len(p.Backfills) == 1 && p.Backfills[0].ID != "" {
		return p.Backfills[0].ID
	}
	return fmt.Sprintf("%d backfills", len(p.Backfills))
}

func backfillHeading(bp BackfillPlan) string {
	switch {
	case bp.ID == "":
		return "== The config (waivers, user rules)"
	case !bp.Known:
		return fmt.Sprintf("== %s: no plan or decision record describes it", bp.ID)
	case bp.Lifecycle.Done:
		return fmt.Sprintf("== %s: lifecycle done", bp.ID)
	}
	return fmt.Sprintf("== %s: lifecycle reached %s, next %s", bp.ID, bp.Lifecycle.Reached, bp.Lifecycle.Next)
}

func stepHeading(sp StepPlan) string {
	name := "-- step " + sp.Step.String()
	if sp.Step == model.StepPlan {
		name = "-- plan and governance (before the next backfill)"
	}
	switch {
	case sp.Waits != "":
		return name + ": WAITS, " + sp.Waits
	case sp.Ahead != "":
		return name + ": runs now (the replay is finished: access goes first) although " + sp.Ahead
	}
	return name
}

// renderItem writes one item: what it is about, then the command (live or
// commented out) or the human act.
func renderItem(it Item, sp StepPlan) string {
	var b strings.Builder
	about := fmt.Sprintf("%s %s", it.RuleID, it.Severity)
	if it.ArtifactURI != "" {
		about += " " + it.ArtifactURI
	}
	b.WriteString(remedy.Comment(about+": "+it.Message) + "\n")
	for _, n := range it.Notes {
		b.WriteString(remedy.Comment("note: "+n) + "\n")
	}
	if it.Hold != nil {
		b.WriteString(remedy.Comment(strings.ToUpper(it.Hold.Status)+": "+it.Hold.Reason) + "\n")
	}
	switch {
	case it.Action != nil:
		b.WriteString(remedy.Comment(fmt.Sprintf("%s: %s", it.Action.Name, it.Action.Summary)) + "\n")
		switch {
		case it.Ready(sp):
			b.WriteString(liveCommand(it))
		case it.Waits != "":
			b.WriteString(remedy.Comment("waits: "+it.Waits) + "\n" + remedy.Comment(it.Action.Shell) + "\n")
		default:
			b.WriteString(remedy.Comment(it.Action.Shell) + "\n")
		}
	case it.Human != nil:
		h := it.Human
		b.WriteString(remedy.Comment("TODO (by hand): "+h.What) + "\n")
		if h.Where != "" {
			b.WriteString(remedy.Comment("where: "+h.Where) + "\n")
		}
		if h.Template != "" {
			b.WriteString(remedy.Comment(h.Template) + "\n")
		}
	}
	for _, alt := range it.Alternatives {
		b.WriteString(remedy.Comment("or: "+alt) + "\n")
	}
	return b.String()
}

// WriteJSON writes the plan as indented JSON.
func WriteJSON(w io.Writer, p *Plan) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, redact.String(string(data))+"\n")
	return err
}
