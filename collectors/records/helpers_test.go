package records

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"gopkg.in/yaml.v3"
)

func yamlUnmarshal(b []byte, v any) error { return yaml.Unmarshal(b, v) }

// inBase initialises r with dir as the config file's folder.
func inBase(t *testing.T, r *Records, dir string) *Records {
	t.Helper()
	if err := r.Init(collectors.Env{Source: "records", BaseDir: dir, Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	return r
}
