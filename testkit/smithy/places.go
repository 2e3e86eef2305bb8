package smithy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The account and keys of a Places fake: requests signed with any key but
// an assumed one are the caller's, in CallerAccount; AssumeRole hands
// each account's role the key AssumedKeyPrefix+account, with
// AssumedSecret and AssumedToken.
const (
	CallerAccount    = "111111111111"
	AssumedKeyPrefix = "ASIAFAKE"
	AssumedSecret    = "canary-assumed-secret-do-not-print"
	AssumedToken     = "canary-assumed-token-do-not-print"
)

// Places is AWS at the one endpoint a source is given (awsconf's
// Settings.Endpoint), for a regional service read in several accounts
// and regions: STS (GetCallerIdentity answers CallerAccount; AssumeRole
// gives each account's role credentials of its own, or refuses it), and
// a fake of the service per account and region, told apart by the key
// and the region the request is signed with. Every request and answer is
// checked against the models, as NewServer's are. A source that reads a
// second service in each place (Glue and Lake Formation) has it served
// beside the first (Also).
type Places struct {
	URL string

	t     testing.TB
	fakes []placeFake
	sts   *Server

	mu      sync.Mutex
	servers map[string]*Server
	broken  map[string]http.Handler // by place, or place/service
	refused map[string]bool
}

// placeFake is a service served in every place, and its handlers.
type placeFake struct {
	m       *Model
	handler func(account, region string) Handler
}

// signedWith reads the access key, region and service of a SigV4
// Authorization header.
var signedWith = regexp.MustCompile(`Credential=([^/,]+)/[^/,]+/([^/,]+)/([^/,]+)/aws4_request`)

// NewPlaces serves m in every account and region, each place answered by
// the Handler handler gives it (asked once, at the place's first request).
func NewPlaces(t testing.TB, m *Model, handler func(account, region string) Handler) *Places {
	p := &Places{t: t, fakes: []placeFake{{m, handler}}, servers: map[string]*Server{}, broken: map[string]http.Handler{}, refused: map[string]bool{}}
	p.sts = NewServer(t, AWS(t, "sts"), p.answerSTS)
	// A broken place may hold its answers (hostile.Stall) until the
	// request ends: when the test ends, every request does.
	ending, end := context.WithCancel(context.Background())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(ending, cancel)()
		p.serve(w, r.WithContext(ctx))
	}))
	t.Cleanup(func() {
		end()
		srv.CloseClientConnections()
		srv.Close()
	})
	p.URL = srv.URL
	return p
}

// Also serves another service in every place, beside the first: each
// place's requests go to the service their signature names. Call it
// before the first request.
func (p *Places) Also(m *Model, handler func(account, region string) Handler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fakes = append(p.fakes, placeFake{m, handler})
}

// Refuse makes AssumeRole refuse the role of account, as AWS does a role
// whose trust policy does not name the caller.
func (p *Places) Refuse(account string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refused[account] = true
}

// Break answers every request of the service in account and region with h
// (a stall, a 500, an answer the service never gives) from now on.
func (p *Places) Break(account, region string, h http.Handler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.broken[account+"/"+region] = h
}

// BreakService is Break for one service of the place only (its signing
// name: "lakeformation"), the others answering as ever.
func (p *Places) BreakService(account, region, service string, h http.Handler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.broken[account+"/"+region+"/"+service] = h
}

// Calls lists the operations served in account and region, in order.
func (p *Places) Calls(account, region string) []string {
	p.mu.Lock()
	s := p.servers[account+"/"+region]
	p.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.Calls()
}

func (p *Places) serve(w http.ResponseWriter, r *http.Request) {
	m := signedWith.FindStringSubmatch(r.Header.Get("Authorization"))
	if m == nil {
		p.t.Errorf("smithy: an unsigned request reached the fake: %s %s", r.Method, r.URL.Path)
		http.Error(w, "unsigned", http.StatusForbidden)
		return
	}
	key, region, service := m[1], m[2], m[3]
	if service == p.sts.services[0].m.signingName {
		proxy(p.sts.URL, w, r)
		return
	}
	account := CallerAccount
	if a, ok := strings.CutPrefix(key, AssumedKeyPrefix); ok {
		account = a
	}
	place := account + "/" + region
	p.mu.Lock()
	broken, s := p.broken[place], p.servers[place]
	if broken == nil {
		broken = p.broken[place+"/"+service]
	}
	if s == nil && broken == nil {
		s = NewServer(p.t, p.fakes[0].m, p.fakes[0].handler(account, region))
		for _, f := range p.fakes[1:] {
			s.Add(f.m, f.handler(account, region))
		}
		p.servers[place] = s
	}
	p.mu.Unlock()
	if broken != nil {
		broken.ServeHTTP(w, r)
		return
	}
	proxy(s.URL, w, r)
}

func proxy(to string, w http.ResponseWriter, r *http.Request) {
	u, _ := url.Parse(to)
	httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
}

func (p *Places) answerSTS(c Call) (map[string]any, *Error) {
	switch c.Operation {
	case "GetCallerIdentity":
		return map[string]any{"Account": CallerAccount, "Arn": "arn:aws:iam::" + CallerAccount + ":user/auditor", "UserId": "AIDAFAKE"}, nil
	case "AssumeRole":
		arn, _ := c.Input["RoleArn"].(string)
		parts := strings.Split(arn, ":")
		if len(parts) < 6 {
			return nil, &Error{Code: "ValidationError", Message: "not a role ARN", Status: 400}
		}
		account := parts[4]
		p.mu.Lock()
		refused := p.refused[account]
		p.mu.Unlock()
		if refused {
			return nil, &Error{Code: "AccessDenied", Status: 403,
				Message: "User: arn:aws:iam::" + CallerAccount + ":user/auditor is not authorized to perform: sts:AssumeRole on resource: " + arn}
		}
		return map[string]any{"Credentials": map[string]any{
			"AccessKeyId": AssumedKeyPrefix + account, "SecretAccessKey": AssumedSecret, "SessionToken": AssumedToken,
			"Expiration": time.Now().Add(time.Hour),
		}}, nil
	}
	return nil, &Error{Code: "AccessDenied", Message: "not in this fake", Status: 403}
}
