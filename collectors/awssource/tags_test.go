package awssource

import "testing"

func TestOwnerTag(t *testing.T) {
	for _, c := range []struct {
		tags map[string]string
		want string
	}{
		{map[string]string{"owner": "data-eng", "Owner": "other"}, "data-eng"},
		{map[string]string{"Owner": "data-eng"}, "data-eng"},
		{map[string]string{"owner": "", "Owner": "data-eng"}, "data-eng"},
		{map[string]string{"team": "data-eng"}, ""},
		{nil, ""},
	} {
		if got := OwnerTag(c.tags); got != c.want {
			t.Errorf("OwnerTag(%v) = %q, want %q", c.tags, got, c.want)
		}
	}
}

func TestTags(t *testing.T) {
	type tag struct{ k, v *string }
	kv := func(t tag) (*string, *string) { return t.k, t.v }
	s := func(x string) *string { return &x }
	got := Tags([]tag{{s("backfill"), s("BF-1")}, {s("owner"), nil}, {nil, s("x")}}, kv)
	if len(got) != 3 || got["backfill"] != "BF-1" || got["owner"] != "" || got[""] != "x" {
		t.Errorf("Tags = %v", got)
	}
	if got := Tags(nil, kv); got != nil {
		t.Errorf("no tags: %v, want nil", got)
	}
}
