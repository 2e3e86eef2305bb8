package model

import (
	"reflect"
	"testing"
)

func TestReadsRoundTrip(t *testing.T) {
	in := []Read{{"analytics.tmp_bf_1234", "BF-1234", "panel \"Refunds\tby day\""}, {"bf_9", "BF-9", ""}}
	var a Artifact
	a.SetAttr(AttrReads, FormatReads(in))
	got := a.Reads()
	want := []Read{{"analytics.tmp_bf_1234", "BF-1234", "panel \"Refunds by day\""}, {"bf_9", "BF-9", ""}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Reads() = %#v, want %#v", got, want)
	}
	a.SetAttr(AttrReads, "no tab here\n\tBF-1\nx\t\n")
	if got := a.Reads(); len(got) != 0 {
		t.Fatalf("malformed lines were read: %#v", got)
	}
}
