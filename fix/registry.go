package fix

import (
	"fmt"
	"sync"

	"github.com/bfaudit/bfaudit/collectors"
)

// newSystem builds what acts on one configured source from its collector,
// which holds the source's settings (addresses, credentials, TLS). A nil
// System with no error: the source has nothing to act through.
type newSystem func(c collectors.Collector) (System, error)

var (
	fixableMu sync.RWMutex
	fixable   = map[string]newSystem{}
)

// RegisterSystem makes the sources of one collector type (its name in
// collectors.Register) fixable, the way collectors register themselves:
// each fixable system calls it from init in its own file, fix/<type>.go.
// Registering a type twice is a programming error.
func RegisterSystem[C collectors.Collector](collectorType string, build func(C) (System, error)) {
	fixableMu.Lock()
	defer fixableMu.Unlock()
	if _, dup := fixable[collectorType]; dup {
		panic(fmt.Sprintf("fix: system %q registered twice", collectorType))
	}
	fixable[collectorType] = func(c collectors.Collector) (System, error) {
		typed, ok := c.(C)
		if !ok {
			return nil, nil // not the collector this type registers: nothing to act through
		}
		return build(typed)
	}
}

// systemFor returns how to build the system of a collector type, if it is
// fixable.
func systemFor(collectorType string) (newSystem, bool) {
	fixableMu.RLock()
	defer fixableMu.RUnlock()
	n, ok := fixable[collectorType]
	return n, ok
}
