package redact

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestErrorLine(t *testing.T) {
	err := ErrorLine(errors.Join(io.ErrUnexpectedEOF, errors.New("upstream said\nAuthorization: Bearer abc.def "+strings.Repeat("x", 300))), 100)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Error("errors.Is lost the original")
	}
	msg := err.Error()
	if strings.Contains(msg, "abc.def") || strings.Contains(msg, "\n") || len([]rune(msg)) > 100 {
		t.Errorf("ErrorLine = %q, want one masked line of at most 100 characters", msg)
	}
	plain := errors.New("plain")
	if ErrorLine(plain, 100) != plain || ErrorLine(nil, 100) != nil {
		t.Error("a clean error (or nil) is not returned as it is")
	}
}
