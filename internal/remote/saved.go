package remote

import (
	"fmt"

	"github.com/bfaudit/bfaudit/internal/safefile"
)

// ReadSaved decodes one saved API answer, name (slash-separated) under
// dir, into out, for the collectors that audit an export instead of a live
// server; found is false when the file does not exist. Errors name the
// file (see safefile.ReadSaved) and never quote it (see Unmarshal).
func ReadSaved(dir, name string, limit int64, out any) (found bool, err error) {
	b, found, err := safefile.ReadSaved(dir, name, limit)
	if !found || err != nil {
		return found, err
	}
	if err := Unmarshal(b, out); err != nil {
		return true, fmt.Errorf("%s: %w", name, err)
	}
	return true, nil
}
