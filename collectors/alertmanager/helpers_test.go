package alertmanager

import (
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
)

func decode(entry map[string]any) (collectors.Instance, error) {
	return collectors.Decode(entry, correlate.MustSelector())
}
