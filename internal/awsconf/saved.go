package awsconf

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"

	"github.com/bfaudit/bfaudit/internal/safefile"
)

// Saved answers: a source with save_answers writes every answer AWS gave
// it; one with export_dir reads those answers instead of calling AWS (an
// audit of an estate whose credentials stay with its owners, or the
// quickstart). One file per account, region and service,
// <account>/<region>/<service>.jsonl, one exchange a line: the operation,
// its input as the SDK was given it (nulls left out), and the answer's
// status, headers and body exactly as they came. The answer is replayed
// under the SDK's own decoder, so a saved answer is read as a live one
// is. A request with no saved answer got no answer: its unit fails, and
// nothing it held before is taken for gone.
//
// What is saved is what the collectors asked: listings and descriptions.
// No request's signature or credentials are written; STS is never
// called in an export, nor recorded.

// maxSavedFile caps one file of saved answers.
const maxSavedFile = 256 << 20

// exchange is one line of a saved file.
type exchange struct {
	Operation string              `json:"operation"`
	Input     json.RawMessage     `json:"input"`
	Status    int                 `json:"status"`
	Header    map[string][]string `json:"header,omitempty"`
	Body      string              `json:"body"`
}

// inputKey is the context key of a call's canonical input.
type inputKey struct{}

// keepInput is an Initialize middleware that hands the call's input,
// canonical (sorted keys, no nulls), down to the HTTP client through
// the request's context: the same request has the same input whatever
// the endpoint, address style or signature.
var keepInput = middleware.InitializeMiddlewareFunc("bfauditSavedInput",
	func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		return next.HandleInitialize(context.WithValue(ctx, inputKey{}, canonical(in.Parameters)), in)
	})

func canonical(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	var m any
	if json.Unmarshal(b, &m) != nil {
		return json.RawMessage(`{}`)
	}
	b, _ = json.Marshal(dropNulls(m))
	return b
}

// dropNulls drops what the SDK does not send: nil members and empty
// enums.
func dropNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x == nil || x == "" {
				delete(v, k)
				continue
			}
			v[k] = dropNulls(x)
		}
	case []any:
		for i, x := range v {
			v[i] = dropNulls(x)
		}
	}
	return v
}

// savedPlace names the file of a request: the account the client is
// for, the region and service the SDK is calling.
func savedPlace(ctx context.Context, account string) string {
	service := strings.ToLower(strings.ReplaceAll(awsmiddleware.GetServiceID(ctx), " ", ""))
	return path.Join(account, awsmiddleware.GetRegion(ctx), service+".jsonl")
}

// savedClient is the HTTP client of a source with saved answers: it
// replays them (replay) or writes them (record) for one account; the
// base configuration's (account "") passes the calls that list accounts
// and assume roles through unwritten, and answers none from an export.
type savedClient struct {
	dir     string // resolved
	shown   string // as the config writes it, for errors
	account string
	record  aws.HTTPClient // the client that reaches AWS; nil: replay
	files   *savedFiles
}

// forAccount is cfg for account: a source with saved answers reads and
// writes that account's folder.
func forAccount(cfg aws.Config, account string) aws.Config {
	s, ok := cfg.HTTPClient.(*savedClient)
	if !ok {
		return cfg
	}
	cfg = cfg.Copy()
	c := *s
	c.account = account
	cfg.HTTPClient = &c
	return cfg
}

func (c *savedClient) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	name := savedPlace(ctx, c.account)
	ex := exchange{Operation: awsmiddleware.GetOperationName(ctx)}
	ex.Input, _ = ctx.Value(inputKey{}).(json.RawMessage)
	if c.record != nil {
		resp, err := c.record.Do(req)
		if c.account == "" {
			// The base configuration's calls (STS, Organizations)
			// list accounts and assume roles: never written.
			return resp, err
		}
		if err != nil {
			return nil, err
		}
		// loggedClient read the body whole, under its cap.
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		ex.Status, ex.Header, ex.Body = resp.StatusCode, savedHeader(resp.Header), string(body)
		if err := c.files.append(filepath.Join(c.dir, filepath.FromSlash(name)), ex); err != nil {
			return nil, fmt.Errorf("save_answers %s: %s: %w", c.shown, name, safefile.PlainError("", err))
		}
		return resp, nil
	}
	if c.account == "" {
		return nil, notSaved{fmt.Errorf("export_dir %s: %s is not read from an export", c.shown, ex.Operation)}
	}
	saved, err := c.files.load(c.dir, name)
	if err != nil {
		return nil, notSaved{fmt.Errorf("export_dir %s: %w", c.shown, err)}
	}
	found, ok := saved[ex.Operation+" "+string(ex.Input)]
	if !ok {
		return nil, notSaved{fmt.Errorf("export_dir %s: %s: no saved answer to %s %s", c.shown, name, ex.Operation, ex.Input)}
	}
	resp := &http.Response{StatusCode: found.Status, Status: strconv.Itoa(found.Status) + " " + http.StatusText(found.Status),
		Header: http.Header(found.Header), Body: io.NopCloser(strings.NewReader(found.Body)), Request: req,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, ContentLength: int64(len(found.Body))}
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	return resp, nil
}

// notSaved is a request an export has no answer to: asking again
// finds none either.
type notSaved struct{ error }

func (notSaved) RetryableError() bool { return false }
func (e notSaved) Unwrap() error      { return e.error }

// savedHeader keeps the headers an answer is decoded from (S3 and
// Scheduler put members in them), not those of the moment it was given.
func savedHeader(h http.Header) map[string][]string {
	out := map[string][]string{}
	for k, v := range h {
		switch http.CanonicalHeaderKey(k) {
		case "Date", "X-Amz-Request-Id", "X-Amz-Id-2", "X-Amzn-Requestid", "Set-Cookie", "Connection", "Content-Length":
			continue
		}
		out[k] = v
	}
	return out
}

// savedFiles keeps the files of a source: those read, by name, and a
// lock for those written.
type savedFiles struct {
	mu     sync.Mutex
	loaded map[string]loadedFile
}

type loadedFile struct {
	answers map[string]exchange
	err     error
}

// load reads one file once: the newest answer to each request wins (a
// recording appends). A missing file is an error: that account, region
// or service was not saved, so it did not answer.
func (f *savedFiles) load(dir, name string) (map[string]exchange, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if l, ok := f.loaded[name]; ok {
		return l.answers, l.err
	}
	answers, err := readSaved(dir, name)
	if f.loaded == nil {
		f.loaded = map[string]loadedFile{}
	}
	f.loaded[name] = loadedFile{answers, err}
	return answers, err
}

func readSaved(dir, name string) (map[string]exchange, error) {
	b, found, err := safefile.ReadSaved(dir, name, maxSavedFile)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%s: not saved", name)
	}
	out := map[string]exchange{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxSavedFile)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var ex exchange
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			return nil, fmt.Errorf("%s:%d: not a saved answer (one JSON object a line): %s", name, line, jsonProblem(err))
		}
		if ex.Operation == "" || ex.Status == 0 {
			return nil, fmt.Errorf("%s:%d: operation, status: missing", name, line)
		}
		input := canonical(ex.Input)
		out[ex.Operation+" "+string(input)] = ex
	}
	return out, nil
}

// jsonProblem says what is wrong with a line without quoting it.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return "malformed at byte " + strconv.FormatInt(se.Offset, 10)
	case errors.As(err, &te):
		return te.Field + ": expected " + te.Type.String()
	}
	return "malformed"
}

// append writes one exchange at the end of file p.
func (f *savedFiles) append(p string, ex exchange) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // XML answers stay readable
	if err := enc.Encode(ex); err != nil {
		return err
	}
	line := buf.Bytes()
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := out.Write(line); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
