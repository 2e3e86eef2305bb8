package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/bfaudit/bfaudit/bench"
	"github.com/bfaudit/bfaudit/model"
)

// The streaming decoder reads what json.Unmarshal reads: a saved estate,
// keys in any case, unknown keys, a key given twice.
func TestDecodeEstateMatchesUnmarshal(t *testing.T) {
	p := filepath.Join(t.TempDir(), "estate.json")
	if err := SaveEstate(p, bench.Estate(300, 15)); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{
		"saved":      string(saved),
		"key case":   `{"Version": 1, "ARTIFACTS": [{"kind": "table", "uri": "u", "Labels": {"a": "b"}}], "unknown": {"x": [1, {"y": null}]}}`,
		"twice":      `{"artifacts": [{"kind": "table", "uri": "u1"}], "artifacts": [{"kind": "queue", "uri": "u2"}], "coverage": null}`,
		"null entry": `{"backfills": [null, {"id": "BF-1"}], "records": []}`,
		"empty":      `{}`,
	} {
		got, err := decodeEstate(strings.NewReader(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var want model.Estate
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, &want) {
			t.Errorf("%s: decoded estate differs from json.Unmarshal's", name)
		}
	}
}

// Errors name what is wrong and where: the list and entry of a value of
// the wrong type, the line of a syntax error, data after the estate.
func TestLoadEstateErrors(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"entry type", `{"version": 1, "artifacts": [{"kind": "table", "uri": "u"}, {"kind": "table", "uri": 7}]}`, "artifacts[1]: json: cannot unmarshal number"},
		{"version type", `{"version": "1"}`, "version: json: cannot unmarshal string"},
		{"list type", `{"version": 1, "records": {}}`, "records: expected a list, found \"{\""},
		{"not an object", `[1]`, "expected a JSON object"},
		{"syntax in entry", "{\"version\": 1,\n\"artifacts\": [\n{\"kind\": \"table\",\n\"uri\": \"u\",,}\n]}", ":4: "},
		{"trailing", `{"version": 1} {}`, "after the estate object"},
		{"truncated", "{\"version\": 1,\n\"artifacts\": [\n", "cut short"},
		{"truncated in entry", "{\"version\": 1,\n\"artifacts\": [{\"kind\": \"ta", "cut short"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := writeEstate(t, tt.body)
			_, err := LoadEstate(p)
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want the file and %q", err, tt.want)
			}
		})
	}
}

// Repeated strings are kept once: two artifacts of the same source share
// the bytes of its name, of their kind and of their label keys.
func TestLoadEstateInterns(t *testing.T) {
	p := filepath.Join(t.TempDir(), "estate.json")
	if err := SaveEstate(p, bench.Estate(100, 5)); err != nil {
		t.Fatal(err)
	}
	est, err := LoadEstate(p)
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	var tables []*model.Artifact
	for i := range est.Artifacts {
		if a := &est.Artifacts[i]; a.Kind == model.KindTable && a.Labels != nil {
			tables = append(tables, a)
		}
	}
	if len(tables) < 2 {
		t.Fatal("the estate has fewer than two labelled tables")
	}
	a, b := tables[0], tables[1]
	if !same(a.Source, b.Source) || !same(string(a.Kind), string(b.Kind)) {
		t.Error("source and kind are not interned")
	}
	for k := range a.Labels {
		for k2 := range b.Labels {
			if k == k2 && !same(k, k2) {
				t.Errorf("label key %q is not interned", k)
			}
		}
	}
	// Artifacts with the same labels share one map.
	byLabels := map[string]uintptr{}
	for i := range est.Artifacts {
		a := &est.Artifacts[i]
		if a.Labels == nil {
			continue
		}
		id := a.Labels["backfill_id"]
		p := reflect.ValueOf(a.Labels).Pointer()
		if q, ok := byLabels[id]; ok && p != q {
			t.Fatalf("two artifacts labelled %s hold two maps", id)
		}
		byLabels[id] = p
	}
}

// Loading allocates a bounded number of bytes per artifact: the file is
// not held, and lists are not regrown entry by entry.
func TestLoadEstateAllocations(t *testing.T) {
	const n = 20_000
	p := filepath.Join(t.TempDir(), "estate.json")
	if err := SaveEstate(p, bench.Estate(n, n/20)); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := LoadEstate(p); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("file %d bytes (%d an artifact), allocated %d (%d an artifact)", st.Size(), st.Size()/n, alloc, alloc/n)
	if alloc/n > 2500 {
		t.Errorf("loading allocated %d bytes an artifact", alloc/n)
	}
}
