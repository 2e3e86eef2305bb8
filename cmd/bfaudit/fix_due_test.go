package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/reports/history"
)

// fix --apply --due on the real PostgreSQL: a backfill's login role (BF004,
// expire_role) first seen on day 0 under a 7-day policy, its owner told
// that day. On day 6 it is not due and the role keeps its login; on day 8
// it is due and announced 8 days before (notice_days 2), and the role is
// expired.
func TestFixApplyDueRealPostgres(t *testing.T) {
	dsn := os.Getenv(pgDSNEnv)
	if dsn == "" {
		t.Skipf("fix --apply --due against PostgreSQL skipped: set %s (e.g. %s='postgres://postgres@127.0.0.1:5432/test?sslmode=disable')", pgDSNEnv, pgDSNEnv)
	}
	n, _ := rand.Int(rand.Reader, big.NewInt(900000000))
	num := fmt.Sprint(100000000 + n.Int64())
	id, role, schema := "BF-"+num, "bf_"+num+"_loader", "fixdue_"+num
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	for _, stmt := range []string{"CREATE SCHEMA " + remedy.Ident(schema), "CREATE ROLE " + remedy.Ident(role) + " LOGIN"} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(ctx, "DROP SCHEMA "+remedy.Ident(schema)+" CASCADE")
		_, _ = conn.Exec(ctx, "DROP ROLE IF EXISTS "+remedy.Ident(role))
		conn.Close(ctx)
	})
	canLogin := func() bool {
		t.Helper()
		var login bool
		if err := conn.QueryRow(ctx, `SELECT rolcanlogin FROM pg_roles WHERE rolname = $1`, role).Scan(&login); err != nil {
			t.Fatal(err)
		}
		return login
	}

	day0 := time.Now().UTC().Truncate(time.Hour)
	done := day0.AddDate(0, -2, 0).Format("2006-01-02")
	dir := t.TempDir()
	for name, body := range map[string]string{
		"plans/bf.yaml": fmt.Sprintf(`id: %[1]s
purpose: Recompute daily revenue with refunds included
trigger: outage
job_id: daily_revenue
range: {start: 2026-06-01, end: 2026-08-30}
owner: alice@example.com
approver: carol@example.com
status: verified
timeline: {completed_at: %[2]s, verified_at: %[2]s}
expiry: %[2]s
validation_query: select 1
elevated_access:
  - {principal: %[3]s, role: INSERT, expiry: %[2]s}
cleanup_owner: alice@example.com
strategy: interval
concurrency: 1
pool: backfill
write_mode: partition_overwrite
side_effects_disabled: true
trial_interval: true
`, id, done, role),
		"records/bf.md": fmt.Sprintf("---\nbackfill_id: %s\npurpose: Recompute daily revenue with refunds included\nrange: {start: 2026-06-01, end: 2026-08-30}\n"+
			"job_id: daily_revenue\nvalidation_query: select 1\napproving_owner: carol@example.com\nfinal_data_location: x.y\narchived_at: %s\n---\n", id, done),
		"bfaudit.yaml": fmt.Sprintf(`sources:
  - {type: records, name: plans, plans: [plans/], records: [records/]}
  - {type: postgres, name: pg, dsn_env: BFAUDIT_FIXTEST_PG, schemas: [%s]}
history: {path: history.db}
due:
  rules: {BF004: 7d}
  notice_days: 2
fix: {actor: fix-due-test}
`, schema),
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("BFAUDIT_FIXTEST_PG", dsn)
	cfg := filepath.Join(dir, "bfaudit.yaml")
	at := func(d int) string { return day0.AddDate(0, 0, d).Format(time.RFC3339) }

	// Day 0: the audit records the finding (due day 7); the owner is told.
	_, out, stderr := bfaudit(t, "audit", "-c", cfg, "-f", "json", "--now", at(0))
	var fp string
	for _, f := range decodeReport(t, out).Findings {
		if f.RuleID == "BF004" && model.SameID(f.BackfillID, id) {
			fp = f.Fingerprint
		}
	}
	if fp == "" {
		t.Fatalf("day 0: no BF004 finding for %s\n%s\n%s", id, out, stderr)
	}
	store, err := history.Open(ctx, history.Config{Path: filepath.Join(dir, "history.db")})
	if err != nil {
		t.Fatal(err)
	}
	st, ok, err := store.DueOf(ctx, fp)
	if err != nil || !ok || !st.DueAt.Equal(day0.AddDate(0, 0, 7)) {
		t.Fatalf("day 0: stored due date %+v %v %v, want day 7", st, ok, err)
	}
	if _, err := store.RecordNotice(ctx, history.Notice{Fingerprint: fp, Stage: history.StageListed, Channel: "github",
		Recipient: "alice", SentAt: day0}); err != nil {
		t.Fatal(err)
	}
	store.Close()

	// Day 6: not due; nothing is done.
	code, out, stderr := bfaudit(t, "fix", "-c", cfg, "--backfill", id, "--apply", "--due", "--now", at(6))
	if code != exitOK || !strings.Contains(out, "not due       BF004 expire_role postgres://pg/role/"+role+": due in 1d") || strings.Contains(out, "applied") {
		t.Fatalf("day 6: exit %d\n%s\n%s", code, out, stderr)
	}
	if !canLogin() {
		t.Fatal("day 6: the role was expired before its due date")
	}

	// Day 8, a dry run first: it would act, and touches nothing.
	code, out, stderr = bfaudit(t, "fix", "-c", cfg, "--backfill", id, "--dry-run", "--due", "--now", at(8))
	if code != exitOK || !strings.Contains(out, "would apply   BF004 expire_role") || !canLogin() {
		t.Fatalf("day 8 dry run: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = bfaudit(t, "fix", "-c", cfg, "--backfill", id, "--apply", "--due", "--now", at(8))
	if code != exitOK || !strings.Contains(out, "applied       BF004 expire_role postgres://pg/role/"+role) {
		t.Fatalf("day 8: exit %d\n%s\n%s", code, out, stderr)
	}
	if canLogin() {
		t.Error("day 8: the role, due and announced, still logs in")
	}
	// Human acts are unaffected by --due: listed by hand, as without it.
	if !strings.Contains(out, "by hand       BF101") {
		t.Errorf("day 8: the human act should be listed:\n%s", out)
	}
}

// --due without a history store is a usage error that says what to add.
func TestFixDueNeedsHistory(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"plans", "records"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "bfaudit.yaml")
	if err := os.WriteFile(cfg, []byte("sources:\n  - {type: records, name: plans, plans: [plans/], records: [records/]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := bfaudit(t, "fix", "-c", cfg, "--due", "--dry-run")
	if code != exitUsage || !strings.Contains(stderr, "--due") || !strings.Contains(stderr, "add a history: section") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = bfaudit(t, "fix", "-c", cfg, "--apply", "--dry-run")
	if code != exitUsage || !strings.Contains(stderr, "give one") {
		t.Errorf("--apply --dry-run: exit %d, stderr %s", code, stderr)
	}
}
