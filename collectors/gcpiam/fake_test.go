package gcpiam

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeGCP serves the Resource Manager v3 and IAM v1 REST paths the
// collector calls, with the real JSON shapes, page tokens and error bodies.
type fakeGCP struct {
	t        *testing.T
	mu       sync.Mutex
	policies map[string]string   // project -> policy JSON
	accounts map[string][]string // project -> service account JSON objects
	keys     map[string][]string // e-mail -> key JSON objects
	denied   map[string]bool     // project -> answer 403 to everything about it
	// throttle answers 429 with Retry-After to the first n requests whose
	// path contains the key.
	throttle map[string]int
	fail     map[string]int // path suffix -> answer this status, always
	pageSize int            // the fake's own page size for serviceAccounts.list
	requests []string
}

func newFake(t *testing.T) *fakeGCP {
	return &fakeGCP{t: t, policies: map[string]string{}, accounts: map[string][]string{},
		keys: map[string][]string{}, denied: map[string]bool{}, throttle: map[string]int{}, fail: map[string]int{}, pageSize: 2}
}

func (f *fakeGCP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	path := r.URL.Path
	f.requests = append(f.requests, r.Method+" "+path+"?"+r.URL.RawQuery)
	for key, n := range f.throttle {
		if n > 0 && strings.Contains(path, key) {
			f.throttle[key] = n - 1
			w.Header().Set("Retry-After", "3")
			apiError(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Read requests'")
			return
		}
	}
	for suffix, code := range f.fail {
		if strings.HasSuffix(path, suffix) {
			apiError(w, code, "INTERNAL", "test fake: failing "+suffix)
			return
		}
	}
	switch {
	case r.Method == http.MethodPost && strings.HasPrefix(path, "/v3/projects/") && strings.HasSuffix(path, ":getIamPolicy"):
		project := strings.TrimSuffix(strings.TrimPrefix(path, "/v3/projects/"), ":getIamPolicy")
		var req struct {
			Options struct {
				RequestedPolicyVersion int `json:"requestedPolicyVersion"`
			} `json:"options"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || req.Options.RequestedPolicyVersion != 3 {
			// The real API would drop conditions from the answer; failing
			// loudly keeps the collector honest about asking for v3.
			apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "test fake: requestedPolicyVersion must be 3, got "+string(body))
			return
		}
		if f.denied[project] {
			apiError(w, http.StatusForbidden, "PERMISSION_DENIED", fmt.Sprintf("The caller does not have permission on projects/%s", project))
			return
		}
		pol, ok := f.policies[project]
		if !ok {
			apiError(w, http.StatusNotFound, "NOT_FOUND", "project not found")
			return
		}
		io.WriteString(w, pol)
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/serviceAccounts"):
		project := strings.TrimSuffix(strings.TrimPrefix(path, "/v1/projects/"), "/serviceAccounts")
		if f.denied[project] {
			apiError(w, http.StatusForbidden, "PERMISSION_DENIED", "Permission 'iam.serviceAccounts.list' denied on resource")
			return
		}
		all := f.accounts[project]
		start, _ := strconv.Atoi(r.URL.Query().Get("pageToken"))
		end := min(start+f.pageSize, len(all))
		next := ""
		if end < len(all) {
			next = fmt.Sprintf(`,"nextPageToken":"%d"`, end)
		}
		fmt.Fprintf(w, `{"accounts":[%s]%s}`, strings.Join(all[start:end], ","), next)
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/keys"):
		if got := r.URL.Query()["keyTypes"]; len(got) != 1 || got[0] != "USER_MANAGED" {
			apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "test fake: expected keyTypes=USER_MANAGED")
			return
		}
		parts := strings.Split(path, "/") // "", v1, projects, P, serviceAccounts, E, keys
		email := parts[5]
		keys, ok := f.keys[email]
		if !ok {
			apiError(w, http.StatusForbidden, "PERMISSION_DENIED", "Permission 'iam.serviceAccountKeys.list' denied")
			return
		}
		fmt.Fprintf(w, `{"keys":[%s]}`, strings.Join(keys, ","))
	default:
		apiError(w, http.StatusNotFound, "NOT_FOUND", "test fake: no route for "+r.Method+" "+path)
	}
}

func apiError(w http.ResponseWriter, code int, status, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"error":{"code":%d,"message":%q,"status":%q}}`, code, msg, status)
}

func (f *fakeGCP) start() *httptest.Server {
	return serveChecked(f.t, f)
}

func (f *fakeGCP) count(fragment string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.Contains(r, fragment) {
			n++
		}
	}
	return n
}
