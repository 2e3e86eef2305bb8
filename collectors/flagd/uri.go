package flagd

import (
	"net/url"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// A flag's URI, built and read here only:
//
//	flagd://<source>/<file path>#<flag>                               a flag of a flagd definition
//	flagd://<source>/<file path>#<namespace>/<name>/<flag>            a flag of an Operator resource
//	flagd://<source>/<file path>#<namespace>/<name>/<data key>/<flag> a flag of a ConfigMap's entry
//
// Every path segment and every part of the fragment is path-escaped; a
// resource that names no namespace has no namespace part. The file path is
// relative to the config file's directory, or absolute with its leading
// "/" (two slashes after the source).

// URI is a flag's URI in a flagd definition file.
func URI(source, file, flag string) string {
	return "flagd://" + source + "/" + model.EscapePath(file) + "#" + url.PathEscape(flag)
}

// ResourceURI is the URI of a flag a resource holds in a file.
func ResourceURI(source, file string, r *Resource, entry, flag string) string {
	var frag []string
	for _, part := range []string{r.Namespace, r.Name, entry} {
		if part != "" {
			frag = append(frag, url.PathEscape(part))
		}
	}
	frag = append(frag, url.PathEscape(flag))
	return strings.TrimSuffix(URI(source, file, ""), "#") + "#" + strings.Join(frag, "/")
}

func (f *Flagd) uri(file, flag string) string { return URI(f.env.Source, file, flag) }

// FlagdEntry is one flag of a flagd definition file. Resource is set for
// a flag a resource holds in the file: the fragment's parts before the
// flag, joined by '/' (namespace/name, and a ConfigMap's data key).
type FlagdEntry struct {
	File, Flag, Resource string
}

// ParseFlagd reads a flagd artifact: the file from its file attribute
// (the path the collector read) or else from its URI (the path is then
// relative to the config file's directory, or absolute).
func ParseFlagd(a *model.Artifact) (FlagdEntry, bool) {
	rest, ok := strings.CutPrefix(a.URI, "flagd://")
	if !ok {
		return FlagdEntry{}, false
	}
	_, rest, ok = strings.Cut(rest, "/")
	if !ok {
		return FlagdEntry{}, false
	}
	p, frag, ok := strings.Cut(rest, "#")
	if !ok {
		return FlagdEntry{}, false
	}
	var resource []string
	if parts := strings.Split(frag, "/"); len(parts) > 1 {
		frag = parts[len(parts)-1]
		for _, part := range parts[:len(parts)-1] {
			r, err := url.PathUnescape(part)
			if err != nil || r == "" {
				return FlagdEntry{}, false
			}
			resource = append(resource, r)
		}
	}
	flag, err := url.PathUnescape(frag)
	if err != nil || flag == "" {
		return FlagdEntry{}, false
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if segs[i], err = url.PathUnescape(s); err != nil {
			return FlagdEntry{}, false
		}
	}
	file := strings.Join(segs, "/")
	if f := a.Attr(AttrFile); f != "" {
		file = f
	}
	if file == "" {
		return FlagdEntry{}, false
	}
	return FlagdEntry{File: file, Flag: flag, Resource: strings.Join(resource, "/")}, true
}
