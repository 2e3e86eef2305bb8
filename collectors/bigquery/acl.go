package bigquery

import (
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/model"
	bq "google.golang.org/api/bigquery/v2"
)

// emitACL turns dataset ACL entries into grants: every principal entry of
// a dataset that is backfill machinery, and the entries of backfill
// principals (declared, or with a backfill id in their e-mail) on any
// dataset, such as a replay account's WRITER on a production dataset.
// The project-role entries BigQuery adds to every dataset (projectOwners,
// projectWriters, projectReaders) are defaults, not grants made for a
// backfill, and are skipped; so are authorized views, routines and
// datasets, which are not principals.
func (c *Collector) emitACL(project, dsID string, ds *bq.Dataset, dsTie tie, m iamcond.Matcher, sink collectors.Sink) {
	for _, e := range ds.Access {
		member := aclMember(e)
		if member == "" {
			continue
		}
		uri := aclURI(project, dsID, e.Role, member, e.Condition)
		id, how := m.Member(member)
		if how == "" {
			if aid, ok := m.Asset(uri); ok {
				id, how = aid, "asset"
			}
		}
		if how == "" && dsTie.how != "" {
			id, how = dsTie.id, dsTie.how
		}
		if how == "" {
			continue
		}
		sink.AddArtifact(c.aclGrant(project, dsID, e, member, uri, id, how))
	}
}

func (c *Collector) aclGrant(project, dataset string, e *bq.DatasetAccess, member, uri, id, how string) model.Artifact {
	a := model.Artifact{
		Kind:        model.KindGrant,
		Scope:       datasetScope(project, dataset),
		URI:         uri,
		Name:        member + " " + e.Role + " on " + dataset,
		BackfillID:  id,
		Correlation: how,
		State:       model.StateActive,
	}
	a.SetAttr(model.AttrPrincipal, member)
	a.SetAttr(model.AttrRole, e.Role)
	a.SetAttr(AttrDataset, dataset)
	a.SetAttr(model.AttrTimeBound, "false")
	if e.Condition == nil || e.Condition.Expression == "" {
		return a
	}
	a.SetAttr(model.AttrCondition, e.Condition.Expression)
	exp, bounded, err := iamcond.Expiry(e.Condition.Expression)
	a.SetEnd(exp, bounded, err)
	if err == nil && bounded && !exp.After(c.now()) {
		a.State = model.StateExpired
	}
	return a
}

// aclMember spells an ACL entry's principal the way IAM does, so the same
// principal reads the same here and in IAM bindings. A service account
// appears in ACLs as userByEmail.
func aclMember(e *bq.DatasetAccess) string {
	switch {
	case e.UserByEmail != "":
		if strings.HasSuffix(strings.ToLower(e.UserByEmail), ".gserviceaccount.com") {
			return "serviceAccount:" + e.UserByEmail
		}
		return "user:" + e.UserByEmail
	case e.GroupByEmail != "":
		return "group:" + e.GroupByEmail
	case e.Domain != "":
		return "domain:" + e.Domain
	case e.IamMember != "":
		return e.IamMember
	case e.SpecialGroup != "":
		switch e.SpecialGroup {
		case "projectOwners", "projectWriters", "projectReaders":
			return ""
		}
		return "specialGroup:" + e.SpecialGroup
	}
	return ""
}
