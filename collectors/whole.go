package collectors

import "context"

// Whole is embedded by a collector read in one go, which needs nothing
// from its Env: test fakes, mostly. Its one unit is the whole source.
type Whole struct{}

// Init takes nothing from the Env.
func (Whole) Init(Env) error { return nil }

// Units declares the whole source.
func (Whole) Units(context.Context) ([]string, error) { return []string{""}, nil }
