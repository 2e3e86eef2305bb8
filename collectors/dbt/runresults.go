package dbt

import (
	"encoding/json"
	"fmt"
	"time"
)

// runResultsVersions are the run_results schemas read: dbt 1.7 (v5) and
// 1.8 onwards (v6).
var runResultsVersions = []string{
	"https://schemas.getdbt.com/dbt/run-results/v5.json",
	"https://schemas.getdbt.com/dbt/run-results/v6.json",
}

// Result is one node's outcome in one run.
type Result struct {
	Status string
	// At is when the node's execution completed: its `execute` timing,
	// else the run's generated_at.
	At time.Time
}

type runResultsDoc struct {
	Metadata struct {
		SchemaVersion *string `json:"dbt_schema_version"`
		GeneratedAt   string  `json:"generated_at"`
	} `json:"metadata"`
	Results *[]resultDoc `json:"results"`
}

type resultDoc struct {
	UniqueID string `json:"unique_id"`
	Status   string `json:"status"`
	Timing   []struct {
		Name        string  `json:"name"`
		CompletedAt *string `json:"completed_at"`
	} `json:"timing"`
}

// ParseRunResults reads one run_results.json into each node's result.
// path names the file in errors.
func ParseRunResults(path string, data []byte) (map[string]Result, error) {
	var doc runResultsDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, jsonError(path, data, err)
	}
	if err := checkVersion(path, doc.Metadata.SchemaVersion, runResultsVersions, "run-results", "v5 and v6 (dbt 1.7 and later)"); err != nil {
		return nil, err
	}
	if doc.Results == nil {
		return nil, fmt.Errorf("%s: results: missing", path)
	}
	var generated time.Time
	if doc.Metadata.GeneratedAt != "" {
		t, err := parseTime(doc.Metadata.GeneratedAt)
		if err != nil {
			return nil, fmt.Errorf("%s: metadata.generated_at: %w", path, err)
		}
		generated = t
	}
	out := make(map[string]Result, len(*doc.Results))
	for i, r := range *doc.Results {
		if r.UniqueID == "" {
			return nil, fmt.Errorf("%s: results[%d].unique_id: missing", path, i)
		}
		if r.Status == "" {
			return nil, fmt.Errorf("%s: results[%d].status: missing", path, i)
		}
		at := generated
		for j, t := range r.Timing {
			if t.Name != "execute" || t.CompletedAt == nil || *t.CompletedAt == "" {
				continue
			}
			c, err := parseTime(*t.CompletedAt)
			if err != nil {
				return nil, fmt.Errorf("%s: results[%d].timing[%d].completed_at: %w", path, i, j, err)
			}
			at = c
		}
		if at.IsZero() {
			return nil, fmt.Errorf("%s: results[%d]: no execute completed_at and no metadata.generated_at: when it ran is unknown", path, i)
		}
		out[r.UniqueID] = Result{Status: r.Status, At: at}
	}
	return out, nil
}

// parseTime reads dbt's timestamps: RFC 3339, with or without a zone
// (dbt writes UTC, older versions without the Z).
func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a timestamp", s)
}
