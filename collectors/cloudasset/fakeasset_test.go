package cloudasset

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"

	"cloud.google.com/go/asset/apiv1/assetpb"
	"cloud.google.com/go/iam/apiv1/iampb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// fakeAsset serves the Asset API's two search methods over REST as the
// real service does: GET /v1/{scope}:searchAllResources and
// :searchAllIamPolicies, with query, assetTypes, pageSize (capped at 500),
// pageToken and readMask (versionedResources only when asked for), the
// answers in the REST JSON shapes, page tokens, and Google's error body,
// with google.rpc.RetryInfo in its details for quota errors. Its query
// language is the subset the collector writes (see query.go): terms joined
// by OR, matched against a resource's searchable fields or a binding.
type fakeAsset struct {
	t        testing.TB
	mu       sync.Mutex
	org      string            // organizations/N: every project lies in it
	folder   string            // folders/N: so does every project
	projects map[string]string // number -> id
	assets   []fxAsset
	policies []fxPolicy
	pageSize int
	// denied scopes answer 403; failing answers status to searches whose
	// query contains the key; quota answers 429 with a RetryInfo of
	// quotaDelay (and Retry-After when retryAfter) to the next quota
	// searches.
	denied     map[string]bool
	failing    map[string]int
	quota      int
	quotaDelay string
	retryAfter string
	// stripped resources come without versionedResources.
	stripped map[string]bool
	requests []string
}

func newFakeAsset(t testing.TB, e *fxEstate) *fakeAsset {
	f := &fakeAsset{t: t, org: "organizations/42", folder: "folders/7", projects: map[string]string{}, pageSize: 500,
		denied: map[string]bool{}, failing: map[string]int{}, stripped: map[string]bool{}, quotaDelay: "7s"}
	f.load(e)
	return f
}

// load replaces what the fake holds with e.
func (f *fakeAsset) load(e *fxEstate) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.assets, f.policies = e.assets()
	for _, p := range e.projects {
		f.projects[p.number] = p.id
	}
}

func (f *fakeAsset) start() *httptest.Server {
	srv := httptest.NewServer(f)
	f.t.Cleanup(srv.Close)
	return srv
}

func (f *fakeAsset) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := r.URL.Query()
	f.requests = append(f.requests, r.URL.Path+" "+q.Get("query"))
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/")
	scope, method, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || r.Method != http.MethodGet {
		apiError(w, http.StatusNotFound, "NOT_FOUND", "test fake: no route "+r.Method+" "+r.URL.Path)
		return
	}
	if !validScope(scope) {
		apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid scope "+scope)
		return
	}
	if f.denied[scope] {
		apiError(w, http.StatusForbidden, "PERMISSION_DENIED", "The caller does not have permission on "+scope)
		return
	}
	for key, code := range f.failing {
		if strings.Contains(q.Get("query"), key) {
			apiError(w, code, "INTERNAL", "test fake: failing "+key)
			return
		}
	}
	if f.quota > 0 {
		f.quota--
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprintf(w, `{"error":{"code":429,"message":"Quota exceeded for quota metric 'Search requests' and limit 'Search requests per minute'","status":"RESOURCE_EXHAUSTED",
			"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":%q}]}}`, f.quotaDelay)
		return
	}
	size, _ := strconv.Atoi(q.Get("pageSize"))
	if size <= 0 || size > 500 {
		size = 500
	}
	size = min(size, f.pageSize)
	start, _ := strconv.Atoi(q.Get("pageToken"))
	terms := splitTerms(q.Get("query"))
	types := q["assetTypes"]
	var msg proto.Message
	switch method {
	case "searchAllResources":
		withData := slices.ContainsFunc(strings.Split(q.Get("readMask"), ","), func(s string) bool { return s == "*" || s == "versionedResources" })
		var all []*assetpb.ResourceSearchResult
		for _, a := range f.assets {
			if f.inScope(scope, a.result.GetProject()) && typeOK(types, a.result.GetAssetType()) && matchResource(terms, a) {
				r := proto.Clone(a.result).(*assetpb.ResourceSearchResult)
				if !withData || f.stripped[r.GetName()] {
					r.VersionedResources = nil
				}
				all = append(all, r)
			}
		}
		end, next := pageOf(start, size, len(all))
		msg = &assetpb.SearchAllResourcesResponse{Results: all[min(start, len(all)):end], NextPageToken: next}
	case "searchAllIamPolicies":
		var all []*assetpb.IamPolicySearchResult
		for _, p := range f.policies {
			if !f.inScope(scope, p.result.GetProject()) || !typeOK(types, p.result.GetAssetType()) {
				continue
			}
			if got := matchPolicy(terms, p.result); got != nil {
				all = append(all, got)
			}
		}
		end, next := pageOf(start, size, len(all))
		msg = &assetpb.SearchAllIamPoliciesResponse{Results: all[min(start, len(all)):end], NextPageToken: next}
	default:
		apiError(w, http.StatusNotFound, "NOT_FOUND", "test fake: no method "+method)
		return
	}
	b, err := protojson.Marshal(msg)
	if err != nil {
		f.t.Errorf("fake: %v", err)
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Write(b)
}

func validScope(s string) bool {
	kind, id, ok := strings.Cut(s, "/")
	return ok && id != "" && !strings.Contains(id, "/") && (kind == "organizations" || kind == "folders" || kind == "projects")
}

// inScope: the organization and the folder hold every project; a project
// scope, by id or number, holds itself.
func (f *fakeAsset) inScope(scope, project string) bool {
	if scope == f.org || scope == f.folder {
		return true
	}
	num := strings.TrimPrefix(project, "projects/")
	return scope == project || scope == "projects/"+f.projects[num]
}

func typeOK(types []string, t string) bool { return len(types) == 0 || slices.Contains(types, t) }

func pageOf(start, size, n int) (end int, next string) {
	end = min(start+size, n)
	if end < n {
		next = strconv.Itoa(end)
	}
	return end, next
}

// splitTerms splits a query at " OR " outside quotes.
func splitTerms(q string) []string {
	var out []string
	inQuote := false
	last := 0
	for i := 0; i < len(q); i++ {
		switch {
		case q[i] == '"':
			inQuote = !inQuote
		case !inQuote && strings.HasPrefix(q[i:], " OR "):
			out = append(out, q[last:i])
			last = i + 4
			i += 3
		}
	}
	if strings.TrimSpace(q[last:]) != "" {
		out = append(out, q[last:])
	}
	return out
}

// words cuts text into the words a prefix query matches.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func anyWordPrefix(texts []string, prefix string) bool {
	for _, t := range texts {
		for _, w := range words(t) {
			if strings.HasPrefix(w, strings.ToLower(prefix)) {
				return true
			}
		}
	}
	return false
}

func anyContains(texts []string, phrase string) bool {
	for _, t := range texts {
		if strings.Contains(strings.ToLower(t), strings.ToLower(phrase)) {
			return true
		}
	}
	return false
}

// matchResource: an empty query matches everything, as the real one.
func matchResource(terms []string, a fxAsset) bool {
	if len(terms) == 0 {
		return true
	}
	for _, t := range terms {
		t = strings.TrimSpace(t)
		switch {
		case strings.HasPrefix(t, "labels.") && strings.HasSuffix(t, ":*"):
			if _, ok := a.result.GetLabels()[strings.TrimSuffix(strings.TrimPrefix(t, "labels."), ":*")]; ok {
				return true
			}
		case strings.HasPrefix(t, "name="):
			if a.result.GetName() == strings.Trim(strings.TrimPrefix(t, "name="), `"`) {
				return true
			}
		case strings.HasPrefix(t, "parentFullResourceName:"):
			if a.parent == strings.Trim(strings.TrimPrefix(t, "parentFullResourceName:"), `"`) {
				return true
			}
		case strings.HasPrefix(t, `"`):
			if anyContains(a.text, strings.Trim(t, `"`)) {
				return true
			}
		case strings.HasSuffix(t, "*") && !strings.Contains(t, ":"):
			if anyWordPrefix(a.text, strings.TrimSuffix(t, "*")) {
				return true
			}
		}
	}
	return false
}

// matchPolicy returns the policy with the bindings the query matches, or
// nil; resource= matches all of a resource's bindings.
func matchPolicy(terms []string, p *assetpb.IamPolicySearchResult) *assetpb.IamPolicySearchResult {
	keep := func(b *iampb.Binding) bool {
		if len(terms) == 0 {
			return true
		}
		text := append([]string{b.GetRole(), b.GetCondition().GetTitle(), b.GetCondition().GetDescription(), b.GetCondition().GetExpression()}, b.GetMembers()...)
		for _, t := range terms {
			t = strings.TrimSpace(t)
			switch {
			case strings.HasPrefix(t, "resource="):
				if p.GetResource() == strings.TrimPrefix(t, "resource=") {
					return true
				}
			case strings.HasPrefix(t, `policy:"`):
				if anyContains(text, strings.Trim(strings.TrimPrefix(t, "policy:"), `"`)) {
					return true
				}
			case strings.HasPrefix(t, "policy:") && strings.HasSuffix(t, "*"):
				if anyWordPrefix(text, strings.TrimSuffix(strings.TrimPrefix(t, "policy:"), "*")) {
					return true
				}
			}
		}
		return false
	}
	out := proto.Clone(p).(*assetpb.IamPolicySearchResult)
	out.Policy.Bindings = nil
	for _, b := range p.GetPolicy().GetBindings() {
		if keep(b) {
			out.Policy.Bindings = append(out.Policy.Bindings, b)
		}
	}
	if len(out.Policy.Bindings) == 0 {
		return nil
	}
	return out
}

func apiError(w http.ResponseWriter, code int, status, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"error":{"code":%d,"message":%q,"status":%q}}`, code, msg, status)
}

// calls counts the searches served.
func (f *fakeAsset) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fakeAsset) queries() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}
