package pushgateway

import (
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/model"
)

// A group is named by its grouping key: job and the labels its pushes
// named in their path. The URI holds the key whole, so a finding alone (a
// report holds no artifacts) gives back the path that deletes the group.

// labelName is a Prometheus label name; a key holding anything else did
// not come from a Pushgateway and could not be written back into a path.
var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// plain is a value that goes into a path as it is: no '/', '%' or
// blank, and not "." or ".." (which a path cleaner would remove).
var plain = regexp.MustCompile(`^[A-Za-z0-9_:-][A-Za-z0-9_.:-]*$`)

// checkKey refuses a grouping key bfaudit could not write back.
func checkKey(labels map[string]string) error {
	if labels["job"] == "" {
		return errors.New("no job label")
	}
	for k := range labels {
		if !labelName.MatchString(k) {
			return fmt.Errorf("label name %q is not a Prometheus label name", redact.Line(k, 40))
		}
	}
	return nil
}

// keyOrder is the key's label names, job first, then in name order.
func keyOrder(labels map[string]string) []string {
	return append([]string{"job"}, slices.DeleteFunc(slices.Sorted(maps.Keys(labels)), func(k string) bool { return k == "job" })...)
}

// groupURI is pushgateway://<source>/job/<job>/<label>/<value>..., each
// name and value path-escaped.
func groupURI(source string, labels map[string]string) string {
	uri := "pushgateway://" + source
	for _, k := range keyOrder(labels) {
		uri += "/" + url.PathEscape(k) + "/" + url.PathEscape(labels[k])
	}
	return uri
}

// parseGroupURI reads the grouping key back from a groupURI.
func parseGroupURI(uri string) (map[string]string, bool) {
	segs, ok := model.URISegments(uri, "pushgateway")
	if !ok || len(segs)%2 != 0 || segs[0] != "job" {
		return nil, false
	}
	labels := map[string]string{}
	for i := 0; i < len(segs); i += 2 {
		if _, dup := labels[segs[i]]; dup {
			return nil, false
		}
		labels[segs[i]] = segs[i+1]
	}
	return labels, checkKey(labels) == nil
}

// groupName is the key as Prometheus prints labels: {job="x", a="b"}.
func groupName(labels map[string]string) string {
	parts := make([]string, 0, len(labels))
	for _, k := range keyOrder(labels) {
		parts = append(parts, k+"="+strconv.Quote(labels[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// groupPath is the group's API path, /metrics/job/<job>/<label>/<value>...
// A value that is not plain goes in the base64url form the Pushgateway
// reads (<label>@base64/<value>, "=" for an empty one), the only form that
// keeps a '/' or an empty value.
func groupPath(labels map[string]string) string {
	path := "/metrics"
	for _, k := range keyOrder(labels) {
		switch v := labels[k]; {
		case v == "":
			path += "/" + k + "@base64/="
		case plain.MatchString(v):
			path += "/" + k + "/" + v
		default:
			path += "/" + k + "@base64/" + base64.RawURLEncoding.EncodeToString([]byte(v))
		}
	}
	return path
}
