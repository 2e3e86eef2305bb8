package gcpiam

import (
	"encoding/json"
	"fmt"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("gcpiam", remedy.System{Examples: examples, Remove: gcpiamRemoval, Bound: gcpiamBound, Infer: inferIAM,
		Acts: remedy.ActsOn(newIAM)})
}

// removeBinding is the gcloud command that removes the binding. gcloud
// removes a conditional binding only when the condition matches exactly,
// so it is handed over as a JSON file (a --condition=key=value list would
// be split at commas in the expression and have quotes trimmed).
func (b IAMBinding) removeBinding() string {
	flags := []string{remedy.Flag("--member", b.Member), remedy.Flag("--role", b.Role)}
	if b.ConditionUnknown {
		flags = append(flags, "--all")
		return remedy.Command([]string{"gcloud", "projects", "remove-iam-policy-binding"}, flags, b.Project)
	}
	if b.Expression == "" {
		flags = append(flags, "--condition=None")
		return remedy.Command([]string{"gcloud", "projects", "remove-iam-policy-binding"}, flags, b.Project)
	}
	cond, _ := json.Marshal(map[string]string{"expression": b.Expression, "title": b.Title})
	flags = append(flags, `--condition-from-file="$f"`)
	return "f=$(mktemp) && printf '%s\\n' " + remedy.Quote(string(cond)) + ` > "$f" && ` +
		remedy.Command([]string{"gcloud", "projects", "remove-iam-policy-binding"}, flags, b.Project) +
		`; rc=$?; rm -f "$f"; [ "$rc" -eq 0 ]`
}

func gcpiamRemoval(r *remedy.Remedy, a *model.Artifact) {
	b, ok := ParseIAM(a)
	if !ok {
		return
	}
	if b.Key {
		keyFlags := []string{remedy.Flag("--iam-account", b.Account), remedy.Flag("--project", b.Project), "--quiet"}
		r.Actions = append(r.Actions,
			remedy.Action{Name: remedy.DisableKey, Step: model.StepAccessRevoked, Resolves: true,
				Summary: fmt.Sprintf("disable key %s of %s", b.KeyID, b.Account),
				Shell:   remedy.Command([]string{"gcloud", "iam", "service-accounts", "keys", "disable"}, keyFlags, b.KeyID)},
			remedy.Action{Name: remedy.DeleteKey, Step: model.StepRetired, Resolves: true,
				Summary: fmt.Sprintf("delete key %s of %s", b.KeyID, b.Account),
				Shell:   remedy.Command([]string{"gcloud", "iam", "service-accounts", "keys", "delete"}, keyFlags, b.KeyID)})
		return
	}
	if b.ConditionUnknown {
		r.Notes = append(r.Notes, "the binding has a condition this command cannot name: --all removes every binding of this member and role; `bfaudit fix` prints the exact one")
	}
	if b.Expression != "" && b.Title == "" {
		r.Notes = append(r.Notes, "the condition has no title: gcloud matches a condition by expression, title and description, so check the binding in the console if the command finds none")
	}
	if b.Expression != "" {
		r.Notes = append(r.Notes, "gcloud removes a conditional binding only when its description matches too: the command assumes none")
	}
	r.Actions = append(r.Actions, remedy.Action{Name: remedy.RevokeGrant, Step: model.StepAccessRevoked, Resolves: true,
		Summary: fmt.Sprintf("remove %s from %s in project %s", b.Role, b.Member, b.Project), Shell: b.removeBinding()})
}

// inferIAM: a binding's URI names its role and member; a condition is
// only named, so its binding cannot be matched exactly.
func inferIAM(a *model.Artifact) {
	if _, role, member, ok := parseBindingURI(a.URI); ok {
		a.Kind = model.KindGrant
		a.SetAttr(model.AttrRole, role)
		a.SetAttr(model.AttrPrincipal, member)
	}
}

// gcpiamBound gives a binding an end: the same binding with a time
// condition, then the one without removed.
func gcpiamBound(a *model.Artifact, end string) (template, what string) {
	g, ok := ParseIAM(a)
	if !ok || g.Key {
		return "", ""
	}
	cond := fmt.Sprintf("expression=request.time < timestamp(%q),title=%s", end, "expires-"+end[:min(len(end), 10)])
	return remedy.Command([]string{"gcloud", "projects", "add-iam-policy-binding"},
			[]string{remedy.Flag("--member", g.Member), remedy.Flag("--role", g.Role), remedy.Flag("--condition", cond)}, g.Project) + "\n" +
			g.removeBinding(),
		" Add the binding again with a time condition, then remove the one without."
}

// examples are artifacts as this collector emits them, on which
// docs/rules.md shows the rules' fixes (remedy.ExampleOn names them).
var examples = map[string]model.Artifact{
	"gcp-binding": {Kind: model.KindGrant, System: "gcpiam", Source: "iam", State: model.StateActive,
		URI:        "gcpiam://shop-analytics/bindings/roles/bigquery.dataEditor/serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com",
		Name:       "serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com roles/bigquery.dataEditor",
		Attributes: model.Attrs(model.AttrPrincipal, "serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com", model.AttrRole, "roles/bigquery.dataEditor")},
	"gcp-key": {Kind: model.KindCredential, System: "gcpiam", Source: "iam", State: model.StateActive,
		URI:  "gcpiam://shop-analytics/serviceAccounts/backfill-runner@shop-analytics.iam.gserviceaccount.com/keys/8a1f0c2d9e",
		Name: "backfill-runner@shop-analytics.iam.gserviceaccount.com key 8a1f0c2d9e"},
}
