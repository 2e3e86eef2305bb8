package model

import (
	"net/url"
	"strings"
)

// JoinURI is scheme://source/part/part..., every name path-escaped: the
// URI URISegments (and NonEmptySegments) read back part by part.
func JoinURI(scheme, source string, parts ...string) string {
	var b strings.Builder
	b.WriteString(scheme + "://" + url.PathEscape(source))
	for _, p := range parts {
		b.WriteString("/" + url.PathEscape(p))
	}
	return b.String()
}

// NonEmptySegments is URISegments of a URI with exactly n segments, none
// empty: what JoinURI writes for an object named by n parts, and nothing
// else.
func NonEmptySegments(uri, scheme string, n int) ([]string, bool) {
	segs, ok := URISegments(uri, scheme)
	if !ok || len(segs) != n {
		return nil, false
	}
	for _, s := range segs {
		if s == "" {
			return nil, false
		}
	}
	return segs, true
}

// URISegments splits a URI of the form scheme://authority/seg/seg... into its
// path-unescaped segments after the authority; ok is false when the URI
// does not have the scheme or a segment does not unescape. Collectors
// path-escape each name they put in a URI, so a '/' in a name (a RabbitMQ
// vhost "/") stays inside its segment.
func URISegments(uri, scheme string) ([]string, bool) {
	rest, ok := strings.CutPrefix(uri, scheme+"://")
	if !ok {
		return nil, false
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 2 {
		return nil, false
	}
	out := make([]string, 0, len(parts)-1)
	for _, p := range parts[1:] {
		s, err := url.PathUnescape(p)
		if err != nil {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// EscapePath path-escapes each segment of a slash path and keeps its
// slashes, so URISegments reads the path back segment by segment (a file
// or object path whose folders are parts of the URI).
func EscapePath(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// RawURISegments splits a URI after its scheme into every part, the
// authority first, without unescaping: the GCP collectors put ids in URIs
// as they are (a project, dataset or table id cannot hold '/' or '%').
func RawURISegments(uri, scheme string) ([]string, bool) {
	rest, ok := strings.CutPrefix(uri, scheme+"://")
	if !ok {
		return nil, false
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	return strings.Split(rest, "/"), true
}
