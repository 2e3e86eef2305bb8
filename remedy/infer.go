package remedy

import (
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// inferArtifact rebuilds, from a finding alone, as much of its artifact
// as the commands need: the system from the URI's scheme, the kind from
// the rule's recipe and the URI's shape, and for grants the role and
// member the URI names. A report holds findings, not artifacts, so this
// is what a report or sink has; where the URI does not say enough (a
// PostgreSQL grant's privileges, an IAM condition) the command is the
// broader one and a note says so. nil when the finding is not about an
// artifact bfaudit has commands for.
func inferArtifact(f model.Finding) *model.Artifact {
	if model.IsWholeBackfill(f.ArtifactURI) || strings.HasPrefix(f.ArtifactURI, "plan#") {
		return nil
	}
	scheme, _, ok := strings.Cut(f.ArtifactURI, "://")
	if !ok {
		return nil
	}
	a := &model.Artifact{URI: f.ArtifactURI, System: scheme, Source: f.Source, Scope: f.Scope, BackfillID: f.BackfillID}
	rc, _ := recipeOf(f.RuleID)
	a.Kind, a.State = rc.Kind, rc.State
	switch {
	case a.Kind == model.KindSchedulerJob && scheme == "kubernetes" && strings.Contains(f.ArtifactURI, "/jobs/"):
		a.Kind = model.KindJobRun // a Job, not a CronJob
	case a.Kind == model.KindQueue && strings.Contains(f.ArtifactURI, "/subscriptions/"):
		a.Kind = model.KindSubscription
	}
	switch scheme {
	case "postgres":
		inferPostgres(a)
	case "bigquery":
		inferBigQuery(a)
	case "gcpiam":
		inferIAM(a)
	case "alertmanager":
		if segs, ok := segments(a.URI, "alertmanager"); ok && len(segs) == 2 && segs[0] == "silences" {
			a.Kind, a.Name = model.KindSilence, segs[1]
		}
	}
	if a.Kind == "" {
		return nil
	}
	return a
}

// inferPostgres: the URI says whether it is a role, a membership or a
// grant (and on what), or a table; a grant's privileges are not in it.
func inferPostgres(a *model.Artifact) {
	segs, ok := segments(a.URI, "postgres")
	if !ok {
		return
	}
	switch {
	case len(segs) == 2 && segs[0] == "role":
		a.Kind = model.KindCredential
		a.SetAttr(model.AttrPrincipal, segs[1])
	case len(segs) == 4 && segs[0] == "grant":
		a.Kind = model.KindGrant
		a.SetAttr(model.AttrPrincipal, segs[1])
		a.SetAttr(model.AttrRole, segs[3])
	case len(segs) == 5 && segs[1] == "grant":
		a.Kind = model.KindGrant
		a.SetAttr(model.AttrPrincipal, segs[2])
		a.SetAttr("object", segs[3])
	case len(segs) == 2 && a.Kind == model.KindTable:
		if !strings.Contains(segs[1], ".") {
			a.SetAttr("object", "schema")
		}
	}
}

// inferBigQuery: an ACL entry's URI names its role and member.
func inferBigQuery(a *model.Artifact) {
	segs, ok := rawSegments(a.URI, "bigquery")
	if !ok || len(segs) < 5 || segs[2] != "acl" {
		return
	}
	a.Kind = model.KindGrant
	a.SetAttr(model.AttrRole, segs[3])
	a.SetAttr(model.AttrPrincipal, strings.Join(segs[4:], "/"))
}

// inferIAM: a binding's URI names its role (roles/x, or a custom role
// under projects/ or organizations/) and member; a condition is only
// named, so its binding cannot be matched exactly.
func inferIAM(a *model.Artifact) {
	segs, ok := rawSegments(a.URI, "gcpiam")
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
