//go:build !race

package collectortest

// collectLimit bounds one Collect (see Collect).
const collectLimit = 20e9 // 20s, as a time.Duration

// HostileCallTimeout is the per-call timeout to give a collector under
// the hostile suite when its deadline covers reading the answer (the AWS
// SDK's calls through awsconf): long enough to read an answer up to its
// 16 MiB cap on a loaded machine, so the over-the-cap case fails on the
// cap, not on the clock.
const HostileCallTimeout = 3e9 // 3s, as a time.Duration
