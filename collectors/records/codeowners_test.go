package records

import (
	"path/filepath"
	"strings"
	"testing"
)

// A repository whose bfaudit config sits in a subdirectory: the
// CODEOWNERS in .github/ speaks of paths from the repository root, and
// gives the plan's and the record's files their owners. A bad line is
// reported at the CODEOWNERS file as path:line: what, and the good lines
// still apply.
func TestCodeOwnersOfPlansAndRecords(t *testing.T) {
	repo := t.TempDir()
	base := filepath.Join(repo, "bfaudit")
	writeFile(t, filepath.Join(repo, ".github", "CODEOWNERS"), "* @shop/everyone\n"+
		"/bfaudit/plans/ @shop/data-platform @alice\n"+
		"/bfaudit/records/*.md records@example.com\n"+
		"!/bfaudit/plans/secret.yaml @mallory\n")
	writeFile(t, filepath.Join(base, "plans", "bf-1.yaml"), "id: BF-1\nstatus: planned\n")
	writeFile(t, filepath.Join(base, "records", "bf-1.md"), "---\nbackfill_id: BF-1\npurpose: p\n---\n")
	writeFile(t, filepath.Join(base, "other", "bf-2.yaml"), "id: BF-2\nstatus: planned\n")
	r := inBase(t, &Records{Plans: []string{"plans", "other"}, Records: []string{"records"}, CodeOwners: "../.github/CODEOWNERS"}, base)
	sink, err := collectWithin(t, r)
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{}
	for _, b := range sink.Backfills {
		owners[b.ID] = strings.Join(b.CodeOwners, " ")
	}
	if owners["BF-1"] != "@shop/data-platform @alice" || owners["BF-2"] != "@shop/everyone" {
		t.Errorf("plan owners %v", owners)
	}
	if len(sink.Records) != 1 || strings.Join(sink.Records[0].CodeOwners, " ") != "records@example.com" {
		t.Errorf("record owners %+v", sink.Records)
	}
	unit := filepath.ToSlash(filepath.Join(repo, ".github", "CODEOWNERS"))
	errs := errorsAt(sink, unit)
	if len(errs) != 1 || errs[0] != unit+`:4: pattern "!/bfaudit/plans/secret.yaml": negation (!) is not supported in CODEOWNERS` {
		t.Errorf("errors at %s: %q (all: %+v)", unit, errs, sink.Errors)
	}
}

// A CODEOWNERS file that cannot be read is an error at its own path; the
// plans are read all the same, without owners from it.
func TestCodeOwnersMissing(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "plans", "bf-1.yaml"), "id: BF-1\nstatus: planned\n")
	r := inBase(t, &Records{Plans: []string{"plans"}, CodeOwners: "CODEOWNERS"}, dir)
	sink, err := collectWithin(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Backfills) != 1 || sink.Backfills[0].CodeOwners != nil {
		t.Errorf("backfills %+v", sink.Backfills)
	}
	if errs := errorsAt(sink, "CODEOWNERS"); len(errs) != 1 || !strings.HasPrefix(errs[0], "CODEOWNERS: ") {
		t.Errorf("errors %+v", sink.Errors)
	}
}
