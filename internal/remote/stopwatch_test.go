package remote

import (
	"testing"
	"time"
)

func TestStopwatchMeasuresElapsedTime(t *testing.T) {
	sw := StartStopwatch()
	time.Sleep(20 * time.Millisecond)
	if d := sw.Elapsed(); d < 20*time.Millisecond || d > 5*time.Second {
		t.Errorf("elapsed %s after a 20ms sleep", d)
	}
}
