package slack

import _ "embed"

//go:embed sample.yaml
var sample string

// SampleConfig is the `slack` section with every key and its default.
func SampleConfig() string { return sample }
