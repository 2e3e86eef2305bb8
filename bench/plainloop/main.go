// Command plainloop is the floor the benchmarks measure bfaudit against:
// the plainest Go program doing what a five-rule audit does on a
// generated estate (go run ./bench/gen). It reads the estate with
// encoding/json, ties artifacts to plans by their backfill_id label,
// checks BF001, BF003, BF005, BF011 and BF012 in loops, and writes the
// findings as indented JSON. It knows nothing of sources that did not
// answer, configuration, waivers, lifecycles or report formats, and reads
// IAM conditions with a string search instead of a CEL parser: it is the
// "plain Go loop" of issue 14, not an auditor.
//
//	go run ./bench/plainloop -estate estate.json -out findings.json
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// estate is the estate file with each artifact's labels and attributes
// decoded into Go maps, as encoding/json reads them: the loop stays the
// plain baseline it was, whatever shape the model gives them.
type estate struct {
	model.Estate
	Artifacts []artifact `json:"artifacts"` // over model.Estate's
}

// artifact is model.Artifact with Go maps.
type artifact struct {
	Kind        model.Kind        `json:"kind"`
	System      string            `json:"system"`
	Source      string            `json:"source"`
	Scope       string            `json:"scope,omitempty"`
	URI         string            `json:"uri"`
	Name        string            `json:"name,omitempty"`
	BackfillID  string            `json:"backfill_id,omitempty"`
	Owner       string            `json:"owner,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	CreatedAt   time.Time         `json:"created_at,omitzero"`
	LastUsedAt  time.Time         `json:"last_used_at,omitzero"`
	ModifiedAt  time.Time         `json:"modified_at,omitzero"`
	ExpiresAt   time.Time         `json:"expires_at,omitzero"`
	State       model.State       `json:"state,omitempty"`
	Attributes  map[string]string `json:"attributes,omitempty"`
	Correlation string            `json:"correlation,omitempty"`
}

type finding struct {
	RuleID      string `json:"rule_id"`
	Severity    string `json:"severity"`
	BackfillID  string `json:"backfill_id,omitempty"`
	ArtifactURI string `json:"artifact_uri"`
	Message     string `json:"message"`
}

func main() {
	estatePath := flag.String("estate", "estate.json", "estate file (go run ./bench/gen)")
	out := flag.String("out", "findings.json", "findings file")
	nowFlag := flag.String("now", "2026-11-30", "audit time (YYYY-MM-DD)")
	flag.Parse()
	now, err := time.Parse("2006-01-02", *nowFlag)
	check(err)
	b, err := os.ReadFile(*estatePath)
	check(err)
	var est estate
	check(json.Unmarshal(b, &est))
	b = nil

	plans := map[string]*model.Backfill{}
	for i := range est.Backfills {
		plans[norm(est.Backfills[i].ID)] = &est.Backfills[i]
	}
	approvers := map[string]string{}
	for _, r := range est.Records {
		approvers[norm(r.BackfillID)] = r.ApprovingOwner
	}
	past := func(t time.Time) bool { return !t.IsZero() && !now.Before(t) }
	graceOver := func(bf *model.Backfill, grace time.Duration) bool {
		if !bf.Status.Completed() {
			return false
		}
		for _, t := range []time.Time{bf.Timeline.CompletedAt, bf.Timeline.VerifiedAt, bf.Timeline.ArchivedAt, bf.Timeline.RetiredAt} {
			if !t.IsZero() {
				return past(t.Add(grace))
			}
		}
		return true
	}
	const day = 24 * time.Hour
	var fs []finding
	add := func(rule, sev, bf string, a *artifact, msg string) {
		fs = append(fs, finding{rule, sev, bf, a.URI, msg})
	}
	for i := range est.Artifacts {
		a := &est.Artifacts[i]
		if !a.State.Live() {
			continue
		}
		id := norm(a.BackfillID)
		if id == "" {
			id = norm(a.Labels["backfill_id"])
		}
		if id == "" {
			continue
		}
		bf := plans[id]
		if bf == nil {
			if _, ok := approvers[id]; !ok {
				add("BF011", "medium", id, a, fmt.Sprintf("%s %s is tagged with backfill %s, which no plan or record describes", a.Kind, a.Name, id))
			}
			continue
		}
		switch a.Kind {
		case model.KindSchedulerJob:
			if a.State != model.StatePaused && a.State != model.StateDisabled && a.Attributes["runbook"] == "" &&
				(past(bf.Expiry) || past(a.ExpiresAt) || graceOver(bf, 7*day)) {
				add("BF001", "medium", bf.ID, a, fmt.Sprintf("job %s is still scheduled: backfill %s expired %s", a.Name, bf.ID, bf.Expiry.Format("2006-01-02")))
			}
		case model.KindGrant:
			if past(grantExpiry(a)) || graceOver(bf, 2*day) {
				sev := "high"
				if bf.Classification.Classified() {
					sev = "critical"
				}
				add("BF003", sev, bf.ID, a, fmt.Sprintf("grant %s to %s is still in force", a.Attributes["role"], a.Attributes["principal"]))
			}
		case model.KindTable, model.KindCheckpoint:
			if past(a.ExpiresAt) || a.ExpiresAt.IsZero() && graceOver(bf, 7*day) {
				add("BF005", "medium", bf.ID, a, fmt.Sprintf("temporary %s %s is still there", a.Kind, a.Name))
			}
		}
		if a.Kind != model.KindJobRun && a.Owner == "" && bf.Owner == "" && approvers[id] == "" {
			add("BF012", "low", bf.ID, a, fmt.Sprintf("%s %s of %s has no owner", a.Kind, a.Name, bf.ID))
		}
	}

	f, err := os.Create(*out)
	check(err)
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	check(enc.Encode(fs))
	check(w.Flush())
	check(f.Close())
}

// grantExpiry reads an expiry from the artifact, or from an IAM condition
// of the form request.time < timestamp("...").
func grantExpiry(a *artifact) time.Time {
	if !a.ExpiresAt.IsZero() {
		return a.ExpiresAt
	}
	cond := a.Attributes["condition"]
	if _, rest, ok := strings.Cut(cond, `request.time < timestamp("`); ok {
		if ts, _, ok := strings.Cut(rest, `")`); ok {
			t, _ := time.Parse(time.RFC3339, ts)
			return t
		}
	}
	return time.Time{}
}

func norm(id string) string {
	return strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(id)), "_", "-")
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "plainloop:", err)
		os.Exit(1)
	}
}
