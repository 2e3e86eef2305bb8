package kafka

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// runKafkaTool runs script with a kafka-consumer-groups on PATH that
// records its arguments, and returns them.
func runKafkaTool(t *testing.T, script string, env ...string) ([]string, error) {
	t.Helper()
	dir := t.TempDir()
	rec := filepath.Join(dir, "args")
	tool := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$REC\"\n"
	if err := os.WriteFile(filepath.Join(dir, "kafka-consumer-groups"), []byte(tool), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append([]string{"PATH=" + dir + ":/usr/bin:/bin", "REC=" + rec}, env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, &exec.ExitError{ProcessState: cmd.ProcessState, Stderr: out}
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"), nil
}

// The printed kafka-consumer-groups command deletes exactly the group
// named, whatever its name holds, at the broker the audit read it from.
func TestKafkaDeleteGroupCommand(t *testing.T) {
	for _, name := range append([]string{"bf_1234_replay", "-starts-with-dash"}, remedytest.HostileNames...) {
		if name == "" {
			continue
		}
		uri := "kafka://events/groups/" + url.PathEscape(name)
		a := model.Artifact{Kind: model.KindCheckpoint, System: "kafka", Name: name, URI: uri, State: model.StateActive,
			Attributes: model.Attrs("bootstrap", "kafka-0.kafka:9092", model.AttrMembers, "1", model.AttrOffsets, "orders/0=7")}
		r, ok := remedy.BuildWith(remedy.Remove(model.StepRetired), model.Finding{BackfillID: "BF-1234", ArtifactURI: uri}, remedy.Facts{Artifact: &a})
		if !ok || len(r.Actions) != 1 {
			t.Fatalf("%q: %+v", name, r)
		}
		act := r.Actions[0]
		if act.Name != remedy.DeleteGroup || act.Step != model.StepRetired || !act.Resolves || remedy.Reversible(act.Name) {
			t.Errorf("action %+v", act)
		}
		remedytest.ShSyntax(t, act.Shell)
		got, err := runKafkaTool(t, act.Shell)
		if err != nil {
			t.Fatalf("%s: %v", act.Shell, err)
		}
		want := []string{"--bootstrap-server", "kafka-0.kafka:9092", "--delete", "--group", name}
		if strings.HasPrefix(name, "-") {
			want = []string{"--bootstrap-server", "kafka-0.kafka:9092", "--delete", "--group=" + name}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: ran %q, want %q", name, got, want)
		}
		notes := strings.Join(r.Notes, "\n")
		if !strings.Contains(notes, "offsets are lost") || !strings.Contains(notes, "orders/0=7") || !strings.Contains(notes, "1 member") {
			t.Errorf("notes: %s", notes)
		}
	}
}

// From a report (a finding alone) the group is inferred from its URI and
// the broker comes from $KAFKA_BOOTSTRAP; unset, the command stops.
func TestKafkaInferred(t *testing.T) {
	uri := "kafka://events/groups/bf_1234_replay"
	a := remedy.InferArtifact(model.Finding{RuleID: "BF005", BackfillID: "BF-1234", ArtifactURI: uri})
	if a == nil || a.Kind != model.KindCheckpoint || a.Name != "bf_1234_replay" {
		t.Fatalf("inferred %+v", a)
	}
	r, ok := remedy.BuildWith(remedy.Remove(model.StepRetired), model.Finding{BackfillID: "BF-1234", ArtifactURI: uri}, remedy.Facts{Artifact: a})
	if !ok || len(r.Actions) != 1 {
		t.Fatalf("%+v", r)
	}
	got, err := runKafkaTool(t, r.Actions[0].Shell, "KAFKA_BOOTSTRAP=b:9092")
	if err != nil || !slices.Equal(got, []string{"--bootstrap-server", "b:9092", "--delete", "--group", "bf_1234_replay"}) {
		t.Errorf("ran %q (%v)", got, err)
	}
	if _, err := runKafkaTool(t, r.Actions[0].Shell); err == nil {
		t.Error("ran without KAFKA_BOOTSTRAP")
	}
	if _, ok := ParseKafka(&model.Artifact{URI: "kafka://events/topics/orders"}); ok {
		t.Error("a topic URI read as a group")
	}
}
