package remote

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// An answer of exactly the cap is read; one byte more is refused, by
// ReadAll and by a capped body alike.
func TestReadAcceptsExactlyTheCap(t *testing.T) {
	const max = 16
	exact, over := strings.Repeat("x", max), strings.Repeat("x", max+1)
	if b, err := ReadAll(strings.NewReader(exact), max); err != nil || len(b) != max {
		t.Errorf("ReadAll(exactly the cap) = %d bytes, %v", len(b), err)
	}
	if _, err := ReadAll(strings.NewReader(over), max); !IsTooLarge(err) {
		t.Errorf("ReadAll(cap+1) = %v, want a TooLargeError", err)
	}
	if b, err := io.ReadAll(CappedBody(io.NopCloser(strings.NewReader(exact)), max)); err != nil || len(b) != max {
		t.Errorf("CappedBody(exactly the cap) = %d bytes, %v", len(b), err)
	}
	if _, err := io.ReadAll(CappedBody(io.NopCloser(strings.NewReader(over)), max)); !IsTooLarge(err) {
		t.Errorf("CappedBody(cap+1) = %v, want a TooLargeError", err)
	}
	if err := (&TooLargeError{Max: 64 << 20}); err.Error() != "answer larger than 64 MiB: not read further" {
		t.Errorf("message: %s", err)
	}
}

func TestDecodeJSONRefusesEmptyAndNull(t *testing.T) {
	var out []int
	for _, body := range []string{"", "  ", "null", " null\n"} {
		if err := DecodeJSON(strings.NewReader(body), 1<<10, &out); err == nil || !strings.Contains(err.Error(), "empty or null") {
			t.Errorf("DecodeJSON(%q) = %v, want an empty-or-null error", body, err)
		}
	}
	if err := DecodeJSON(strings.NewReader("[1,2]"), 1<<10, &out); err != nil || len(out) != 2 {
		t.Errorf("DecodeJSON([1,2]) = %v, %v", out, err)
	}
	if err := DecodeJSON(strings.NewReader("[1,"), 1<<10, &out); err == nil || !strings.Contains(err.Error(), "decode answer") {
		t.Errorf("DecodeJSON(truncated) = %v", err)
	}
}

// Peek leaves the whole body readable; Drain closes it.
func TestPeekLeavesTheBodyWhole(t *testing.T) {
	body := strings.Repeat("rate limit ", 1000)
	resp := &http.Response{Body: io.NopCloser(strings.NewReader(body))}
	if got := Peek(resp, 10); string(got) != body[:10] {
		t.Errorf("Peek = %q", got)
	}
	if rest, _ := io.ReadAll(resp.Body); string(rest) != body {
		t.Errorf("after Peek the body reads %d bytes, want %d", len(rest), len(body))
	}
}
