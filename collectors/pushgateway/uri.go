package pushgateway

import (
	"encoding/base64"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// plain is a value a path holds as it is: not "." or "..", which a path
// cleaner removes, nor '/', '%', '?' or a blank. segment is any part
// keyPath writes between slashes.
var plain, segment = regexp.MustCompile(`^[A-Za-z0-9_:-][A-Za-z0-9_.:-]*$`), regexp.MustCompile(`^[A-Za-z0-9_:=@-][A-Za-z0-9_.:=@-]*$`)

// keyPath is a grouping key as the API's paths write it (job first, a value
// not plain in the base64url form <label>@base64/<value>, "=" when empty),
// and the path of the group's URI, pushgateway://<source>/job/<job>/...:
// a finding alone gives back the path that deletes its group.
func keyPath(labels map[string]string) string {
	path := ""
	for _, k := range append([]string{"job"}, slices.DeleteFunc(slices.Sorted(maps.Keys(labels)), func(k string) bool { return k == "job" })...) {
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

// keyPathOf reads keyPath back from a group's URI; ok only when made of
// what keyPath writes, so nothing else is ever put into a path.
func keyPathOf(uri string) (string, bool) {
	segs, ok := model.RawURISegments(uri, "pushgateway")
	if !ok || len(segs) < 3 || len(segs)%2 == 0 || (segs[1] != "job" && segs[1] != "job@base64") {
		return "", false
	}
	for _, s := range segs[1:] {
		if !segment.MatchString(s) {
			return "", false
		}
	}
	return "/" + strings.Join(segs[1:], "/"), true
}
