package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// shardFake is a collector whose units (projects) are named in its config,
// like bigquery's: each unit holds one lingering temp table of BF-1234.
type shardFake struct {
	Projects []string `mapstructure:"units"`
}

func (f *shardFake) Init(collectors.Env) error               { return nil }
func (f *shardFake) Units(context.Context) ([]string, error) { return f.Projects, nil }

func (f *shardFake) CollectUnit(_ context.Context, u string, sink collectors.Sink) error {
	sink.AddArtifact(model.Artifact{
		Kind: model.KindTable, System: "bigquery", Scope: u, Name: "bf_1234_tmp",
		URI:       "bigquery://" + u + "/scratch/bf_1234_tmp",
		Labels:    model.TagsOf(map[string]string{"backfill_id": "bf_1234"}),
		CreatedAt: model.At(time.Date(2026, 9, 18, 0, 0, 0, 0, time.UTC)), State: model.StateActive,
	})
	sink.AddRead(u, "tables", 1, 0)
	return nil
}

func init() { collectors.Register("shardfake", func() *shardFake { return &shardFake{} }, "") }

// shardedQuickstart is the quickstart plus a source split by unit and a
// history store.
func shardedQuickstart(t *testing.T) (dir, cfg string) {
	t.Helper()
	dir, cfg, b := copyQuickstart(t)
	b = []byte(strings.Replace(string(b), "sources:\n", `sources:
  - type: shardfake
    name: warehouse
    units: [p-01, p-02, p-03, p-04, p-05, p-06, p-07, p-08]
`, 1))
	write(t, cfg, string(b))
	return dir, cfg
}

func fingerprints(r model.Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Fingerprint)
	}
	slices.Sort(out)
	return out
}

// collectShards runs collect --shard i/n for each i into dir/estates.
func collectShards(t *testing.T, cfg, dir string, n int) string {
	t.Helper()
	est := filepath.Join(dir, "estates")
	if err := os.MkdirAll(est, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		code, _, stderr := bfaudit(t, "collect", "-c", cfg, "--now", "2026-11-30T08:00:00Z",
			"--shard", fmt.Sprintf("%d/%d", i, n), "--out", filepath.Join(est, fmt.Sprintf("shard-%d.json", i)))
		if code != 0 {
			t.Fatalf("collect --shard %d/%d: exit %d: %s", i, n, code, stderr)
		}
	}
	return est
}

// TestShardedEqualsUnsharded: collect --shard i/4 for each i, then audit
// --from of the directory, gives exactly the findings and summary of one
// unsharded run.
func TestShardedEqualsUnsharded(t *testing.T) {
	dir, cfg := shardedQuickstart(t)
	code, out, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30T08:00:00Z", "-f", "json")
	if code != exitFindings {
		t.Fatalf("unsharded: exit %d: %s", code, stderr)
	}
	want := decodeReport(t, out)
	est := collectShards(t, cfg, dir, 4)
	code, out, stderr = bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30T08:00:00Z", "-f", "json", "--from", est)
	if code != exitFindings {
		t.Fatalf("sharded: exit %d: %s", code, stderr)
	}
	got := decodeReport(t, out)
	if !slices.Equal(fingerprints(got), fingerprints(want)) {
		t.Errorf("fingerprints differ:\n got %v\nwant %v", fingerprints(got), fingerprints(want))
	}
	if fmt.Sprint(got.Summary) != fmt.Sprint(want.Summary) {
		t.Errorf("summary differs:\n got %+v\nwant %+v", got.Summary, want.Summary)
	}
	if n := len(want.Findings); n < 8 {
		t.Errorf("only %d findings: the fixture should find the 8 temp tables at least", n)
	}
}

// TestShardMissingDegrades: with one shard's estate absent, the sources it
// collected are not answered, the run exits 3, and history resolves
// nothing.
func TestShardMissingDegrades(t *testing.T) {
	dir, cfg := shardedQuickstart(t)
	write(t, cfg, readFile(t, cfg)+"\nhistory:\n  path: history.db\n")
	est := collectShards(t, cfg, dir, 4)
	code, _, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30T08:00:00Z", "-f", "json", "--from", est)
	if code != exitFindings {
		t.Fatalf("all shards: exit %d: %s", code, stderr)
	}
	for i := range 4 {
		t.Run(fmt.Sprintf("shard %d missing", i), func(t *testing.T) {
			var from []string
			for j := range 4 {
				if j != i {
					from = append(from, "--from", filepath.Join(est, fmt.Sprintf("shard-%d.json", j)))
				}
			}
			args := append([]string{"audit", "-c", cfg, "--now", "2026-12-01T08:00:00Z", "-f", "json"}, from...)
			code, out, stderr := bfaudit(t, args...)
			if code != exitIncomplete {
				t.Fatalf("exit %d, want %d: %s", code, exitIncomplete, stderr)
			}
			r := decodeReport(t, out)
			if len(r.History.Resolved) != 0 {
				t.Errorf("resolved %d findings with shard %d missing", len(r.History.Resolved), i)
			}
			if r.Summary.Complete {
				t.Error("report says complete")
			}
			answers := model.AnswersOf(r.Coverage)
			if answers.Answered("warehouse", "") {
				t.Errorf("the split source answered with shard %d missing", i)
			}
			if !strings.Contains(stderr, fmt.Sprintf("shard %d/4 is missing", i)) {
				t.Errorf("stderr does not name the missing shard:\n%s", stderr)
			}
		})
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFixFromShards: fix --from reads a directory of shard estates as
// audit --from does, and plans what a fix of the unsharded run plans.
func TestFixFromShards(t *testing.T) {
	dir, cfg := shardedQuickstart(t)
	whole := filepath.Join(dir, "whole.json")
	if code, _, stderr := bfaudit(t, "collect", "-c", cfg, "--now", "2026-11-30T08:00:00Z", "--out", whole); code != 0 {
		t.Fatalf("collect: exit %d: %s", code, stderr)
	}
	est := collectShards(t, cfg, dir, 4)
	fix := func(from string) string {
		code, out, stderr := bfaudit(t, "fix", "-c", cfg, "--now", "2026-11-30T08:00:00Z", "--backfill", "BF-1234", "-f", "json", "--from", from)
		if code != 0 {
			t.Fatalf("fix --from %s: exit %d: %s", from, code, stderr)
		}
		return out
	}
	want, got := fix(whole), fix(est)
	if got != want {
		t.Errorf("fix --from the shards differs from fix --from the whole estate:\n got %s\nwant %s", got, want)
	}
	for _, u := range []string{"p-01", "p-08"} {
		if !strings.Contains(got, "bigquery://"+u+"/scratch/bf_1234_tmp") {
			t.Errorf("the plan from the shards lacks the table of %s:\n%s", u, got)
		}
	}
}
