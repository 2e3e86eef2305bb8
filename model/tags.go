package model

import (
	"bytes"
	"encoding/json"
	"iter"
	"maps"
	"slices"
	"sort"
)

// Tags are an artifact's labels or attributes: a few keys, each with its
// value. They are kept as one sorted list of keys and values rather than
// a Go map, whose smallest table holds eight entries whatever it is
// given: 336 bytes for a map of one label, against 56 here. An estate's
// artifacts carry two each (a million artifacts, 670 MB of maps).
//
// Tags are never changed once made: the decoder shares one copy between
// the artifacts that carry the same ones, so a change is a new copy
// (With). A nil *Tags is empty, and every method takes one.
type Tags struct {
	kv []string // key, value, key, value...: sorted by key, each key once
}

// TagsOf makes tags of a map's entries; nil for none, so that an empty
// map and no map read and write the same.
func TagsOf(m map[string]string) *Tags {
	if len(m) == 0 {
		return nil
	}
	kv := make([]string, 0, 2*len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, k, m[k])
	}
	return &Tags{kv: kv}
}

// Attrs makes tags from key, value pairs (a key without a value is
// dropped; of a key given twice the last value stays), for artifacts
// written by hand: examples and tests.
func Attrs(kv ...string) *Tags {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return TagsOf(m)
}

// SortedTags makes tags of a list of keys and values already sorted by
// key, each key once, taking the list (the decoder's shared copies).
func SortedTags(kv []string) *Tags {
	if len(kv) == 0 {
		return nil
	}
	return &Tags{kv: kv}
}

// Len is the number of tags.
func (t *Tags) Len() int {
	if t == nil {
		return 0
	}
	return len(t.kv) / 2
}

// Get returns a tag's value, or "" when absent.
func (t *Tags) Get(key string) string {
	v, _ := t.Lookup(key)
	return v
}

// Lookup returns a tag's value and whether the key is there.
func (t *Tags) Lookup(key string) (string, bool) {
	if t == nil {
		return "", false
	}
	n := len(t.kv) / 2
	if n <= 8 { // a few keys: a scan beats halving
		for i := 0; i < len(t.kv); i += 2 {
			if t.kv[i] == key {
				return t.kv[i+1], true
			}
		}
		return "", false
	}
	i := sort.Search(n, func(i int) bool { return t.kv[2*i] >= key })
	if i < n && t.kv[2*i] == key {
		return t.kv[2*i+1], true
	}
	return "", false
}

// All yields each key and its value, in key order.
func (t *Tags) All() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		if t == nil {
			return
		}
		for i := 0; i < len(t.kv); i += 2 {
			if !yield(t.kv[i], t.kv[i+1]) {
				return
			}
		}
	}
}

// Keys yields each key, in order.
func (t *Tags) Keys() iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range t.All() {
			if !yield(k) {
				return
			}
		}
	}
}

// Map returns the tags as a new map (nil for none), for code that wants
// one: a caller may change it.
func (t *Tags) Map() map[string]string {
	if t.Len() == 0 {
		return nil
	}
	m := make(map[string]string, t.Len())
	for k, v := range t.All() {
		m[k] = v
	}
	return m
}

// With returns a copy of the tags with key set to value.
func (t *Tags) With(key, value string) *Tags {
	n := t.Len()
	i := sort.Search(n, func(i int) bool { return t.kv[2*i] >= key })
	kv := make([]string, 0, 2*n+2)
	if t != nil {
		kv = append(kv, t.kv[:2*i]...)
	}
	kv = append(kv, key, value)
	if i < n && t.kv[2*i] == key {
		i++ // replaced
	}
	if t != nil {
		kv = append(kv, t.kv[2*i:]...)
	}
	return &Tags{kv: kv}
}

// Without returns a copy of the tags without key (nil when none is left).
func (t *Tags) Without(key string) *Tags {
	if _, ok := t.Lookup(key); !ok {
		return t
	}
	kv := make([]string, 0, len(t.kv)-2)
	for k, v := range t.All() {
		if k != key {
			kv = append(kv, k, v)
		}
	}
	return SortedTags(kv)
}

// Equal reports whether two sets of tags hold the same keys and values.
func (t *Tags) Equal(o *Tags) bool {
	if t.Len() != o.Len() {
		return false
	}
	return t.Len() == 0 || slices.Equal(t.kv, o.kv)
}

// MarshalJSON writes the tags as a JSON object, keys in order: what
// encoding/json writes for a map of them.
func (t *Tags) MarshalJSON() ([]byte, error) {
	if t == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < len(t.kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(t.kv[i])
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(t.kv[i+1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a JSON object of strings, as encoding/json reads a
// map of them: of a key given twice the last value stays, and an object
// read into tags it already holds adds to them. Only the decoder of an
// entry calls it, on tags it made for that entry and shares with no one.
func (t *Tags) UnmarshalJSON(data []byte) error {
	m := t.Map()
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	if read := TagsOf(m); read != nil {
		*t = *read
	} else {
		*t = Tags{}
	}
	return nil
}
