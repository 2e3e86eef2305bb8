package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The textfile collector may read while bfaudit writes: every read sees a
// whole file, the old one or the new one, never a part.
func TestWriteFileIsAtomicForAReader(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bfaudit.prom")
	r := report()
	for i := range 2000 { // a file big enough that a plain write is seen half done
		r.Findings = append(r.Findings, r.Findings[0])
		r.Findings[len(r.Findings)-1].RuleID = "R" + strings.Repeat("x", i%50) + string(rune('a'+i%26))
		r.Findings[len(r.Findings)-1].Owner = "owner-" + string(rune('a'+i%26)) + strings.Repeat("y", i%40)
	}
	if err := WriteFile(path, r, Run{Complete: true}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var bad []string
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			b, err := os.ReadFile(path)
			if err != nil || !strings.HasSuffix(string(b), "bfaudit_source_up{source=\"warehouse\",system=\"bigquery\"} 1\n") {
				bad = append(bad, string(b[max(0, len(b)-80):]))
			}
		}
	})
	for i := range 30 {
		if err := WriteFile(path, r, Run{Complete: true, Duration: time.Duration(i) * time.Second}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("%d reads saw a partial file; e.g. ...%q", len(bad), bad[0])
	}
	parse(t, must(os.ReadFile(path)))
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only the metrics file (no temporary left)", len(entries))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v: node_exporter, running as another user, must read it", st.Mode().Perm())
	}
}

// An incomplete run keeps the last success of the file it replaces.
func TestWriteFileCarriesTheLastSuccess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bfaudit.prom")
	if err := WriteFile(path, report(), Run{Complete: true}); err != nil {
		t.Fatal(err)
	}
	later := report()
	later.Now = now.Add(time.Hour)
	if err := WriteFile(path, later, Run{Complete: false}); err != nil {
		t.Fatal(err)
	}
	fams := parse(t, must(os.ReadFile(path)))
	if got := fams[LastSuccess].GetMetric()[0].GetGauge().GetValue(); got != float64(now.Unix()) {
		t.Errorf("last success after an incomplete run = %v, want the complete run's %v", got, now.Unix())
	}
	if up := fams[SourceUp].GetMetric(); len(up) != 3 {
		t.Errorf("source_up = %v: the incomplete run's own metrics must be written", up)
	}
}

func TestWriteFileFailsWhereItCannotWrite(t *testing.T) {
	err := WriteFile(filepath.Join(t.TempDir(), "gone", "bfaudit.prom"), report(), Run{Complete: true})
	if err == nil || !strings.HasPrefix(err.Error(), "metrics: ") {
		t.Errorf("err = %v", err)
	}
}

func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "ok.prom"), ""},
		{filepath.Join(dir, "missing", "x.prom"), "no such file"},
		{filepath.Join(file, "x.prom"), "not a folder"},
		{dir, "is a folder"},
	} {
		err := CheckFile(c.path)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckFile(%s) = %v, want %q", c.path, err, c.want)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
