package collectors

import (
	"context"
	"fmt"
	"time"

	"github.com/bfaudit/bfaudit/correlate"
)

// Collector is a configured source. A collector is a UnitCollector; until
// every collector declares its units, one may still read the whole
// source with Collect and take its settings through the setters below.
// This file goes when the last one declares its units.
type Collector = any

// wholeCollector reads a whole source at once.
type wholeCollector interface {
	Collect(ctx context.Context, sink Sink) error
}

// Initializer is implemented by collectors that validate their config
// and build their clients before collecting, without an Env.
type Initializer interface {
	Init() error
}

// Namer takes the source's name.
type Namer interface {
	SetSourceName(name string)
}

// SelectorUser takes the selector.
type SelectorUser interface {
	UseSelector(*correlate.Selector)
}

// BaseDirUser takes the config file's folder.
type BaseDirUser interface {
	SetBaseDir(dir string)
}

// Clocked takes the audit's clock.
type Clocked interface {
	SetClock(now func() time.Time)
}

// Locator takes where the source's keys are in the config file.
type Locator interface {
	SetLocator(where func(key string) string)
}

// initialise hands c its env and runs its Init.
func initialise(c Collector, env Env) error {
	if u, ok := c.(UnitCollector); ok {
		return u.Init(env)
	}
	if n, ok := c.(Namer); ok {
		n.SetSourceName(env.Source)
	}
	if su, ok := c.(SelectorUser); ok {
		su.UseSelector(env.Selector)
	}
	if b, ok := c.(BaseDirUser); ok && env.BaseDir != "" {
		b.SetBaseDir(env.BaseDir)
	}
	if l, ok := c.(Locator); ok && env.Where != nil {
		l.SetLocator(env.Where)
	}
	if k, ok := c.(Clocked); ok {
		k.SetClock(env.Now)
	}
	if in, ok := c.(Initializer); ok {
		return in.Init()
	}
	return nil
}

// Collect reads a whole source into sink, as Run does (without shards).
func Collect(ctx context.Context, c Collector, sink Sink) error {
	return collectSource(ctx, c, sink, nil)
}

func collectSource(ctx context.Context, c Collector, sink Sink, keep func([]string) []string) error {
	switch c := c.(type) {
	case UnitCollector:
		return collectUnits(ctx, c, sink, keep)
	case wholeCollector:
		return c.Collect(ctx, sink)
	}
	return fmt.Errorf("%T is not a collector (it has no Units and CollectUnit)", c)
}
