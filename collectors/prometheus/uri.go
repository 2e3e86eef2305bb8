package prometheus

import (
	"fmt"
	"net/url"

	"github.com/bfaudit/bfaudit/model"
)

// Artifact URIs, built here only (a rule's removal is said from its
// attributes, so nothing reads them back but the generic splitter):
//
//	prometheus://<source>/rules/<file>/<group>/alert/<name>                          a rule the server loaded
//	prometheus://<source>/files/<path>/<group>/alert/<name>                          a rule of a rule file
//	prometheus://<source>/files/<path>/<namespace>/<object>/<group>/alert/<name>     a rule of a PrometheusRule in a file
//	prometheus://<source>/prometheusrules/<namespace>/<object>/<group>/alert/<name>  a rule of a PrometheusRule in a cluster
//
// record/ takes alert/'s place for a recording rule, and a second rule of
// the same type and name in a group (a warning and a critical variant)
// ends in #2. Each name is path-escaped, and each segment of a file's
// path; the server's file, and a namespace a file's object names none of,
// is "-" when empty.

// uriBase starts every URI of this source.
func (p *Prometheus) uriBase() string { return "prometheus://" + p.sourceName() }

// serverGroupURI starts the URIs of a group's rules as the server lists it.
func (p *Prometheus) serverGroupURI(file, group string) string {
	return p.uriBase() + "/" + scopeRules + "/" + segment(orDash(file)) + "/" + segment(orDash(group))
}

// fileURI starts the URIs of a rule file's groups (groupURI).
func (p *Prometheus) fileURI(unit string) string {
	return p.uriBase() + "/files/" + model.EscapePath(unit)
}

// fileObjectURI starts the URIs of the groups of a PrometheusRule in a file.
func (p *Prometheus) fileObjectURI(unit, namespace, name string) string {
	return p.fileURI(unit) + "/" + segment(orDash(namespace)) + "/" + segment(name)
}

// clusterObjectURI starts the URIs of the groups of a cluster's PrometheusRule.
func (p *Prometheus) clusterObjectURI(namespace, name string) string {
	return p.uriBase() + "/" + scopeObjects + "/" + segment(namespace) + "/" + segment(name)
}

// groupURI starts the URIs of a group's rules, in a file or an object.
func groupURI(prefix, group string) string { return prefix + "/" + segment(group) }

// ruleURI is the URI of the nth rule (from 1) of its type and name in the
// group whose URI starts with group.
func ruleURI(group, kind, name string, n int) string {
	uri := group + "/" + kindSegment(kind) + "/" + segment(name)
	if n > 1 {
		uri += fmt.Sprintf("#%d", n)
	}
	return uri
}

func kindSegment(kind string) string {
	if kind == typeRecording {
		return "record"
	}
	return "alert"
}

// segment escapes one name for a URI path.
func segment(s string) string { return url.PathEscape(s) }
