package kubernetes

import "github.com/bfaudit/bfaudit/model"

// Keep annotations: the opt-out a workload's owners write on the object
// (bfaudit.io/keep-until: "2027-01-31", bfaudit.io/keep-reason: "..."). An
// annotation value holds any text, so the reason is read as written.
// Kubernetes records no author of an annotation (managedFields name the
// field manager, kubectl, not a person), so keep_by stays empty.
const (
	KeepUntilAnnotation  = model.KeepAnnotationPrefix + "keep-until"
	KeepReasonAnnotation = model.KeepAnnotationPrefix + "keep-reason"
)

func keepFromAnnotations(a *model.Artifact, annotations map[string]string) {
	a.SetKeep(annotations[KeepUntilAnnotation], annotations[KeepReasonAnnotation], "")
}
