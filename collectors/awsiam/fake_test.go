package awsiam

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/testkit/hostile"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// The credentials every test signs with: static, so nothing reaches AWS or
// instance metadata, and canaries that must appear in no output. Each
// assumed role gets its own access key (assumedKey), secret and token.
const (
	baseKey        = "AKIDTESTBASE"
	canarySecret   = hostile.Canary + "-secret-access-key"
	canaryToken    = hostile.Canary + "-session-token"
	assumedSecret  = "canary-assumed-secret-do-not-print"
	assumedToken   = "canary-assumed-token-do-not-print"
	callerAccount  = "111111111111"
	otherAccount   = "222222222222"
	testRole       = "bfaudit-read"
	testTimeout    = 2 * time.Second
	assumedKeyHead = "ASIAFAKE"
)

func assumedKey(account string) string { return assumedKeyHead + account }

// fakeAWS is AWS at the one endpoint a source is given: STS
// (GetCallerIdentity; AssumeRole, handing each account's role credentials
// of its own) and Organizations (ListAccounts) on one fake, and each
// account's IAM on a fake of its own, told apart by the access key that
// signed the request. Every request is checked against AWS's Smithy
// models, and every answer too (testkit/smithy).
type fakeAWS struct {
	t   *testing.T
	URL string

	mu       sync.Mutex
	accounts map[string]*fakeIAM
	org      []string                // the accounts ListAccounts lists
	refused  map[string]bool         // accounts whose role AssumeRole refuses
	broken   map[string]http.Handler // accounts whose IAM answers this instead
	shared   *smithy.Server
}

// signedBy reads the access key and the service of a SigV4 signature.
var signedBy = regexp.MustCompile(`Credential=([^/,]+)/[^/,]+/[^/,]+/([^/,]+)/aws4_request`)

func newFakeAWS(t *testing.T, accounts ...*fakeIAM) *fakeAWS {
	f := &fakeAWS{t: t, accounts: map[string]*fakeIAM{}, refused: map[string]bool{}, broken: map[string]http.Handler{}}
	for _, a := range accounts {
		f.accounts[a.account] = a
		f.org = append(f.org, a.account)
		a.server = smithy.NewServer(t, smithy.AWS(t, "iam"), a.handle)
	}
	f.shared = smithy.NewServer(t, smithy.AWS(t, "sts"), f.sts)
	f.shared.Add(smithy.AWS(t, "organizations"), f.organizations)
	// Stalled handlers are let go when the test ends (a request whose
	// body is not read never sees its client give up).
	f.URL = hostile.Server(t, f).URL
	return f
}

func (f *fakeAWS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := signedBy.FindStringSubmatch(r.Header.Get("Authorization"))
	if m == nil {
		f.t.Errorf("an unsigned request reached the fake: %s %s", r.Method, r.URL)
		http.Error(w, "unsigned", http.StatusForbidden)
		return
	}
	key, service := m[1], m[2]
	target := f.shared.URL
	if service == "iam" {
		account := strings.TrimPrefix(key, assumedKeyHead)
		if key == baseKey {
			account = callerAccount
		}
		f.mu.Lock()
		a, broken := f.accounts[account], f.broken[account]
		f.mu.Unlock()
		switch {
		case broken != nil:
			broken.ServeHTTP(w, r)
			return
		case a == nil:
			f.t.Errorf("IAM was called with key %s, which no account of the fake has", key)
			http.Error(w, "no such account", http.StatusForbidden)
			return
		}
		target = a.server.URL
	}
	u, _ := url.Parse(target)
	httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
}

// breakAccount makes an account's IAM answer with h.
func (f *fakeAWS) breakAccount(account string, h http.Handler) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.broken[account] = h
}

// hangUp closes the connection without an answer: a service that is down.
var hangUp = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
})

// onlyKeys answers an account's ListAccessKeys with h, and the rest as
// the account's fake does.
func onlyKeys(f *fakeAWS, account string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if strings.Contains(string(body), "Action=ListAccessKeys") {
			h.ServeHTTP(w, r)
			return
		}
		u, _ := url.Parse(f.accounts[account].server.URL)
		httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
	})
}

// refuse makes AssumeRole refuse the account's role.
func (f *fakeAWS) refuse(account string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refused[account] = true
}

func (f *fakeAWS) sts(c smithy.Call) (map[string]any, *smithy.Error) {
	switch c.Operation {
	case "GetCallerIdentity":
		return map[string]any{"Account": callerAccount, "Arn": "arn:aws:iam::" + callerAccount + ":user/auditor", "UserId": "AIDAFAKE"}, nil
	case "AssumeRole":
		arn, _ := c.Input["RoleArn"].(string)
		account := strings.Split(arn, ":")[4]
		f.mu.Lock()
		refused := f.refused[account]
		f.mu.Unlock()
		if refused {
			return nil, &smithy.Error{Code: "AccessDenied", Status: 403,
				Message: "User: arn:aws:iam::" + callerAccount + ":user/auditor is not authorized to perform: sts:AssumeRole on resource: " + arn}
		}
		return map[string]any{
			"Credentials": map[string]any{"AccessKeyId": assumedKey(account), "SecretAccessKey": assumedSecret,
				"SessionToken": assumedToken, "Expiration": time.Now().Add(time.Hour)},
			"AssumedRoleUser": map[string]any{"Arn": arn + "/bfaudit", "AssumedRoleId": "AROAFAKE:bfaudit"},
		}, nil
	}
	return nil, &smithy.Error{Code: "AccessDenied", Message: c.Operation + " is not in this fake", Status: 403}
}

func (f *fakeAWS) organizations(c smithy.Call) (map[string]any, *smithy.Error) {
	if c.Operation != "ListAccounts" {
		return nil, &smithy.Error{Code: "AccessDeniedException", Message: c.Operation + " is not in this fake"}
	}
	var out []any
	for _, id := range f.org {
		out = append(out, map[string]any{"Id": id, "Status": "ACTIVE", "Name": "acct-" + id,
			"Arn": "arn:aws:organizations::" + callerAccount + ":account/o-fake/" + id})
	}
	out = append(out, map[string]any{"Id": "999999999999", "Status": "SUSPENDED"})
	return map[string]any{"Accounts": out}, nil
}

// fakeIAM is one account's IAM: its principals, customer managed
// policies and access keys, which the fix actions change.
type fakeIAM struct {
	account    string
	server     *smithy.Server
	mu         sync.Mutex
	principals []*fakePrincipal
	policies   []*fakePolicy
	pageSize   int // 0: the MaxItems asked for
}

type fakePrincipal struct {
	kind, name, path string
	tags             map[string]string
	attached         []string          // policy ARNs
	inline           map[string]string // policy name -> document (JSON, not yet URL-encoded)
	trust            string
	boundary         string
	lastUsed         time.Time
	keys             []*fakeKey
}

type fakeKey struct {
	id, status, service string
	created, lastUsed   time.Time
}

type fakePolicy struct{ name, path, document string }

func (a *fakeIAM) arn(kind, path, name string) string {
	return "arn:aws:iam::" + a.account + ":" + kind + cmp.Or(path, "/") + name
}

func (p *fakePolicy) arn(account string) string {
	return "arn:aws:iam::" + account + ":policy" + cmp.Or(p.path, "/") + p.name
}

// encode writes a policy document as IAM answers it: URL-encoded.
func encode(doc string) string { return strings.ReplaceAll(url.QueryEscape(doc), "+", "%20") }

func (a *fakeIAM) find(kind, name string) *fakePrincipal {
	for _, p := range a.principals {
		if p.kind == kind && p.name == name {
			return p
		}
	}
	return nil
}

func (a *fakeIAM) policyName(arn string) string {
	for _, p := range a.policies {
		if p.arn(a.account) == arn {
			return p.name
		}
	}
	_, name, _ := strings.Cut(arn, ":policy/")
	return name[strings.LastIndexByte(name, '/')+1:]
}

func noSuchEntity(what string) *smithy.Error {
	return &smithy.Error{Code: "NoSuchEntityException", Message: what + " cannot be found."}
}

func str(c smithy.Call, member string) string { s, _ := c.Input[member].(string); return s }

func (a *fakeIAM) handle(c smithy.Call) (map[string]any, *smithy.Error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch c.Operation {
	case "GetAccountAuthorizationDetails":
		return a.details(c)
	case "ListAccessKeys":
		u := a.find(kindUser, str(c, "UserName"))
		if u == nil {
			return nil, noSuchEntity("The user with name " + str(c, "UserName"))
		}
		keys := []any{}
		for _, k := range u.keys {
			keys = append(keys, map[string]any{"UserName": u.name, "AccessKeyId": k.id, "Status": k.status, "CreateDate": k.created})
		}
		return map[string]any{"AccessKeyMetadata": keys, "IsTruncated": false}, nil
	case "GetAccessKeyLastUsed":
		for _, p := range a.principals {
			for _, k := range p.keys {
				if k.id == str(c, "AccessKeyId") {
					used := map[string]any{"ServiceName": cmp.Or(k.service, "N/A"), "Region": "N/A"}
					if !k.lastUsed.IsZero() {
						used = map[string]any{"ServiceName": k.service, "Region": "eu-west-1", "LastUsedDate": k.lastUsed}
					}
					return map[string]any{"UserName": p.name, "AccessKeyLastUsed": used}, nil
				}
			}
		}
		return nil, &smithy.Error{Code: "AccessDenied", Status: 403, Message: "no such key"}
	}
	return a.fixCall(c)
}

// details answers GetAccountAuthorizationDetails: the principals, then the
// customer managed policies, MaxItems (or pageSize) entities a page.
func (a *fakeIAM) details(c smithy.Call) (map[string]any, *smithy.Error) {
	var entities []func(out map[string][]any)
	for _, p := range a.principals {
		entities = append(entities, func(out map[string][]any) { a.detail(p, out) })
	}
	for _, p := range a.policies {
		entities = append(entities, func(out map[string][]any) {
			out["Policies"] = append(out["Policies"], map[string]any{"PolicyName": p.name, "Path": cmp.Or(p.path, "/"), "Arn": p.arn(a.account),
				"DefaultVersionId": "v2", "IsAttachable": true, "PolicyVersionList": []any{
					map[string]any{"VersionId": "v1", "IsDefaultVersion": false, "Document": encode(`{"Version":"2012-10-17","Statement":[]}`)},
					map[string]any{"VersionId": "v2", "IsDefaultVersion": true, "Document": encode(p.document)}}})
		})
	}
	size, _ := c.Input["MaxItems"].(int64)
	if a.pageSize > 0 {
		size = int64(a.pageSize)
	}
	start, _ := strconv.Atoi(str(c, "Marker"))
	end := len(entities)
	if size > 0 && start+int(size) < end {
		end = start + int(size)
	}
	out := map[string][]any{"RoleDetailList": {}, "UserDetailList": {}, "GroupDetailList": {}, "Policies": {}}
	for _, e := range entities[min(start, len(entities)):end] {
		e(out)
	}
	ans := map[string]any{"IsTruncated": end < len(entities)}
	for k, v := range out {
		ans[k] = v
	}
	if end < len(entities) {
		ans["Marker"] = strconv.Itoa(end)
	}
	return ans, nil
}

func (a *fakeIAM) detail(p *fakePrincipal, out map[string][]any) {
	var inline, attached, tags []any
	for _, name := range slices.Sorted(maps.Keys(p.inline)) {
		inline = append(inline, map[string]any{"PolicyName": name, "PolicyDocument": encode(p.inline[name])})
	}
	for _, arn := range p.attached {
		attached = append(attached, map[string]any{"PolicyArn": arn, "PolicyName": a.policyName(arn)})
	}
	for _, k := range slices.Sorted(maps.Keys(p.tags)) {
		tags = append(tags, map[string]any{"Key": k, "Value": p.tags[k]})
	}
	d := map[string]any{"Path": cmp.Or(p.path, "/"), "Arn": a.arn(p.kind, p.path, p.name), "CreateDate": time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		"AttachedManagedPolicies": orEmpty(attached)}
	if p.boundary != "" && p.kind != kindGroup {
		d["PermissionsBoundary"] = map[string]any{"PermissionsBoundaryArn": p.boundary, "PermissionsBoundaryType": "PermissionsBoundaryPolicy"}
	}
	switch p.kind {
	case kindRole:
		d["RoleName"], d["RoleId"], d["RolePolicyList"], d["Tags"] = p.name, "AROA"+p.name, orEmpty(inline), orEmpty(tags)
		d["AssumeRolePolicyDocument"] = encode(cmp.Or(p.trust, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"glue.amazonaws.com"},"Action":"sts:AssumeRole"}]}`))
		if !p.lastUsed.IsZero() {
			d["RoleLastUsed"] = map[string]any{"LastUsedDate": p.lastUsed, "Region": "eu-west-1"}
		}
		out["RoleDetailList"] = append(out["RoleDetailList"], d)
	case kindUser:
		d["UserName"], d["UserId"], d["UserPolicyList"], d["Tags"], d["GroupList"] = p.name, "AIDA"+p.name, orEmpty(inline), orEmpty(tags), []any{}
		out["UserDetailList"] = append(out["UserDetailList"], d)
	case kindGroup:
		d["GroupName"], d["GroupId"], d["GroupPolicyList"] = p.name, "AGPA"+p.name, orEmpty(inline)
		out["GroupDetailList"] = append(out["GroupDetailList"], d)
	}
}

// orEmpty is an empty list for none: IAM answers an empty list, not none.
func orEmpty(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

// fixCall answers what the fix actions call, changing the account.
func (a *fakeIAM) fixCall(c smithy.Call) (map[string]any, *smithy.Error) {
	kind, name := kindRole, str(c, "RoleName")
	if n := str(c, "UserName"); n != "" {
		kind, name = kindUser, n
	} else if n := str(c, "GroupName"); n != "" {
		kind, name = kindGroup, n
	}
	p := a.find(kind, name)
	if p == nil && c.Operation != "GetPolicy" && c.Operation != "GetPolicyVersion" {
		return nil, noSuchEntity("The " + kind + " with name " + name)
	}
	policy := str(c, "PolicyName")
	switch c.Operation {
	case "UpdateAccessKey", "DeleteAccessKey":
		i := slices.IndexFunc(p.keys, func(k *fakeKey) bool { return k.id == str(c, "AccessKeyId") })
		if i < 0 {
			return nil, noSuchEntity("The Access Key with id " + str(c, "AccessKeyId"))
		}
		if c.Operation == "DeleteAccessKey" {
			p.keys = slices.Delete(p.keys, i, i+1)
		} else {
			p.keys[i].status = str(c, "Status")
		}
		return map[string]any{}, nil
	case "ListAttachedRolePolicies", "ListAttachedUserPolicies", "ListAttachedGroupPolicies":
		out := []any{}
		for _, arn := range p.attached {
			out = append(out, map[string]any{"PolicyArn": arn, "PolicyName": a.policyName(arn)})
		}
		return map[string]any{"AttachedPolicies": out, "IsTruncated": false}, nil
	case "DetachRolePolicy", "DetachUserPolicy", "DetachGroupPolicy":
		i := slices.Index(p.attached, str(c, "PolicyArn"))
		if i < 0 {
			return nil, noSuchEntity("Policy " + str(c, "PolicyArn") + " was not found")
		}
		p.attached = slices.Delete(p.attached, i, i+1)
		return map[string]any{}, nil
	case "GetRolePolicy", "GetUserPolicy", "GetGroupPolicy":
		doc, ok := p.inline[policy]
		if !ok {
			return nil, noSuchEntity("The " + kind + " policy with name " + policy)
		}
		key := strings.ToUpper(kind[:1]) + kind[1:] + "Name"
		return map[string]any{key: name, "PolicyName": policy, "PolicyDocument": encode(doc)}, nil
	case "PutRolePolicy", "PutUserPolicy", "PutGroupPolicy":
		p.inline[policy] = str(c, "PolicyDocument")
		return map[string]any{}, nil
	case "DeleteRolePolicy", "DeleteUserPolicy", "DeleteGroupPolicy":
		if _, ok := p.inline[policy]; !ok {
			return nil, noSuchEntity("The " + kind + " policy with name " + policy)
		}
		delete(p.inline, policy)
		return map[string]any{}, nil
	case "GetPolicy", "GetPolicyVersion":
		for _, mp := range a.policies {
			if mp.arn(a.account) != str(c, "PolicyArn") {
				continue
			}
			if c.Operation == "GetPolicy" {
				return map[string]any{"Policy": map[string]any{"PolicyName": mp.name, "Arn": mp.arn(a.account), "DefaultVersionId": "v2"}}, nil
			}
			return map[string]any{"PolicyVersion": map[string]any{"VersionId": str(c, "VersionId"), "IsDefaultVersion": true, "Document": encode(mp.document)}}, nil
		}
		return nil, noSuchEntity("Policy " + str(c, "PolicyArn"))
	}
	return nil, &smithy.Error{Code: "AccessDenied", Message: c.Operation + " is not in this fake", Status: 403}
}

// testEnv is a source's environment at the audit time now.
func testEnv(source string, now time.Time) collectors.Env {
	return collectors.Env{Source: source, Selector: correlate.MustSelector(), Now: func() time.Time { return now }}
}

// collectorOn is a source named source reading the accounts of settings
// (set: Accounts or Organization) at the fake, with static canary
// credentials, one try per call and a short call timeout.
func collectorOn(t *testing.T, fakeURL, source string, now time.Time, set func(*awsconf.Settings)) *Collector {
	t.Helper()
	c := New()
	c.Endpoint, c.Timeout = fakeURL, testTimeout
	if set != nil {
		set(&c.Settings)
	}
	c.LoadOptions = []func(*config.LoadOptions) error{
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(baseKey, canarySecret, canaryToken)),
		// One try per call: a fault is seen as it is, at once (awsconf's
		// retryer would wait out backoffs; WithRetryMaxAttempts does not
		// override a retryer).
		config.WithRetryer(func() aws.Retryer { return retry.AddWithMaxAttempts(retry.NewStandard(), 1) }),
	}
	if err := c.Init(testEnv(source, now)); err != nil {
		t.Fatal(err)
	}
	return c
}

// listed reads the given accounts, each through testRole.
func listed(accounts ...string) func(*awsconf.Settings) {
	return func(s *awsconf.Settings) {
		for _, a := range accounts {
			s.Accounts = append(s.Accounts, awsconf.Account{ID: a, Role: testRole})
		}
	}
}

func roleARN(account string) string { return fmt.Sprintf("arn:aws:iam::%s:role/%s", account, testRole) }
