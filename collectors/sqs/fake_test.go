package sqs

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Admiral-Piett/goaws/app"
	"github.com/Admiral-Piett/goaws/app/router"

	"github.com/bfaudit/bfaudit/testkit/hostile"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// The estate's accounts and regions. Every request reaches one address
// (the source's endpoint), as with LocalStack; the fake tells the
// services, accounts and regions apart by the request's signature
// (Credential=<key>/<date>/<region>/<service>/aws4_request): the base
// credentials are the caller's own account's, and each assumed role's
// key names its account (ASIA<account>).
const (
	baseAccount  = "111111111111"
	otherAccount = "222222222222"
	mainRegion   = "eu-west-1"
	baseKeyID    = "AKIDBASETEST"
	// The canaries: the secret key and session token of the base and the
	// assumed credentials, which no output may hold.
	canarySecret  = "canary-secret-key-do-not-print"
	canaryToken   = "canary-session-token-do-not-print"
	refusedSuffix = "refused"
)

// estate is the fake AWS of a test: SQS built from AWS's Smithy model (its
// official API description: goaws v0.4.5 speaks only the query protocol,
// and the SDK sends SQS requests as awsJson1_0), SNS served by goaws with
// the same model checking every request, and STS from its model for the
// roles assumed. Each part's requests are checked against the model; a
// request that breaks it fails the test.
type estate struct {
	t   *testing.T
	URL string
	// queueHost, when set, is the address queue URLs are given at.
	queueHost string
	stop      func() // the server goes down

	mu     sync.Mutex
	queues map[string]*fakeQueue // by account/region/name
	// topicTags are the tags of goaws's topics (goaws has no tags).
	topicTags map[string]map[string]string // by topic ARN
	// refused roles are answered AccessDenied; broken answers a unit's
	// (account/region/service) requests instead of the fake.
	refused map[string]bool
	broken  map[string]http.Handler
	// failAttributes answers GetQueueAttributes of these queues (by name)
	// with an internal error.
	failAttributes map[string]bool
	calls          []string // service operation, in order
}

type fakeQueue struct {
	account, region, name string
	created, modified     time.Time
	tags                  map[string]string
	visible, inFlight     int
	delayed               int
	redriveTo             string // dead-letter queue name, same account and region
	purged                bool
}

func newEstate(t *testing.T) *estate {
	t.Helper()
	e := &estate{t: t, queues: map[string]*fakeQueue{}, topicTags: map[string]map[string]string{},
		refused: map[string]bool{}, broken: map[string]http.Handler{}, failAttributes: map[string]bool{}}
	resetGoaws()
	sqsModel, snsModel, stsModel := smithy.AWS(t, "sqs"), smithy.AWS(t, "sns"), smithy.AWS(t, "sts")
	fakes := map[string]http.Handler{}
	for _, acct := range []string{baseAccount, otherAccount} {
		for _, region := range []string{mainRegion, "us-east-1"} {
			fakes[acct+"/"+region+"/sqs"] = proxy(smithy.NewServer(t, sqsModel, e.sqsHandler(acct, region)).URL)
			if acct == baseAccount && region == mainRegion {
				continue // goaws's
			}
			fakes[acct+"/"+region+"/sns"] = proxy(smithy.NewServer(t, snsModel, emptySNS).URL)
		}
	}
	// goaws lacks ListTagsForResource and GetTopicAttributes: the model's
	// fake answers them from goaws's topics and the estate's tags.
	extra := proxy(smithy.NewServer(t, snsModel, e.snsExtras).URL)
	goaws := smithy.Checking(snsModel, t, router.New())
	fakes[baseAccount+"/"+mainRegion+"/sns"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		form, _ := url.ParseQuery(string(body))
		switch form.Get("Action") {
		case "ListTagsForResource", "GetTopicAttributes":
			extra.ServeHTTP(w, r)
		default:
			goaws.ServeHTTP(w, r)
		}
	})
	sts := proxy(smithy.NewServer(t, stsModel, e.stsHandler).URL)
	// hostile.Server lets stalled handlers go when the test ends.
	srv := hostile.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, region, service := signedBy(r)
		acct := accountOf(key)
		unit := acct + "/" + region + "/" + service
		e.mu.Lock()
		broken := e.broken[unit]
		if broken == nil {
			broken = e.broken[service]
		}
		if broken == nil {
			broken = e.broken["*"]
		}
		e.calls = append(e.calls, unit+" "+operationOf(r))
		e.mu.Unlock()
		switch {
		case broken != nil:
			broken.ServeHTTP(w, r)
		case service == "sts":
			sts.ServeHTTP(w, r)
		case fakes[unit] != nil:
			fakes[unit].ServeHTTP(w, r)
		default:
			t.Errorf("a request the estate does not serve: %s", unit)
			http.Error(w, "not served", http.StatusNotFound)
		}
	}))
	e.URL, e.stop = srv.URL, srv.Close
	return e
}

// resetGoaws empties goaws's topics (it keeps them in package state) and
// sets the account and region its ARNs name.
func resetGoaws() {
	app.SyncTopics.Lock()
	app.SyncTopics.Topics = map[string]*app.Topic{}
	app.SyncTopics.Unlock()
	app.CurrentEnvironment.Region = mainRegion
	app.CurrentEnvironment.AccountID = baseAccount
}

func proxy(target string) http.Handler {
	u, _ := url.Parse(target)
	return httputil.NewSingleHostReverseProxy(u)
}

// signedBy reads the signature's credential scope.
func signedBy(r *http.Request) (key, region, service string) {
	h := r.Header.Get("Authorization")
	_, cred, ok := strings.Cut(h, "Credential=")
	if !ok {
		return "", "", ""
	}
	cred, _, _ = strings.Cut(cred, ",")
	p := strings.Split(cred, "/")
	if len(p) != 5 {
		return "", "", ""
	}
	return p[0], p[2], p[3]
}

func accountOf(key string) string {
	if a, ok := strings.CutPrefix(key, "ASIA"); ok {
		return a
	}
	return baseAccount
}

func operationOf(r *http.Request) string {
	if t := r.Header.Get("X-Amz-Target"); t != "" {
		return t[strings.LastIndexByte(t, '.')+1:]
	}
	return "query"
}

// breakUnit answers every request of an account/region/service (or of a
// whole service, or "*": all) with h.
func (e *estate) breakUnit(unit string, h http.Handler) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.broken[unit] = h
}

func (e *estate) refuse(account string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.refused[account] = true
}

func (e *estate) failQueueAttributes(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failAttributes[name] = true
}

// addQueue makes a queue in the base account's main region unless q
// names others.
func (e *estate) addQueue(q fakeQueue) *fakeQueue {
	e.mu.Lock()
	defer e.mu.Unlock()
	if q.account == "" {
		q.account = baseAccount
	}
	if q.region == "" {
		q.region = mainRegion
	}
	if q.created.IsZero() {
		q.created = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
		q.modified = q.created
	}
	e.queues[q.account+"/"+q.region+"/"+q.name] = &q
	return &q
}

func (e *estate) queue(account, region, name string) *fakeQueue {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.queues[account+"/"+region+"/"+name]
}

// queueURL is q's address as SQS gives it: at the fake, or at AWS's
// own host when queueHost is set (the quickstart's saved answers).
func (e *estate) queueURL(q *fakeQueue) string { return e.queueBase() + "/" + q.account + "/" + q.name }

func (e *estate) queueBase() string {
	if e.queueHost != "" {
		return e.queueHost
	}
	return e.URL
}

// sqsHandler is one account's SQS in one region.
func (e *estate) sqsHandler(account, region string) smithy.Handler {
	return func(c smithy.Call) (map[string]any, *smithy.Error) {
		e.mu.Lock()
		defer e.mu.Unlock()
		find := func() (*fakeQueue, *smithy.Error) {
			u, _ := c.Input["QueueUrl"].(string)
			q := e.queues[account+"/"+region+"/"+u[strings.LastIndexByte(u, '/')+1:]]
			if q == nil || !strings.HasPrefix(u, e.queueBase()+"/"+account+"/") {
				return nil, &smithy.Error{Code: "QueueDoesNotExist", Message: "The specified queue does not exist."}
			}
			return q, nil
		}
		switch c.Operation {
		case "ListQueues":
			var names []string
			for _, q := range e.queues {
				if q.account == account && q.region == region {
					names = append(names, q.name)
				}
			}
			slices.Sort(names)
			start, _ := strconv.Atoi(str(c.Input["NextToken"]))
			size := 1000
			if n, ok := c.Input["MaxResults"].(int64); ok {
				size = int(n)
			}
			out := map[string]any{}
			var urls []string
			for i := start; i < len(names) && i < start+size; i++ {
				urls = append(urls, e.queueURL(e.queues[account+"/"+region+"/"+names[i]]))
			}
			if len(urls) > 0 {
				out["QueueUrls"] = urls
			}
			if start+size < len(names) {
				out["NextToken"] = strconv.Itoa(start + size)
			}
			return out, nil
		case "GetQueueUrl":
			q := e.queues[account+"/"+region+"/"+str(c.Input["QueueName"])]
			if q == nil {
				return nil, &smithy.Error{Code: "QueueDoesNotExist", Message: "The specified queue does not exist."}
			}
			return map[string]any{"QueueUrl": e.queueURL(q)}, nil
		case "ListQueueTags":
			q, err := find()
			if err != nil {
				return nil, err
			}
			if len(q.tags) == 0 {
				return nil, nil
			}
			return map[string]any{"Tags": q.tags}, nil
		case "GetQueueAttributes":
			q, err := find()
			if err != nil {
				return nil, err
			}
			if e.failAttributes[q.name] {
				return nil, &smithy.Error{Code: "InternalFailure", Message: "the fake fails this queue", Status: 500}
			}
			attrs := map[string]string{
				"ApproximateNumberOfMessages":           strconv.Itoa(q.visible),
				"ApproximateNumberOfMessagesNotVisible": strconv.Itoa(q.inFlight),
				"ApproximateNumberOfMessagesDelayed":    strconv.Itoa(q.delayed),
				"CreatedTimestamp":                      strconv.FormatInt(q.created.Unix(), 10),
				"LastModifiedTimestamp":                 strconv.FormatInt(q.modified.Unix(), 10),
				"MessageRetentionPeriod":                "345600",
			}
			if q.redriveTo != "" {
				attrs["RedrivePolicy"] = fmt.Sprintf(`{"deadLetterTargetArn":"arn:aws:sqs:%s:%s:%s","maxReceiveCount":5}`, region, account, q.redriveTo)
			}
			return map[string]any{"Attributes": attrs}, nil
		case "ListDeadLetterSourceQueues":
			q, err := find()
			if err != nil {
				return nil, err
			}
			var urls []string
			for _, s := range e.queues {
				if s.account == account && s.region == region && s.redriveTo == q.name {
					urls = append(urls, e.queueURL(s))
				}
			}
			slices.Sort(urls)
			return map[string]any{"queueUrls": urls}, nil
		case "PurgeQueue":
			q, err := find()
			if err != nil {
				return nil, err
			}
			q.visible, q.inFlight, q.delayed, q.purged = 0, 0, 0, true
			return nil, nil
		case "DeleteQueue":
			q, err := find()
			if err != nil {
				return nil, err
			}
			delete(e.queues, account+"/"+region+"/"+q.name)
			return nil, nil
		}
		e.t.Errorf("the SQS fake does not serve %s", c.Operation)
		return nil, &smithy.Error{Code: "InvalidAction", Message: c.Operation}
	}
}

// snsExtras answers what goaws does not: a topic's tags and attributes.
func (e *estate) snsExtras(c smithy.Call) (map[string]any, *smithy.Error) {
	arn := str(c.Input["ResourceArn"]) + str(c.Input["TopicArn"])
	app.SyncTopics.Lock()
	_, ok := app.SyncTopics.Topics[arn[strings.LastIndexByte(arn, ':')+1:]]
	app.SyncTopics.Unlock()
	if !ok {
		return nil, &smithy.Error{Code: "NotFoundException", Message: "Topic does not exist"}
	}
	if c.Operation == "GetTopicAttributes" {
		return map[string]any{"Attributes": map[string]string{"TopicArn": arn}}, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var tags []map[string]any
	for k, v := range e.topicTags[arn] {
		tags = append(tags, map[string]any{"Key": k, "Value": v})
	}
	return map[string]any{"Tags": tags}, nil
}

// emptySNS is the SNS of an account and region with no topic.
func emptySNS(c smithy.Call) (map[string]any, *smithy.Error) {
	switch c.Operation {
	case "ListTopics":
		return map[string]any{"Topics": []any{}}, nil
	case "ListSubscriptions":
		return map[string]any{"Subscriptions": []any{}}, nil
	}
	return nil, &smithy.Error{Code: "NotFoundException", Message: "no such topic"}
}

// stsHandler assumes any role not refused, answering credentials whose key
// names the role's account. They have expired already, so every call
// assumes the role again: a role refused between two runs is refused.
func (e *estate) stsHandler(c smithy.Call) (map[string]any, *smithy.Error) {
	switch c.Operation {
	case "GetCallerIdentity":
		return map[string]any{"Account": baseAccount, "Arn": "arn:aws:iam::" + baseAccount + ":user/bfaudit", "UserId": "AIDATEST"}, nil
	case "AssumeRole":
		role := str(c.Input["RoleArn"])
		p := strings.Split(role, ":")
		e.mu.Lock()
		refused := len(p) > 4 && e.refused[p[4]]
		e.mu.Unlock()
		if len(p) < 6 || refused {
			return nil, &smithy.Error{Code: "AccessDenied", Message: "not authorized to perform sts:AssumeRole on " + role, Status: 403}
		}
		return map[string]any{
			"Credentials": map[string]any{"AccessKeyId": "ASIA" + p[4], "SecretAccessKey": canarySecret,
				"SessionToken": canaryToken, "Expiration": time.Now().Add(-time.Minute)},
			"AssumedRoleUser": map[string]any{"Arn": role + "/bfaudit", "AssumedRoleId": "AROATEST:bfaudit"},
		}, nil
	}
	e.t.Errorf("the STS fake does not serve %s", c.Operation)
	return nil, &smithy.Error{Code: "InvalidAction", Message: c.Operation}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
