package faultmatrix

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/audit"
	_ "github.com/bfaudit/bfaudit/collectors/all"
	"github.com/bfaudit/bfaudit/config"
	"github.com/bfaudit/bfaudit/model"
)

// Severity and due dates rest on the artifact and its backfill, never on
// a source unrelated to them: the quickstart's estate is audited with
// every source answering, then with each source failed in turn, and no
// finding on an artifact of another, answering source may change severity,
// due period or lifecycle step; no backfill may become done, and one that
// was done is unknown, naming the silent source. The estate is audited as
// collected, and with the notebook's key revoked (gone from the inventory,
// which lists keys): there a key not seen is revoked only while the
// sources that can list keys answered, whatever else failed. The plans
// source is not failed: every finding rests on it.
func TestUnrelatedSourceMovesNothing(t *testing.T) {
	cfg, err := config.Load(config.NewViper(), "../../examples/quickstart/bfaudit.yaml")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	collected, err := audit.Collect(context.Background(), cfg.Instances, cfg.Selector, cfg.Concurrency, now)
	if err != nil {
		t.Fatal(err)
	}
	revoked := *collected
	revoked.Artifacts = slices.DeleteFunc(slices.Clone(collected.Artifacts), func(a model.Artifact) bool {
		return a.Kind == model.KindCredential && strings.Contains(a.URI, "/keys/")
	})
	for name, est := range map[string]*model.Estate{"as collected": collected, "key revoked": &revoked} {
		t.Run(name, func(t *testing.T) {
			base := audit.Evaluate(clone(est), cfg.Selector, cfg.Engine, now).Report
			for _, c := range est.Coverage {
				if c.Source == "plans" {
					continue
				}
				got := audit.Evaluate(failed(est, c.Source), cfg.Selector, cfg.Engine, now).Report
				compare(t, c.Source, base, got, cfg)
			}
		})
	}
}

func compare(t *testing.T, source string, base, got *model.Report, cfg *config.Config) {
	t.Helper()
	class := map[string]model.Classification{}
	for _, b := range base.Backfills {
		class[b.Backfill.ID] = b.Backfill.Classification
	}
	before := map[string]model.Finding{}
	for _, f := range base.Findings {
		before[f.Fingerprint] = f
	}
	for _, f := range got.Findings {
		b, ok := before[f.Fingerprint]
		if !ok || f.Source == source || f.ArtifactURI == "" {
			continue
		}
		if f.Severity != b.Severity || f.Step != b.Step {
			t.Errorf("%s failed: %s on %s (source %s) went from %s/%s to %s/%s: %s",
				source, f.RuleID, f.ArtifactURI, f.Source, b.Severity, b.Step, f.Severity, f.Step, f.Message)
		}
		if p, q := cfg.DuePolicy.For(b, class[b.BackfillID]).Period, cfg.DuePolicy.For(f, class[f.BackfillID]).Period; p != q {
			t.Errorf("%s failed: %s on %s is due in %s instead of %s", source, f.RuleID, f.ArtifactURI, q, p)
		}
	}
	lcs := map[string]model.Lifecycle{}
	for _, b := range base.Backfills {
		lcs[b.Backfill.ID] = b.Lifecycle
	}
	for _, b := range got.Backfills {
		was, ok := lcs[b.Backfill.ID]
		if !ok {
			continue
		}
		lc := b.Lifecycle
		switch {
		case lc.Done && !was.Done:
			t.Errorf("%s failed: %s became done", source, b.Backfill.ID)
		case was.Done && (lc.State() != "unknown" || !slices.Contains(lc.Unknown, source)):
			t.Errorf("%s failed: %s was done; want unknown naming %s, got %+v", source, b.Backfill.ID, source, lc)
		}
	}
}

// failed is the estate as it reads when source did not answer at all:
// nothing of it, and its coverage failed.
func failed(est *model.Estate, source string) *model.Estate {
	out := clone(est)
	out.Artifacts = slices.DeleteFunc(out.Artifacts, func(a model.Artifact) bool { return a.Source == source })
	out.Backfills = slices.DeleteFunc(out.Backfills, func(b model.Backfill) bool { return b.Source.Source == source })
	out.Records = slices.DeleteFunc(out.Records, func(r model.DecisionRecord) bool { return r.Source.Source == source })
	for i := range out.Coverage {
		if out.Coverage[i].Source == source {
			out.Coverage[i] = model.Coverage{Source: source, System: out.Coverage[i].System, Status: model.CoverageFailed, Error: "connection refused"}
		}
	}
	return out
}

func clone(est *model.Estate) *model.Estate {
	c := *est
	c.Artifacts = slices.Clone(est.Artifacts)
	c.Backfills = slices.Clone(est.Backfills)
	c.Records = slices.Clone(est.Records)
	c.Coverage = slices.Clone(est.Coverage)
	return &c
}
