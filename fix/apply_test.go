package fix_test

import (
	"context"
	"testing"

	"github.com/bfaudit/bfaudit/fix"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/fixtest"
)

// An artifact gone since the audit is cleanup done: skipped, and the
// later steps go on; one a system cannot act on fails and holds them.
func TestApplyGoneDoesNotHold(t *testing.T) {
	gone, mq := &stubSystem{found: false}, &stubSystem{found: true}
	res := fixtest.Apply(t, fixtest.Inputs(t, fixtest.Estate(true)), "BF-1234", map[string]remedy.Actor{"pg": gone, "mq": mq, "scheduler": mq}, nil,
		remedy.RevokeGrant, remedy.DropTable, remedy.DeleteQueue, remedy.DeleteJob)
	if got := fixtest.StatusOf(res, remedy.RevokeGrant); got != fix.StatusSkipped {
		t.Errorf("revoke_grant on a gone grant: %s", got)
	}
	if got := fixtest.StatusOf(res, remedy.DeleteQueue); got != fix.StatusApplied {
		t.Errorf("delete_queue after a gone grant: %s, want applied", got)
	}
	res = fixtest.Apply(t, fixtest.Inputs(t, fixtest.Estate(true)), "BF-1234", map[string]remedy.Actor{"mq": mq, "scheduler": mq}, nil,
		remedy.RevokeGrant, remedy.DropTable, remedy.DeleteQueue, remedy.DeleteJob)
	if got := fixtest.StatusOf(res, remedy.RevokeGrant); got != fix.StatusFailed || !fix.Failed(res) {
		t.Errorf("revoke_grant with no system for its source: %s", got)
	}
	if got := fixtest.StatusOf(res, remedy.DeleteQueue); got != fix.StatusWaits {
		t.Errorf("delete_queue after a failed revoke: %s, want waits", got)
	}
}

// stubSystem reads what it is told and records what it does.
type stubSystem struct {
	found bool
	acted []string
}

func (s *stubSystem) Read(context.Context, *model.Artifact, remedy.Action) (remedy.Observed, error) {
	return remedy.Observed{Found: s.found, State: map[string]string{}}, nil
}
func (s *stubSystem) Expected(*model.Artifact, remedy.Action) map[string]string { return nil }
func (s *stubSystem) Act(_ context.Context, a *model.Artifact, act remedy.Action) error {
	s.acted = append(s.acted, act.Name+" "+a.URI)
	return nil
}
