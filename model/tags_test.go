package model

import (
	"encoding/json"
	"maps"
	"runtime"
	"testing"
)

// Tags write and read as encoding/json writes and reads a map of the
// same entries: reports and estate files are unchanged by the type.
func TestTagsJSONIsTheMaps(t *testing.T) {
	for _, m := range []map[string]string{
		{"team": "ads"},
		{"b": "2", "a": "1", "c": ""},
		{"html": "<a href=\"x\">&</a>", "ünï": "\u2028 \x01 é"},
	} {
		want, _ := json.Marshal(m)
		got, err := json.Marshal(TagsOf(m))
		if err != nil || string(got) != string(want) {
			t.Errorf("tags of %v wrote %s (%v), a map %s", m, got, err, want)
		}
		var back *Tags
		if err := json.Unmarshal(want, &back); err != nil || !maps.Equal(back.Map(), m) {
			t.Errorf("read %s as %v (%v)", want, back.Map(), err)
		}
	}
	type artifact struct {
		Labels *Tags `json:"labels,omitempty"`
	}
	if b, _ := json.Marshal(artifact{Labels: TagsOf(map[string]string{})}); string(b) != "{}" {
		t.Errorf("empty tags wrote %s, want them left out as an empty map is", b)
	}
	// An object given twice adds to the first, as into a map; null is none.
	var a artifact
	if err := json.Unmarshal([]byte(`{"labels":{"a":"1","b":"2"},"labels":{"b":"3"}}`), &a); err != nil ||
		!maps.Equal(a.Labels.Map(), map[string]string{"a": "1", "b": "3"}) {
		t.Errorf("twice: %v (%v)", a.Labels.Map(), err)
	}
	if err := json.Unmarshal([]byte(`{"labels":null}`), &a); err != nil || a.Labels != nil {
		t.Errorf("null: %v (%v)", a.Labels.Map(), err)
	}
	if err := json.Unmarshal([]byte(`{"labels":{"a":1}}`), &a); err == nil {
		t.Error("a number read as a label's value")
	}
}

// With and Without make copies: tags shared by two artifacts never change
// under one of them.
func TestTagsChangeByCopy(t *testing.T) {
	shared := Attrs("b", "2", "d", "4")
	x, y := Artifact{Attributes: shared}, Artifact{Attributes: shared}
	x.SetAttr("a", "1")
	x.SetAttr("d", "40")
	x.SetAttr("e", "5")
	if got := x.Attributes.Map(); !maps.Equal(got, map[string]string{"a": "1", "b": "2", "d": "40", "e": "5"}) {
		t.Errorf("set: %v", got)
	}
	if got := y.Attributes.Map(); !maps.Equal(got, map[string]string{"b": "2", "d": "4"}) {
		t.Errorf("the other artifact's tags changed: %v", got)
	}
	var keys []string
	for k := range x.Attributes.Keys() {
		keys = append(keys, k)
	}
	if len(keys) != 4 || keys[0] != "a" || keys[3] != "e" {
		t.Errorf("keys not in order: %v", keys)
	}
	if w := x.Attributes.Without("b").Without("a").Without("zz"); !maps.Equal(w.Map(), map[string]string{"d": "40", "e": "5"}) {
		t.Errorf("without: %v", w.Map())
	}
	if Attrs("a", "1").Without("a") != nil {
		t.Error("tags with nothing left are not none")
	}
	var none *Tags
	if none.Len() != 0 || none.Get("a") != "" || none.Map() != nil || !none.Equal(TagsOf(nil)) || !none.With("a", "1").Equal(Attrs("a", "1")) {
		t.Error("no tags do not read as empty")
	}
}

// Many keys are found by halving; the answer is the same.
func TestTagsLookupMany(t *testing.T) {
	m := map[string]string{}
	for _, k := range []string{"k01", "k02", "k03", "k04", "k05", "k06", "k07", "k08", "k09", "k10", "k11", "k12"} {
		m[k] = "v" + k
	}
	tags := TagsOf(m)
	for k, v := range m {
		if got, ok := tags.Lookup(k); !ok || got != v {
			t.Errorf("lookup %s: %q %v", k, got, ok)
		}
	}
	for _, k := range []string{"k00", "k065", "k13", ""} {
		if _, ok := tags.Lookup(k); ok {
			t.Errorf("found %q", k)
		}
	}
}

// One label held costs a sixth of the smallest Go map (336 bytes).
func TestTagsAreSmall(t *testing.T) {
	const n = 10_000
	m := map[string]string{"backfill_id": "bf_1"}
	held := make([]*Tags, n)
	before := heapInUse()
	for i := range held {
		held[i] = TagsOf(m)
	}
	if per := (heapInUse() - before) / n; per > 64 {
		t.Errorf("one label held takes %d bytes", per)
	}
	runtime.KeepAlive(held)
}

func heapInUse() uint64 {
	runtime.GC()
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	return s.HeapAlloc
}
