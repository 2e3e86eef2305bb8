package reports

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// randomFinding sets each field of a finding, or leaves it zero, at random;
// strings take characters encoding/json escapes. Every exported field is
// reached by reflection, so a field added to model.Finding is set here
// and must be written by appendFinding.
func randomFinding(rnd *rand.Rand) model.Finding {
	texts := []string{"", "plain", `quote " and \ backslash`, "<html> & co", "é ü 表", "line\nbreak\ttab", "\u2028", "a\x00b", string([]byte{0xff, 'x'})}
	text := func() string { return texts[rnd.IntN(len(texts))] }
	var f model.Finding
	v := reflect.ValueOf(&f).Elem()
	for i := range v.NumField() {
		if rnd.IntN(3) == 0 {
			continue // left zero
		}
		fv := v.Field(i)
		switch fv.Interface().(type) {
		case string, model.BackfillID:
			fv.SetString(text())
		case model.Severity:
			fv.SetInt(int64(1 + rnd.IntN(5)))
		case model.Step:
			fv.SetInt(int64(rnd.IntN(7)))
		case []string:
			var l []string
			for range rnd.IntN(3) {
				l = append(l, text())
			}
			fv.Set(reflect.ValueOf(l))
		case *model.Location:
			fv.Set(reflect.ValueOf(&model.Location{Source: text(), Path: text(), Line: rnd.IntN(3)}))
		case time.Time:
			fv.Set(reflect.ValueOf(time.Date(2026, 11, rnd.IntN(30)+1, 1, 2, 3, rnd.IntN(2)*5, time.UTC)))
		case bool:
			fv.SetBool(true)
		case *model.Waiver:
			fv.Set(reflect.ValueOf(&model.Waiver{ID: text(), Reason: text(), Approver: text(), Origin: text()}))
		default:
			panic("randomFinding: say how to fill " + v.Type().Field(i).Name)
		}
	}
	if f.Severity == 0 {
		f.Severity = model.SeverityLow
	}
	return f
}

// appendFinding writes the bytes of json.MarshalIndent for any finding,
// at any depth.
func TestFindingJSONMatchesMarshal(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for i := range 3000 {
		f := randomFinding(rnd)
		depth := i % 4
		want, err := json.MarshalIndent(&f, strings.Repeat("  ", depth), "  ")
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendFinding(nil, &f, depth)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("finding %+v at depth %d:\n got: %s\nwant: %s", f, depth, got, want)
		}
	}
	// A finding encoding/json refuses is refused with its error.
	_, want := json.Marshal(model.Finding{})
	if _, err := appendFinding(nil, &model.Finding{}, 1); err == nil || err.Error() != want.Error() {
		t.Errorf("finding without a severity: err %v, want %v", err, want)
	}
}
