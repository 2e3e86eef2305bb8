package model

import (
	"strconv"
	"strings"
	"time"
)

// Kind is what sort of machinery an artifact is.
type Kind string

// Artifact kinds (docs/practice.md, "Inventory the machinery").
const (
	KindSchedulerJob Kind = "scheduler_job"
	KindJobRun       Kind = "job_run"
	KindTable        Kind = "table"
	KindCheckpoint   Kind = "checkpoint"
	KindQueue        Kind = "queue"
	KindSubscription Kind = "subscription"
	KindGrant        Kind = "grant"
	KindCredential   Kind = "credential"
	KindFeatureFlag  Kind = "feature_flag"
	KindAlert        Kind = "alert"
	KindDashboard    Kind = "dashboard"
	KindNotebook     Kind = "notebook"
	KindDoc          Kind = "doc"
	// KindSilence is an Alertmanager silence: it mutes alerts rather than
	// raising them, so alert rules (BF007) do not judge it.
	KindSilence Kind = "silence"
	// KindPool is a scheduler's slot pool (an Airflow pool) and
	// KindVariable a scheduler's stored parameter (an Airflow variable):
	// the practice's "parameters" a replay may have been given.
	KindPool     Kind = "pool"
	KindVariable Kind = "variable"
)

// Kinds lists every artifact kind.
func Kinds() []Kind {
	return []Kind{KindSchedulerJob, KindJobRun, KindTable, KindCheckpoint, KindQueue,
		KindSubscription, KindGrant, KindCredential, KindFeatureFlag, KindAlert,
		KindDashboard, KindNotebook, KindDoc, KindSilence, KindPool, KindVariable}
}

// IsValid reports whether k is a known kind.
func (k Kind) IsValid() bool {
	for _, v := range Kinds() {
		if v == k {
			return true
		}
	}
	return false
}

// State is an artifact's observed state.
type State string

// States. Active means in force or enabled and doing work; deleted means a
// source that answered saw it gone.
const (
	StateEnabled  State = "enabled"
	StatePaused   State = "paused"
	StateDisabled State = "disabled"
	StateActive   State = "active"
	StateExpired  State = "expired"
	StateDeleted  State = "deleted"
)

// IsValid reports whether s is a known state (empty counts as unknown, valid).
func (s State) IsValid() bool {
	switch s {
	case "", StateEnabled, StatePaused, StateDisabled, StateActive, StateExpired, StateDeleted:
		return true
	}
	return false
}

// Live reports whether the artifact still exists and could act or be used.
func (s State) Live() bool { return s != StateDeleted && s != StateExpired }

// Well-known attribute keys. Collectors put system facts in Attributes under
// these keys so rules can read them without knowing the system.
const (
	AttrMessages      = "messages"         // queued messages (queue, subscription)
	AttrConsumers     = "consumers"        // attached consumers
	AttrPrincipal     = "principal"        // grant/credential holder
	AttrRole          = "role"             // grant role or privilege
	AttrCondition     = "condition"        // IAM condition expression
	AttrTimeBound     = "time_bound"       // "true" when a grant carries an expiry condition
	AttrTemporary     = "temporary"        // "true" for machinery made only for the backfill
	AttrRunType       = "run_type"         // scheduler run type (backfill, scheduled, manual)
	AttrRunState      = "run_state"        // queued, running, success, failed
	AttrCatchup       = "catchup"          // "true" when the scheduler catches up missed intervals
	AttrStartDate     = "start_date"       // RFC 3339 start date of a scheduled job
	AttrSchedule      = "schedule"         // schedule expression
	AttrTriggerOnly   = "trigger_only"     // "true" for a job with no schedule: it runs only when triggered (Airflow schedule=None)
	AttrPool          = "pool"             // scheduler pool or queue
	AttrMaxActiveRuns = "max_active_runs"  // run cap
	AttrRows          = "rows"             // row count or estimate
	AttrBytes         = "bytes"            // size in bytes
	AttrDetached      = "detached"         // "true" for a detached subscription
	AttrLogin         = "login"            // "true" for a role that can log in
	AttrValidUntil    = "valid_until"      // RFC 3339 credential validity end
	AttrWatchesOnly   = "watches_backfill" // "true" when an alert only watched the backfill
	AttrRunbook       = "runbook"          // runbook entry a kept job was converted into
	AttrFinished      = "finished"         // "true" for a finished run that stays as an object until deleted (a Kubernetes Job)
	AttrExpr          = "expr"             // the expression an alert or recording rule evaluates
	AttrAlertState    = "alert_state"      // inactive, pending or firing (an alerting rule)
	AttrMatchers      = "matchers"         // a silence's matchers, {name="v", name=~"re", name!="v"}
	AttrCreatedBy     = "created_by"       // who created the artifact, as its system records it
	AttrMutesCritical = "mutes_critical"   // "true" when a silence mutes a severity="critical" alert
	AttrAPIURL        = "api_url"          // the API address of the system holding the artifact (no credentials)
	// AttrOtherBackfills lists, comma-separated, the further backfill ids an
	// artifact names beside the one it is tied to (an alert watching
	// backfill_id=~"bf-1|bf-2"); the index reads it (correlate's
	// Index.OtherKeys).
	AttrOtherBackfills = "other_backfills"
	// AttrConditionError says why a grant's condition could not be read
	// for its end (SetEnd).
	AttrConditionError = "condition_error"

	// Feature flags (Unleash, flagd, OpenFeature). A flag's State is
	// enabled when it is on anywhere, disabled when off everywhere, and
	// deleted when archived.
	AttrEnabledIn      = "enabled_in"        // environments where a flag is on, comma-separated and sorted
	AttrProduction     = "production"        // "true" when a flag is on in a production environment
	AttrGuard          = "side_effect_guard" // "true" when the flag's system marks it as guarding side effects (a tag, metadata)
	AttrPosition       = "position"          // a flag's current position: "enabled", "disabled" or the default variant
	AttrReplayPosition = "replay_position"   // the position the flag held for the replay, when its system records it
	AttrArchived       = "archived"          // "true" for an archived flag
	AttrProject        = "project"           // the project or folder holding the artifact in its system
	// AttrReads lists what a dashboard or alert rule reads that is tied
	// to a backfill: one line per read, "identifier<TAB>backfill id<TAB>where"
	// (the table, dataset or job as its query names it, the id the
	// selector tied it to, the panel or query that reads it). The
	// artifact itself stays untied: it is a live dashboard, not machinery.
	AttrReads = "reads"
	AttrURL   = "url" // the artifact's page in its system's web UI (no credentials)

	// Checkpoint state (Kafka consumer groups, object-store checkpoints,
	// Pub/Sub snapshots) and notebooks.
	AttrCheckpointType = "checkpoint_type" // consumer_group, object, snapshot
	AttrMembers        = "members"         // members of a consumer group (a replay consumer still running when > 0)
	AttrLag            = "lag"             // messages between the committed offsets and the log end, summed over partitions
	AttrOffsets        = "offsets"         // committed offsets, "topic/partition=offset" comma-separated (capped)
	AttrHolds          = "holds"           // "true" when an object has an event-based or temporary hold, or a retention lock
	AttrObjects        = "objects"         // objects in a folder of an object store (checkpoint state, temporary data)
	// AttrSecrets lists the credentials found in a notebook, one per line:
	// "rule<TAB>where<TAB>hash" (the detection rule that matched, the cell
	// and line, the value's ShortHash: never the value). AttrKeyIDs lists
	// the Google service-account key ids among them (their public ids), and
	// AttrAWSKeys the AWS access keys by the ShortHash of their access key
	// id (a scanner matches the id itself, so it is not shown), each
	// comma-separated, so a rule can ask whether a key is still active.
	AttrSecrets = "secrets"
	AttrKeyIDs  = "key_ids"
	AttrAWSKeys = "aws_keys"

	// Keep labels: an opt-out written on the artifact itself (a BigQuery
	// label, a Kubernetes annotation, a PostgreSQL comment line; see
	// keep.go). Collectors copy them here as written, so a malformed date
	// reaches the rule that reports it (BF028) instead of vanishing.
	AttrKeepUntil  = "keep_until"  // the date the keep ends, as written (2027-01-31)
	AttrKeepReason = "keep_reason" // why the artifact is kept
	AttrKeepBy     = "keep_by"     // who set the keep label, when the system records it
)

// Read is one line of AttrReads.
type Read struct {
	Identifier string // as the query names it
	BackfillID string // as the selector tied it
	Where      string // the panel or query that reads it
}

// Reads parses AttrReads; malformed lines are skipped.
func (a *Artifact) Reads() []Read {
	reads := a.Attr(AttrReads)
	if reads == "" {
		return nil // most artifacts read nothing: no lines to split
	}
	var out []Read
	for _, line := range strings.Split(reads, "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 2 || f[0] == "" || f[1] == "" {
			continue
		}
		r := Read{Identifier: f[0], BackfillID: f[1]}
		if len(f) > 2 {
			r.Where = f[2]
		}
		out = append(out, r)
	}
	return out
}

// FormatReads writes reads as AttrReads holds them; tabs and line breaks
// inside a field become spaces.
func FormatReads(reads []Read) string {
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace
	lines := make([]string, len(reads))
	for i, r := range reads {
		lines[i] = clean(r.Identifier) + "\t" + clean(r.BackfillID) + "\t" + clean(r.Where)
	}
	return strings.Join(lines, "\n")
}

// Artifact is one piece of machinery found in a system.
type Artifact struct {
	Kind       Kind    `json:"kind"`
	System     string  `json:"system"`          // airflow, bigquery, postgres, ...
	Source     string  `json:"source"`          // collector instance that saw it
	Scope      string  `json:"scope,omitempty"` // project, namespace, vhost, ...
	URI        string  `json:"uri"`             // stable across runs
	Name       string  `json:"name,omitempty"`
	BackfillID string  `json:"backfill_id,omitempty"`
	Owner      string  `json:"owner,omitempty"`
	Labels     *Tags   `json:"labels,omitempty"`
	CreatedAt  Instant `json:"created_at,omitzero"`
	LastUsedAt Instant `json:"last_used_at,omitzero"`
	ModifiedAt Instant `json:"modified_at,omitzero"`
	ExpiresAt  Instant `json:"expires_at,omitzero"`
	State      State   `json:"state,omitempty"`
	Attributes *Tags   `json:"attributes,omitempty"`
	// Correlation says how the artifact was tied to its backfill (label,
	// name, asset, declared); set by correlate.
	Correlation string `json:"correlation,omitempty"`

	// Key is BackfillID in its normal form, set by correlate when it ties
	// the artifact; not saved.
	Key BackfillID `json:"-"`
}

// Attr returns an attribute, or "" when absent.
func (a *Artifact) Attr(key string) string { return a.Attributes.Get(key) }

// SetAttr sets an attribute. The artifact's attributes are copied, not
// changed: another artifact may share them (Tags).
func (a *Artifact) SetAttr(key, value string) { a.Attributes = a.Attributes.With(key, value) }

// Label returns a label, or "" when absent.
func (a *Artifact) Label(key string) string { return a.Labels.Get(key) }

// SetLabel sets a label, on a copy of the labels as SetAttr does.
func (a *Artifact) SetLabel(key, value string) { a.Labels = a.Labels.With(key, value) }

// IntAttr reads an integer attribute; ok is false when absent or malformed.
func (a *Artifact) IntAttr(key string) (int64, bool) {
	v, ok := a.Attributes.Lookup(key)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// BoolAttr reads a boolean attribute; absent or malformed reads false.
// The usual values are read without strconv, whose error for an absent
// attribute is an allocation: rules ask for attributes most artifacts
// lack, once per artifact.
func (a *Artifact) BoolAttr(key string) bool {
	switch v := a.Attributes.Get(key); v {
	case "true":
		return true
	case "", "false":
		return false
	default:
		b, _ := strconv.ParseBool(v)
		return b
	}
}

// TimeAttr reads an RFC 3339 attribute; zero when absent or malformed.
func (a *Artifact) TimeAttr(key string) time.Time {
	v := a.Attributes.Get(key)
	if v == "" {
		return time.Time{} // without the parse error's allocation
	}
	t, _ := time.Parse(time.RFC3339, v)
	return t
}

// NameOrURI is the artifact's name, or its URI when it has none, for a
// sentence about it.
func (a *Artifact) NameOrURI() string {
	if a.Name != "" {
		return a.Name
	}
	return a.URI
}
