package fix

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/bfaudit/bfaudit/internal/redact"
)

// WriteResults prints one line per item: its status, rule, action and
// artifact, and why; then the counts. Text from the estate is put on one
// line with control characters replaced, so it cannot rewrite a terminal.
func WriteResults(w io.Writer, results []Result) error {
	var b strings.Builder
	counts := map[string]int{}
	for _, r := range results {
		counts[r.Status]++
		what := r.Item.RuleID
		if r.Item.Action != nil {
			what += " " + r.Item.Action.Name
		}
		if r.Item.ArtifactURI != "" {
			what += " " + r.Item.ArtifactURI
		}
		line := fmt.Sprintf("%-13s %s", r.Status, what) // "not announced" is the longest status
		switch {
		case r.Reason != "":
			line += ": " + r.Reason
		case r.Item.Action != nil:
			line += ": " + r.Item.Action.Summary
		}
		b.WriteString(oneLine(line) + "\n")
	}
	var parts []string
	for _, s := range []string{StatusWouldApply, StatusApplied, StatusFailed, StatusSkipped, StatusNotAllowed,
		StatusWaived, StatusNotDue, StatusNotAnnounced, StatusWaits, StatusByHand} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing to do")
	}
	b.WriteString(strings.Join(parts, ", ") + "\n")
	_, err := io.WriteString(w, redact.String(b.String()))
	return err
}

// WriteResultsJSON writes the results as a JSON array.
func WriteResultsJSON(w io.Writer, results []Result) error {
	if results == nil {
		results = []Result{}
	}
	data, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, redact.String(string(data))+"\n")
	return err
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
