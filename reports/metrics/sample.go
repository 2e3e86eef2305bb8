package metrics

import _ "embed"

//go:embed sample.yaml
var sample string

// SampleConfig is the `metrics` section with every key and its default.
func SampleConfig() string { return sample }
