package airflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxAnswerBytes caps one API answer or one per-DAG export file: a page of
// 100 DAGs is tens of kilobytes, so a larger answer is a misbehaving
// server or proxy, and reading it whole would only fill memory.
const maxAnswerBytes = 32 << 20

// decodeAnswer decodes one JSON answer into out and checks it is not
// malformed (a null or absent list). Its errors never quote the answer.
func decodeAnswer(body []byte, out checker) error {
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(out); err != nil {
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
