package awsiam

import (
	"slices"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// Attributes of the grants and keys this collector reports, besides the
// model's (principal, role: the policy, time_bound, login).
const (
	// AttrPolicyType is how the grant is held: "managed" (a customer
	// managed policy attached), "aws_managed" (an AWS managed one, whose
	// document is not read), "inline", or "statement" (one statement of
	// an inline policy of a principal not made for the backfill).
	AttrPolicyType = "policy_type"
	// AttrDocumentHash identifies the statements of an inline or customer
	// managed policy as the audit read them, and AttrStatementHash one
	// statement: a fix leaves a policy that changed since alone.
	AttrDocumentHash  = "document_hash"
	AttrStatementHash = "statement_hash"
	// AttrPolicyAfter is an inline policy as a statement's removal leaves
	// it (the statements of the same backfill removed), and
	// AttrStatementsLeft how many statements that is: none, and the
	// policy is deleted instead.
	AttrPolicyAfter    = "policy_after"
	AttrStatementsLeft = "statements_left"
	// AttrSharedWith lists the other backfills whose statements the same
	// inline policy holds: no printed command can remove one backfill's
	// without writing back the other's as audited.
	AttrSharedWith = "policy_shared_with"
	// AttrBoundary is the principal's permissions boundary (an ARN).
	AttrBoundary = "permissions_boundary"
	// AttrAssumableFrom lists who outside the account a role's trust
	// policy lets assume it: "*", other accounts' principals, federated
	// identity providers.
	AttrAssumableFrom = "assumable_from_outside"
)

// The policy types of AttrPolicyType.
const (
	policyManaged    = "managed"
	policyAWSManaged = "aws_managed"
	policyInline     = "inline"
	policyStatement  = "statement"
)

// emitGrants reports the access principal p holds for a backfill: every
// policy of a principal tied to one (id), or else the policies and the
// inline statements that are themselves tied to one (a production role
// given a bf-1234-write policy, or a statement with Sid BF1234). A
// grant ends when every Allow statement of its policy does (SetEnd); one
// whose end has passed stays active: the policy is still attached, one
// edit of a date away from allowing again, and the rules (BF003) judge
// the end at the audit's time.
func (c *Collector) emitGrants(account string, p *principal, id, how string, acct *account, sink collectors.Sink) {
	var outsiders []string
	if p.kind == kindRole && p.trust != "" {
		if trust, err := parseDocument(p.trust); err == nil {
			outsiders = trust.outsiders(account)
		}
	}
	grant := func(uri, role, policyType string, gid, ghow string) model.Artifact {
		a := c.artifact(model.KindGrant, account, uri, p.kind+" "+p.name+": "+role, gid, ghow)
		a.LastUsedAt = model.At(p.lastUsed)
		a.SetAttr(model.AttrPrincipal, p.arn)
		a.SetAttr(model.AttrRole, role)
		a.SetAttr(AttrPolicyType, policyType)
		a.SetAttr(model.AttrTimeBound, "false")
		if p.boundary != "" {
			a.SetAttr(AttrBoundary, p.boundary)
		}
		if len(outsiders) > 0 {
			a.SetAttr(AttrAssumableFrom, strings.Join(outsiders, ","))
		}
		return a
	}
	for _, ap := range p.attached {
		uri := AttachedURI(c.Env.Source, account, p.kind, p.name, ap.arn)
		mp, customer := acct.policies[ap.arn]
		gid, ghow := id, how
		if gid == "" {
			if gid, ghow = c.tiePolicy(uri, ap.name, mp.path); gid == "" {
				continue
			}
		}
		if !customer {
			sink.AddArtifact(grant(uri, ap.arn, policyAWSManaged, gid, ghow))
			continue
		}
		a := grant(uri, ap.arn, policyManaged, gid, ghow)
		doc, err := parseDocument(mp.document)
		if err == nil {
			a.SetAttr(AttrDocumentHash, doc.hash())
			end, bounded, _, cerr := doc.expiry()
			a.SetEnd(end, bounded, cerr)
		} else {
			a.SetAttr(model.AttrConditionError, err.Error())
		}
		sink.AddArtifact(a)
	}
	for _, ip := range p.inline {
		uri := InlineURI(c.Env.Source, account, p.kind, p.name, ip.name)
		doc, err := parseDocument(ip.document)
		gid, ghow := id, how
		if gid == "" {
			gid, ghow = c.tiePolicy(uri, ip.name, "")
		}
		switch {
		case gid != "" && err != nil:
			a := grant(uri, ip.name, policyInline, gid, ghow)
			a.SetAttr(model.AttrConditionError, err.Error())
			sink.AddArtifact(a)
		case gid != "":
			end, bounded, allows, cerr := doc.expiry()
			if !allows {
				continue // a policy of Deny statements grants nothing
			}
			a := grant(uri, ip.name, policyInline, gid, ghow)
			a.SetAttr(AttrDocumentHash, doc.hash())
			a.SetEnd(end, bounded, cerr)
			sink.AddArtifact(a)
		case err == nil:
			for _, s := range c.tiedStatements(doc) {
				a := grant(StatementURI(c.Env.Source, account, p.kind, p.name, ip.name, s.key()), ip.name+" statement "+s.key(), policyStatement, s.id, "name")
				a.SetAttr(AttrStatementHash, s.hash())
				after, left, shared := c.afterRemoval(doc, s.id)
				a.SetAttr(AttrPolicyAfter, after)
				a.SetAttr(AttrStatementsLeft, strconv.Itoa(left))
				if len(shared) > 0 {
					a.SetAttr(AttrSharedWith, strings.Join(shared, ","))
				}
				end, bounded, cerr := s.expiry()
				a.SetEnd(end, bounded, cerr)
				sink.AddArtifact(a)
			}
		}
	}
}

// tiePolicy ties a policy of a principal not itself tied: a plan's asset
// (the grant's URI), the policy's name, its path.
func (c *Collector) tiePolicy(uri, name, path string) (id, how string) {
	sel := c.Env.Selector
	if id, ok := sel.Assets[uri]; ok {
		return id, "asset"
	}
	if id, ok := sel.FromName(name); ok {
		return id, "name"
	}
	if id, ok := sel.FromText(path); ok {
		return id, "name"
	}
	return "", ""
}

// tiedStatement is an Allow statement whose Sid names a backfill.
type tiedStatement struct {
	statement
	id string
}

func (c *Collector) tiedStatements(doc document) []tiedStatement {
	var out []tiedStatement
	for _, s := range doc.statements {
		if !s.allows() || s.Sid == "" {
			continue
		}
		if id, ok := c.Env.Selector.FromName(s.Sid); ok {
			out = append(out, tiedStatement{s, id})
		}
	}
	return out
}

// afterRemoval is doc without the statements tied to backfill id, how
// many are left, and the other backfills whose statements stay.
func (c *Collector) afterRemoval(doc document, id string) (after string, left int, shared []string) {
	var keys []string
	for _, s := range c.tiedStatements(doc) {
		switch {
		case model.ParseID(s.id) == model.ParseID(id):
			keys = append(keys, s.key())
		case !slices.Contains(shared, s.id):
			shared = append(shared, s.id)
		}
	}
	after, left, err := doc.without(keys)
	if err != nil {
		return "", -1, shared
	}
	return after, left, shared
}
