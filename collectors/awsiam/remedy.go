package awsiam

import (
	"fmt"
	"strconv"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("awsiam", remedy.System{Remove: removal, Infer: infer,
		Acts: remedy.ActsOn(func(c *Collector) (remedy.Actor, error) { return newActor(c), nil })})
}

// removal is what takes a backfill's access away: an access key
// deactivated (reversible) and, once the backfill is retired, deleted; a
// managed policy detached; an inline policy deleted; a statement removed
// from its inline policy (the policy written back without it, or deleted
// when nothing is left).
func removal(r *remedy.Remedy, a *model.Artifact) {
	o, ok := ParseURI(a.URI)
	if !ok || (o.KeyID == "" && o.PolicyARN == "" && o.Inline == "") {
		return
	}
	revoke := func(summary, shell string) {
		r.Actions = append(r.Actions, remedy.Action{Name: remedy.RevokeGrant, Step: model.StepAccessRevoked, Resolves: true,
			Summary: summary, Shell: remedy.InAWSAccount(o.Account, shell)})
	}
	switch {
	case o.KeyID != "":
		flags := []string{remedy.Flag("--user-name", o.Name), remedy.Flag("--access-key-id", o.KeyID)}
		r.Actions = append(r.Actions,
			remedy.Action{Name: remedy.DisableKey, Step: model.StepAccessRevoked, Resolves: true,
				Summary: fmt.Sprintf("deactivate access key %s of user %s in account %s", o.KeyID, o.Name, o.Account),
				Shell:   remedy.InAWSAccount(o.Account, awsIAM("update-access-key", append(flags, "--status=Inactive")...))},
			remedy.Action{Name: remedy.DeleteKey, Step: model.StepRetired, Resolves: true,
				Summary: fmt.Sprintf("delete access key %s of user %s in account %s", o.KeyID, o.Name, o.Account),
				Shell:   remedy.InAWSAccount(o.Account, awsIAM("delete-access-key", flags...))})
	case o.PolicyARN != "":
		revoke(fmt.Sprintf("detach policy %s from %s %s in account %s", o.PolicyARN, o.Kind, o.Name, o.Account),
			awsIAM("detach-"+o.Kind+"-policy", o.principalFlag(), remedy.Flag("--policy-arn", o.PolicyARN)))
	case o.Statement == "":
		revoke(fmt.Sprintf("delete inline policy %s of %s %s in account %s", o.Inline, o.Kind, o.Name, o.Account), o.deleteInline())
	case a.Attr(AttrSharedWith) != "":
		r.Notes = append(r.Notes, fmt.Sprintf("inline policy %s of %s %s also holds statements of %s: remove statement %s by hand "+
			"(a command writing the policy back as audited could undo their cleanup), or with bfaudit fix --apply, which removes it from the policy as it is then",
			o.Inline, o.Kind, o.Name, a.Attr(AttrSharedWith), o.Statement))
	default:
		left, err := strconv.Atoi(a.Attr(AttrStatementsLeft))
		after := a.Attr(AttrPolicyAfter)
		summary := fmt.Sprintf("remove statement %s from inline policy %s of %s %s in account %s", o.Statement, o.Inline, o.Kind, o.Name, o.Account)
		switch {
		case err != nil || left < 0 || (left > 0 && after == ""):
			// A finding read back from a report: its URI names the
			// statement, not the policy it leaves.
			r.Notes = append(r.Notes, fmt.Sprintf("the command needs inline policy %s as audited: run bfaudit fix on a fresh audit", o.Inline))
		case left == 0:
			revoke(summary+" (its only statement of the backfill's: the policy is deleted)", o.deleteInline())
		default:
			r.Notes = append(r.Notes, "the policy is written back as audited, without the backfill's statements: audit again first if it may have changed")
			revoke(summary, awsIAM("put-"+o.Kind+"-policy", o.principalFlag(), remedy.Flag("--policy-name", o.Inline), remedy.Flag("--policy-document", after)))
		}
	}
}

// principalFlag names the principal as the aws CLI's commands for its
// kind take it: --role-name, --user-name, --group-name.
func (o Object) principalFlag() string { return remedy.Flag("--"+o.Kind+"-name", o.Name) }

func (o Object) deleteInline() string {
	return awsIAM("delete-"+o.Kind+"-policy", o.principalFlag(), remedy.Flag("--policy-name", o.Inline))
}

// awsIAM is one `aws iam` command; sub is a fixed word of this file.
func awsIAM(sub string, flags ...string) string {
	return remedy.Command([]string{"aws", "iam", sub}, flags)
}

// infer fills what a finding's URI alone gives: the kind, the principal's
// ARN (without its path, which the URI does not hold) and the policy.
func infer(a *model.Artifact) {
	o, ok := ParseURI(a.URI)
	if !ok {
		return
	}
	a.SetAttr(model.AttrPrincipal, "arn:aws:iam::"+o.Account+":"+o.Kind+"/"+o.Name)
	switch {
	case o.KeyID != "":
		a.Kind = model.KindCredential
	case o.PolicyARN != "":
		a.Kind = model.KindGrant
		a.SetAttr(model.AttrRole, o.PolicyARN)
	case o.Statement != "":
		a.Kind = model.KindGrant
		a.SetAttr(model.AttrRole, o.Inline+" statement "+o.Statement)
	case o.Inline != "":
		a.Kind = model.KindGrant
		a.SetAttr(model.AttrRole, o.Inline)
	}
}
