package alertmanager

import (
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
)

func decode(entry map[string]any) (collectors.Instance, error) {
	return collectors.Decode(entry, collectors.Env{})
}

// env is what the audit hands a source named name: a fresh selector and
// the wall clock.
func env(name string) collectors.Env {
	return collectors.Env{Source: name, Selector: correlate.MustSelector(), Now: time.Now}
}
