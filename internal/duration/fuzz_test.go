package duration

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzParseDuration: no panic, no wrap-around: whatever parses is within
// MaxDuration, a whole-day value is exactly that many days, and an error
// names the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"30d", "72h", "1h30m", "-2d", "100000d", "213504d", "106752d", "99999999999999999999d", "2562047h", "0", "d", "-d", " 7d ", "1.5d", "+3d", "٣d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(strings.TrimSpace(s))) {
				t.Fatalf("error %q does not name the input %q", err, s)
			}
			return
		}
		if d > MaxDuration || d < -MaxDuration {
			t.Fatalf("Parse(%q) = %v, beyond the limit", s, d)
		}
		if num, ok := strings.CutSuffix(strings.TrimSpace(s), "d"); ok && wholeNumber(num) && d%(24*time.Hour) != 0 {
			t.Fatalf("Parse(%q) = %v, not whole days", s, d)
		}
	})
}
