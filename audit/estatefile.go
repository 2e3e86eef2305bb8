package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/safefile"
	"github.com/bfaudit/bfaudit/model"
)

// SaveEstate writes an estate as JSON, so it can be audited elsewhere.
// Empty lists are written as [] (never null), which LoadEstate requires.
func SaveEstate(path string, est *model.Estate) error {
	out := *est
	out.Backfills = orEmpty(out.Backfills)
	out.Artifacts = orEmpty(out.Artifacts)
	out.Records = orEmpty(out.Records)
	out.Coverage = orEmpty(out.Coverage)
	b, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write estate: %w", err)
	}
	return nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// LoadEstate reads an estate saved by SaveEstate; errors name the file and
// what is wrong with it. Only a regular file is read, and an estate that
// says nothing (an empty file, a list that is null or missing) is an
// error, not an empty estate: audited, it would resolve every finding.
func LoadEstate(path string) (*model.Estate, error) {
	b, err := safefile.Read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("estate %s: file not found", path)
	case err != nil:
		return nil, fmt.Errorf("estate: %w", err) // safefile names the path
	case len(bytes.TrimSpace(b)) == 0:
		return nil, fmt.Errorf("estate %s: the file is empty (save it again with `bfaudit collect --out`)", path)
	}
	var est model.Estate
	if err := json.Unmarshal(b, &est); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n"))
			return nil, fmt.Errorf("estate %s:%d: %v", path, line, err)
		}
		return nil, fmt.Errorf("estate %s: %v", path, err)
	}
	if est.Version != model.EstateVersion {
		return nil, fmt.Errorf("estate %s: version: got %d, this bfaudit reads version %d (save it again with `bfaudit collect`)", path, est.Version, model.EstateVersion)
	}
	// json leaves a slice nil for null or a missing key, and makes [] an
	// empty non-nil slice.
	for _, l := range []struct {
		key     string
		missing bool
	}{
		{"backfills", est.Backfills == nil}, {"artifacts", est.Artifacts == nil},
		{"records", est.Records == nil}, {"coverage", est.Coverage == nil},
	} {
		if l.missing {
			return nil, fmt.Errorf("estate %s: %s: null or missing where a list is expected (write [] for none)", path, l.key)
		}
	}
	if err := checkEntries(&est); err != nil {
		return nil, fmt.Errorf("estate %s: %w", path, err)
	}
	collectors.Sort(&est)
	return &est, nil
}

// checkEntries refuses entries that are null or lack what identifies them.
func checkEntries(est *model.Estate) error {
	for i, a := range est.Artifacts {
		if a.URI == "" || !a.Kind.IsValid() {
			return fmt.Errorf("artifacts[%d]: needs a uri and a known kind (got kind %q)", i, a.Kind)
		}
	}
	for i, b := range est.Backfills {
		if b.ID == "" {
			return fmt.Errorf("backfills[%d]: needs an id", i)
		}
	}
	for i, r := range est.Records {
		if r.BackfillID == "" {
			return fmt.Errorf("records[%d]: needs a backfill_id", i)
		}
	}
	for i, c := range est.Coverage {
		if c.Source == "" {
			return fmt.Errorf("coverage[%d]: needs a source", i)
		}
	}
	return nil
}
