package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/bfaudit/bfaudit/remedy"
)

// The newcomer's estate on a real PostgreSQL: one temp table and one login
// role made for a backfill, the role's INSERT grant on a production table,
// and a plan written from docs/plans.md. Each problem is one finding: the
// grant (BF003), the role (BF004), the table (BF005), the missing record
// (BF008), the plan's missing evidence (BF108). That the grant and the role
// are not time-bound is part of BF003's and BF004's evidence, not a BF102
// of its own, and an undeclared role or grant is not a BF014 on top of them.
func TestOneTableOneRoleOneFindingPerProblem(t *testing.T) {
	dsn := os.Getenv(pgDSNEnv)
	if dsn == "" {
		t.Skipf("the one-table-one-role estate needs PostgreSQL: set %s (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)", pgDSNEnv)
	}
	for _, declared := range []bool{true, false} {
		t.Run(fmt.Sprintf("elevated_access declared %v", declared), func(t *testing.T) {
			e := newOneTableEstate(t, dsn, declared)
			_, out, stderr := bfaudit(t, "audit", "-c", e.config, "--now", "2026-12-01", "-f", "json")
			r := decodeReport(t, out)
			if !r.Summary.Complete {
				t.Fatalf("audit incomplete: %+v\n%s", r.Coverage, stderr)
			}
			byURI := map[string][]string{}
			var rules []string
			for _, f := range r.Findings {
				if f.Waived() {
					continue
				}
				rules = append(rules, f.RuleID)
				if f.ArtifactURI != "" {
					byURI[f.ArtifactURI] = append(byURI[f.ArtifactURI], f.RuleID)
				}
			}
			for uri, ids := range byURI {
				if len(ids) > 1 {
					t.Errorf("%s has %d findings (%s), want one per problem", uri, len(ids), strings.Join(ids, ", "))
				}
			}
			sort.Strings(rules)
			want := "BF003 BF004 BF005 BF008 BF108"
			if got := strings.Join(rules, " "); got != want {
				t.Errorf("open findings %s, want %s", got, want)
			}
			for _, f := range r.Findings {
				if f.RuleID == "BF003" || f.RuleID == "BF004" {
					if !strings.Contains(strings.Join(f.Evidence, "\n"), "not time-bound") {
						t.Errorf("%s on %s: evidence %q does not say it is not time-bound", f.RuleID, f.ArtifactURI, f.Evidence)
					}
				}
			}
		})
	}
}

type oneTableEstate struct{ config string }

func newOneTableEstate(t *testing.T, dsn string, declared bool) oneTableEstate {
	t.Helper()
	// Roles are database-wide: a backfill id of its own keeps other
	// tests' backfill roles out of this estate.
	tag := make([]byte, 4)
	_, _ = rand.Read(tag)
	n, _ := rand.Int(rand.Reader, big.NewInt(900000000))
	num := fmt.Sprint(100000000 + n.Int64())
	schema := "onetable_" + hex.EncodeToString(tag)
	role := "bf_" + num + "_loader"
	tmp := "bf_" + num + "_orders_tmp"
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	q := remedy.Ident
	for _, stmt := range []string{
		"CREATE SCHEMA " + q(schema),
		"CREATE TABLE " + remedy.Qualified(schema, "orders") + " (id int)",
		"CREATE TABLE " + remedy.Qualified(schema, tmp) + " (id int)",
		"CREATE ROLE " + q(role) + " LOGIN",
		"GRANT INSERT ON TABLE " + remedy.Qualified(schema, "orders") + " TO " + q(role),
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(ctx, "DROP SCHEMA "+q(schema)+" CASCADE")
		_, _ = conn.Exec(ctx, "DROP ROLE IF EXISTS "+q(role))
		conn.Close(ctx)
	})
	access := ""
	if declared {
		access = fmt.Sprintf("elevated_access:\n  - {principal: %s, role: INSERT, expiry: 2026-10-15}\n", role)
	}
	dir := t.TempDir()
	plan := fmt.Sprintf(`id: BF-%s
purpose: Replay orders after the fix
trigger: bug_fix
job_id: daily_orders
range: {start: 2026-06-01, end: 2026-07-01}
owner: alice@example.com
classification: financial
status: verified
timeline: {completed_at: 2026-10-01, verified_at: 2026-10-02}
expiry: 2026-10-15
validation_query: select 1
assets_to_remove:
  - postgres://pg/%s/%s.%s
%scleanup_owner: alice@example.com
strategy: interval
concurrency: 1
pool: backfill
write_mode: partition_overwrite
side_effects_disabled: true
trial_interval: true
consumers_notified: true
`, num, conn.Config().Database, schema, tmp, access)
	if err := os.MkdirAll(filepath.Join(dir, "plans"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plans", "bf.yaml"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BFAUDIT_ONETABLE_PG", dsn)
	cfg := fmt.Sprintf(`sources:
  - {type: records, name: plans, plans: [plans/]}
  - {type: postgres, name: pg, dsn_env: BFAUDIT_ONETABLE_PG, schemas: [%s]}
`, schema)
	config := filepath.Join(dir, "bfaudit.yaml")
	if err := os.WriteFile(config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return oneTableEstate{config: config}
}
