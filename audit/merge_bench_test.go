package audit_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/bfaudit/bfaudit/audit"
	"github.com/bfaudit/bfaudit/bench"
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// benchShards splits the bench estate as `collect --shard i/n` would: plans
// and records in every shard, the other sources split, their artifacts by
// a hash of their URI.
func benchShards(artifacts, n int) []*model.Estate {
	est := bench.Estate(artifacts, max(1, artifacts/20))
	out := make([]*model.Estate, n)
	for i := range out {
		s := &model.Estate{Version: est.Version, CollectedAt: est.CollectedAt, Backfills: est.Backfills, Records: est.Records, Artifacts: []model.Artifact{}}
		for _, c := range est.Coverage {
			mode := model.ShardSplit
			if c.Source == "plans" {
				mode = model.ShardEvery
			}
			c.Shard = &model.ShardSpec{Index: i, Count: n, Mode: mode, Owner: i}
			s.Coverage = append(s.Coverage, c)
		}
		out[i] = s
	}
	for _, a := range est.Artifacts {
		i := collectors.ShardOf(a.URI, n)
		out[i].Artifacts = append(out[i].Artifacts, a)
	}
	return out
}

func writeShards(tb testing.TB, dir string, shards []*model.Estate) {
	tb.Helper()
	for i, s := range shards {
		if err := audit.SaveEstate(filepath.Join(dir, fmt.Sprintf("shard-%02d.json", i)), s); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkMerge16Shards reads and merges 16 shard files of the 100,000-
// artifact bench estate, as `audit --from DIR` does.
func BenchmarkMerge16Shards(b *testing.B) {
	dir := b.TempDir()
	writeShards(b, dir, benchShards(100_000, 16))
	paths, err := audit.EstatePaths([]string{dir})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		est, _, err := audit.LoadEstates(paths)
		if err != nil {
			b.Fatal(err)
		}
		if len(est.Artifacts) != 100_000 {
			b.Fatalf("%d artifacts after the merge", len(est.Artifacts))
		}
	}
}

// TestWriteBenchShards writes the 16 shards to $BFAUDIT_BENCH_SHARDS, to
// measure `bfaudit audit --from DIR` with /usr/bin/time -v.
func TestWriteBenchShards(t *testing.T) {
	dir := os.Getenv("BFAUDIT_BENCH_SHARDS")
	if dir == "" {
		t.Skip("set BFAUDIT_BENCH_SHARDS to a directory to write the 16 bench shards there")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeShards(t, dir, benchShards(100_000, 16))
}

// The shards of the bench estate merge back into it.
func TestBenchShardsMergeBack(t *testing.T) {
	shards := benchShards(2_000, 4)
	names := []string{"0", "1", "2", "3"}
	got, notes, err := audit.MergeEstates(names, shards)
	if err != nil {
		t.Fatal(err)
	}
	want := bench.Estate(2_000, 100)
	if len(got.Artifacts) != len(want.Artifacts) || len(got.Backfills) != len(want.Backfills) || len(notes) != 0 {
		t.Errorf("merged %d artifacts, %d backfills, notes %v; want %d, %d", len(got.Artifacts), len(got.Backfills), notes, len(want.Artifacts), len(want.Backfills))
	}
	if !model.AnswersOf(got.Coverage).All() {
		t.Errorf("coverage: %+v", got.Coverage)
	}
}

// BenchmarkLoadUnsharded reads the same estate as one file, for comparison.
func BenchmarkLoadUnsharded(b *testing.B) {
	path := filepath.Join(b.TempDir(), "estate.json")
	if err := audit.SaveEstate(path, bench.Estate(100_000, 5_000)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := audit.LoadEstates([]string{path}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadStdlib reads the same estate with encoding/json, the
// measure of the hand-written reader (decode.go): it stays only while it
// is clearly faster and smaller. On 2026-12-06, at 100,000 artifacts:
// 0.55 s and 120 MB for the hand-written reader, 1.13 s and 429 MB for
// encoding/json, 1.5 s and 285 MB for the json/v2 prototype.
func BenchmarkLoadStdlib(b *testing.B) {
	path := filepath.Join(b.TempDir(), "estate.json")
	if err := audit.SaveEstate(path, bench.Estate(100_000, 5_000)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		var est model.Estate
		err = json.NewDecoder(bufio.NewReaderSize(f, 256<<10)).Decode(&est)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
}

// Reading shards together decodes each plan and record once and shares
// it; the merged estate is the one reading them apart gives.
func TestLoadEstatesSharesDecodedEntries(t *testing.T) {
	dir := t.TempDir()
	writeShards(t, dir, benchShards(2_000, 4))
	paths, err := audit.EstatePaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got, gotNotes, err := audit.LoadEstates(paths)
	if err != nil {
		t.Fatal(err)
	}
	var apart []*model.Estate
	for _, p := range paths {
		est, err := audit.LoadEstate(p)
		if err != nil {
			t.Fatal(err)
		}
		apart = append(apart, est)
	}
	want, wantNotes, err := audit.MergeEstates(paths, apart)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotNotes, wantNotes) {
		t.Errorf("read together: %d backfills, %d records, %d artifacts, notes %v; apart: %d, %d, %d, notes %v",
			len(got.Backfills), len(got.Records), len(got.Artifacts), gotNotes,
			len(want.Backfills), len(want.Records), len(want.Artifacts), wantNotes)
	}
	if len(got.Backfills) != 100 || len(got.Records) == 0 {
		t.Errorf("%d backfills and %d records merged, want the 100 plans and their records", len(got.Backfills), len(got.Records))
	}
}
