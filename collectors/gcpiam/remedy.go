package gcpiam

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("gcpiam", remedy.System{Remove: gcpiamRemoval, Bound: gcpiamBound, Infer: inferIAM,
		Acts: remedy.ActsOn(func(c *Collector) (remedy.Actor, error) {
			return newIAM(c), nil
		})})
}

// IAMBinding is one member's project IAM binding, or a service-account
// key, from the gcpiam collector's URIs (the cloudasset collector emits
// the same): gcpiam://<project>/bindings/<role>/<member>[?condition=...]
// and gcpiam://<project>/serviceAccounts/<email>/keys/<key id>.
type IAMBinding struct {
	Project string
	// A binding: Role, Member, and the condition's expression and title
	// when it has one.
	Role, Member   string
	Expression     string
	Title          string
	Key            bool
	Account, KeyID string
	// ConditionUnknown: the URI names a condition the artifact does not
	// carry (a report has only the URI), so no command can match it.
	ConditionUnknown bool
}

// conditionTitleAttr is the attribute gcpiam puts a condition's title in.
const conditionTitleAttr = "condition_title"

// ParseIAM reads a gcpiam artifact.
func ParseIAM(a *model.Artifact) (IAMBinding, bool) {
	segs, ok := model.RawURISegments(a.URI, "gcpiam")
	if !ok || len(segs) < 3 || segs[0] == "" {
		return IAMBinding{}, false
	}
	b := IAMBinding{Project: segs[0]}
	switch {
	case a.Kind == model.KindGrant && segs[1] == "bindings":
		b.Role, b.Member = a.Attr(model.AttrRole), a.Attr(model.AttrPrincipal)
		b.Expression, b.Title = a.Attr(model.AttrCondition), a.Attr(conditionTitleAttr)
		b.ConditionUnknown = b.Expression == "" && strings.Contains(a.URI, "?condition=")
		return b, b.Role != "" && b.Member != ""
	case a.Kind == model.KindCredential && len(segs) == 5 && segs[1] == "serviceAccounts" && segs[3] == "keys":
		b.Key, b.Account, b.KeyID = true, segs[2], segs[4]
		return b, b.Account != "" && b.KeyID != ""
	}
	return IAMBinding{}, false
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

// inferIAM: a binding's URI names its role (roles/x, or a custom role
// under projects/ or organizations/) and member; a condition is only
// named, so its binding cannot be matched exactly.
func inferIAM(a *model.Artifact) {
	segs, ok := model.RawURISegments(a.URI, "gcpiam")
	if !ok || len(segs) < 4 || segs[1] != "bindings" {
		return
	}
	n := 2 // roles/x
	if segs[2] == "projects" || segs[2] == "organizations" {
		n = 4 // projects/p/roles/x
	}
	if len(segs) < 2+n+1 {
		return
	}
	a.Kind = model.KindGrant
	a.SetAttr(model.AttrRole, strings.Join(segs[2:2+n], "/"))
	a.SetAttr(model.AttrPrincipal, strings.Join(segs[2+n:], "/"))
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
