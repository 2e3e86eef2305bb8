package remote

import (
	"net/http"
	"testing"
	"time"
)

func TestAnswerRetryAfterReadsTheAnswersDate(t *testing.T) {
	date := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC) // far from the local clock
	at := func(d time.Duration) string { return date.Add(d).Format(http.TimeFormat) }
	tests := []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{"seconds with a Date", http.Header{"Retry-After": {"7"}, "Date": {at(0)}}, 7 * time.Second},
		{"a date against the answer's Date", http.Header{"Retry-After": {at(90 * time.Second)}, "Date": {at(0)}}, 90 * time.Second},
		{"a date already past", http.Header{"Retry-After": {at(0)}, "Date": {at(time.Minute)}}, 0},
		{"a date without a Date", http.Header{"Retry-After": {at(90 * time.Second)}}, 0},
		{"none", http.Header{"Date": {at(0)}}, 0},
	}
	for _, tt := range tests {
		if got := AnswerRetryAfter(tt.h); got != tt.want {
			t.Errorf("%s: AnswerRetryAfter = %s, want %s", tt.name, got, tt.want)
		}
	}
}
