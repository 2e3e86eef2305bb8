package bigquery

import (
	"net/url"
	"strings"

	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/model"
	bq "google.golang.org/api/bigquery/v2"
)

// Artifact URIs, built and read here only (the cloudasset collector builds
// the same through DatasetURI, TableURI and ACLGrants):
//
//	bigquery://<project>/<dataset>                                        a dataset (matched by, not emitted)
//	bigquery://<project>/<dataset>/<table>                                a table
//	bigquery://<project>/<dataset>/acl/<role>/<member>[?condition=<key>]  an entry of a dataset's ACL
//
// Ids go in as they are: a project, dataset or table id cannot hold '/',
// '?', '#' or '%'. A role may hold '/' (roles/bigquery.dataViewer) but
// never ':'; a member starts with its type and ':' (user:, group:,
// specialGroup:...). A conditional entry adds its condition's key,
// query-escaped.

// DatasetURI is the URI a dataset is matched by (labels aside).
func DatasetURI(project, dataset string) string {
	return "bigquery://" + project + "/" + dataset
}

// TableURI is a table artifact's URI.
func TableURI(project, dataset, table string) string {
	return DatasetURI(project, dataset) + "/" + table
}

// aclURI names one ACL entry stably; a conditional entry adds its
// condition's title, or a hash of its expression.
func aclURI(project, dataset, role, member string, cond *bq.Expr) string {
	uri := DatasetURI(project, dataset) + "/acl/" + role + "/" + member
	if cond == nil {
		return uri
	}
	if key := iamcond.ConditionKey(cond.Title, cond.Expression); key != "" {
		uri += "?condition=" + url.QueryEscape(key)
	}
	return uri
}

// BQTable is a BigQuery table or dataset ACL entry, read from its URI.
type BQTable struct {
	Project, Dataset, Table string
	// ACL entries: Role and Member as IAM spells them.
	ACL          bool
	Role, Member string
}

// ParseBigQuery reads a BigQuery table or ACL entry; an entry's role and
// member are its attributes (parseACLURI reads them from a URI alone).
func ParseBigQuery(a *model.Artifact) (BQTable, bool) {
	segs, ok := model.RawURISegments(a.URI, "bigquery")
	if !ok || len(segs) < 3 || segs[0] == "" || segs[1] == "" {
		return BQTable{}, false
	}
	t := BQTable{Project: segs[0], Dataset: segs[1]}
	switch {
	case a.Kind == model.KindGrant && len(segs) >= 4 && segs[2] == "acl":
		t.ACL, t.Role, t.Member = true, a.Attr(model.AttrRole), a.Attr(model.AttrPrincipal)
		return t, t.Role != "" && t.Member != ""
	case (a.Kind == model.KindTable || a.Kind == model.KindCheckpoint) && len(segs) == 3 && segs[2] != "":
		t.Table = segs[2]
		return t, true
	}
	return BQTable{}, false
}

// parseACLURI reads an ACL entry's role and member from its URI: the
// member starts at the first part after acl that holds a ':', and ends at
// the condition (a deleted member holds a '?': deleted:user:<e-mail>?uid=<id>).
func parseACLURI(uri string) (role, member string, ok bool) {
	rest, ok := strings.CutPrefix(uri, "bigquery://")
	rest, _, _ = strings.Cut(rest, "?condition=")
	segs := strings.Split(rest, "/")
	if !ok || len(segs) < 5 || segs[2] != "acl" {
		return "", "", false
	}
	for i := 4; i < len(segs); i++ {
		if strings.Contains(segs[i], ":") {
			return strings.Join(segs[3:i], "/"), strings.Join(segs[i:], "/"), true
		}
	}
	return "", "", false
}
