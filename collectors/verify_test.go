package collectors

import (
	"errors"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

func TestRecordVerifyErrorDegradesTheSource(t *testing.T) {
	est := &model.Estate{Coverage: []model.Coverage{{Source: "pg", Status: model.CoverageOK}, {Source: "other", Status: model.CoverageOK}}}
	RecordVerifyError(est, "pg", &VerifyError{Scope: "db/validation/BF-1", Err: errors.New("connection lost")})
	pg := est.Coverage[0]
	if pg.Status != model.CoverageDegraded || len(pg.Errors) != 1 || pg.Errors[0].Scope != "db/validation/BF-1" {
		t.Errorf("coverage %+v, want degraded with the error at the validation's unit", pg)
	}
	if model.AnswersOf(est.Coverage).All() {
		t.Error("the run still reads as complete")
	}
	if est.Coverage[1].Status != model.CoverageOK {
		t.Errorf("another source was touched: %+v", est.Coverage[1])
	}
	RecordVerifyError(est, "other", errors.New("unreachable"))
	if o := est.Coverage[1]; o.Status != model.CoverageDegraded || o.Errors[0].Scope != "" {
		t.Errorf("a plain error should degrade the whole source: %+v", o)
	}
}
