package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// --now decides whether a PostgreSQL role is expired: a login role tagged
// with a backfill nobody describes, VALID UNTIL 2030-01-01, is a live
// orphan (BF011) for an audit as of 2029-12-01 and an expired one, not
// flagged, for an audit as of 2030-02-01, whatever today's date is.
func TestNowDecidesPostgresRoleExpiry(t *testing.T) {
	dsn := os.Getenv(pgDSNEnv)
	if dsn == "" {
		t.Skipf("set %s (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run against a real PostgreSQL", pgDSNEnv)
	}
	n, _ := rand.Int(rand.Reader, big.NewInt(900000000))
	num := fmt.Sprint(100000000 + n.Int64())
	role := "bf_" + num + "_reader"
	tag := make([]byte, 4)
	_, _ = rand.Read(tag)
	schema := "nowtest_" + hex.EncodeToString(tag)

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+remedy.Ident(schema))
		_, _ = conn.Exec(ctx, "DROP ROLE IF EXISTS "+remedy.Ident(role))
		conn.Close(ctx)
	})
	for _, stmt := range []string{
		"CREATE SCHEMA " + remedy.Ident(schema),
		"CREATE ROLE " + remedy.Ident(role) + " LOGIN VALID UNTIL '2030-01-01 00:00:00+00'",
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	t.Setenv("BFAUDIT_NOWTEST_PG", dsn)
	config := filepath.Join(t.TempDir(), "bfaudit.yaml")
	cfg := fmt.Sprintf("sources:\n  - {type: postgres, name: pg, dsn_env: BFAUDIT_NOWTEST_PG, schemas: [%s]}\n", schema)
	if err := os.WriteFile(config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}

	// orphan returns the BF011 finding on the role as of now, if any.
	orphan := func(now string) *model.Finding {
		t.Helper()
		_, out, stderr := bfaudit(t, "audit", "-c", config, "--now", now, "-f", "json")
		r := decodeReport(t, out)
		if !r.Summary.Complete {
			t.Fatalf("--now %s: audit incomplete: %+v\n%s", now, r.Coverage, stderr)
		}
		for i, f := range r.Findings {
			if f.RuleID == "BF011" && strings.HasSuffix(f.ArtifactURI, "/"+role) {
				return &r.Findings[i]
			}
		}
		return nil
	}
	before := orphan("2029-12-01")
	if before == nil {
		t.Fatalf("--now 2029-12-01: no BF011 finding on role %s, which is valid until 2030-01-01", role)
	}
	if ev := strings.Join(before.Evidence, "; "); !strings.Contains(ev, "is active") {
		t.Errorf("--now 2029-12-01: evidence %q; want the role reported active", ev)
	}
	if after := orphan("2030-02-01"); after != nil {
		t.Errorf("--now 2030-02-01: role %s expired 2030-01-01 yet is flagged: %s %v", role, after.Message, after.Evidence)
	}
}
