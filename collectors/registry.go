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

// kind is a registered collector type.
type kind struct {
	new    Factory
	sample string
}

var (
	mu       sync.RWMutex
	registry = map[string]kind{}
)

// Register makes a collector type available by name, with its documented
// sample source entry (its embedded sample.yaml), which `bfaudit config
// sample` prints. It is meant to be called from init; registering a name
// twice is a programming error.
func Register[C Collector](name string, newC func() C, sample string) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("collectors: %q registered twice", name))
	}
	registry[name] = kind{new: func() Collector { return newC() }, sample: sample}
}

// Lookup returns the factory for a collector type.
func Lookup(name string) (Factory, bool) {
	mu.RLock()
	defer mu.RUnlock()
	k, ok := registry[name]
	return k.new, ok
}

// Sample returns the documented sample source entry of a collector type,
// "" for a type not registered.
func Sample(name string) string {
	mu.RLock()
	defer mu.RUnlock()
	return registry[name].sample
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
