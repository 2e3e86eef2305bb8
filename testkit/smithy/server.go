package smithy

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Call is one request that keeps the model: the operation and its input,
// keyed by the model's member names (see value.go for the Go types).
type Call struct {
	Operation string
	Input     map[string]any
}

// Error is an error a Handler answers. Code is the error shape's name as
// the SDK's types name it (NoSuchEntityException, EntityNotFoundException)
// or its awsQuery code (NoSuchEntity); the status and the wire code are
// then the model's. A code the model does not have (AccessDenied,
// Throttling, InternalFailure: AWS's common errors, which models leave out)
// is sent as given, with Status or else 400.
type Error struct {
	Code    string
	Message string
	Status  int
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Handler answers a checked call with the output's members (keyed by the
// model's member names) or an error. It is called from the server's
// goroutines, at once when the client calls at once: guard what it shares.
type Handler func(c Call) (output map[string]any, err *Error)

// Server is a fake of one service, or of several at one address: every
// request is checked against the model before the handler sees it, and
// every answer is checked before it is sent. A request or an answer that
// breaks the model fails the test.
type Server struct {
	URL string

	t    testing.TB
	done chan struct{}

	mu       sync.Mutex
	services []service
	calls    []string
	stall    time.Duration
}

type service struct {
	m *Model
	h Handler
}

// NewServer starts a fake of m on 127.0.0.1, closed when the test ends.
func NewServer(t testing.TB, m *Model, h Handler) *Server {
	s := &Server{t: t, done: make(chan struct{}), services: []service{{m, h}}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = srv.URL
	t.Cleanup(func() {
		close(s.done) // lets stalled answers go before Close waits for them
		srv.Close()
	})
	return s
}

// Add serves another service at the same address, as AWS's SDK reaches
// every service at one endpoint when it is given one (awsconf's
// Settings.Endpoint): STS beside IAM, say. Requests are told apart by the
// service their SigV4 signature names.
func (s *Server) Add(m *Model, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.services = append(s.services, service{m, h})
}

// Calls lists the operations served so far, in order.
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

// Stall holds every later answer for d, or until the client gives up; 0
// ends it. For tests of deadlines.
func (s *Server) Stall(d time.Duration) {
	s.mu.Lock()
	s.stall = d
	s.mu.Unlock()
}

// credentialScope finds the service in a SigV4 Authorization header:
// Credential=AKID/20261207/us-east-1/sts/aws4_request.
var credentialScope = regexp.MustCompile(`Credential=[^/,]+/[^/,]+/[^/,]+/([^/,]+)/aws4_request`)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Amzn-RequestId", requestID) // the JSON protocols' place for it
	s.mu.Lock()
	services, stall := s.services, s.stall
	s.mu.Unlock()
	sv := services[0]
	if len(services) > 1 {
		var signed string
		if m := credentialScope.FindStringSubmatch(r.Header.Get("Authorization")); m != nil {
			signed = m[1]
		}
		i := slices.IndexFunc(services, func(sv service) bool { return sv.m.signingName == signed })
		if i < 0 {
			s.t.Errorf("smithy: a request signed for service %q, which this fake does not serve: %s %s", signed, r.Method, r.URL.Path)
			http.Error(w, "no such service here", http.StatusBadRequest)
			return
		}
		sv = services[i]
	}
	m := sv.m
	call, _, ok := m.checkServed(s.t, w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	s.calls = append(s.calls, call.Operation)
	s.mu.Unlock()
	if stall > 0 {
		select {
		case <-time.After(stall):
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
	}
	op := m.ops[call.Operation]
	out, e := sv.h(call)
	if e != nil {
		if err := m.writeError(w, op, e); err != nil {
			s.t.Errorf("smithy: the fake %s answers %s with an error the model does not allow: %v", m.Service, op.name, err)
		}
		return
	}
	if out == nil {
		out = map[string]any{}
	}
	v, err := reader{}.value(op.output, "", out, "")
	if err != nil {
		s.t.Errorf("smithy: the fake %s answers %s with an output the model does not allow: %v", m.Service, op.name, err)
		_ = m.writeError(w, nil, &Error{Code: "SmithyContractViolation", Message: "the fake's answer breaks the model: " + err.Error(), Status: 500})
		return
	}
	switch m.Protocol {
	case awsQuery:
		m.writeQuery(w, op, v.(map[string]any))
	case restJSON1:
		m.writeREST(w, op, v.(map[string]any))
	default:
		m.writeJSON(w, op, v.(map[string]any))
	}
}

// Checking puts the model's check in front of another fake (goaws for SNS):
// a request that breaks the model fails the test and is answered 400; the
// others go on to next, body intact.
func Checking(m *Model, t testing.TB, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, body, ok := m.checkServed(t, w, r); ok {
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
		}
	})
}

// maxBody bounds a request body; the SDK's are far smaller.
const maxBody = 16 << 20

// requestID is what every answer gives as its request id.
const requestID = "00000000-0000-4000-8000-000000000000"

func (m *Model) checkServed(t testing.TB, w http.ResponseWriter, r *http.Request) (Call, []byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err == nil && len(body) > maxBody {
		err = fmt.Errorf("the body is larger than %d bytes", maxBody)
	}
	var call Call
	if err == nil {
		call, err = m.Check(r, body)
	}
	if err != nil {
		t.Errorf("smithy: a request breaks the %s model: %s %s: %v", m.Service, r.Method, r.URL.Path, err)
		_ = m.writeError(w, nil, &Error{Code: "SmithyContractViolation", Message: err.Error(), Status: http.StatusBadRequest})
		return Call{}, nil, false
	}
	return call, body, true
}

// Check identifies a request's operation by the model's protocol and reads
// its input, or says in one line how the request breaks the model: an
// unknown operation or member, a required member missing, a value of the
// wrong type or outside the model's enum, a wrong Version (awsQuery).
func (m *Model) Check(r *http.Request, body []byte) (Call, error) {
	switch m.Protocol {
	case awsQuery:
		return m.checkQuery(r, body)
	case restJSON1:
		return m.checkREST(r, body)
	}
	return m.checkJSON(r, body)
}

// writeError answers e in the protocol's form. It says when e is an error
// of the model that op does not list: a fake must not invent one.
func (m *Model) writeError(w http.ResponseWriter, op *operation, e *Error) error {
	s := m.errors[e.Code]
	status, code := cmp.Or(e.Status, http.StatusBadRequest), e.Code
	var problem error
	if s != nil {
		status = cmp.Or(e.Status, s.httpStatus, http.StatusBadRequest)
		if s.fault == "server" {
			status = cmp.Or(e.Status, s.httpStatus, http.StatusInternalServerError)
		}
		code = s.name
		if op != nil && op.errors[s.name] == nil {
			problem = fmt.Errorf("%s is not among the errors of %s", s.name, op.name)
		}
	}
	switch m.Protocol {
	case awsQuery:
		if s != nil {
			status = cmp.Or(e.Status, s.queryStatus, status)
			code = cmp.Or(s.queryCode, s.name)
		}
		writeQueryError(w, status, code, e.Message)
	case restJSON1:
		writeRESTError(w, status, code, e.Message, s)
	default:
		m.writeJSONError(w, status, code, e.Message, s)
	}
	return problem
}

// AWSConfig points an SDK client at a fake: region us-east-1, static test
// credentials (no real credential is read), BaseEndpoint url, and no
// retries, so that an error answered is the error returned.
func AWSConfig(url string) aws.Config {
	return aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDSMITHYFAKE", "smithy-fake-secret", ""),
		BaseEndpoint: aws.String(url),
		Retryer:      func() aws.Retryer { return aws.NopRetryer{} },
	}
}
