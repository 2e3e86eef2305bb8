package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/model"
)

// filterFlags are audit's and fix's --severity, --owner and --backfill.
// They narrow what is shown (the report files, the fix plan) and what the
// exit status judges; the history store, the sinks and the metrics still
// get every finding, so a filtered run never resolves or closes anything.
type filterFlags struct {
	severity  string
	owners    []string
	backfills []string
}

func (f *filterFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.severity, "severity", "", "show only findings at or above this `SEVERITY` (critical, high, medium, low, info)")
	fl.StringArrayVar(&f.owners, "owner", nil, "show only findings and backfills of this `OWNER` (the owner as written, or its part before @); repeat or comma-separate")
	fl.StringArrayVar(&f.backfills, "backfill", nil, "show only this backfill `ID` (any spelling: BF-1234, bf_1234); repeat or comma-separate")
}

// filter is what filterFlags keep; its zero value keeps everything.
type filter struct {
	min       model.Severity
	owners    map[string]bool
	backfills map[model.BackfillID]bool
	on        bool
}

func (f filterFlags) parse() (filter, error) {
	var out filter
	if f.severity != "" {
		sev, err := model.ParseSeverity(f.severity)
		if err != nil {
			return out, fmt.Errorf("--severity: %w", err)
		}
		out.min, out.on = sev, true
	} else {
		out.min = model.SeverityInfo
	}
	for _, o := range splitList(f.owners) {
		if out.owners == nil {
			out.owners = map[string]bool{}
		}
		out.owners[strings.ToLower(o)], out.on = true, true
	}
	for _, b := range splitList(f.backfills) {
		if out.backfills == nil {
			out.backfills = map[model.BackfillID]bool{}
		}
		out.backfills[model.ParseID(b)], out.on = true, true
	}
	return out, nil
}

// ownedBy reports whether owner is one the filter names, whole or by the
// part before @ (alice for alice@example.com).
func (f filter) ownedBy(owner string) bool {
	owner = strings.ToLower(owner)
	local, _, _ := strings.Cut(owner, "@")
	return f.owners[owner] || f.owners[local]
}

func (f filter) keepsFinding(x model.Finding) bool {
	return x.Severity >= f.min &&
		(f.owners == nil || f.ownedBy(x.Owner)) &&
		(f.backfills == nil || f.backfills[model.ParseID(x.BackfillID)])
}

// apply returns a copy of r holding what the filter keeps: the findings,
// the backfills (of the owner or with a finding shown; --severity alone
// keeps every backfill) and the resolved findings of history, with each
// backfill's count and the summary counted again from them, so every
// count agrees with the rows shown. Coverage and problems stay whole.
func (f filter) apply(r *model.Report) *model.Report {
	if !f.on {
		return r
	}
	out := f.findings(r)
	open := map[model.BackfillID]int{}
	for _, x := range out.Findings {
		if !x.Waived() {
			open[model.ParseID(x.BackfillID)]++
		}
	}
	out.Backfills = []model.BackfillReport{}
	for _, b := range r.Backfills {
		id := model.ParseID(b.Backfill.ID)
		if f.backfills != nil && !f.backfills[id] {
			continue
		}
		if f.owners != nil && !f.ownedBy(b.Backfill.Owner) && open[id] == 0 {
			continue
		}
		b.Findings = open[id]
		out.Backfills = append(out.Backfills, b)
	}
	if r.History != nil {
		h := *r.History
		h.Resolved = nil
		for _, x := range r.History.Resolved {
			if f.keepsFinding(x) {
				h.Resolved = append(h.Resolved, x)
			}
		}
		out.History = &h
	}
	audit.Summarize(out, nil)
	return out
}

// findings returns a copy of r with only the findings the filter keeps
// (fix: the backfills stay, each with its lifecycle, so the plan's order
// still waits on the steps blocked by findings not shown).
func (f filter) findings(r *model.Report) *model.Report {
	out := *r
	out.Findings = []model.Finding{}
	for _, x := range r.Findings {
		if f.keepsFinding(x) {
			out.Findings = append(out.Findings, x)
		}
	}
	return &out
}
