package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// A broker port that accepts connections and never answers makes the
// source fail within its timeout, and the SASL password is in no error.
func TestBrokerThatNeverAnswers(t *testing.T) {
	addr := hostile.AcceptAndStall(t)
	t.Setenv("TEST_KAFKA_PASSWORD", hostile.Canary)
	for _, mech := range []string{"", MechPlain, MechScramSHA512} {
		t.Run("sasl "+mech, func(t *testing.T) {
			k := New()
			k.Brokers = []string{addr}
			k.Timeout = 500 * time.Millisecond
			k.Retry = remote.RetryPolicy{Base: 10 * time.Millisecond}
			if mech != "" {
				k.SASL = SASL{Mechanism: mech, Username: "bfaudit", PasswordEnv: "TEST_KAFKA_PASSWORD"}
			}
			if err := k.Init(collectors.Env{Selector: correlate.MustSelector()}); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			sink, err := collectortest.Collect(t, k)
			took := time.Since(start)
			if err == nil {
				t.Fatal("a silent broker did not fail the source")
			}
			if took > 5*time.Second {
				t.Errorf("took %s with a 500ms timeout", took)
			}
			if !strings.Contains(err.Error(), "list groups") {
				t.Errorf("err = %v, want the listing named", err)
			}
			if strings.Contains(err.Error(), hostile.Canary) || len(sink.Artifacts) > 0 {
				t.Errorf("err = %v, artifacts %v", err, sink.Artifacts)
			}
		})
	}
}

// The calls the fix action makes are bounded the same way.
func TestFixCallsAgainstASilentBroker(t *testing.T) {
	k := New()
	k.Brokers = []string{hostile.AcceptAndStall(t)}
	k.Timeout = 500 * time.Millisecond
	if err := k.Init(collectors.Env{}); err != nil {
		t.Fatal(err)
	}
	adm, release, err := k.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if _, _, found, err := k.Describe(ctx, adm, "bf_1234_replay"); err == nil || found {
		t.Errorf("describe: found %v err %v; want an error, never \"gone\"", found, err)
	}
	if err := k.DeleteGroup(ctx, adm, "bf_1234_replay"); err == nil {
		t.Error("delete: no error")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
}
