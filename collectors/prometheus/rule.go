package prometheus

import "time"

// Rule types, as /api/v1/rules names them.
const (
	typeAlerting  = "alerting"
	typeRecording = "recording"
)

// rule is one alerting or recording rule, from the API or a file.
type rule struct {
	kind        string // typeAlerting or typeRecording
	name, expr  string
	labels      map[string]string
	annotations map[string]string
	forDur      time.Duration

	// Known only from a running server.
	state, health, lastError string
	lastEval, activeSince    time.Time
}

// group is one rule group and where it was read: its unit (scope path)
// and the start of its rules' URIs.
type group struct {
	file, name string
	scope      string
	uriPrefix  string
	// object is the PrometheusRule ("namespace/name") a group came from,
	// with the object's labels; empty for rule files and the API.
	object       string
	objectLabels map[string]string
	rules        []rule
	// partial is set when a rule of the group was not understood (an
	// error at the group's unit): the group was read only in part.
	partial bool
}
