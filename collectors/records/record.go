package records

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/internal/safefile"
	"github.com/bfaudit/bfaudit/model"
)

// recordDoc is the YAML front matter of a decision record
// (docs/practice.md: purpose, range, job id, validation query,
// approving owner, and where final data now lives).
type recordDoc struct {
	BackfillID        string         `yaml:"backfill_id"`
	Purpose           string         `yaml:"purpose"`
	Range             rangeDoc       `yaml:"range"`
	JobID             string         `yaml:"job_id"`
	ValidationQuery   string         `yaml:"validation_query"`
	ApprovingOwner    string         `yaml:"approving_owner"`
	FinalDataLocation string         `yaml:"final_data_location"`
	Checkpoint        *checkpointDoc `yaml:"checkpoint"`
	ArchivedAt        timeValue      `yaml:"archived_at"`
}

// checkpointDoc is the record's account of the replay's checkpoint state.
type checkpointDoc struct {
	FinalRange string `yaml:"final_range"`
	ReplayID   string `yaml:"replay_id"`
	Location   string `yaml:"location"`
}

// ReadRecordFile parses a decision record: Markdown with YAML front matter.
func ReadRecordFile(path string) (model.DecisionRecord, error) {
	b, err := safefile.ReadLimit(path, maxFileBytes)
	if err != nil {
		return model.DecisionRecord{}, &PlanError{Path: path, Err: safefile.PlainError(path, err)}
	}
	return ParseRecord(path, b)
}

// ParseRecord parses one decision record's text.
func ParseRecord(path string, data []byte) (model.DecisionRecord, error) {
	front, offset, err := frontMatter(data)
	if err != nil {
		return model.DecisionRecord{}, &PlanError{Path: path, Line: 1, Err: err}
	}
	dec := yaml.NewDecoder(bytes.NewReader(front))
	dec.KnownFields(true)
	var d recordDoc
	if err := dec.Decode(&d); errors.Is(err, io.EOF) {
		return model.DecisionRecord{}, &PlanError{Path: path, Line: 1 + offset, Err: errors.New("front matter is empty; a decision record names at least backfill_id")}
	} else if err != nil {
		var node yaml.Node
		if yaml.Unmarshal(front, &node) != nil || len(node.Content) == 0 {
			pe := &PlanError{Path: path}
			pe.Line, pe.Err = splitLine(cleanYAMLError(err))
			if pe.Line > 0 {
				pe.Line += offset
			}
			return model.DecisionRecord{}, pe
		}
		return model.DecisionRecord{}, explain(path, "", node.Content[0], recordDocType, err, offset)
	}
	if d.BackfillID == "" {
		return model.DecisionRecord{}, &PlanError{Path: path, Line: 1 + offset, Key: "backfill_id",
			Err: errors.New("missing; a decision record names the backfill it archives")}
	}
	var cp *model.CheckpointRecord
	if c := d.Checkpoint; c != nil {
		cp = &model.CheckpointRecord{FinalRange: c.FinalRange, ReplayID: c.ReplayID, Location: c.Location}
	}
	return model.DecisionRecord{
		BackfillID: d.BackfillID, Purpose: d.Purpose, Checkpoint: cp,
		Range: model.Interval{Start: d.Range.Start.Time, End: d.Range.End.Time, TimeZone: d.Range.TimeZone},
		JobID: d.JobID, ValidationQuery: d.ValidationQuery, ApprovingOwner: d.ApprovingOwner,
		FinalDataLocation: d.FinalDataLocation, ArchivedAt: d.ArchivedAt.Time,
		Source: model.Location{Path: path, Line: 1},
	}, nil
}

// frontMatter returns the YAML between the opening and closing "---" lines
// and the number of lines before it, so YAML line numbers map to the file.
func frontMatter(data []byte) ([]byte, int, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) == 0 || string(bytes.TrimSpace(lines[0])) != "---" {
		return nil, 0, fmt.Errorf("no YAML front matter: the file must start with a line \"---\"")
	}
	var front []byte
	for _, l := range lines[1:] {
		if string(bytes.TrimSpace(l)) == "---" {
			return front, 1, nil
		}
		front = append(front, l...)
	}
	return nil, 0, fmt.Errorf("front matter is not closed: add a line \"---\" after it")
}
