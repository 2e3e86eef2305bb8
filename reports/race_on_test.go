//go:build race

package reports

// raceDetector: under -race the compiler keeps more values on the heap,
// so allocation bounds measured without it do not hold.
const raceDetector = true
