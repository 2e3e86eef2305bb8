package records

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/internal/safefile"
	"github.com/bfaudit/bfaudit/model"
)

// planDoc is the YAML shape of a backfill plan; docs/plans.md documents it.
type planDoc struct {
	ID                string      `yaml:"id"`
	Purpose           string      `yaml:"purpose"`
	Trigger           string      `yaml:"trigger"`
	JobID             string      `yaml:"job_id"`
	Range             rangeDoc    `yaml:"range"`
	Owner             string      `yaml:"owner"`
	Approver          string      `yaml:"approver"`
	Classification    string      `yaml:"classification"`
	Status            string      `yaml:"status"`
	Timeline          timelineDoc `yaml:"timeline"`
	Expiry            timeValue   `yaml:"expiry"`
	ValidationQuery   string      `yaml:"validation_query"`
	ReplayQuery       string      `yaml:"replay_query"`
	ValidationSource  string      `yaml:"validation_source"`
	AssetsToRemove    []string    `yaml:"assets_to_remove"`
	ElevatedAccess    []accessDoc `yaml:"elevated_access"`
	CleanupOwner      string      `yaml:"cleanup_owner"`
	Strategy          string      `yaml:"strategy"`
	Concurrency       int         `yaml:"concurrency"`
	Pool              string      `yaml:"pool"`
	DependsOnPast     bool        `yaml:"depends_on_past"`
	WriteMode         string      `yaml:"write_mode"`
	SideEffects       []string    `yaml:"side_effects"`
	SideEffectsOff    bool        `yaml:"side_effects_disabled"`
	FeatureFlags      []string    `yaml:"feature_flags"`
	Dashboards        []string    `yaml:"dashboards"`
	Special           specialDoc  `yaml:"special_semantics"`
	TrialInterval     bool        `yaml:"trial_interval"`
	ConsumersNotified bool        `yaml:"consumers_notified"`
	Notified          []string    `yaml:"notified"`
	Targets           []string    `yaml:"targets"`
	Reprocess         string      `yaml:"reprocess_behavior"`
	KeepEvidence      bool        `yaml:"keep_evidence"`
	CostEstimate      string      `yaml:"cost_estimate"`
}

type rangeDoc struct {
	Start    timeValue `yaml:"start"`
	End      timeValue `yaml:"end"`
	TimeZone string    `yaml:"time_zone"`
}

type timelineDoc struct {
	StartedAt   timeValue `yaml:"started_at"`
	CompletedAt timeValue `yaml:"completed_at"`
	VerifiedAt  timeValue `yaml:"verified_at"`
	ArchivedAt  timeValue `yaml:"archived_at"`
	RetiredAt   timeValue `yaml:"retired_at"`
}

type accessDoc struct {
	Principal string    `yaml:"principal"`
	Role      string    `yaml:"role"`
	Expiry    timeValue `yaml:"expiry"`
}

type specialDoc struct {
	SkippedDedup       bool   `yaml:"skipped_dedup"`
	BypassedValidation bool   `yaml:"bypassed_validation"`
	DirectWrite        bool   `yaml:"direct_write"`
	Note               string `yaml:"note"`
}

// PlanError is a plan that could not be read. ID is the backfill id when it
// could still be read, so the backfill is not mistaken for unknown.
type PlanError struct {
	Path string
	Line int
	Key  string
	ID   string
	Err  error
}

func (e *PlanError) Error() string {
	loc := e.Path
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: %s: %v", loc, e.Key, e.Err)
	}
	return fmt.Sprintf("%s: %v", loc, e.Err)
}

func (e *PlanError) Unwrap() error { return e.Err }

// ReadPlanFile parses a plan file, which may hold several YAML documents.
// It returns the plans it could read and one error per plan it could not.
func ReadPlanFile(path string) ([]model.Backfill, []error) {
	b, err := safefile.ReadLimit(path, maxFileBytes)
	if err != nil {
		return nil, []error{&PlanError{Path: path, Err: safefile.PlainError(path, err)}}
	}
	return ParsePlans(path, b)
}

// errNoPlan is a plan file that holds nothing: read as "no backfills
// here", an emptied file would resolve every finding of its plans.
var errNoPlan = errors.New("holds no plan (the file is empty or only comments); a plan file describes at least one backfill")

// ParsePlans parses the YAML documents of one plan file. A file without
// any plan is an error, never an empty answer.
func ParsePlans(path string, data []byte) (plans []model.Backfill, errs []error) {
	docs := 0
	defer func() {
		if docs == 0 && len(errs) == 0 {
			errs = append(errs, &PlanError{Path: path, Err: errNoPlan})
		}
	}()
	// Two decoders walk the same documents in step: one keeps the node tree
	// (for the line of a key), the other decodes strictly, so a misspelt key
	// (expirey:) is an error with its line rather than a missing expiry.
	nodes := yaml.NewDecoder(bytes.NewReader(data))
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	for {
		var node yaml.Node
		err := nodes.Decode(&node)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// A syntax error ends the file: the decoder cannot resync.
			pe := &PlanError{Path: path}
			pe.Line, pe.Err = splitLine(cleanYAMLError(err))
			errs = append(errs, pe)
			break
		}
		var p planDoc
		strictErr := strict.Decode(&p)
		if len(node.Content) == 0 || isNull(node.Content[0]) {
			continue
		}
		docs++
		b, err := parsePlanNode(path, &node, &p, strictErr)
		if err != nil {
			errs = append(errs, split(err)...)
			if b.ID == "" {
				continue
			}
		}
		plans = append(plans, b)
	}
	return plans, errs
}

// isNull reports an empty document ("---" with nothing under it).
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && (n.Value == "" || n.Value == "~" || n.Value == "null")
}

func parsePlanNode(path string, node *yaml.Node, p *planDoc, strictErr error) (model.Backfill, error) {
	doc := node.Content[0]
	line := doc.Line
	if doc.Kind != yaml.MappingNode {
		return model.Backfill{}, &PlanError{Path: path, Line: line, Err: errors.New("expected a mapping of plan keys (id, purpose, range, ...)")}
	}
	id := scalarAt(doc, "id")
	if strictErr != nil {
		err := explain(path, id, doc, planDocType, strictErr, 0)
		return partialPlan(path, line, id, err), err
	}
	var loc *time.Location
	if p.Range.TimeZone != "" {
		l, err := time.LoadLocation(p.Range.TimeZone)
		if err != nil {
			pe := &PlanError{Path: path, Line: lineOf(doc, "range"), Key: "range.time_zone", ID: id,
				Err: fmt.Errorf("unknown time zone %q (expected an IANA name such as Europe/Berlin)", p.Range.TimeZone)}
			return partialPlan(path, line, id, pe), pe
		}
		loc = l
	}
	b := model.Backfill{
		ID: p.ID, Origin: model.OriginPlan, Purpose: p.Purpose, Trigger: model.Trigger(p.Trigger),
		JobID: p.JobID, Owner: p.Owner, Approver: p.Approver,
		Range:          model.Interval{Start: p.Range.Start.in(loc), End: p.Range.End.in(loc), TimeZone: p.Range.TimeZone},
		Classification: model.Classification(p.Classification), Status: model.Status(p.Status),
		Timeline: model.Timeline{StartedAt: p.Timeline.StartedAt.Time, CompletedAt: p.Timeline.CompletedAt.Time,
			VerifiedAt: p.Timeline.VerifiedAt.Time, ArchivedAt: p.Timeline.ArchivedAt.Time, RetiredAt: p.Timeline.RetiredAt.Time},
		Expiry: p.Expiry.Time, ValidationQuery: strings.TrimSpace(p.ValidationQuery), ValidationSource: p.ValidationSource,
		AssetsToRemove: p.AssetsToRemove, CleanupOwner: p.CleanupOwner, Strategy: model.Strategy(p.Strategy),
		Concurrency: p.Concurrency, Pool: p.Pool, DependsOnPast: p.DependsOnPast, WriteMode: model.WriteMode(p.WriteMode),
		SideEffects: p.SideEffects, SideEffectsDisabled: p.SideEffectsOff,
		FeatureFlags: p.FeatureFlags, Dashboards: p.Dashboards,
		Special:       model.SpecialSemantics{SkippedDedup: p.Special.SkippedDedup, BypassedValidation: p.Special.BypassedValidation, DirectWrite: p.Special.DirectWrite, Note: p.Special.Note},
		TrialInterval: p.TrialInterval, ConsumersNotified: p.ConsumersNotified, Notified: p.Notified, KeepEvidence: p.KeepEvidence,
		Targets: p.Targets, ReprocessBehavior: p.Reprocess,
		CostEstimate: p.CostEstimate,
		ReplayQuery:  strings.TrimSpace(p.ReplayQuery),
		Source:       model.Location{Path: path, Line: line},
	}
	for _, a := range p.ElevatedAccess {
		b.ElevatedAccess = append(b.ElevatedAccess, model.ElevatedAccess{Principal: a.Principal, Role: a.Role, Expiry: a.Expiry.Time})
	}
	if b.Status == "" {
		b.Status = model.StatusPlanned
	}
	if err := checkPlan(path, doc, b); err != nil {
		return partialPlan(path, line, id, err), err
	}
	return b, nil
}

// partialPlan keeps the id of a plan that failed to parse, so artifacts of
// that backfill are not reported as orphans on top of the parse error.
func partialPlan(path string, line int, id string, err error) model.Backfill {
	if id == "" {
		return model.Backfill{}
	}
	return model.Backfill{ID: id, Origin: model.OriginPlan, Status: model.StatusPlanned,
		Notes:  []string{"plan could not be read: " + err.Error()},
		Source: model.Location{Path: path, Line: line}}
}

// checkPlan validates values a YAML decoder accepts but bfaudit cannot use.
func checkPlan(path string, doc *yaml.Node, b model.Backfill) error {
	bad := func(key, format string, args ...any) error {
		return &PlanError{Path: path, Line: lineOf(doc, key), Key: key, ID: b.ID, Err: fmt.Errorf(format, args...)}
	}
	if strings.TrimSpace(b.ID) == "" {
		return bad("id", "missing; every plan needs a backfill id such as BF-1234")
	}
	if !b.Status.IsValid() {
		return bad("status", "unknown status %q (expected planned, running, replayed, verified, archived or retired)", b.Status)
	}
	if !oneOf(string(b.Trigger), "", "outage", "new_job", "bug_fix", "late_data", "definition_change") {
		return bad("trigger", "unknown trigger %q (expected outage, new_job, bug_fix, late_data or definition_change)", b.Trigger)
	}
	if !oneOf(string(b.Strategy), "", "interval", "parallel", "bulk", "reverse", "shadow") {
		return bad("strategy", "unknown strategy %q (expected interval, parallel, bulk, reverse or shadow)", b.Strategy)
	}
	if !oneOf(string(b.WriteMode), "", "partition_overwrite", "append") {
		return bad("write_mode", "unknown write mode %q (expected partition_overwrite or append)", b.WriteMode)
	}
	if !oneOf(string(b.Classification), "", "none", "financial", "customer", "security", "compliance") {
		return bad("classification", "unknown classification %q (expected financial, customer, security, compliance or none)", b.Classification)
	}
	if !oneOf(b.ReprocessBehavior, "", "none", "failed", "completed") {
		return bad("reprocess_behavior", "unknown reprocess behaviour %q (expected none, failed or completed)", b.ReprocessBehavior)
	}
	for i, t := range b.Targets {
		if model.TableRef(t) == "" {
			return bad("targets", "entry %d is empty (expected a table URI or name such as bigquery://proj/ds/orders)", i+1)
		}
	}
	if b.Concurrency < 0 {
		return bad("concurrency", "must be 1 or more, got %d", b.Concurrency)
	}
	if !b.Range.Start.IsZero() && !b.Range.End.IsZero() && !b.Range.End.After(b.Range.Start) {
		return bad("range", "end %s is not after start %s (ranges are half-open [start, end))",
			b.Range.End.Format("2006-01-02"), b.Range.Start.Format("2006-01-02"))
	}
	return nil
}

func oneOf(v string, allowed ...string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}
