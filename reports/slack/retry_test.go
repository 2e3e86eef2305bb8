package slack

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// The retry budget is the Post's, across its calls: once the digest's 429s
// have used it all, a 429 on the next message fails at once, not after a
// wait.
func TestRetryBudgetSpentRefusesTheNextWait(t *testing.T) {
	f := newFakeSlack(t)
	f.Users["alice@example.com"] = "U0ALICE"
	f.Answer = func(n int, w http.ResponseWriter) bool {
		switch {
		case n == 3:
			return false
		case n < 3:
			w.Header().Set("Retry-After", "30")
		default:
			w.Header().Set("Retry-After", "1")
		}
		w.WriteHeader(http.StatusTooManyRequests)
		return true
	}
	var waits []time.Duration
	owners := model.Owners{"alice": {Email: "alice@example.com"}}
	s := newBotSink(t, f, Config{Period: PeriodEvery, OwnerMessages: true}, owners, nil,
		WithSleep(func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }))
	_, err := s.Post(context.Background(), estate(day(0), 2))
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "retry budget") {
		t.Fatalf("Post = %v, want ErrIncomplete saying the retry budget is spent", err)
	}
	if want := []time.Duration{30 * time.Second, 30 * time.Second}; !slices.Equal(waits, want) {
		t.Errorf("waited %v, want %v and nothing more", waits, want)
	}
}
