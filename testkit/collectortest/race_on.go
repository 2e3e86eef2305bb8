//go:build race

package collectortest

// collectLimit is longer under the race detector, which makes decoding a
// large answer (the hostile suite's 50 MB one) several times slower.
const collectLimit = 90e9 // 90s, as a time.Duration

// HostileCallTimeout is longer under the race detector too: reading 16 MiB
// took 4s on a loaded 2-core machine (see race_off.go).
const HostileCallTimeout = 12e9 // 12s, as a time.Duration
