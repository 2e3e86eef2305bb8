// Package remedy knows, for each finding of a built-in rule, the exact
// cleanup in the system that holds the artifact: the bq, gcloud, kubectl,
// airflow, amtool and rabbitmqadmin commands and the SQL that clear it,
// with the real names filled in and quoted for their shell or SQL dialect,
// each placed at its step of the cleanup order of docs/practice.md
// ("Close the loop in order"). Findings whose fix is a human act (write the
// decision record, tell consumers) get what to write and where, as a
// filled-in template.
//
// Each rule carries its Recipe (the builder, from the generic ones here)
// and registers it; each system registers its commands in its own file.
// The package only renders; fix plans and applies.
package remedy

import (
	"slices"
	"strconv"
	"strings"

	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
)

// Action names, as `fix.allow` in the config spells them.
const (
	PauseJob           = "pause_job"           // pause a scheduler job (reversible)
	DeleteJob          = "delete_job"          // delete a job definition or a finished run object
	RevokeGrant        = "revoke_grant"        // revoke a grant, IAM binding or dataset ACL entry
	ExpireRole         = "expire_role"         // NOLOGIN and VALID UNTIL now on a login role (reversible)
	DisableKey         = "disable_key"         // disable a service-account key (reversible)
	DeleteKey          = "delete_key"          // delete a service-account key
	DeleteSubscription = "delete_subscription" // delete a Pub/Sub subscription
	DeleteTopic        = "delete_topic"        // delete a Pub/Sub topic
	DeleteQueue        = "delete_queue"        // delete a RabbitMQ queue
	DeleteExchange     = "delete_exchange"     // delete a RabbitMQ exchange
	DropTable          = "drop_table"          // drop a table, view or schema
	ExpireSilence      = "expire_silence"      // expire an Alertmanager silence
	ArchiveFlag        = "archive_flag"        // archive an Unleash feature flag (reversible: revive it)
	DeleteFlag         = "delete_flag"         // delete a flag definition (a flagd entry, an OpenFeature FeatureFlag)
	DeleteDashboard    = "delete_dashboard"    // delete a Grafana dashboard
	DeleteAlertRule    = "delete_alert_rule"   // delete a Grafana-managed alert rule
	DeleteGroup        = "delete_group"        // delete a Kafka consumer group (its committed offsets)
	DeleteObjects      = "delete_objects"      // delete checkpoint objects under a prefix
	DeleteSnapshot     = "delete_snapshot"     // delete a Pub/Sub snapshot
	DeletePool         = "delete_pool"         // delete an Airflow pool
	DeleteConnection   = "delete_connection"   // delete an Airflow connection (its stored credential)
	DeleteVariable     = "delete_variable"     // delete an Airflow variable (its value)
	// RebuildTable (lineage.go) rebuilds a derived table: printed only.
)

// Actions lists every action name with whether it can be undone from what
// fix records before acting (the grant's privileges, the role's validity):
// only those run under `fix --apply` without being named in fix.allow.
// They are the actions above, which several systems share, and those a
// registered system adds of its own (System.Actions).
func Actions() map[string]bool {
	out := sharedActions()
	systemsMu.RLock()
	defer systemsMu.RUnlock()
	for _, s := range systems {
		for name, reversible := range s.Actions {
			out[name] = reversible
		}
	}
	return out
}

func sharedActions() map[string]bool {
	return map[string]bool{
		PauseJob: true, ExpireRole: true, DisableKey: true,
		DeleteJob: false, RevokeGrant: false, DeleteKey: false, DeleteSubscription: false,
		DeleteTopic: false, DeleteQueue: false, DeleteExchange: false, DropTable: false, ExpireSilence: false,
		ArchiveFlag: true, DeleteFlag: false, DeleteDashboard: false, DeleteAlertRule: false,
		DeleteGroup: false, DeleteObjects: false, DeleteSnapshot: false,
		DeletePool: false, DeleteConnection: false, DeleteVariable: false, RebuildTable: false,
	}
}

// Reversible reports whether an action can be undone.
func Reversible(action string) bool { return Actions()[action] }

// Remedy is the cleanup of one finding.
type Remedy struct {
	RuleID      string `json:"rule_id"`
	Fingerprint string `json:"fingerprint"`
	BackfillID  string `json:"backfill_id,omitempty"`
	ArtifactURI string `json:"artifact_uri,omitempty"`
	System      string `json:"system,omitempty"`
	Source      string `json:"source,omitempty"`
	// Actions are the commands, in the order they are run.
	Actions []Action `json:"actions,omitempty"`
	// Alternatives are commands for a different, also acceptable fix
	// (keep the table but let it expire), shown but never run.
	Alternatives []string `json:"alternatives,omitempty"`
	// Human is what a person has to write or do, when no command can.
	Human *Human `json:"human,omitempty"`
	// Notes are caveats an owner should read before running anything.
	Notes []string `json:"notes,omitempty"`
}

// Action is one command that changes one system.
type Action struct {
	// Name is the action's kind (drop_table, revoke_grant...).
	Name string `json:"action"`
	// Step is where in the cleanup order the action belongs.
	Step    model.Step `json:"step"`
	Summary string     `json:"summary"`
	// Shell is one POSIX sh command, its arguments quoted; for SQL it is
	// the psql invocation with the statements in a here-document.
	Shell string `json:"shell"`
	// SQL, for PostgreSQL, is the statement alone, and Database where it
	// runs.
	SQL      string `json:"sql,omitempty"`
	Database string `json:"database,omitempty"`
	// Reversible says the action can be undone from its recorded
	// before-state.
	Reversible bool `json:"reversible"`
	// Resolves says the finding is cleared once the action succeeded.
	Resolves bool `json:"resolves"`
	// Late puts the action after the others of its step: a schema is
	// dropped after the tables in it.
	Late bool `json:"late,omitempty"`
	// Order places the action among its step's others: a derived table's
	// rebuild at its position in the rebuild order (0: no order).
	Order int `json:"order,omitempty"`
	// Needs are the environment variables Shell reads (a token, an
	// address the artifact did not record): the script skips the command,
	// saying which is not set, rather than run it without them.
	Needs []string `json:"needs,omitempty"`
}

// Human is a fix only a person can make: what to write, where, and a
// template with the facts bfaudit knows filled in.
type Human struct {
	Step     model.Step `json:"step"`
	What     string     `json:"what"`
	Where    string     `json:"where,omitempty"`
	Template string     `json:"template,omitempty"`
	// Check says the act is a check the artifact's own commands wait for
	// (the side effects a guard flag holds back are safe to release
	// before the flag is archived): they are held until its finding is
	// gone, the other commands of the plan are not.
	Check bool `json:"check,omitempty"`
}

// Facts are what a remedy is built from besides the finding: its artifact
// (nil for findings about a whole backfill), the backfill as its plan
// describes it, and its decision record, each nil when unknown.
type Facts struct {
	Artifact *model.Artifact
	Backfill *model.Backfill
	Record   *model.DecisionRecord
	// Lineage is the estate's lineage graph, when the caller has it: a
	// derived table's rebuild command and position come from it.
	Lineage *correlate.Lineage
	// RecordsDir and PlansDir are where the records source reads decision
	// records and plans, when known; templates say where to write.
	RecordsDir, PlansDir string
}

// For returns the remedy of a finding about an artifact: the function a
// report or sink calls. With a nil artifact (a report holds findings, not
// artifacts) what the commands need is read from the finding's URI; a
// command the URI cannot make exact is the broader one, with a note. ok is
// false when bfaudit knows no fix beyond the rule's remediation text.
func For(f model.Finding, a *model.Artifact) (Remedy, bool) {
	if a == nil {
		a = InferArtifact(f)
	}
	return Build(f, Facts{Artifact: a})
}

// Build returns the remedy of a finding from what is known of it.
func Build(f model.Finding, facts Facts) (Remedy, bool) {
	rc, _ := recipeOf(f.RuleID)
	r, ok := BuildWith(rc.Build, f, facts)
	for _, id := range f.Folded {
		// A finding folded into this one (BF017's lingering flag into
		// BF018's guard) keeps its commands: they join this remedy's. Its
		// by-hand acts do not: putting a revoked grant under a time
		// condition (BF102) or listing a deleted group in the plan (BF014)
		// is moot once this remedy has run.
		frc, found := recipeOf(id)
		if !found {
			continue
		}
		ff := f
		ff.RuleID, ff.Folded = id, nil
		fr, fok := BuildWith(frc.Build, ff, facts)
		if !fok {
			continue
		}
		for _, a := range fr.Actions {
			if !slices.ContainsFunc(r.Actions, func(b Action) bool { return b.Shell == a.Shell }) {
				r.Actions = append(r.Actions, a)
			}
		}
		ok = ok || len(fr.Actions) > 0
	}
	return r, ok
}

// BuildWith builds a finding's remedy with its rule's builder (nil: the
// rule has no remedy).
func BuildWith(build Builder, f model.Finding, facts Facts) (Remedy, bool) {
	r := Remedy{RuleID: f.RuleID, Fingerprint: f.Fingerprint, BackfillID: f.BackfillID, ArtifactURI: f.ArtifactURI}
	if a := facts.Artifact; a != nil {
		r.System, r.Source = systemOf(a), a.Source
	}
	if build == nil {
		return r, false
	}
	build(&r, f, facts)
	if len(r.Actions) == 0 && r.Human == nil && len(r.Alternatives) == 0 {
		return r, false
	}
	for i := range r.Actions {
		r.Actions[i].Reversible = Reversible(r.Actions[i].Name)
	}
	return r, true
}

// Commands returns the remedy's runnable commands, one per action.
func (r Remedy) Commands() []string {
	out := make([]string, 0, len(r.Actions))
	for _, a := range r.Actions {
		out = append(out, a.Shell)
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

// systemOf names the artifact's system: its System, or for an estate
// saved without one, its URI's scheme.
func systemOf(a *model.Artifact) string {
	if a.System != "" {
		return a.System
	}
	scheme, _, _ := strings.Cut(a.URI, "://")
	return scheme
}
