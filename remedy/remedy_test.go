package remedy_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	_ "github.com/bfaudit/bfaudit/collectors/all"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// Human acts carry a filled template: the decision record's fields come
// from the plan, and what bfaudit cannot know is a TODO.
func TestHumanTemplates(t *testing.T) {
	e := remedy.ExampleNoRecord("BF008")
	r, _ := remedy.BuildWith(remedy.MissingRecord, e.Finding, e.Facts)
	tpl := r.Human.Template
	for _, want := range []string{
		"backfill_id: BF-1234", "purpose: Recompute daily revenue with refunds included",
		"range: {start: 2026-06-01, end: 2026-08-30}", "job_id: daily_revenue",
		"validation_query: |-\n  SELECT backfill_id, MIN(event_time), MAX(event_time), COUNT(*)\n  FROM corrected_events WHERE backfill_id = 'BF-1234' GROUP BY backfill_id",
		"approving_owner: carol@example.com", "final_data_location: # TODO: where the final data lives now",
		"archived_at: # TODO",
	} {
		if !strings.Contains(tpl, want) {
			t.Errorf("decision record template lacks %q:\n%s", want, tpl)
		}
	}
	if r.Human.Where != "records/bf-1234.md" || r.Human.Step != model.StepArchived {
		t.Errorf("where %q step %s", r.Human.Where, r.Human.Step)
	}
	e = remedy.ExampleIncompleteRecord("BF009")
	r, _ = remedy.BuildWith(remedy.IncompleteRecord, e.Finding, e.Facts)
	if strings.Contains(r.Human.Template, "purpose:") || !strings.Contains(r.Human.Template, "job_id: daily_revenue") ||
		!strings.Contains(r.Human.Template, "final_data_location:") || r.Human.Where != "records/bf-1234.md" {
		t.Errorf("BF009 should list only the missing fields, filled from the plan, for the record file: %+v", r.Human)
	}
	e = remedy.ExampleOn("pubsub-sub")("BF014")
	r, _ = remedy.BuildWith(remedy.Undeclared, e.Finding, e.Facts)
	if want := "assets_to_remove:\n  - bigquery://shop-analytics/revenue/bf_1234_refunds_tmp\n  - pubsub://shop-analytics/subscriptions/bf-1234-retries"; r.Human.Template != want {
		t.Errorf("BF014 template:\n%s\nwant:\n%s", r.Human.Template, want)
	}
}

// A purpose or query holding YAML syntax stays one value.
func TestTemplateValuesAreEncoded(t *testing.T) {
	b := remedy.ExampleBackfill()
	b.Purpose = "fix: refunds # not a comment\n- not a list"
	r, _ := remedy.BuildWith(remedy.MissingRecord, model.Finding{RuleID: "BF008", BackfillID: b.ID}, remedy.Facts{Backfill: b})
	if !strings.Contains(r.Human.Template, "purpose: |-\n  fix: refunds # not a comment\n  - not a list") {
		t.Errorf("purpose not encoded as one value:\n%s", r.Human.Template)
	}
}

// systemArtifacts builds, for one name, an artifact of each system with
// the name where that system puts names, and what the main command must
// receive.
func systemArtifacts(name string) []struct {
	a     model.Artifact
	build remedy.Builder
	prog  string
	args  []string
	// stdin, when set, is what the program must read (the SQL).
	stdin string
} {
	// A positional name starting with '-' comes after "--".
	dash := func(name string) []string {
		if strings.HasPrefix(name, "-") {
			return []string{"--", name}
		}
		return []string{name}
	}
	type row = struct {
		a     model.Artifact
		build remedy.Builder
		prog  string
		args  []string
		stdin string
	}
	esc := url.PathEscape
	out := []row{
		{a: model.Artifact{Kind: model.KindSchedulerJob, System: "airflow", State: model.StatePaused, URI: "airflow://s/dags/" + esc(name), Name: name},
			build: remedy.DisabledJob, prog: "airflow", args: append([]string{"dags", "delete", "--yes"}, dash(name)...)},
		{a: model.Artifact{Kind: model.KindPool, System: "airflow", URI: "airflow://s/pools/" + esc(name), Name: name},
			build: remedy.Remove(model.StepRetired), prog: "airflow", args: append([]string{"pools", "delete"}, dash(name)...)},
		{a: model.Artifact{Kind: model.KindCredential, System: "airflow", URI: "airflow://s/connections/" + esc(name), Name: name},
			build: remedy.Remove(model.StepAccessRevoked), prog: "airflow", args: append([]string{"connections", "delete"}, dash(name)...)},
		{a: model.Artifact{Kind: model.KindVariable, System: "airflow", URI: "airflow://s/variables/" + esc(name), Name: name},
			build: remedy.Remove(model.StepRetired), prog: "airflow", args: append([]string{"variables", "delete"}, dash(name)...)},
		{a: model.Artifact{Kind: model.KindTable, System: "postgres", URI: "postgres://w/" + esc(name) + "/" + esc("s."+name), Attributes: model.Attrs("object", "table")},
			build: remedy.Remove(model.StepRetired), prog: "psql", args: []string{"PGDATABASE=" + name, "-X", "-v", "ON_ERROR_STOP=1", "-q"},
			stdin: `DROP TABLE "s".` + remedy.Ident(name) + ";\n"},
		{a: model.Artifact{Kind: model.KindCredential, System: "postgres", URI: "postgres://w/role/" + esc(name)},
			build: remedy.Remove(model.StepAccessRevoked), prog: "psql", args: []string{"PGDATABASE=", "-X", "-v", "ON_ERROR_STOP=1", "-q"},
			stdin: "ALTER ROLE " + remedy.Ident(name) + " NOLOGIN VALID UNTIL 'now';\n"},
		{a: model.Artifact{Kind: model.KindQueue, System: "rabbitmq", URI: "rabbitmq://b/" + esc(name) + "/queue/" + esc(name)},
			build: remedy.Remove(model.StepRetired), prog: "rabbitmqadmin", args: []string{"--vhost=" + name, "delete", "queue", "name=" + name}},
		{a: model.Artifact{Kind: model.KindSilence, System: "alertmanager", Name: name, URI: "alertmanager://a/silences/x", Attributes: model.Attrs(model.AttrAPIURL, "http://am:9093/"+name)},
			build: remedy.Remove(model.StepNormalized), prog: "amtool", args: append([]string{"--alertmanager.url=http://am:9093/" + name, "silence", "expire"}, dash(name)...)},
		{a: model.Artifact{Kind: model.KindGrant, System: "gcpiam", URI: "gcpiam://p/bindings/r/m", Attributes: model.Attrs(model.AttrPrincipal, "user:"+name, model.AttrRole, "roles/"+name)},
			build: remedy.Remove(model.StepAccessRevoked), prog: "gcloud", args: []string{"projects", "remove-iam-policy-binding", "--member=user:" + name, "--role=roles/" + name, "--condition=None", "p"}},
	}
	// GCP ids cannot hold '/', '?' or '#': the collectors put them in URIs
	// as they are.
	if !strings.ContainsAny(name, "/?#") && name != "" {
		out = append(out,
			row{a: model.Artifact{Kind: model.KindTable, System: "bigquery", URI: "bigquery://p/d/" + name},
				build: remedy.Remove(model.StepRetired), prog: "bq", args: []string{"rm", "-f", "-t", "p:d." + name}},
			row{a: model.Artifact{Kind: model.KindSubscription, System: "pubsub", URI: "pubsub://p/subscriptions/" + name},
				build: remedy.Remove(model.StepRetired), prog: "gcloud", args: append([]string{"pubsub", "subscriptions", "delete", "--project=p"}, dash(name)...)},
			row{a: model.Artifact{Kind: model.KindCheckpoint, System: "pubsub", URI: "pubsub://p/snapshots/" + name},
				build: remedy.Remove(model.StepRetired), prog: "gcloud", args: append([]string{"pubsub", "snapshots", "delete", "--project=p"}, dash(name)...)},
		)
	}
	return out
}

// Every system's command receives a hostile name as it is, run by sh.
func TestHostileNamesArriveIntact(t *testing.T) {
	for _, name := range remedytest.HostileNames {
		for _, c := range systemArtifacts(name) {
			a := c.a
			f := model.Finding{BackfillID: "BF-1", ArtifactURI: a.URI}
			r, ok := remedy.BuildWith(c.build, f, remedy.Facts{Artifact: &a})
			if !ok || len(r.Actions) == 0 {
				if name == "" {
					continue // nothing is named "": no command for it is right
				}
				t.Errorf("%s %s %q: no action", a.Kind, a.System, name)
				continue
			}
			sh := r.Actions[0].Shell
			remedytest.ShSyntax(t, sh)
			calls := remedytest.RunShell(t, sh)
			if len(calls) != 1 || calls[0].Prog != c.prog {
				t.Errorf("%s %q: calls %+v, want one %s", a.System, name, calls, c.prog)
				continue
			}
			if !slices.Equal(calls[0].Args, c.args) {
				t.Errorf("%s %q:\n got %q\nwant %q", a.System, name, calls[0].Args, c.args)
			}
			if c.stdin != "" && calls[0].Stdin != c.stdin {
				t.Errorf("%s %q: stdin %q, want %q", a.System, name, calls[0].Stdin, c.stdin)
			}
		}
	}
}

// The dataset ACL pipeline removes exactly the member's entry with that
// role, with real jq, and updates with the etag it read.
func TestDatasetACLPipeline(t *testing.T) {
	who := "it's-runner@p.iam.gserviceaccount.com"
	dataset := `{"etag":"BwX1","access":[
		{"role":"WRITER","userByEmail":"it's-runner@p.iam.gserviceaccount.com"},
		{"role":"READER","userByEmail":"it's-runner@p.iam.gserviceaccount.com"},
		{"role":"WRITER","userByEmail":"other@p.iam.gserviceaccount.com"},
		{"role":"OWNER","specialGroup":"projectOwners"}]}`
	a := model.Artifact{Kind: model.KindGrant, System: "bigquery", URI: "bigquery://p/d/acl/WRITER/serviceAccount:" + who,
		Attributes: model.Attrs(model.AttrPrincipal, "serviceAccount:"+who, model.AttrRole, "WRITER")}
	r, _ := remedy.BuildWith(remedy.Remove(model.StepAccessRevoked), model.Finding{}, remedy.Facts{Artifact: &a})
	calls := remedytest.RunShellWith(t, r.Actions[0].Shell, dataset)
	if len(calls) != 2 || calls[1].Args[0] != "update" || calls[1].Args[2] != "BwX1" {
		t.Fatalf("calls %+v", calls)
	}
	var got struct {
		Access []map[string]string `json:"access"`
	}
	if err := json.Unmarshal([]byte(calls[1].Stdin), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Access) != 3 || got.Access[0]["role"] != "READER" {
		t.Errorf("access after = %+v, want the WRITER entry of %s gone and the rest kept", got.Access, who)
	}
}

// A schema goes after its tables; reversible actions are marked.
func TestActionFlags(t *testing.T) {
	a := model.Artifact{Kind: model.KindTable, System: "postgres", URI: "postgres://w/db/scratch", Attributes: model.Attrs("object", "schema")}
	r, _ := remedy.BuildWith(remedy.Remove(model.StepRetired), model.Finding{}, remedy.Facts{Artifact: &a})
	if !r.Actions[0].Late || r.Actions[0].SQL != `DROP SCHEMA "scratch";` {
		t.Errorf("schema drop: %+v", r.Actions[0])
	}
	role, _ := remedy.ExampleArtifact("pg-role")
	r, _ = remedy.BuildWith(remedy.Remove(model.StepAccessRevoked), model.Finding{}, remedy.Facts{Artifact: &role})
	if !r.Actions[0].Reversible {
		t.Errorf("expire_role should be reversible")
	}
	table, _ := remedy.ExampleArtifact("bq-table")
	r, _ = remedy.BuildWith(remedy.Remove(model.StepRetired), model.Finding{}, remedy.Facts{Artifact: &table})
	if r.Actions[0].Reversible || len(r.Alternatives) != 1 || !strings.Contains(r.Alternatives[0], "bq update --expiration 604800 shop-analytics:revenue.bf_1234_refunds_tmp") {
		t.Errorf("bq rm: %+v", r)
	}
}

// A fence longer than any backtick run in the body keeps the block whole.
func TestMarkdownFence(t *testing.T) {
	a := model.Artifact{Kind: model.KindQueue, System: "rabbitmq", URI: "rabbitmq://b/v/queue/" + url.PathEscape("q```x")}
	r, _ := remedy.BuildWith(remedy.Remove(model.StepRetired), model.Finding{}, remedy.Facts{Artifact: &a})
	md := r.Markdown()
	if !strings.HasPrefix(md, "````sh\n") {
		t.Errorf("fence not lengthened:\n%s", md)
	}
}
