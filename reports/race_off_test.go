//go:build !race

package reports

const raceDetector = false
