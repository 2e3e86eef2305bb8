package slack

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// A Web API answer of exactly the cap is read whole; one byte more is
// refused as unexpected, never decoded as a short answer.
func TestAnswerCapAcceptsExactlyTheCap(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
		ok   bool
	}{
		{"exactly the cap", maxAnswer, true},
		{"one byte more", maxAnswer + 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeSlack(t)
			f.Answer = func(_ int, w http.ResponseWriter) bool {
				head, tail := `{"ok":true,"channel":"C1","ts":"1700000000.000100","pad":"`, `"}`
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(head + strings.Repeat("a", tc.size-len(head)-len(tail)) + tail))
				return true
			}
			s := newBotSink(t, f, Config{Period: PeriodEvery}, nil, nil)
			res, err := s.Post(context.Background(), estate(day(0), 2))
			if tc.ok && (err != nil || !res.Posted) {
				t.Fatalf("Post = %+v, %v; want the answer of %d bytes read", res, err, tc.size)
			}
			if !tc.ok && (!errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "unexpected answer")) {
				t.Fatalf("Post = %v; want an unexpected answer", err)
			}
		})
	}
}
