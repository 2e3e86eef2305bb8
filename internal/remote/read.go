package remote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// TooLargeError is an answer longer than the most its reader accepts.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("answer larger than %s: not read further", size(e.Max))
}

// IsTooLarge reports an answer cut off at its cap. Asking again gets the
// same answer, so it is never retried.
func IsTooLarge(err error) bool {
	var e *TooLargeError
	return errors.As(err, &e)
}

func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadAll reads r to its end, accepting at most max bytes: an answer of
// exactly max bytes is read whole, one byte more is a *TooLargeError.
func ReadAll(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &TooLargeError{Max: max}
	}
	return b, nil
}

// CappedBody wraps a body so that reading past max bytes fails with a
// *TooLargeError instead of ending quietly: a cut-off answer is never
// decoded as a short, complete one. A body of exactly max bytes reads
// whole. For transports whose callers (generated clients) read the body
// themselves; code that reads a body itself calls ReadAll.
func CappedBody(rc io.ReadCloser, max int64) io.ReadCloser {
	return &cappedBody{rc: rc, left: max, max: max}
}

type cappedBody struct {
	rc        io.ReadCloser
	left, max int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the cap from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, &TooLargeError{Max: b.max}
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// DecodeJSON reads at most max bytes of r and decodes them into out. An
// empty answer or JSON null is an error: every API bfaudit reads answers
// an object or a list where it answers at all, and taking "nothing" for
// "none" would read a broken answer as an empty estate.
func DecodeJSON(r io.Reader, max int64, out any) error {
	body, err := ReadAll(r, max)
	if err != nil {
		return err
	}
	return Unmarshal(body, out)
}

// Unmarshal is DecodeJSON for an answer already read. Its errors never
// quote the answer (a proxy's page can echo a credential): they say where
// the JSON broke or which field had the wrong type.
func Unmarshal(body []byte, out any) error {
	t := bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return errors.New("the answer is empty or null, not the object or list the API returns")
	}
	if err := json.Unmarshal(t, out); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("decode answer: the answer is not JSON (offset %d)", se.Offset)
		case errors.As(err, &te):
			return fmt.Errorf("decode answer: the answer does not have the API's shape: %s is a JSON %s", orTop(te.Field), te.Value)
		}
		return errors.New("decode answer: the answer does not have the API's shape")
	}
	return nil
}

func orTop(field string) string {
	if field == "" {
		return "the document"
	}
	return "field " + field
}

// Peek reads up to n bytes of resp's body and leaves the body readable
// from its start for whoever decodes it next (a client library).
func Peek(resp *http.Response, n int64) []byte {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, n))
	rest := resp.Body
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), rest), rest}
	return b
}

// Drain reads what is left of a body, up to 64 KiB, and closes it, so the
// connection can carry the next call; a longer body is cut off (the
// connection is then not reused, which is cheaper than reading it).
func Drain(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	body.Close()
}

// MaxObjectAnswer caps the answer about one object (a queue, a DAG, a
// silence, a flag): a few kilobytes are expected.
const MaxObjectAnswer = 4 << 20

// CapAnswers wraps base so that every answer's body is capped at max
// (reading past it is a *TooLargeError; a declared length past it fails
// the call at once), for clients that read bodies themselves: Google's
// generated clients, the AWS SDK.
func CapAnswers(base http.RoundTripper, max int64) http.RoundTripper {
	return cappedTransport{base: base, max: max}
}

type cappedTransport struct {
	base http.RoundTripper
	max  int64
}

func (t cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.max {
		resp.Body.Close()
		return nil, &TooLargeError{Max: t.max}
	}
	resp.Body = CappedBody(resp.Body, t.max)
	return resp, nil
}
