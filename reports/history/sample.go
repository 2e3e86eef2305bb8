package history

import _ "embed"

//go:embed sample.yaml
var sample string

// SampleConfig is the `history` section with every key and its default.
func SampleConfig() string { return sample }
