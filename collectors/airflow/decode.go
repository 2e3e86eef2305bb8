package airflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxAnswerBytes caps one API answer or one per-DAG export file: a page of
// 100 DAGs is tens of kilobytes, so a larger answer is a misbehaving
// server or proxy, and reading it whole would only fill memory.
const maxAnswerBytes = 32 << 20

// errTooLarge is an answer over maxAnswerBytes.
var errTooLarge = fmt.Errorf("answer larger than %d MiB: refused", maxAnswerBytes>>20)

// decodeAnswer decodes one JSON answer of at most maxAnswerBytes into out
// and checks it is not malformed (a null or absent list). Its errors never
// quote the answer.
func decodeAnswer(r io.Reader, out checker) error {
	lr := &capReader{r: r, left: maxAnswerBytes}
	dec := json.NewDecoder(lr)
	if err := dec.Decode(out); err != nil {
		if lr.over {
			return errTooLarge
		}
		if errors.Is(err, io.EOF) {
			return errors.New("empty answer")
		}
		return fmt.Errorf("decode answer: %w", jsonError(err))
	}
	return out.check()
}

// jsonError keeps the position and kind of a JSON error without the
// value that caused it (which could be anything the server sent).
func jsonError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the answer"
		}
		return fmt.Errorf("%s: expected %s, got JSON %s (byte %d)", field, te.Type, te.Value, te.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("answer ends in the middle of the JSON")
	}
	return err
}

// capReader reads at most left bytes and then fails, so a huge answer is
// an error rather than a silently cut document.
type capReader struct {
	r    io.Reader
	left int64
	over bool
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		c.over = true
		return 0, errTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
