package s3

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/awsconf"
)

// The canary credentials every test signs with: none of them may appear
// in an error, a report or a fix script.
const (
	canaryKeyID   = "AKIDS3CANARY"
	canarySecret  = "canary-secret-s3-do-not-print"
	canaryToken   = "canary-session-s3-do-not-print"
	assumedSecret = "canary-secret-assumed-do-not-print"
	assumedToken  = "canary-session-assumed-do-not-print"
)

var canaries = []string{canarySecret, canaryToken, assumedSecret, assumedToken}

var (
	jan10 = time.Date(2026, 1, 10, 9, 30, 0, 0, time.UTC)
	jan12 = time.Date(2026, 1, 12, 14, 0, 0, 0, time.UTC)
)

// clock is the time the in-memory backend stamps objects with.
type clock struct {
	mu sync.Mutex
	at time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// fakeS3 is gofakes3 (v1.2.0, its in-memory backend) behind an httptest
// server, reached by the real SDK client. gofakes3 implements buckets,
// objects, HeadBucket, ListObjectsV2 and DeleteObjects; it has no
// bucket tagging, lifecycle configuration or object lock (it would answer
// GET /bucket?tagging with a listing of the bucket), so this handler
// answers those three operations itself, with the XML of S3's API
// reference (GetBucketTagging, GetBucketLifecycleConfiguration,
// GetObjectLockConfiguration) and S3's error codes for a bucket that has
// none. It also answers STS AssumeRole (the one STS call a source with
// roles makes, told apart by its SigV4 signing name, as AWS's documented
// AssumeRoleResponse), puts a bucket in a region as S3 does (the region
// named in a header of every answer about the bucket, a request signed
// for another region refused with 301), refuses roles, breaks
// units, and refuses the deletion of chosen keys as S3 refuses a retained
// object in a DeleteObjects answer.
type fakeS3 struct {
	mu       sync.Mutex
	clock    *clock
	backend  *s3mem.Backend
	s3       http.Handler
	http     *httptest.Server
	config   map[string]map[string]string // subresource (tagging...) -> bucket -> the body of its XML answer
	regions  map[string]string            // bucket -> its region (us-east-1 when unset)
	breaks   map[string]http.Handler      // "bucket/" (every call) or "bucket/prefix" (its listing) -> what answers instead
	refused  map[string]bool              // role ARNs AssumeRole refuses
	deny     string                       // keys ending with it are refused by DeleteObjects
	assumed  []string                     // role ARNs assumed, in order
	requests []string                     // "METHOD path?query region" of every S3 request, region as signed
}

func newFake(t *testing.T) *fakeS3 {
	t.Helper()
	clk := &clock{at: jan10}
	backend := s3mem.New(s3mem.WithTimeSource(clk))
	f := &fakeS3{clock: clk, backend: backend, s3: gofakes3.New(backend).Server(),
		config: map[string]map[string]string{}, regions: map[string]string{}, breaks: map[string]http.Handler{}, refused: map[string]bool{}}
	f.http = httptest.NewServer(f)
	t.Cleanup(f.http.Close)
	return f
}

// bucket makes a bucket.
func (f *fakeS3) bucket(t *testing.T, name string) {
	t.Helper()
	if err := f.backend.CreateBucket(name); err != nil {
		t.Fatal(err)
	}
}

// put writes an object of size bytes, stamped at.
func (f *fakeS3) put(t *testing.T, bucket, key string, size int, at time.Time) {
	t.Helper()
	f.clock.mu.Lock()
	f.clock.at = at
	f.clock.mu.Unlock()
	if _, err := f.backend.PutObject(bucket, key, nil, bytes.NewReader(bytes.Repeat([]byte("x"), size)), int64(size), nil); err != nil {
		t.Fatal(err)
	}
}

// keys lists the keys of a bucket under prefix, through the backend.
func (f *fakeS3) keys(t *testing.T, bucket, prefix string) []string {
	t.Helper()
	list, err := f.backend.ListBucket(bucket, &gofakes3.Prefix{Prefix: prefix, HasPrefix: true}, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range list.Contents {
		out = append(out, o.Key)
	}
	return out
}

// Break makes h answer every call about bucket (prefix "") or the
// listing of its prefix.
func (f *fakeS3) Break(bucket, prefix string, h http.Handler) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.breaks[bucket+"/"+prefix] = h
}

// Fail makes every call about bucket (prefix "") or the listing of its
// prefix answer status, as S3 answers an error.
func (f *fakeS3) Fail(bucket, prefix string, status int) {
	f.Break(bucket, prefix, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s3Error(w, status, "InternalError", "broken by the test")
	}))
}

// Refuse makes AssumeRole of the role ARN answer AccessDenied.
func (f *fakeS3) Refuse(role string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refused[role] = true
}

func (f *fakeS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.Header.Get("Authorization"), "/sts/aws4_request") {
		f.assumeRole(w, r)
		return
	}
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	q := r.URL.Query()
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery+" "+signedRegion(r))
	broken := f.breaks[bucket+"/"]
	if h, ok := f.breaks[bucket+"/"+q.Get("prefix")]; ok && q.Get("list-type") == "2" {
		broken = h
	}
	f.mu.Unlock()
	if broken != nil {
		broken.ServeHTTP(w, r)
		return
	}
	if bucket != "" {
		f.mu.Lock()
		region := cmp.Or(f.regions[bucket], "us-east-1")
		f.mu.Unlock()
		// S3 names a bucket's region in every answer about it, and
		// refuses a request signed for another region.
		w.Header().Set("X-Amz-Bucket-Region", region)
		if signedRegion(r) != region {
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusMovedPermanently)
				return
			}
			s3Error(w, http.StatusMovedPermanently, "PermanentRedirect",
				"The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.")
			return
		}
	}
	if bucket != "" && key == "" && r.Method == http.MethodGet {
		if ok, _ := f.backend.BucketExists(bucket); !ok {
			s3Error(w, http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist")
			return
		}
		for sub := range subresources {
			if q.Has(sub) {
				f.subresource(w, sub, bucket)
				return
			}
		}
	}
	if r.Method == http.MethodPost && q.Has("delete") && f.deny != "" {
		f.deleteDenying(w, r, bucket)
		return
	}
	f.s3.ServeHTTP(w, r)
}

// subresources are the bucket configurations gofakes3 lacks, by their
// query word: the root element of S3's answer, and the error S3 answers
// for a bucket that has none.
var subresources = map[string]struct{ root, code, message string }{
	"tagging":     {"Tagging", "NoSuchTagSet", "The TagSet does not exist"},
	"lifecycle":   {"LifecycleConfiguration", "NoSuchLifecycleConfiguration", "The lifecycle configuration does not exist"},
	"object-lock": {"ObjectLockConfiguration", "ObjectLockConfigurationNotFoundError", "Object Lock configuration does not exist for this bucket"},
}

// set gives bucket a configuration: body is what S3's answer holds
// inside its root element (the TagSet, the Rule elements, the object lock).
func (f *fakeS3) set(sub, bucket, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.config[sub] == nil {
		f.config[sub] = map[string]string{}
	}
	f.config[sub][bucket] = body
}

// unset removes a bucket's configuration.
func (f *fakeS3) unset(sub, bucket string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.config[sub], bucket)
}

// subresource answers GetBucketTagging, GetBucketLifecycleConfiguration
// or GetObjectLockConfiguration: the bucket's configuration, or S3's
// error for a bucket without one.
func (f *fakeS3) subresource(w http.ResponseWriter, sub, bucket string) {
	f.mu.Lock()
	body, ok := f.config[sub][bucket]
	f.mu.Unlock()
	r := subresources[sub]
	if !ok {
		s3Error(w, http.StatusNotFound, r.code, r.message)
		return
	}
	writeXML(w, "<"+r.root+` xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`+body+"</"+r.root+">")
}

// tagSet is the TagSet of GetBucketTagging's answer.
func tagSet(tags map[string]string) string {
	var b strings.Builder
	for k, v := range tags {
		b.WriteString("<Tag><Key>" + esc(k) + "</Key><Value>" + esc(v) + "</Value></Tag>")
	}
	return "<TagSet>" + b.String() + "</TagSet>"
}

// deleteDenying answers DeleteObjects as S3 does when some keys may not
// be deleted: the others are deleted, each refused key is an <Error>.
func (f *fakeS3) deleteDenying(w http.ResponseWriter, r *http.Request, bucket string) {
	var in struct {
		Objects []struct{ Key string } `xml:"Object"`
	}
	if err := xml.NewDecoder(r.Body).Decode(&in); err != nil {
		s3Error(w, http.StatusBadRequest, "MalformedXML", "The XML you provided was not well-formed")
		return
	}
	var b strings.Builder
	for _, o := range in.Objects {
		if strings.HasSuffix(o.Key, f.deny) {
			b.WriteString("<Error><Key>" + esc(o.Key) + "</Key><Code>AccessDenied</Code><Message>Access Denied because object protected by object lock.</Message></Error>")
			continue
		}
		if _, err := f.backend.DeleteObject(bucket, o.Key); err != nil {
			s3Error(w, http.StatusInternalServerError, "InternalError", err.Error())
			return
		}
	}
	writeXML(w, `<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`+b.String()+`</DeleteResult>`)
}

// assumeRole answers STS AssumeRole with temporary credentials (canaries
// too), or AccessDenied for a refused role.
func (f *fakeS3) assumeRole(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("Action") != "AssumeRole" {
		http.Error(w, "not an AssumeRole call", http.StatusBadRequest)
		return
	}
	role := r.PostForm.Get("RoleArn")
	f.mu.Lock()
	refused := f.refused[role]
	f.assumed = append(f.assumed, role)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/xml")
	if refused {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code>`+
			`<Message>User: arn:aws:iam::111111111111:user/auditor is not authorized to perform: sts:AssumeRole on resource: %s</Message></Error>`+
			`<RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId></ErrorResponse>`, esc(role))
		return
	}
	fmt.Fprintf(w, `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>`+
		`<AssumedRoleUser><Arn>%s/bfaudit</Arn><AssumedRoleId>AROA3XFRBF535PLBIFPI4:bfaudit</AssumedRoleId></AssumedRoleUser>`+
		`<Credentials><AccessKeyId>ASIAIOSFODNN7EXAMPLE</AccessKeyId><SecretAccessKey>%s</SecretAccessKey><SessionToken>%s</SessionToken>`+
		`<Expiration>2099-01-01T00:00:00Z</Expiration></Credentials></AssumeRoleResult>`+
		`<ResponseMetadata><RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId></ResponseMetadata></AssumeRoleResponse>`,
		esc(role), assumedSecret, assumedToken)
}

// signedRegion is the region a SigV4 request was signed for.
func signedRegion(r *http.Request) string {
	_, cred, _ := strings.Cut(r.Header.Get("Authorization"), "Credential=")
	if parts := strings.Split(cred, "/"); len(parts) > 2 {
		return parts[2]
	}
	return ""
}

func s3Error(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message><RequestId>4442587FB7D0A2F9</RequestId><HostId>fake</HostId></Error>`, code, esc(msg))
}

func writeXML(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/xml")
	fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?>`+body)
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// staticCredentials are the canary credentials: no test reaches AWS or
// instance metadata.
func staticCredentials(secret, token string) []func(*config.LoadOptions) error {
	return []func(*config.LoadOptions) error{
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(canaryKeyID, secret, token)),
	}
}

// collector is an Init-ed collector for the fake, reading the buckets as
// account 111111111111 with the caller's credentials.
func (f *fakeS3) collector(t *testing.T, buckets ...Bucket) *Collector {
	t.Helper()
	return newOn(t, f.http.URL, awsconf.Settings{Accounts: []awsconf.Account{{ID: "111111111111"}}}, buckets...)
}

// newOn is an Init-ed collector for url with settings s (regions,
// endpoint and a short timeout filled in) and the canary credentials.
func newOn(t *testing.T, url string, s awsconf.Settings, buckets ...Bucket) *Collector {
	t.Helper()
	c := New()
	c.Settings = s
	c.Regions = []string{"eu-west-1"}
	c.Endpoint = url
	if c.Timeout == 0 {
		c.Timeout = 5 * time.Second
	}
	c.Buckets = buckets
	c.MaxObjects = 1000
	c.loadOptions = staticCredentials(canarySecret, canaryToken)
	env := collectors.Env{Source: "s3", Selector: correlate.MustSelector(), Now: func() time.Time { return fixNow }}
	if err := c.Init(env); err != nil {
		t.Fatal(err)
	}
	return c
}

// fixNow is the clock of the collectors the tests build.
var fixNow = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
