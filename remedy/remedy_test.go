package remedy

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// Human acts carry a filled template: the decision record's fields come
// from the plan, and what bfaudit cannot know is a TODO.
func TestHumanTemplates(t *testing.T) {
	e := ExampleNoRecord("BF008")
	r, _ := buildWith(MissingRecord, e.Finding, e.Facts)
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
	e = ExampleIncompleteRecord("BF009")
	r, _ = buildWith(IncompleteRecord, e.Finding, e.Facts)
	if strings.Contains(r.Human.Template, "purpose:") || !strings.Contains(r.Human.Template, "job_id: daily_revenue") ||
		!strings.Contains(r.Human.Template, "final_data_location:") || r.Human.Where != "records/bf-1234.md" {
		t.Errorf("BF009 should list only the missing fields, filled from the plan, for the record file: %+v", r.Human)
	}
	e = ExampleOn("pubsub-sub")("BF014")
	r, _ = buildWith(Undeclared, e.Finding, e.Facts)
	if want := "assets_to_remove:\n  - bigquery://shop-analytics/revenue/bf_1234_refunds_tmp\n  - pubsub://shop-analytics/subscriptions/bf-1234-retries"; r.Human.Template != want {
		t.Errorf("BF014 template:\n%s\nwant:\n%s", r.Human.Template, want)
	}
}

// A purpose or query holding YAML syntax stays one value.
func TestTemplateValuesAreEncoded(t *testing.T) {
	b := exampleBackfill()
	b.Purpose = "fix: refunds # not a comment\n- not a list"
	r, _ := buildWith(MissingRecord, model.Finding{RuleID: "BF008", BackfillID: b.ID}, Facts{Backfill: b})
	if !strings.Contains(r.Human.Template, "purpose: |-\n  fix: refunds # not a comment\n  - not a list") {
		t.Errorf("purpose not encoded as one value:\n%s", r.Human.Template)
	}
}

// systemArtifacts builds, for one name, an artifact of each system with
// the name where that system puts names, and what the main command must
// receive.
func systemArtifacts(name string) []struct {
	a     model.Artifact
	build Builder
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
		build Builder
		prog  string
		args  []string
		stdin string
	}
	esc := url.PathEscape
	out := []row{
		{a: model.Artifact{Kind: model.KindSchedulerJob, System: "airflow", State: model.StatePaused, URI: "airflow://s/dags/" + esc(name), Name: name},
			build: DisabledJob, prog: "airflow", args: append([]string{"dags", "delete", "--yes"}, dash(name)...)},
		{a: model.Artifact{Kind: model.KindPool, System: "airflow", URI: "airflow://s/pools/" + esc(name), Name: name},
			build: Remove(model.StepRetired), prog: "airflow", args: append([]string{"pools", "delete"}, dash(name)...)},
		{a: model.Artifact{Kind: model.KindCredential, System: "airflow", URI: "airflow://s/connections/" + esc(name), Name: name},
			build: Remove(model.StepAccessRevoked), prog: "airflow", args: append([]string{"connections", "delete"}, dash(name)...)},
		{a: model.Artifact{Kind: model.KindVariable, System: "airflow", URI: "airflow://s/variables/" + esc(name), Name: name},
			build: Remove(model.StepRetired), prog: "airflow", args: append([]string{"variables", "delete"}, dash(name)...)},
		{a: model.Artifact{Kind: model.KindTable, System: "postgres", URI: "postgres://w/" + esc(name) + "/" + esc("s."+name), Attributes: attrs("object", "table")},
			build: Remove(model.StepRetired), prog: "psql", args: []string{"PGDATABASE=" + name, "-X", "-v", "ON_ERROR_STOP=1", "-q"},
			stdin: `DROP TABLE "s".` + Ident(name) + ";\n"},
		{a: model.Artifact{Kind: model.KindCredential, System: "postgres", URI: "postgres://w/role/" + esc(name)},
			build: Remove(model.StepAccessRevoked), prog: "psql", args: []string{"PGDATABASE=", "-X", "-v", "ON_ERROR_STOP=1", "-q"},
			stdin: "ALTER ROLE " + Ident(name) + " NOLOGIN VALID UNTIL 'now';\n"},
		{a: model.Artifact{Kind: model.KindQueue, System: "rabbitmq", URI: "rabbitmq://b/" + esc(name) + "/queue/" + esc(name)},
			build: Remove(model.StepRetired), prog: "rabbitmqadmin", args: []string{"--vhost=" + name, "delete", "queue", "name=" + name}},
		{a: model.Artifact{Kind: model.KindSilence, System: "alertmanager", Name: name, URI: "alertmanager://a/silences/x", Attributes: attrs(model.AttrAPIURL, "http://am:9093/"+name)},
			build: Remove(model.StepNormalized), prog: "amtool", args: append([]string{"--alertmanager.url=http://am:9093/" + name, "silence", "expire"}, dash(name)...)},
		{a: model.Artifact{Kind: model.KindGrant, System: "gcpiam", URI: "gcpiam://p/bindings/r/m", Attributes: attrs(model.AttrPrincipal, "user:"+name, model.AttrRole, "roles/"+name)},
			build: Remove(model.StepAccessRevoked), prog: "gcloud", args: []string{"projects", "remove-iam-policy-binding", "--member=user:" + name, "--role=roles/" + name, "--condition=None", "p"}},
	}
	// GCP ids cannot hold '/', '?' or '#': the collectors put them in URIs
	// as they are.
	if !strings.ContainsAny(name, "/?#") && name != "" {
		out = append(out,
			row{a: model.Artifact{Kind: model.KindTable, System: "bigquery", URI: "bigquery://p/d/" + name},
				build: Remove(model.StepRetired), prog: "bq", args: []string{"rm", "-f", "-t", "p:d." + name}},
			row{a: model.Artifact{Kind: model.KindSubscription, System: "pubsub", URI: "pubsub://p/subscriptions/" + name},
				build: Remove(model.StepRetired), prog: "gcloud", args: append([]string{"pubsub", "subscriptions", "delete", "--project=p"}, dash(name)...)},
			row{a: model.Artifact{Kind: model.KindCheckpoint, System: "pubsub", URI: "pubsub://p/snapshots/" + name},
				build: Remove(model.StepRetired), prog: "gcloud", args: append([]string{"pubsub", "snapshots", "delete", "--project=p"}, dash(name)...)},
		)
	}
	return out
}

// Every system's command receives a hostile name as it is, run by sh.
func TestHostileNamesArriveIntact(t *testing.T) {
	for _, name := range hostileNames {
		for _, c := range systemArtifacts(name) {
			a := c.a
			f := model.Finding{BackfillID: "BF-1", ArtifactURI: a.URI}
			r, ok := buildWith(c.build, f, Facts{Artifact: &a})
			if !ok || len(r.Actions) == 0 {
				if name == "" {
					continue // nothing is named "": no command for it is right
				}
				t.Errorf("%s %s %q: no action", a.Kind, a.System, name)
				continue
			}
			sh := r.Actions[0].Shell
			shSyntax(t, sh)
			calls := runShell(t, sh)
			if len(calls) != 1 || calls[0].prog != c.prog {
				t.Errorf("%s %q: calls %+v, want one %s", a.System, name, calls, c.prog)
				continue
			}
			if !slices.Equal(calls[0].args, c.args) {
				t.Errorf("%s %q:\n got %q\nwant %q", a.System, name, calls[0].args, c.args)
			}
			if c.stdin != "" && calls[0].stdin != c.stdin {
				t.Errorf("%s %q: stdin %q, want %q", a.System, name, calls[0].stdin, c.stdin)
			}
		}
	}
}

// A conditional binding is removed with its exact condition, handed to
// gcloud as a file: commas, quotes and '=' in it stay.
func TestConditionalBindingFile(t *testing.T) {
	expr := `request.time < timestamp("2026-10-01T00:00:00Z") && resource.name.startsWith("projects/_/buckets/a,b")`
	for _, title := range []string{"bf-1234 until october", "it's, \"quoted\" = x\nline"} {
		a := model.Artifact{Kind: model.KindGrant, System: "gcpiam", URI: "gcpiam://p/bindings/r/m?condition=x",
			Attributes: attrs(model.AttrPrincipal, "user:a@b.c", model.AttrRole, "roles/x", model.AttrCondition, expr, conditionTitleAttr, title)}
		r, _ := buildWith(Remove(model.StepAccessRevoked), model.Finding{}, Facts{Artifact: &a})
		calls := runShell(t, r.Actions[0].Shell)
		if len(calls) != 1 {
			t.Fatalf("calls %+v", calls)
		}
		var cond map[string]string
		if err := json.Unmarshal([]byte(calls[0].stdin), &cond); err != nil {
			t.Fatalf("condition file %q: %v", calls[0].stdin, err)
		}
		if cond["expression"] != expr || cond["title"] != title || len(cond) != 2 {
			t.Errorf("condition file = %q", cond)
		}
		if !slices.ContainsFunc(calls[0].args, func(s string) bool { return strings.HasPrefix(s, "--condition-from-file=") }) {
			t.Errorf("args %q", calls[0].args)
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
		Attributes: attrs(model.AttrPrincipal, "serviceAccount:"+who, model.AttrRole, "WRITER")}
	r, _ := buildWith(Remove(model.StepAccessRevoked), model.Finding{}, Facts{Artifact: &a})
	calls := runShellWith(t, r.Actions[0].Shell, dataset)
	if len(calls) != 2 || calls[1].args[0] != "update" || calls[1].args[2] != "BwX1" {
		t.Fatalf("calls %+v", calls)
	}
	var got struct {
		Access []map[string]string `json:"access"`
	}
	if err := json.Unmarshal([]byte(calls[1].stdin), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Access) != 3 || got.Access[0]["role"] != "READER" {
		t.Errorf("access after = %+v, want the WRITER entry of %s gone and the rest kept", got.Access, who)
	}
}

// A schema goes after its tables; reversible actions are marked.
func TestActionFlags(t *testing.T) {
	a := model.Artifact{Kind: model.KindTable, System: "postgres", URI: "postgres://w/db/scratch", Attributes: attrs("object", "schema")}
	r, _ := buildWith(Remove(model.StepRetired), model.Finding{}, Facts{Artifact: &a})
	if !r.Actions[0].Late || r.Actions[0].SQL != `DROP SCHEMA "scratch";` {
		t.Errorf("schema drop: %+v", r.Actions[0])
	}
	role := exampleArtifacts["pg-role"]
	r, _ = buildWith(Remove(model.StepAccessRevoked), model.Finding{}, Facts{Artifact: &role})
	if !r.Actions[0].Reversible {
		t.Errorf("expire_role should be reversible")
	}
	table := exampleArtifacts["bq-table"]
	r, _ = buildWith(Remove(model.StepRetired), model.Finding{}, Facts{Artifact: &table})
	if r.Actions[0].Reversible || len(r.Alternatives) != 1 || !strings.Contains(r.Alternatives[0], "bq update --expiration 604800 shop-analytics:revenue.bf_1234_refunds_tmp") {
		t.Errorf("bq rm: %+v", r)
	}
}

// A fence longer than any backtick run in the body keeps the block whole.
func TestMarkdownFence(t *testing.T) {
	a := model.Artifact{Kind: model.KindQueue, System: "rabbitmq", URI: "rabbitmq://b/v/queue/" + url.PathEscape("q```x")}
	r, _ := buildWith(Remove(model.StepRetired), model.Finding{}, Facts{Artifact: &a})
	md := r.Markdown()
	if !strings.HasPrefix(md, "````sh\n") {
		t.Errorf("fence not lengthened:\n%s", md)
	}
}

// amtool silence add takes one matcher an argument, quoted values kept.
func TestSplitMatchers(t *testing.T) {
	got, ok := splitMatchers(`{alertname="Rev\"enue, x", job=~"da.*", env!="prod"}`)
	want := []string{`alertname="Rev\"enue, x"`, `job=~"da.*"`, `env!="prod"`}
	if !ok || !slices.Equal(got, want) {
		t.Errorf("got %q %v, want %q", got, ok, want)
	}
	if _, ok := splitMatchers(`alertname="x"`); ok {
		t.Error("text without braces accepted")
	}
}
