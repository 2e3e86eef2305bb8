package dbt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// runResultsVersions are the run_results schemas read: dbt 1.5 (v4, the
// version dbt 1.0 to 1.5 write), 1.7 (v5) and 1.8 onwards, dbt Fusion
// included (v6).
var runResultsVersions = []string{
	"https://schemas.getdbt.com/dbt/run-results/v4.json",
	"https://schemas.getdbt.com/dbt/run-results/v5.json",
	"https://schemas.getdbt.com/dbt/run-results/v6.json",
}

// runResultsReadable words runResultsVersions for errors.
const runResultsReadable = "v4, v5 and v6 (dbt 1.0 and later, and dbt Fusion)"

// buildingCommands are the dbt commands whose results are builds: each
// node they ran was written to the warehouse. compile, docs generate
// (which: generate), test, show, list (ls), parse, run-operation and
// source freshness write run_results.json too, but build nothing.
var buildingCommands = map[string]bool{"run": true, "build": true, "seed": true, "snapshot": true}

// builtTypes are the node types a build writes: a test's or an
// operation's result in `dbt build` is no table's build.
var builtTypes = map[string]bool{"model": true, "seed": true, "snapshot": true}

// RunResults is what one run_results.json says was built.
type RunResults struct {
	// Command is the dbt command that wrote the file (args.which), ""
	// when the file does not say.
	Command string
	// Results are the builds of each node it ran, by unique_id: only the
	// results of a command that builds, and only of models, seeds and
	// snapshots.
	Results map[string]Result
	// Read is how many results the file holds, builds or not.
	Read int
}

// Builds reports whether the command builds tables.
func (r *RunResults) Builds() bool { return buildingCommands[r.Command] }

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
	Args    struct {
		Which string `json:"which"`
	} `json:"args"`
}

type resultDoc struct {
	UniqueID        string          `json:"unique_id"`
	Status          string          `json:"status"`
	AdapterResponse json.RawMessage `json:"adapter_response"`
	Timing          []struct {
		Name        string  `json:"name"`
		CompletedAt *string `json:"completed_at"`
	} `json:"timing"`
}

// ParseRunResults reads one run_results.json into the builds it holds.
// Only a command that builds (args.which: run, build, seed, snapshot)
// gives builds, and only of models, seeds and snapshots. A file that does
// not name its command (or names one dbt may add, such as retry) gives a
// build for a result only when the warehouse answered its statement (a
// non-empty adapter_response), which compile never has. path names the
// file in errors.
func ParseRunResults(path string, data []byte) (*RunResults, error) {
	var doc runResultsDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, jsonError(path, data, err)
	}
	if err := checkVersion(path, doc.Metadata.SchemaVersion, runResultsVersions, "run-results", runResultsReadable); err != nil {
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
	which := strings.ToLower(strings.TrimSpace(doc.Args.Which))
	out := &RunResults{Command: which, Results: map[string]Result{}, Read: len(*doc.Results)}
	known := buildingCommands[which] || nonBuilding[which]
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
		typ, _, _ := strings.Cut(r.UniqueID, ".")
		switch {
		case !builtTypes[typ], nonBuilding[which]:
			continue
		case !known && !answered(r.AdapterResponse):
			continue
		}
		// dbt Fusion has written statuses capitalised (Success, Error).
		out.Results[r.UniqueID] = Result{Status: strings.ToLower(r.Status), At: at}
	}
	return out, nil
}

// nonBuilding are the commands known to build nothing.
var nonBuilding = map[string]bool{
	"compile": true, "generate": true, "docs": true, "test": true, "show": true, "list": true, "ls": true,
	"parse": true, "run-operation": true, "freshness": true, "source": true, "debug": true, "deps": true, "clean": true,
	"init": true, "clone": true, "serve": true,
}

// answered reports whether an adapter_response says the warehouse ran a
// statement: dbt leaves it {} for what it only compiled.
func answered(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null")) && !bytes.Equal(bytes.Join(bytes.Fields(raw), nil), []byte("{}"))
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
