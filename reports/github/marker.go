package github

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bfaudit/bfaudit/model"
)

// The marker is an HTML comment at the end of each issue body. It carries
// what bfaudit needs to find the issue again by listing labelled issues
// (never the search API, whose index lags behind writes and would let a
// re-run duplicate an issue) and to remember items that are no longer in
// the report, so they can be shown ticked.
const (
	markerPrefix = "<!-- bfaudit:issue v1 "
	markerSuffix = " -->"
)

// itemState is where one checklist item stands.
type itemState string

const (
	stateOpen     itemState = "open"     // the finding is in this run's report
	stateResolved itemState = "resolved" // gone, and its source answered
	stateUnread   itemState = "unread"   // gone, but its source did not answer: not ticked
	stateWaived   itemState = "waived"   // a config waiver hides it
	stateAccepted itemState = "accepted" // accepted by closing the issue with the waiver label
)

// blocking reports whether the item keeps the issue open.
func (s itemState) blocking() bool { return s == stateOpen || s == stateUnread }

// item is one checklist line, as remembered in the marker.
type item struct {
	FP       string     `json:"fp"`
	State    itemState  `json:"state"`
	Rule     string     `json:"rule"`
	Title    string     `json:"title,omitempty"`
	Severity string     `json:"sev,omitempty"`
	Step     model.Step `json:"step"`
	Artifact string     `json:"artifact,omitempty"`
	Source   string     `json:"source,omitempty"`
	Scope    string     `json:"scope,omitempty"`
	// Accepted says who accepted the item by closing the issue with the
	// waiver label, and when they applied it; set when State is accepted.
	Accepted *acceptance `json:"accepted,omitempty"`

	finding *model.Finding // this run's finding, when there is one
	unread  []string       // units that did not answer for it this run
	listed  bool           // on the issue and not ticked: what the waiver label accepts
	lapsed  *acceptance    // an acceptance that ran out this run
	refused bool           // too severe to accept by label (github.accept_max_severity)
}

// marker is the state kept in the issue body.
type marker struct {
	Backfill string `json:"backfill"`
	// Assignee is the login bfaudit last asked for, so that an assignment
	// GitHub dropped (no push access) is not retried on every run.
	Assignee string `json:"assignee,omitempty"`
	Items    []item `json:"items"`
	// Described is the plan or record that described the backfill when
	// the issue was written: when it does not answer, the issue keeps its
	// last known description instead of regressing to partial data.
	Described model.Location `json:"described,omitzero"`
	// Pending is the transition comment owed since the state change that
	// wrote this marker, until the comment is in (see once.go).
	Pending *pending `json:"pending,omitempty"`
}

// encode renders the marker comment. encoding/json already escapes < and >
// so nothing in it can end the comment; @ and # are escaped too so that
// text from the estate cannot ping anyone even if a renderer looked inside.
func (m marker) encode() (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(m); err != nil {
		return "", fmt.Errorf("github: encode marker for %s: %w", m.Backfill, err)
	}
	s := strings.TrimSpace(buf.String())
	s = strings.NewReplacer("@", `\u0040`, "#", `\u0023`).Replace(s)
	return markerPrefix + s + markerSuffix, nil
}

// parseMarker finds the marker in an issue body; ok is false when the body
// has none (an issue someone else labelled) or it does not parse.
func parseMarker(body string) (marker, bool) {
	i := strings.LastIndex(body, markerPrefix)
	if i < 0 {
		return marker{}, false
	}
	rest := body[i+len(markerPrefix):]
	j := strings.Index(rest, markerSuffix)
	if j < 0 {
		return marker{}, false
	}
	var m marker
	if err := json.Unmarshal([]byte(rest[:j]), &m); err != nil || m.Backfill == "" {
		return marker{}, false
	}
	return m, true
}
