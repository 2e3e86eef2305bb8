package model

import (
	"strings"
	"time"
)

// Keep label keys as the systems spell them. Cloud labels (BigQuery,
// Pub/Sub), Unleash tag types and comment lines (PostgreSQL, a BigQuery
// description) use the bare keys; Kubernetes annotations use
// KeepAnnotationPrefix + "keep-until".
const (
	KeepUntilKey         = "bfaudit-keep-until"
	KeepReasonKey        = "bfaudit-keep-reason"
	KeepAnnotationPrefix = "bfaudit.io/"
)

// SetKeep records a keep label on the artifact; empty values are left
// out, so an artifact without a keep label carries no keep attribute.
func (a *Artifact) SetKeep(until, reason, by string) {
	for _, kv := range [][2]string{{AttrKeepUntil, until}, {AttrKeepReason, reason}, {AttrKeepBy, by}} {
		if v := strings.TrimSpace(kv[1]); v != "" {
			a.SetAttr(kv[0], v)
		}
	}
}

// KeepFromLabels reads a keep label from cloud labels (BigQuery, Pub/Sub).
// Label values hold only lowercase letters, digits, - and _, so a reason
// is written with - or _ for spaces ("waiting-for-finance-signoff") and
// read back with spaces.
func (a *Artifact) KeepFromLabels(labels map[string]string) {
	reason := strings.NewReplacer("-", " ", "_", " ").Replace(labels[KeepReasonKey])
	a.SetKeep(labels[KeepUntilKey], reason, "")
}

// KeepFromText reads keep lines from a free-text comment or description:
//
//	bfaudit-keep-until: 2027-01-31
//	bfaudit-keep-reason: finance reads it until the audit closes
//
// A line found here does not override a label already read.
func (a *Artifact) KeepFromText(text string) {
	var until, reason string
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case KeepUntilKey:
			until = v
		case KeepReasonKey:
			reason = v
		}
	}
	if a.Attr(AttrKeepUntil) == "" {
		a.SetKeep(until, "", "")
	}
	if a.Attr(AttrKeepReason) == "" {
		a.SetKeep("", reason, "")
	}
}

// HasKeep reports whether the artifact carries a keep label (any part).
func (a *Artifact) HasKeep() bool {
	return a.Attr(AttrKeepUntil) != "" || a.Attr(AttrKeepReason) != "" || a.Attr(AttrKeepBy) != ""
}

// ParseKeepUntil reads a keep date: a day (2027-01-31, meaning 00:00 UTC
// that day, as a config waiver's expires) or an RFC 3339 time.
func ParseKeepUntil(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
