package remedy

import (
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// InferArtifact rebuilds, from a finding alone, as much of its artifact
// as the commands need: the system from the URI's scheme, the kind from
// the rule's recipe and the URI's shape, and for grants the role and
// member the URI names. A report holds findings, not artifacts, so this
// is what a report or sink has; where the URI does not say enough (a
// PostgreSQL grant's privileges, an IAM condition) the command is the
// broader one and a note says so. nil when the finding is not about an
// artifact bfaudit has commands for.
func InferArtifact(f model.Finding) *model.Artifact {
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
	if a.Kind == model.KindQueue && strings.Contains(f.ArtifactURI, "/subscriptions/") {
		a.Kind = model.KindSubscription
	}
	if infer := commandsOf(a).Infer; infer != nil {
		infer(a)
	}
	if a.Kind == "" {
		return nil
	}
	return a
}
