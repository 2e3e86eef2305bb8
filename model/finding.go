package model

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Finding is one thing a rule flagged.
type Finding struct {
	RuleID      string   `json:"rule_id"`
	RuleName    string   `json:"rule_name"`
	Title       string   `json:"title"`
	Severity    Severity `json:"severity"`
	Step        Step     `json:"step"`
	BackfillID  string   `json:"backfill_id,omitempty"`
	ArtifactURI string   `json:"artifact_uri,omitempty"`
	Owner       string   `json:"owner,omitempty"`
	// Team is the owner's team from the config's teams (docs/reports/due.md).
	Team     string   `json:"team,omitempty"`
	Message  string   `json:"message"`
	Evidence []string `json:"evidence,omitempty"`
	// Folded are the rules whose findings on the same artifact were folded
	// into this one (the rules' precedence): one problem, one finding; their
	// fixes are part of its remedy.
	Folded      []string `json:"folded,omitempty"`
	Remediation string   `json:"remediation,omitempty"`
	Fingerprint string   `json:"fingerprint"`
	// Source is the collector instance whose data the finding rests on, and
	// Scope the part of it; sinks use them to avoid concluding anything from
	// a source that did not answer.
	Source   string    `json:"source,omitempty"`
	Scope    string    `json:"scope,omitempty"`
	Location *Location `json:"location,omitempty"`
	// Unread, when set, names the units that did not answer this run: the
	// finding was not re-checked and is carried, as last seen, from the
	// history store instead of being concluded gone.
	Unread    []string  `json:"unread,omitempty"`
	FirstSeen time.Time `json:"first_seen,omitzero"`
	LastSeen  time.Time `json:"last_seen,omitzero"`
	// DueAt is when the finding must be closed, set from the due policy
	// when it is first seen and kept by the history store; zero when no
	// policy applies. Overdue says the audit's time has reached it.
	DueAt   time.Time `json:"due_at,omitzero"`
	Overdue bool      `json:"overdue,omitempty"`
	Waiver  *Waiver   `json:"waiver,omitempty"`

	// Key is BackfillID in its normal form, set with it by whoever makes
	// the finding (a rule, a history store read); not saved.
	Key BackfillID `json:"-"`
}

// Waived reports whether an unexpired waiver hides the finding.
func (f Finding) Waived() bool { return f.Waiver != nil }

// Waiver is why a finding is accepted for now.
type Waiver struct {
	ID       string    `json:"id,omitempty"`
	Reason   string    `json:"reason"`
	Approver string    `json:"approver,omitempty"`
	Expires  time.Time `json:"expires,omitzero"`
	Origin   string    `json:"origin,omitempty"` // config, github, resource (a keep label on the artifact)
}

// Fingerprint identifies a finding across runs and machines: the rule, the
// backfill and the artifact, nothing that changes run to run.
func Fingerprint(ruleID string, backfill BackfillID, artifactURI string) string {
	h := sha256.New()
	h.Write([]byte(ruleID))
	h.Write([]byte{0})
	h.Write([]byte(backfill))
	h.Write([]byte{0})
	h.Write([]byte(artifactURI))
	// The first 8 bytes of the digest, in hex: encoding only those keeps
	// each fingerprint a 16-byte string instead of a slice of a 64-byte
	// one, which adds up over a million findings.
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:8])
}

// ShortHash is what reports show in place of a secret's value: the first
// 12 hex digits of its SHA-256, enough to tell two secrets apart or to
// match one against a key another source lists, nothing of the value.
func ShortHash(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])[:12]
}
