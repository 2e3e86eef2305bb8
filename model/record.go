package model

import "time"

// DecisionRecord is the archived account of a backfill
// (docs/practice.md, "Close the loop in order", fourth step).
type DecisionRecord struct {
	BackfillID        string   `json:"backfill_id"`
	Purpose           string   `json:"purpose,omitempty"`
	Range             Interval `json:"range,omitzero"`
	JobID             string   `json:"job_id,omitempty"`
	ValidationQuery   string   `json:"validation_query,omitempty"`
	ApprovingOwner    string   `json:"approving_owner,omitempty"`
	FinalDataLocation string   `json:"final_data_location,omitempty"`
	// Checkpoint is what the replay's checkpoint state held when it ended
	// (docs/practice.md, "Inventory the machinery": its final range and
	// replay id go into the decision record).
	Checkpoint *CheckpointRecord `json:"checkpoint,omitempty"`
	ArchivedAt time.Time         `json:"archived_at,omitzero"`
	Source     Location          `json:"source,omitzero"`
	// CodeOwners are the owners a CODEOWNERS file gives the record's file.
	CodeOwners []string `json:"code_owners,omitempty"`

	// Key is BackfillID in its normal form, set by correlate; not saved.
	Key BackfillID `json:"-"`
}

// CheckpointRecord is the decision record's account of checkpoint state.
type CheckpointRecord struct {
	FinalRange string `json:"final_range,omitempty"` // the last processed range or offsets
	ReplayID   string `json:"replay_id,omitempty"`   // the replay's id in its system (a consumer group, a job run)
	Location   string `json:"location,omitempty"`    // where the state was, or is kept
}

// HoldsCheckpoint reports whether the record keeps the checkpoint's final
// range and replay id.
func (r DecisionRecord) HoldsCheckpoint() bool {
	return r.Checkpoint != nil && r.Checkpoint.FinalRange != "" && r.Checkpoint.ReplayID != ""
}

// Archived reports whether the record has been archived.
func (r DecisionRecord) Archived() bool { return !r.ArchivedAt.IsZero() }

// MissingFields names the fields the practice requires that the record lacks.
func (r DecisionRecord) MissingFields() []string {
	var missing []string
	add := func(ok bool, name string) {
		if !ok {
			missing = append(missing, name)
		}
	}
	add(r.Purpose != "", "purpose")
	add(!r.Range.IsZero(), "range")
	add(r.JobID != "", "job_id")
	add(r.ValidationQuery != "", "validation_query")
	add(r.ApprovingOwner != "", "approving_owner")
	add(r.FinalDataLocation != "", "final_data_location")
	return missing
}
