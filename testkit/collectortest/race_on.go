//go:build race

package collectortest

// collectLimit is longer under the race detector, which makes decoding a
// large answer (the hostile suite's 50 MB one) several times slower.
const collectLimit = 90e9 // 90s, as a time.Duration
