package fix

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// WriteScript renders the plan as a POSIX sh script. Commands that may run
// now are live lines; commands that must wait, and everything a person has
// to write, are comments with the reason. Every line taken from the estate
// is either a quoted argument (remedy quotes them) or inside a comment
// that covers each of its lines, so no name can add a live line.
func WriteScript(w io.Writer, p *Plan) error {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	b.WriteString(remedy.Comment(fmt.Sprintf("bfaudit fix: cleanup of %s, as audited %s.", planSubject(p), p.Now.UTC().Format(time.RFC3339))) + "\n")
	b.WriteString("# Read it before you run it: it stops at the first command that fails.\n")
	b.WriteString("# Steps follow backfill-cleanup.txt, \"Close the loop in order\": verify, normalize,\n")
	b.WriteString("# revoke access, archive the decision record, and only then retire tables and jobs.\n")
	b.WriteString("# Revoking access waits only for the replay to finish, not for normalize.\n")
	b.WriteString("# A step that must wait is printed commented out, with the reason; run\n")
	b.WriteString("# bfaudit fix again once it is unblocked.\n")
	if p.Due {
		b.WriteString("# --due: a command runs only for a finding past its due date whose owner was\n")
		b.WriteString("# told in time; the others are commented out with the reason (NOT DUE,\n")
		b.WriteString("# NOT ANNOUNCED, WAIVED).\n")
	}
	b.WriteString("# psql connects with the usual PG* variables (PGHOST, PGUSER, PGPASSWORD).\n")
	b.WriteString("set -eu\n")
	if len(p.Backfills) == 0 {
		b.WriteString("\n# Nothing to fix: no open findings.\n")
	}
	for _, bp := range p.Backfills {
		b.WriteString("\n")
		b.WriteString(remedy.Comment(backfillHeading(bp)) + "\n")
		for _, sp := range bp.Steps {
			b.WriteString("\n" + remedy.Comment(stepHeading(sp)) + "\n")
			for _, it := range sp.Items {
				b.WriteString(renderItem(it, sp))
			}
		}
	}
	_, err := io.WriteString(w, redact.String(b.String()))
	return err
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
			b.WriteString(it.Action.Shell + "\n")
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
