package audit

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// SaveEstate writes an estate as JSON, so it can be audited elsewhere.
func SaveEstate(path string, est *model.Estate) error {
	b, err := json.MarshalIndent(est, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write estate: %w", err)
	}
	return nil
}

// LoadEstate reads an estate saved by SaveEstate; errors name the file and
// what is wrong with it.
func LoadEstate(path string) (*model.Estate, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("estate %s: %w", path, err)
	}
	var est model.Estate
	if err := json.Unmarshal(b, &est); err != nil {
		var se *json.SyntaxError
		if ok := asSyntax(err, &se); ok {
			line := 1
			for _, c := range b[:min(int(se.Offset), len(b))] {
				if c == '\n' {
					line++
				}
			}
			return nil, fmt.Errorf("estate %s:%d: %v", path, line, err)
		}
		return nil, fmt.Errorf("estate %s: %v", path, err)
	}
	if est.Version != model.EstateVersion {
		return nil, fmt.Errorf("estate %s: version: got %d, this bfaudit reads version %d (save it again with `bfaudit collect`)", path, est.Version, model.EstateVersion)
	}
	for i, a := range est.Artifacts {
		if a.URI == "" || !a.Kind.IsValid() {
			return nil, fmt.Errorf("estate %s: artifacts[%d]: needs a uri and a known kind (got kind %q)", path, i, a.Kind)
		}
	}
	collectors.Sort(&est)
	return &est, nil
}

func asSyntax(err error, target **json.SyntaxError) bool {
	se, ok := err.(*json.SyntaxError)
	if ok {
		*target = se
	}
	return ok
}
