package correlate

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Index is the estate with every artifact tied to its backfill and every
// backfill merged from what its sources say. Rules read it; it is built in
// one pass over the estate, so evaluation stays linear in its size.
type Index struct {
	Estate *model.Estate
	// Backfills by id, merged from plans and scheduler objects.
	Backfills map[model.BackfillID]*model.Backfill
	// IDs lists the known backfill ids, sorted.
	IDs []model.BackfillID
	// Artifacts are the estate's artifacts, BackfillID set to the canonical
	// spelling of the id and Key to the id where one was found.
	Artifacts []model.Artifact
	// ByBackfill maps an id to indexes into Artifacts.
	ByBackfill map[model.BackfillID][]int
	// Records by id; an archived record wins over a draft.
	Records map[model.BackfillID]*model.DecisionRecord
	// AllRecords are the estate's decision records, drafts beside the
	// archived record that wins, each with its Key.
	AllRecords []model.DecisionRecord
	// Unknown lists ids found on artifacts that no plan, record or
	// scheduler object describes, sorted.
	Unknown []model.BackfillID
	// Remembered says a history store carried into this run what the units
	// that did not answer last held (their open findings). Without one, a
	// unit that did not answer may hide machinery nobody can name, so no
	// backfill is concluded retired while one is silent.
	Remembered bool
	coverage   map[string]model.Coverage
	lineage    lazyLineage
	// recordSources are the sources that reported a decision record.
	recordSources map[string]bool
}

// Correlate builds the index. The selector ties artifacts that collectors
// did not tie themselves (inventory entries, estates saved before a new
// pattern was configured). It is where an evaluation reads backfill ids:
// each plan, record and artifact's id is parsed once, here, into its Key.
func Correlate(est *model.Estate, sel *Selector) *Index {
	if sel == nil {
		sel = MustSelector()
	}
	ix := &Index{
		Estate:        est,
		Backfills:     map[model.BackfillID]*model.Backfill{},
		ByBackfill:    map[model.BackfillID][]int{},
		Records:       map[model.BackfillID]*model.DecisionRecord{},
		coverage:      map[string]model.Coverage{},
		recordSources: map[string]bool{},
	}
	for _, c := range est.Coverage {
		ix.coverage[c.Source] = c
	}
	sel.AddAssets(est.Backfills)
	ix.mergeBackfills(est.Backfills)
	ix.AllRecords = make([]model.DecisionRecord, len(est.Records))
	for i, r := range est.Records {
		r.Key = model.ParseID(r.BackfillID)
		ix.AllRecords[i] = r
		ix.recordSources[r.Source.Source] = true
		if old, ok := ix.Records[r.Key]; !ok || (!old.Archived() && r.Archived()) {
			ix.Records[r.Key] = &ix.AllRecords[i]
		}
	}
	// unknown holds each unknown id once: artifacts share it as their Key.
	unknown := map[model.BackfillID]model.BackfillID{}
	ix.Artifacts = make([]model.Artifact, len(est.Artifacts))
	for i, a := range est.Artifacts {
		if a.BackfillID == "" {
			if id, how, ok := sel.MatchTags(a.URI, a.Name, a.Labels); ok {
				a.BackfillID, a.Correlation = id, how
			}
		} else if a.Correlation == "" {
			a.Correlation = "collector"
		}
		if a.BackfillID != "" {
			// ParseID copies an id spelt otherwise than normally (bf_1234):
			// the artifact keeps the backfill's, record's or first unknown
			// copy instead of its own (2 MB at 100,000 artifacts).
			id := model.ParseID(a.BackfillID)
			if b, ok := ix.Backfills[id]; ok {
				id, a.BackfillID = b.Key, b.ID
			} else if r, ok := ix.Records[id]; ok {
				id, a.BackfillID = r.Key, r.BackfillID
			} else {
				if k, ok := unknown[id]; ok {
					id = k
				} else {
					unknown[id] = id
				}
				a.BackfillID = string(id)
			}
			a.Key = id
			ix.ByBackfill[id] = append(ix.ByBackfill[id], i)
		}
		ix.Artifacts[i] = a
	}
	for id := range unknown {
		ix.Unknown = append(ix.Unknown, id)
	}
	slices.Sort(ix.Unknown)
	for id := range ix.Backfills {
		ix.IDs = append(ix.IDs, id)
	}
	slices.Sort(ix.IDs)
	for _, id := range ix.IDs {
		ix.deriveStatus(ix.Backfills[id])
	}
	return ix
}

// mergeBackfills folds every description of a backfill into one: the plan
// declares intent and wins for what it declares; a scheduler's object adds
// what actually ran.
func (ix *Index) mergeBackfills(all []model.Backfill) {
	sorted := make([]model.Backfill, len(all))
	copy(sorted, all)
	// Plans first, so scheduler evidence is merged into the plan.
	sort.SliceStable(sorted, func(i, j int) bool {
		return sorted[i].Origin == model.OriginPlan && sorted[j].Origin != model.OriginPlan
	})
	for _, b := range sorted {
		id := model.ParseID(b.ID)
		cur, ok := ix.Backfills[id]
		if !ok {
			nb := b
			nb.Key = id
			ix.Backfills[id] = &nb
			continue
		}
		mergeInto(cur, b)
	}
}

func mergeInto(cur *model.Backfill, ev model.Backfill) {
	if ev.Origin == model.OriginPlan && cur.Origin == model.OriginPlan {
		cur.Notes = append(cur.Notes, fmt.Sprintf("also planned in %s; the plan in %s is used", ev.Source, cur.Source))
		return
	}
	if ev.Status.Rank() > cur.Status.Rank() {
		if cur.Status != "" {
			cur.Notes = append(cur.Notes, fmt.Sprintf("plan says %s but %s shows %s", cur.Status, sourceName(ev), ev.Status))
		}
		cur.Status = ev.Status
	} else if ev.Status == model.StatusRunning && cur.Status.Completed() {
		cur.Notes = append(cur.Notes, fmt.Sprintf("plan says %s but %s shows it still running", cur.Status, sourceName(ev)))
	}
	fill(&cur.Timeline.StartedAt, ev.Timeline.StartedAt)
	fill(&cur.Timeline.CompletedAt, ev.Timeline.CompletedAt)
	if cur.Range.IsZero() {
		cur.Range = ev.Range
	}
	if cur.Concurrency == 0 {
		cur.Concurrency = ev.Concurrency
	}
	if cur.JobID == "" {
		cur.JobID = ev.JobID
	}
	if cur.Validation == nil {
		cur.Validation = ev.Validation
	}
	if len(cur.Targets) == 0 {
		cur.Targets = ev.Targets
	}
	// Every scheduler's own account is kept beside the plan's, so rules
	// can tell where they disagree.
	cur.Scheduled = append(slices.Clip(cur.Scheduled), ev.Scheduled...)
	cur.Notes = append(cur.Notes, ev.Notes...)
}

// deriveStatus raises a backfill's status to what the evidence shows: an
// archived decision record means archived, whatever the plan says.
func (ix *Index) deriveStatus(b *model.Backfill) {
	r := ix.Records[b.Key]
	if r != nil && r.Archived() && b.Status.Rank() < model.StatusArchived.Rank() {
		if b.Status != "" {
			b.Notes = append(b.Notes, fmt.Sprintf("plan says %s but the decision record was archived %s", b.Status, r.ArchivedAt.Format("2006-01-02")))
		}
		b.Status = model.StatusArchived
		fill(&b.Timeline.ArchivedAt, r.ArchivedAt)
	}
}

func fill(dst *time.Time, v time.Time) {
	if dst.IsZero() && !v.IsZero() {
		*dst = v
	}
}

func sourceName(b model.Backfill) string {
	if b.Source.Source != "" {
		return b.Source.Source
	}
	return string(b.Origin)
}

// Backfill returns the merged backfill for an id.
func (ix *Index) Backfill(id model.BackfillID) *model.Backfill { return ix.Backfills[id] }

// Record returns the decision record for an id.
func (ix *Index) Record(id model.BackfillID) *model.DecisionRecord { return ix.Records[id] }

// ArtifactsOf returns the artifacts tied to a backfill.
func (ix *Index) ArtifactsOf(id model.BackfillID) []*model.Artifact {
	idx := ix.ByBackfill[id]
	out := make([]*model.Artifact, len(idx))
	for i, j := range idx {
		out[i] = &ix.Artifacts[j]
	}
	return out
}

// Owner is who answers for an artifact: its own owner, else the plan's
// BackfillOwner; "" means unowned (rule BF012).
func (ix *Index) Owner(a *model.Artifact) string {
	// The artifact's own owner (a label, annotation or comment its system
	// keeps) wins: whoever labelled the object said who holds it.
	if a.Owner != "" {
		return a.Owner
	}
	if a.Key == "" {
		return ""
	}
	return ix.BackfillOwner(a.Key)
}

// BackfillOwner is who answers for a backfill, the first found of: the
// plan's owner, the first CODEOWNERS owner of the plan's file, the
// record's approving owner, the first CODEOWNERS owner of the record's
// file. A person or team named in the backfill's own documents comes
// before one a repository rule assigns by path.
func (ix *Index) BackfillOwner(id model.BackfillID) string {
	b, r := ix.Backfill(id), ix.Record(id)
	switch {
	case b != nil && b.Owner != "":
		return b.Owner
	case b != nil && len(b.CodeOwners) > 0:
		return b.CodeOwners[0]
	case r != nil && r.ApprovingOwner != "":
		return r.ApprovingOwner
	case r != nil && len(r.CodeOwners) > 0:
		return r.CodeOwners[0]
	}
	return ""
}

// Answered reports whether a source answered for a scope this run, so that
// an artifact's absence there means it is gone.
func (ix *Index) Answered(source, scope string) bool {
	c, ok := ix.coverage[source]
	if !ok {
		return false
	}
	return c.Answered(scope)
}
