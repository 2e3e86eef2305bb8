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
