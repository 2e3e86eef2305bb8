package remedy

import (
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// Remedies about keep labels (the bfaudit-keep-until opt-out written on an
// artifact): the label is edited where it lives, on the artifact.

// KeepLabel: a keep label the audit does not honour (BF028).
func KeepLabel(r *Remedy, f model.Finding, _ Facts) {
	r.Human = &Human{Step: model.StepPlan, Where: keepWhere(f),
		What: "Give the keep label an end date within the longest keep allowed and a reason (bfaudit-keep-until and bfaudit-keep-reason), or remove it and let the cleanup go ahead."}
}

// isKeepLabel reports whether a waiver finding is about a keep label on an
// artifact rather than a waiver in the config.
func isKeepLabel(f model.Finding) bool {
	return f.Location == nil && f.ArtifactURI != "" && !strings.HasPrefix(f.ArtifactURI, "waiver:")
}

func keepWhere(f model.Finding) string { return "the keep label on " + f.ArtifactURI }
