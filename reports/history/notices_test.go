package history

import (
	"context"
	"testing"
)

// A notice is kept once per finding, stage and channel, with the time the
// owner was first told; FirstNotified is the earliest of any.
func TestNoticesOncePerStageAndChannel(t *testing.T) {
	eachBackend(t, func(t *testing.T, cfg Config) {
		s := openStore(t, cfg)
		ctx := context.Background()
		first, err := s.RecordNotice(ctx, Notice{Fingerprint: "fp1", Stage: StageListed, Channel: "github", Recipient: "alice", SentAt: day(2)})
		if err != nil || !first {
			t.Fatalf("first notice: stored %v, err %v", first, err)
		}
		again, err := s.RecordNotice(ctx, Notice{Fingerprint: "fp1", Stage: StageListed, Channel: "github", Recipient: "alice", SentAt: day(3)})
		if err != nil || again {
			t.Fatalf("the same notice again: stored %v, err %v; want kept once", again, err)
		}
		if _, err := s.RecordNotice(ctx, Notice{Fingerprint: "fp1", Stage: StageReminder, Channel: "slack", Recipient: "U1", SentAt: day(5)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RecordNotice(ctx, Notice{Fingerprint: "fp1", Stage: StageListed, Channel: "slack", Recipient: "U1", SentAt: day(1)}); err != nil {
			t.Fatal(err)
		}
		ns, err := s.Notices(ctx, "fp1")
		if err != nil || len(ns) != 3 {
			t.Fatalf("notices %+v, err %v; want 3", ns, err)
		}
		at, ok, err := s.FirstNotified(ctx, "fp1")
		if err != nil || !ok || !at.Equal(day(1)) {
			t.Errorf("first notified %v %v %v, want day 1", at, ok, err)
		}
		if _, ok, _ := s.FirstNotified(ctx, "fp2"); ok {
			t.Error("a finding never told of counts as notified")
		}
		if _, err := s.RecordNotice(ctx, Notice{Fingerprint: "fp1"}); err == nil {
			t.Error("a notice without stage, channel or time is stored")
		}
	})
}
