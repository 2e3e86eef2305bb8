package safefile

import (
	"errors"
	"os"
	"testing"
)

func TestGlobHelpers(t *testing.T) {
	if !HasMeta("dbt/runs/*/run_results.json") || HasMeta("dbt/target/manifest.json") {
		t.Error("HasMeta")
	}
	if got := FixedDir("dbt/runs/*/x/run_results.json"); got != "dbt/runs" {
		t.Errorf("FixedDir = %q, want dbt/runs", got)
	}
	_, err := os.Open("/nonexistent/abs/path/manifest.json")
	if got := PlainError("/nonexistent/abs/path/manifest.json", err); got.Error() != "no such file or directory" {
		t.Errorf("PlainError = %q, want the error without the path", got)
	}
	if got := PlainError("/p/x.json", errors.New("/p/x.json: bad")); got.Error() != "bad" {
		t.Errorf("PlainError = %q", got)
	}
}
