package bigquery

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("bigquery", remedy.System{Examples: examples, Remove: bigqueryRemoval, Infer: inferBigQuery, Acts: remedy.ActsOn(newBigQuery)})
}

// Spec is the table as bq names it: project:dataset.table.
func (t BQTable) Spec() string { return t.Project + ":" + t.Dataset + "." + t.Table }

// DatasetSpec is the dataset as bq names it: project:dataset.
func (t BQTable) DatasetSpec() string { return t.Project + ":" + t.Dataset }

// ACLField is the field of a dataset access entry that holds the member,
// and the member as that field spells it: a service account appears in
// ACLs as userByEmail.
func (t BQTable) ACLField() (field, value string) {
	kind, rest, ok := strings.Cut(t.Member, ":")
	if !ok {
		return "iamMember", t.Member
	}
	switch kind {
	case "user", "serviceAccount":
		return "userByEmail", rest
	case "group":
		return "groupByEmail", rest
	case "domain":
		return "domain", rest
	case "specialGroup":
		return "specialGroup", rest
	}
	return "iamMember", t.Member
}

// bqKeepDays is how long the alternative to dropping keeps a table: long
// enough to check nothing reads it, short enough not to linger.
const bqKeepDays = 7

// aclFilter removes the entries of one member and role from a dataset's
// access list; the member and role are jq arguments, never part of the
// program text.
const aclFilter = `.access |= map(select((.role == $role and .[$field] == $who) | not))`

func bigqueryRemoval(r *remedy.Remedy, a *model.Artifact) {
	t, ok := ParseBigQuery(a)
	if !ok {
		return
	}
	if !t.ACL {
		r.Actions = append(r.Actions, remedy.Action{Name: remedy.DropTable, Step: model.StepRetired, Resolves: true,
			Summary: "delete table " + t.Spec(),
			Shell:   remedy.Command([]string{"bq", "rm"}, []string{"-f", "-t"}, t.Spec())})
		r.Alternatives = append(r.Alternatives,
			fmt.Sprintf("%s  # keep it %d more days, then BigQuery deletes it", remedy.Command([]string{"bq", "update"}, []string{"--expiration", strconv.Itoa(bqKeepDays * 24 * 3600)}, t.Spec()), bqKeepDays))
		return
	}
	field, who := t.ACLField()
	// bq has no command that removes one access entry: the dataset's
	// definition is read, filtered and written back with the etag it was
	// read at, so a change made in between fails the update instead of
	// being overwritten.
	shell := "f=$(mktemp) && " +
		remedy.Command([]string{"bq", "show"}, []string{"--format=prettyjson"}, t.DatasetSpec()) + " | " +
		remedy.Command([]string{"jq"}, []string{"--arg", "role", remedy.Quote(t.Role), "--arg", "field", field, "--arg", "who", remedy.Quote(who)}, aclFilter) +
		` > "$f" && ` + remedy.Command([]string{"bq", "update"}, []string{"--etag", `"$(jq -r .etag "$f")"`, "--source", `"$f"`}, t.DatasetSpec()) +
		`; rc=$?; rm -f "$f"; [ "$rc" -eq 0 ]`
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.RevokeGrant, Step: model.StepAccessRevoked, Resolves: true,
		Summary: fmt.Sprintf("remove %s %s from dataset %s", t.Member, t.Role, t.DatasetSpec()), Shell: shell})
}

// inferBigQuery: an ACL entry's URI names its role and member.
func inferBigQuery(a *model.Artifact) {
	role, member, ok := parseACLURI(a.URI)
	if !ok {
		return
	}
	a.Kind = model.KindGrant
	a.SetAttr(model.AttrRole, role)
	a.SetAttr(model.AttrPrincipal, member)
}

// examples are artifacts as this collector emits them, on which
// docs/rules.md shows the rules' fixes (remedy.ExampleOn names them).
var examples = map[string]model.Artifact{
	"bq-acl": {Kind: model.KindGrant, System: "bigquery", Source: "warehouse-bq", State: model.StateActive,
		URI:        "bigquery://shop-analytics/revenue/acl/WRITER/serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com",
		Name:       "serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com WRITER on revenue",
		Attributes: model.Attrs(model.AttrPrincipal, "serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com", model.AttrRole, "WRITER", "dataset", "revenue")},
	"bq-table": {Kind: model.KindTable, System: "bigquery", Source: "warehouse-bq", State: model.StateActive,
		URI: "bigquery://shop-analytics/revenue/bf_1234_refunds_tmp", Name: "revenue.bf_1234_refunds_tmp"},
	"bq-table-deleted": {Kind: model.KindTable, System: "bigquery", Source: "warehouse-bq", State: model.StateDeleted,
		URI: "bigquery://shop-analytics/revenue/bf_1234_refunds_tmp", Name: "revenue.bf_1234_refunds_tmp"},
}
