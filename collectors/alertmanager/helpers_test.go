package alertmanager

import (
	"github.com/bfaudit/bfaudit/collectors"
)

func decode(entry map[string]any) (collectors.Instance, error) {
	return collectors.Decode(entry, collectors.Env{})
}
