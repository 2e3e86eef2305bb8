package remedy_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/rules"
	_ "github.com/bfaudit/bfaudit/rules/builtin"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

// The tests here read each rule's remedy as the rule registers it: this
// file is a separate package so that it can import the rules, which import
// remedy.

// Every built-in rule carries a remedy, shown on an example in
// docs/rules.md: a new rule without one fails here.
func TestEveryBuiltinRuleHasARemedy(t *testing.T) {
	for _, r := range rules.All() {
		if r.User() {
			continue
		}
		if !remedy.Registered(r.ID) {
			t.Errorf("%s %s has no remedy: give its rules.Rule a Remedy", r.ID, r.Name)
			continue
		}
		ex := remedy.Examples(r.ID)
		if len(ex) == 0 {
			t.Errorf("%s %s has no example for the docs", r.ID, r.Name)
		}
		for _, e := range ex {
			if _, ok := remedy.Build(e.Finding, e.Facts); !ok {
				t.Errorf("%s: example on %s gives no remedy", r.ID, e.Finding.ArtifactURI)
			}
		}
	}
}

type wantAction struct{ name, step, shell string }

// The rendered command of each artifact-level rule, on the example
// artifacts (named as the collectors name them).
func TestExampleCommands(t *testing.T) {
	cases := []struct {
		rule string
		i    int
		want []wantAction
	}{
		{"BF001", 0, []wantAction{
			{remedy.PauseJob, "verified", "airflow dags pause bf_1234_refund_replay"},
			{remedy.DeleteJob, "retired", "airflow dags delete --yes bf_1234_refund_replay"}}},
		{"BF001", 1, []wantAction{
			{remedy.PauseJob, "verified", `kubectl patch cronjob --namespace=data-jobs --type=merge --patch='{"spec":{"suspend":true}}' bf-1234-replay`},
			{remedy.DeleteJob, "retired", "kubectl delete cronjob --namespace=data-jobs bf-1234-replay"}}},
		{"BF001", 2, []wantAction{{remedy.DeleteJob, "retired", "kubectl delete job --namespace=data-jobs bf-1234-replay-29340"}}},
		{"BF002", 0, []wantAction{{remedy.DeleteJob, "retired", "airflow dags delete --yes bf_1234_refund_replay"}}},
		{"BF003", 0, []wantAction{{remedy.RevokeGrant, "access revoked",
			"PGDATABASE=analytics psql -X -v ON_ERROR_STOP=1 -q <<'BFAUDIT_SQL'\nREVOKE INSERT, UPDATE ON TABLE \"revenue\".\"daily\" FROM \"bf_1234_loader\";\nBFAUDIT_SQL"}}},
		{"BF003", 1, []wantAction{{remedy.RevokeGrant, "access revoked",
			"gcloud projects remove-iam-policy-binding --member=serviceAccount:backfill-runner@shop-analytics.iam.gserviceaccount.com --role=roles/bigquery.dataEditor --condition=None shop-analytics"}}},
		{"BF003", 2, []wantAction{{remedy.RevokeGrant, "access revoked",
			`f=$(mktemp) && bq show --format=prettyjson shop-analytics:revenue | jq --arg role WRITER --arg field userByEmail --arg who backfill-runner@shop-analytics.iam.gserviceaccount.com '.access |= map(select((.role == $role and .[$field] == $who) | not))' > "$f" && bq update --etag "$(jq -r .etag "$f")" --source "$f" shop-analytics:revenue; rc=$?; rm -f "$f"; [ "$rc" -eq 0 ]`}}},
		{"BF004", 0, []wantAction{{remedy.ExpireRole, "access revoked",
			"psql -X -v ON_ERROR_STOP=1 -q <<'BFAUDIT_SQL'\nALTER ROLE \"bf_1234_loader\" NOLOGIN VALID UNTIL 'now';\nBFAUDIT_SQL"}}},
		{"BF004", 1, []wantAction{
			{remedy.DisableKey, "access revoked", "gcloud iam service-accounts keys disable --iam-account=backfill-runner@shop-analytics.iam.gserviceaccount.com --project=shop-analytics --quiet 8a1f0c2d9e"},
			{remedy.DeleteKey, "retired", "gcloud iam service-accounts keys delete --iam-account=backfill-runner@shop-analytics.iam.gserviceaccount.com --project=shop-analytics --quiet 8a1f0c2d9e"}}},
		{"BF005", 0, []wantAction{{remedy.DropTable, "retired", "bq rm -f -t shop-analytics:revenue.bf_1234_refunds_tmp"}}},
		{"BF005", 1, []wantAction{{remedy.DropTable, "retired",
			"PGDATABASE=analytics psql -X -v ON_ERROR_STOP=1 -q <<'BFAUDIT_SQL'\nDROP TABLE \"scratch\".\"bf_1234_refunds\";\nBFAUDIT_SQL"}}},
		{"BF006", 0, []wantAction{{remedy.DeleteSubscription, "retired", "gcloud pubsub subscriptions delete --project=shop-analytics bf-1234-retries"}}},
		{"BF006", 1, []wantAction{{remedy.DeleteQueue, "retired", "rabbitmqadmin --host=rabbitmq.internal --port=15672 --vhost=/ delete queue name=bf_1234.retry"}}},
		{"BF010", 1, []wantAction{
			{remedy.DisableKey, "access revoked", "gcloud iam service-accounts keys disable --iam-account=backfill-runner@shop-analytics.iam.gserviceaccount.com --project=shop-analytics --quiet 8a1f0c2d9e"},
			{remedy.DeleteKey, "retired", "gcloud iam service-accounts keys delete --iam-account=backfill-runner@shop-analytics.iam.gserviceaccount.com --project=shop-analytics --quiet 8a1f0c2d9e"}}},
		{"BF011", 0, []wantAction{{remedy.DropTable, "retired",
			"PGDATABASE=analytics psql -X -v ON_ERROR_STOP=1 -q <<'BFAUDIT_SQL'\nDROP TABLE \"scratch\".\"bf_1234_refunds\";\nBFAUDIT_SQL"}}},
		{"BF016", 0, []wantAction{{remedy.ExpireSilence, "normalized", "amtool --alertmanager.url=http://alertmanager:9093 silence expire 7d3c6e1a-4a3b-4f7e-9a55-0b9a1c2d3e4f"}}},
	}
	for _, c := range cases {
		e := remedy.Examples(c.rule)[c.i]
		r, ok := remedy.Build(e.Finding, e.Facts)
		if !ok {
			t.Errorf("%s[%d]: no remedy", c.rule, c.i)
			continue
		}
		var got []wantAction
		for _, a := range r.Actions {
			got = append(got, wantAction{a.Name, a.Step.String(), a.Shell})
			remedytest.ShSyntax(t, a.Shell)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s[%d] on %s:\n got %q\nwant %q", c.rule, c.i, e.Finding.ArtifactURI, got, c.want)
		}
	}
}

// From a finding alone (a report has no artifacts), the URI gives the
// same commands, or the broader one where it cannot say more.
func TestForFromFindingAlone(t *testing.T) {
	same := map[string][]int{"BF001": {0, 1, 2}, "BF002": {0}, "BF003": {1, 2}, "BF004": {0, 1}, "BF005": {0, 1}, "BF006": {0}}
	for rule, idx := range same {
		for _, i := range idx {
			e := remedy.Examples(rule)[i]
			want, _ := remedy.Build(e.Finding, e.Facts)
			got, ok := remedy.For(e.Finding, nil)
			if !ok || !slices.Equal(got.Commands(), want.Commands()) {
				t.Errorf("%s[%d] %s from the finding alone:\n got %q\nwant %q", rule, i, e.Finding.ArtifactURI, got.Commands(), want.Commands())
			}
		}
	}
	e := remedy.Examples("BF003")[0]
	got, _ := remedy.For(e.Finding, nil)
	if want := `REVOKE ALL PRIVILEGES ON TABLE "revenue"."daily" FROM "bf_1234_loader";`; len(got.Actions) != 1 || got.Actions[0].SQL != want {
		t.Errorf("PostgreSQL grant from its URI: %+v, want %s", got.Actions, want)
	}
	e = remedy.Examples("BF006")[1]
	got, _ = remedy.For(e.Finding, nil)
	if want := "rabbitmqadmin --vhost=/ delete queue name=bf_1234.retry"; len(got.Actions) != 1 || got.Actions[0].Shell != want {
		t.Errorf("RabbitMQ queue from its URI: %q", got.Commands())
	}
	cond := model.Finding{RuleID: "BF003", ArtifactURI: "gcpiam://p/bindings/projects/p/roles/loader/serviceAccount:a@p.iam.gserviceaccount.com?condition=until-oct"}
	got, _ = remedy.For(cond, nil)
	if want := "gcloud projects remove-iam-policy-binding --member=serviceAccount:a@p.iam.gserviceaccount.com --role=projects/p/roles/loader --all p"; len(got.Actions) != 1 || got.Actions[0].Shell != want || len(got.Notes) == 0 {
		t.Errorf("conditional binding from its URI: %q %q", got.Commands(), got.Notes)
	}
	for _, f := range []model.Finding{{RuleID: "BF008", BackfillID: "BF-1"}, {RuleID: "BF101", ArtifactURI: "plan#x"}, {RuleID: "BF005", ArtifactURI: "exports://t"}} {
		r, ok := remedy.For(f, nil)
		if ok && len(r.Actions) > 0 {
			t.Errorf("%s %s: commands %q from nothing", f.RuleID, f.ArtifactURI, r.Commands())
		}
	}
}

// envRef is a variable a command reads from the environment: upper case,
// as tokens and addresses are named (lower case ones are the command's
// own, or jq's inside quotes).
var envRef = regexp.MustCompile(`\$\{?([A-Z][A-Z0-9_]*)`)

// Every variable a command reads (a token, an address the artifact did
// not record) is in its Needs, so that the script can skip it, saying
// which is not set, instead of running it without: on every rule's
// examples, as collected and from the finding alone.
func TestActionsDeclareWhatTheyNeed(t *testing.T) {
	read := map[string]bool{}
	// No example is an Unleash flag: one read back from its URI.
	unleash := remedy.Example{Finding: model.Finding{RuleID: "BF017", ArtifactURI: "unleash://flags/projects/default/features/bf-1234-guard"}}
	for _, r := range rules.All() {
		examples := remedy.Examples(r.ID)
		if r.ID == unleash.Finding.RuleID {
			examples = append(examples, unleash)
		}
		for _, e := range examples {
			built, _ := remedy.Build(e.Finding, e.Facts)
			inferred, _ := remedy.For(e.Finding, nil)
			for _, a := range append(built.Actions, inferred.Actions...) {
				for _, m := range envRef.FindAllStringSubmatch(a.Shell, -1) {
					read[m[1]] = true
					if !slices.Contains(a.Needs, m[1]) {
						t.Errorf("%s %s on %s reads $%s, needs only %q:\n%s", r.ID, a.Name, e.Finding.ArtifactURI, m[1], a.Needs, a.Shell)
					}
				}
				for _, v := range a.Needs {
					if !strings.Contains(a.Shell, "$"+v) && !strings.Contains(a.Shell, "${"+v) {
						t.Errorf("%s %s needs %s, which its command does not read:\n%s", r.ID, a.Name, v, a.Shell)
					}
				}
			}
		}
	}
	for _, v := range []string{"UNLEASH_TOKEN", "UNLEASH_URL", "GRAFANA_TOKEN", "GRAFANA_URL", "KAFKA_BOOTSTRAP"} {
		if !read[v] {
			t.Errorf("no example command reads $%s: the examples no longer cover it", v)
		}
	}
}
