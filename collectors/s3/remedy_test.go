package s3

import (
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	_ "github.com/bfaudit/bfaudit/rules/builtin" // the rules whose remedies remove S3 folders
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// The aws s3 rm that removes a folder, run by sh, reaches exactly the
// folder's s3:// address in the bucket's region (at the source's endpoint
// when it has one), whatever its path holds: --recursive for a folder,
// the one object otherwise.
func TestRemoveCommand(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		for _, tt := range []struct {
			path, rule, api string
			kind            model.Kind
		}{
			{"tmp/bf_1234 " + name + "/", "BF005", "", model.KindTable},
			{"checkpoints/" + name + "/bf_1234/", "BF021", "http://minio:9000", model.KindCheckpoint},
			{"tmp/" + name + "bf_1234.csv", "BF005", "", model.KindTable},
		} {
			a := model.Artifact{System: "s3", URI: FolderURI("s3", "111111111111", "eu-west-1", "scratch", tt.path),
				Attributes: model.Attrs(model.AttrAPIURL, tt.api)}
			setKind(&a, tt.path)
			if a.Kind != tt.kind {
				t.Errorf("%q: kind %s, want %s", tt.path, a.Kind, tt.kind)
			}
			r, ok := remedy.Build(model.Finding{RuleID: tt.rule, BackfillID: "BF-1234", ArtifactURI: a.URI}, remedy.Facts{Artifact: &a})
			if !ok || len(r.Actions) != 1 {
				t.Fatalf("%q: %+v", tt.path, r)
			}
			act := r.Actions[0]
			if act.Name != remedy.DeleteObjects || act.Step != model.StepRetired || !act.Resolves || remedy.Reversible(act.Name) {
				t.Errorf("action %+v", act)
			}
			remedytest.ShSyntax(t, act.Shell)
			calls := remedytest.RunShell(t, act.Shell)
			want := []string{"s3", "rm"}
			if strings.HasSuffix(tt.path, "/") {
				want = append(want, "--recursive")
			}
			want = append(want, "--region=eu-west-1")
			if tt.api != "" {
				want = append(want, "--endpoint-url="+tt.api)
			}
			want = append(want, "s3://scratch/"+tt.path)
			if len(calls) != 1 || calls[0].Prog != "aws" || !slices.Equal(calls[0].Args, want) {
				t.Errorf("%q: calls %+v, want aws %q", tt.path, calls, want)
			}
			recordNote := slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "final processed range") })
			if recordNote != (tt.kind == model.KindCheckpoint) {
				t.Errorf("%q: notes %q", tt.path, r.Notes)
			}
		}
	}
}

// A locked bucket's folder says what the lock keeps and until when.
func TestRemoveNotesTheLock(t *testing.T) {
	a := model.Artifact{System: "s3", URI: FolderURI("s3", "111111111111", "eu-west-1", "scratch", "tmp/bf_1/"),
		Attributes: model.Attrs(model.AttrHolds, "true", AttrRetainUntil, "2026-02-11T14:00:00Z")}
	var r remedy.Remedy
	removal(&r, &a)
	if !slices.ContainsFunc(r.Notes, func(n string) bool {
		return strings.Contains(n, "object lock") && strings.Contains(n, "2026-02-11T14:00:00Z")
	}) {
		t.Errorf("notes %q", r.Notes)
	}
}

// A report holds findings, not artifacts: the folder, its kind and the
// command come back from the URI alone; a whole bucket gets no command.
func TestInferFromTheURI(t *testing.T) {
	for uri, kind := range map[string]model.Kind{
		"s3://s3/111111111111/eu-west-1/scratch/tmp/bf_1234/":                      model.KindTable,
		"s3://s3/111111111111/us-east-1/streaming/checkpoints/bf_1234_replay/":     model.KindCheckpoint,
		"s3://s3/111111111111/us-east-1/streaming/flink/bf_1234/savepoint-1a2b3c/": model.KindCheckpoint,
	} {
		f := model.Finding{RuleID: "BF005", BackfillID: "BF-1234", ArtifactURI: uri}
		a := remedy.InferArtifact(f)
		if a == nil || a.Kind != kind || !strings.HasPrefix(a.Name, "s3://") {
			t.Errorf("%s: inferred %+v", uri, a)
			continue
		}
		r, ok := remedy.For(f, nil)
		if !ok || len(r.Actions) != 1 || !strings.HasPrefix(r.Actions[0].Shell, "aws s3 rm --recursive --region=") {
			t.Errorf("%s: %+v", uri, r)
		}
	}
	f := model.Finding{RuleID: "BF005", BackfillID: "BF-1234", ArtifactURI: "s3://s3/111111111111/eu-west-1/scratch/"}
	if r, _ := remedy.For(f, nil); len(r.Actions) != 0 {
		t.Errorf("a command for a whole bucket: %+v", r.Actions)
	}
}
