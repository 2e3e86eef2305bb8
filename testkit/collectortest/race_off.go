//go:build !race

package collectortest

// collectLimit bounds one Collect (see Collect).
const collectLimit = 20e9 // 20s, as a time.Duration
