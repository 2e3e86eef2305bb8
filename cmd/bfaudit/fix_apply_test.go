package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
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

const (
	pgDSNEnv       = "BFAUDIT_TEST_PG_DSN"
	rabbitAPIEnv   = "BFAUDIT_TEST_RABBITMQ_API"
	fixTestTimeout = 30 * time.Second
)

// fixEstate is a quickstart-like estate on the real servers: backfill
// BF-<n>, verified two months ago, its decision record archived, with a
// login role and its INSERT grant on a production table, a temp table and
// a retry queue still there; a production table and queue beside them.
type fixEstate struct {
	id, num    string
	dir        string
	config     string
	schema     string
	role       string
	tmp, prod  string // tables
	queue      string
	otherQueue string
	pg         *pgx.Conn
	rabbit     *url.URL
}

func newFixEstate(t *testing.T, allow []string) *fixEstate {
	t.Helper()
	dsn, api := os.Getenv(pgDSNEnv), os.Getenv(rabbitAPIEnv)
	if dsn == "" || api == "" {
		t.Skipf("fix --apply against the real servers skipped: set %s and %s (e.g. %s='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' %s=http://guest:guest@127.0.0.1:15672)",
			pgDSNEnv, rabbitAPIEnv, pgDSNEnv, rabbitAPIEnv)
	}
	n, _ := rand.Int(rand.Reader, big.NewInt(900000000))
	tag := make([]byte, 4)
	_, _ = rand.Read(tag)
	e := &fixEstate{num: fmt.Sprint(100000000 + n.Int64()), dir: t.TempDir()}
	e.id = "BF-" + e.num
	e.schema = "fixtest_" + hex.EncodeToString(tag)
	e.role = "bf_" + e.num + "_loader"
	e.tmp, e.prod = "bf_"+e.num+"_refunds_tmp", "daily_revenue"
	e.queue, e.otherQueue = "bf_"+e.num+".retry", "orders_"+hex.EncodeToString(tag)

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	e.pg = conn
	q := func(s string) string { return remedy.Ident(s) }
	for _, stmt := range []string{
		"CREATE SCHEMA " + q(e.schema),
		"CREATE TABLE " + remedy.Qualified(e.schema, e.tmp) + " (id int)",
		"CREATE TABLE " + remedy.Qualified(e.schema, e.prod) + " (id int)",
		"CREATE ROLE " + q(e.role) + " LOGIN",
		"GRANT INSERT ON TABLE " + remedy.Qualified(e.schema, e.prod) + " TO " + q(e.role),
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = conn.Exec(ctx, "DROP SCHEMA "+q(e.schema)+" CASCADE")
		_, _ = conn.Exec(ctx, "DROP ROLE IF EXISTS "+q(e.role))
		conn.Close(ctx)
	})

	u, err := url.Parse(api)
	if err != nil {
		t.Fatal(err)
	}
	e.rabbit = u
	for _, name := range []string{e.queue, e.otherQueue} {
		if code := e.rabbitCall(t, http.MethodPut, name); code/100 != 2 {
			t.Fatalf("create queue %s: HTTP %d", name, code)
		}
	}
	t.Cleanup(func() { e.rabbitCall(t, http.MethodDelete, e.queue); e.rabbitCall(t, http.MethodDelete, e.otherQueue) })

	cfgDB := conn.Config().Database
	done := time.Now().UTC().AddDate(0, -2, 0).Format("2006-01-02")
	expired := time.Now().UTC().AddDate(0, -1, 0).Format("2006-01-02")
	files := map[string]string{
		"plans/bf.yaml": fmt.Sprintf(`id: %[1]s
purpose: Recompute daily revenue with refunds included
trigger: outage
job_id: daily_revenue
range: {start: 2026-06-01, end: 2026-08-30}
owner: alice@example.com
approver: carol@example.com
status: verified
timeline: {completed_at: %[2]s, verified_at: %[2]s}
expiry: %[3]s
validation_query: select 1
assets_to_remove:
  - postgres://pg/%[4]s/%[5]s.%[6]s
  - rabbitmq://mq/%%2F/queue/%[7]s
elevated_access:
  - {principal: %[8]s, role: INSERT, expiry: %[3]s}
cleanup_owner: alice@example.com
strategy: interval
concurrency: 1
pool: backfill
write_mode: partition_overwrite
side_effects_disabled: true
trial_interval: true
`, e.id, done, expired, cfgDB, e.schema, e.tmp, url.PathEscape(e.queue), e.role),
		"records/bf.md": fmt.Sprintf(`---
backfill_id: %s
purpose: Recompute daily revenue with refunds included
range: {start: 2026-06-01, end: 2026-08-30}
job_id: daily_revenue
validation_query: select 1
approving_owner: carol@example.com
final_data_location: %s.%s
archived_at: %s
---
`, e.id, e.schema, e.prod, done),
	}
	for name, body := range files {
		path := filepath.Join(e.dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("BFAUDIT_FIXTEST_PG", dsn)
	pass, _ := u.User.Password()
	t.Setenv("BFAUDIT_FIXTEST_RABBIT_PASSWORD", pass)
	e.config = filepath.Join(e.dir, "bfaudit.yaml")
	cfg := fmt.Sprintf(`sources:
  - {type: records, name: plans, plans: [plans/], records: [records/]}
  - {type: postgres, name: pg, dsn_env: BFAUDIT_FIXTEST_PG, schemas: [%s]}
  - {type: rabbitmq, name: mq, url: "%s", username: %s, password_env: BFAUDIT_FIXTEST_RABBIT_PASSWORD, vhosts: ["/"]}
history: {path: history.db}
fix:
  allow: [%s]
  actor: fix-test
`, e.schema, (&url.URL{Scheme: u.Scheme, Host: u.Host}).String(), u.User.Username(), strings.Join(allow, ", "))
	if err := os.WriteFile(e.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *fixEstate) rabbitCall(t *testing.T, method, queue string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), fixTestTimeout)
	defer cancel()
	base := *e.rabbit
	base.User = nil
	req, _ := http.NewRequestWithContext(ctx, method, base.String()+"/api/queues/%2F/"+url.PathEscape(queue), strings.NewReader(`{"durable":true}`))
	pass, _ := e.rabbit.User.Password()
	req.SetBasicAuth(e.rabbit.User.Username(), pass)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// audit runs bfaudit audit and returns this backfill's open rule ids and
// its lifecycle.
func (e *fixEstate) audit(t *testing.T) (map[string]bool, model.Lifecycle) {
	t.Helper()
	_, out, stderr := bfaudit(t, "audit", "-c", e.config, "-f", "json")
	r := decodeReport(t, out)
	if !r.Summary.Complete {
		t.Fatalf("audit incomplete: %+v\n%s", r.Coverage, stderr)
	}
	open := map[string]bool{}
	for _, f := range r.Findings {
		if model.SameID(f.BackfillID, e.id) && !f.Waived() {
			open[f.RuleID] = true
		}
	}
	for _, b := range r.Backfills {
		if model.SameID(b.Backfill.ID, e.id) {
			return open, b.Lifecycle
		}
	}
	t.Fatalf("no backfill %s in the report", e.id)
	return nil, model.Lifecycle{}
}

// fix --apply on the real PostgreSQL and RabbitMQ clears the findings it
// may (the role expired: reversible; the grant revoked and the queue
// deleted: allowed) and nothing else (the temp table: drop_table is not
// allowed; the production table and queue: not backfill machinery); a
// following audit shows it, with the lifecycle advanced, and history
// holds every action with its before-state.
func TestFixApplyRealServers(t *testing.T) {
	e := newFixEstate(t, []string{remedy.RevokeGrant, remedy.DeleteQueue})
	before, lc := e.audit(t)
	for _, rule := range []string{"BF003", "BF004", "BF005", "BF006"} {
		if !before[rule] {
			t.Fatalf("before: no %s finding for %s (open: %v)", rule, e.id, before)
		}
	}
	if lc.Next != model.StepAccessRevoked {
		t.Fatalf("before: lifecycle %+v, want blocked at access revoked", lc)
	}

	code, out, stderr := bfaudit(t, "fix", "-c", e.config, "--backfill", e.id, "--apply")
	if code != exitOK {
		t.Fatalf("fix --apply: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{
		"applied       BF004 expire_role postgres://pg/role/" + e.role,
		"applied       BF003 revoke_grant postgres://pg/",
		"applied       BF006 delete_queue rabbitmq://mq/%2F/queue/" + url.PathEscape(e.queue),
		"not allowed   BF005 drop_table",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("fix --apply output lacks %q:\n%s", want, out)
		}
	}

	after, lc := e.audit(t)
	for _, rule := range []string{"BF003", "BF004", "BF006"} {
		if after[rule] {
			t.Errorf("after: %s still open", rule)
		}
	}
	if !after["BF005"] {
		t.Errorf("after: the temp table (drop_table not allowed) should still be flagged: %v", after)
	}
	if lc.Reached != model.StepArchived || lc.Next != model.StepRetired {
		t.Errorf("after: lifecycle %+v, want archived reached, retired next", lc)
	}
	ctx := context.Background()
	var login bool
	if err := e.pg.QueryRow(ctx, `SELECT rolcanlogin FROM pg_roles WHERE rolname = $1`, e.role).Scan(&login); err != nil || login {
		t.Errorf("role %s: login %v, %v", e.role, login, err)
	}
	var exists bool
	if err := e.pg.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, remedy.Qualified(e.schema, e.tmp)).Scan(&exists); err != nil || !exists {
		t.Errorf("the temp table went, though drop_table is not allowed (%v)", err)
	}
	if code := e.rabbitCall(t, http.MethodGet, e.queue); code != http.StatusNotFound {
		t.Errorf("queue %s: HTTP %d, want gone", e.queue, code)
	}
	if code := e.rabbitCall(t, http.MethodGet, e.otherQueue); code != http.StatusOK {
		t.Errorf("production queue %s: HTTP %d, want untouched", e.otherQueue, code)
	}

	store, err := history.Open(ctx, history.Config{Path: filepath.Join(e.dir, "history.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	acts, err := store.FixActions(ctx, e.id)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]history.FixAction{}
	for _, a := range acts {
		got[a.Action] = a
	}
	if a := got[remedy.RevokeGrant]; a.Result != history.FixApplied || a.Actor != "fix-test" || !strings.Contains(a.Before, `"privileges":"INSERT"`) ||
		!strings.Contains(a.Command, "REVOKE INSERT ON TABLE") || a.At.IsZero() {
		t.Errorf("recorded revoke: %+v", a)
	}
	if a := got[remedy.ExpireRole]; a.Result != history.FixApplied || !strings.Contains(a.Before, `"login":"true"`) {
		t.Errorf("recorded expire_role: %+v", a)
	}
	if _, ok := got[remedy.DropTable]; ok || len(acts) != 3 {
		t.Errorf("recorded %d actions (%+v), want the three taken", len(acts), acts)
	}

	// Run again: nothing left that may be done.
	code, out, _ = bfaudit(t, "fix", "-c", e.config, "--backfill", e.id, "--apply")
	if code != exitOK || strings.Contains(out, "applied") || !strings.Contains(out, "not allowed   BF005 drop_table") {
		t.Errorf("second run: exit %d\n%s", code, out)
	}
}

// An artifact that changed between the audit and the action is left
// alone: a consumer attached to the queue, privileges granted on top.
func TestFixApplySkipsChanged(t *testing.T) {
	e := newFixEstate(t, []string{remedy.RevokeGrant, remedy.DeleteQueue, remedy.DropTable})
	est := filepath.Join(e.dir, "estate.json")
	if code, _, stderr := bfaudit(t, "collect", "-c", e.config, "--out", est); code != exitOK {
		t.Fatalf("collect: %d %s", code, stderr)
	}
	// Changed since the estate was saved: another privilege on the grant.
	if _, err := e.pg.Exec(context.Background(), "GRANT SELECT ON TABLE "+remedy.Qualified(e.schema, e.prod)+" TO "+remedy.Ident(e.role)); err != nil {
		t.Fatal(err)
	}
	code, out, _ := bfaudit(t, "fix", "-c", e.config, "--from", est, "--backfill", e.id, "--apply")
	if !strings.Contains(out, "skipped       BF003 revoke_grant") || !strings.Contains(out, `privileges was "INSERT", is "INSERT,SELECT"`) {
		t.Errorf("the changed grant should be skipped:\n%s", out)
	}
	// A skipped step holds the later ones: the queue and table stay.
	if !strings.Contains(out, "waits         BF006 delete_queue") || !strings.Contains(out, "step access revoked is not done: BF003 revoke_grant") {
		t.Errorf("the retire step should wait after a skipped revoke:\n%s", out)
	}
	if code != exitOK {
		t.Errorf("exit %d: a skip is not a failure", code)
	}
	var has bool
	if err := e.pg.QueryRow(context.Background(), `SELECT has_table_privilege($1, $2, 'INSERT')`, e.role, remedy.Qualified(e.schema, e.prod)).Scan(&has); err != nil || !has {
		t.Errorf("INSERT was revoked from a changed grant (%v)", err)
	}
}
