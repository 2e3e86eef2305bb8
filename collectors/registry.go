package collectors

import (
	"fmt"
	"sort"
	"sync"
)

// Factory returns a fresh collector with its defaults filled in. The config
// loader decodes the source's settings into the returned value (mapstructure
// tags), so it must be a pointer to a struct.
type Factory func() Collector

var (
	mu       sync.RWMutex
	registry = map[string]Factory{}
)

// Register makes a collector type available by name. It is meant to be
// called from init; registering a name twice is a programming error.
func Register(name string, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("collectors: %q registered twice", name))
	}
	registry[name] = f
}

// Lookup returns the factory for a collector type.
func Lookup(name string) (Factory, bool) {
	mu.RLock()
	defer mu.RUnlock()
	f, ok := registry[name]
	return f, ok
}

// Names lists the registered collector types, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
