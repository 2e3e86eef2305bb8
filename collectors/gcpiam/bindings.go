package gcpiam

import (
	"context"
	"fmt"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/model"
	crm "google.golang.org/api/cloudresourcemanager/v3"
)

// AttrConditionTitle is a grant's condition's title, beside the model's
// attributes of grants.
const AttrConditionTitle = "condition_title"

// policyVersion 3 is the only version that returns conditional bindings
// with their conditions; asking for less hides exactly the time bounds
// this collector is looking for.
const policyVersion = 3

// collectBindings reads one project's IAM policy and emits a grant for
// each backfill member of each binding.
func (c *Collector) collectBindings(ctx context.Context, project string, tie iamcond.Matcher, sink collectors.Sink, accounts *accountSet) error {
	pol, err := gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (*crm.Policy, error) {
		return c.crm.Projects.GetIamPolicy("projects/"+project, &crm.GetIamPolicyRequest{
			Options: &crm.GetPolicyOptions{RequestedPolicyVersion: policyVersion},
		}).Context(ctx).Do()
	})
	if err != nil {
		return fmt.Errorf("gcpiam: get IAM policy of project %s: %w", project, err)
	}
	if pol.Etag == "" {
		// Every policy has an etag, even one with no bindings; an answer
		// without one is not a policy, and must not read as "no grants".
		return fmt.Errorf("gcpiam: get IAM policy of project %s: the answer is not a policy (no etag)", project)
	}
	sink.AddRead(project, "bindings", len(pol.Bindings), 0)
	for _, b := range pol.Bindings {
		var expr, title, desc string
		if b.Condition != nil {
			expr, title, desc = b.Condition.Expression, b.Condition.Title, b.Condition.Description
		}
		bindingID, bindingTied := tie.Text(title, desc)
		for _, m := range b.Members {
			id, how := tie.Member(m)
			memberTied := how != ""
			if !memberTied && bindingTied {
				id, how = bindingID, "name"
			}
			uri := GrantURI(project, b.Role, m, b.Condition)
			if how == "" {
				if assetID, ok := tie.Asset(uri); ok {
					id, how = assetID, "asset"
				}
			}
			if how == "" {
				continue
			}
			if email, ok := iamcond.ServiceAccountEmail(m); ok && memberTied {
				// Only a principal that is itself backfill machinery has
				// its keys read: a production account named in a
				// backfill's conditional binding keeps its own keys.
				accounts.add(account{email: email, backfillID: id, how: how, route: routeBinding, via: project})
			}
			sink.AddArtifact(c.grant(project, b.Role, m, expr, title, uri, id, how))
		}
	}
	return nil
}

func (c *Collector) grant(project, role, member, expr, title, uri, id, how string) model.Artifact {
	a := model.Artifact{
		Kind:        model.KindGrant,
		Scope:       project,
		URI:         uri,
		Name:        member + " " + role,
		BackfillID:  id,
		Correlation: how,
		State:       model.StateActive,
	}
	a.SetAttr(model.AttrPrincipal, member)
	a.SetAttr(model.AttrRole, role)
	a.SetAttr(model.AttrTimeBound, "false")
	if expr != "" {
		a.SetAttr(model.AttrCondition, expr)
	}
	if title != "" {
		a.SetAttr(AttrConditionTitle, title)
	}
	exp, bounded, err := iamcond.Expiry(expr)
	a.SetEnd(exp, bounded, err)
	if err == nil && bounded && !exp.After(c.now()) {
		// IAM keeps an expired conditional binding in the policy, but it
		// grants nothing any more.
		a.State = model.StateExpired
	}
	return a
}
