package audit

import (
	"encoding/json"
	"errors"
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
		{"list type", `{"version": 1, "records": {}}`, "records: json: cannot unmarshal object into Go value of type []model.DecisionRecord"},
		{"not an object", `[1]`, "cannot unmarshal array into Go value of type model.Estate"},
		{"syntax in entry", "{\"version\": 1,\n\"artifacts\": [\n{\"kind\": \"table\",\n\"uri\": \"u\",,}\n]}", ":4: "},
		{"trailing", `{"version": 1} {}`, "after top-level value"},
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
	for k := range a.Labels.All() {
		for k2 := range b.Labels.All() {
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
		id := a.Labels.Get("backfill_id")
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
	if alloc/n > 1500 {
		t.Errorf("loading allocated %d bytes an artifact", alloc/n)
	}
}

// FuzzArtifactMatchesUnmarshal: an artifact entry reads as json.Unmarshal
// reads it, by the fast path or through encoding/json, and fails when
// json.Unmarshal fails.
func FuzzArtifactMatchesUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"kind": "table", "uri": "bigquery://p/d/t", "labels": {"backfill_id": "bf_1"}, "created_at": "2026-01-02T03:04:05Z", "state": "active"}`,
		`{"KIND": "grant", "Uri": "u", "attributes": {"condition": "request.time \u003c timestamp(\"2026-01-01T00:00:00Z\")", "role": "r"}}`,
		`{"kind": "queue", "uri": "u", "labels": null, "owner": null, "expires_at": null, "extra": [1, {"a": null}]}`,
		`{"kind": "table", "uri": "é\ud83d\ude00", "name": "a\\b\"c", "labels": {"a": "1", "a": "2"}}`,
		`{"kind": 7, "uri": "u"}`, `{"labels": {"a": 1}}`, `{"labels": {"a": "b"}, "labels": {"c": "d"}}`,
		`{"created_at": "2026-13-01T00:00:00Z"}`, `null`, `{}`, `[]`, `{"kind": "table",}`, `{"kind": "ta` + "\x01" + `ble"}`,
		`{"kind":"table","uri":"u","attributes":{"rows":"0","bytes":"100"}}`, string([]byte(`{"name": "`)) + "\xff" + `"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want model.Artifact
		wantErr := json.Unmarshal(raw, &want)
		var got model.Artifact
		gotErr := newInterner().decodeArtifact(raw, 0, &got)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: error %v, json.Unmarshal's %v", raw, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", raw, got, want)
		}
	})
}

// FuzzDecodeEstateMatchesUnmarshal: a whole estate reads as json.Unmarshal
// reads it, and fails when it fails. Documents that give a top-level key
// twice are left out: json.Unmarshal decodes the second list over the
// first one's entries, keeping fields the second leaves out, which is no
// behaviour to keep.
func FuzzDecodeEstateMatchesUnmarshal(f *testing.F) {
	for _, s := range []string{
		validEstate, "", " ", "null", "[]", "{}", `{"version": 1}`, `{"version": "1"}`, `{"version": 1.5}`,
		`{"version": 1, "backfills": [], "artifacts": [{"kind": "table", "uri": "u", "labels": {"k": "v"}}], "records": [], "coverage": []}`,
		`{"version": 1, "artifacts": [{"kind": "table"} {"kind": "table"}]}`, `{"version": 1,, "artifacts": []}`,
		`{"version": 1} x`, `{"version": 1, "x": [1, 2, {"y": "}"}]}`, `{"version": 1, "artifacts": [1]}`, `{"a": tru}`,
		"{\"version\": 1,\n\"artifacts\": [\n", `{"collected_at": "2026-01-01T00:00:00Z", "coverage": [{"source": "s", "errors": [{"error": "x"}]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var keys map[string]json.RawMessage
		if json.Unmarshal(doc, &keys) == nil {
			seen := map[string]bool{}
			for k := range keys {
				if seen[strings.ToLower(k)] {
					return
				}
				seen[strings.ToLower(k)] = true
			}
			if strings.Count(strings.ToLower(string(doc)), `"artifacts"`) > 1 || strings.Count(strings.ToLower(string(doc)), `"backfills"`) > 1 ||
				strings.Count(strings.ToLower(string(doc)), `"records"`) > 1 || strings.Count(strings.ToLower(string(doc)), `"coverage"`) > 1 {
				return
			}
		}
		var want model.Estate
		wantErr := json.Unmarshal(doc, &want)
		got, gotErr := decodeEstate(strings.NewReader(string(doc)))
		if len(strings.Trim(string(doc), " \t\r\n")) == 0 {
			if !errors.Is(gotErr, errEmpty) {
				t.Fatalf("blank document: %v", gotErr)
			}
			return
		}
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: error %v, json.Unmarshal's %v", doc, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, &want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", doc, got, &want)
		}
	})
}
