package rules

// The sections of docs/practice.md, the page that states the discipline
// every rule checks. A rule cites one by its anchor (Rule.Practice); a
// test holds this list to the page's headings, so a renamed section breaks
// the build rather than a link.
const (
	PracticeWhatABackfillIs = "what-a-backfill-is"
	PracticePlan            = "plan-before-you-run"
	PracticeRunSafely       = "run-it-safely"
	PracticeStrategies      = "strategies"
	PracticeSensitive       = "sensitive-data-and-special-semantics"
	PracticeDownstream      = "downstream-tables-and-consumers"
	PracticeInventory       = "inventory-the-machinery"
	PracticeCloseTheLoop    = "close-the-loop-in-order"
	PracticeNotDone         = "cleanup-is-not-done-when-the-replay-is"
)

// PracticeTitles maps each section's anchor to its heading.
var PracticeTitles = map[string]string{
	PracticeWhatABackfillIs: "What a backfill is",
	PracticePlan:            "Plan before you run",
	PracticeRunSafely:       "Run it safely",
	PracticeStrategies:      "Strategies",
	PracticeSensitive:       "Sensitive data and special semantics",
	PracticeDownstream:      "Downstream tables and consumers",
	PracticeInventory:       "Inventory the machinery",
	PracticeCloseTheLoop:    "Close the loop in order",
	PracticeNotDone:         "Cleanup is not done when the replay is",
}

// PracticeRef is how a rule's section is written for a reader:
// `Inventory the machinery (docs/practice.md#inventory-the-machinery)`.
func PracticeRef(anchor string) string {
	if t, ok := PracticeTitles[anchor]; ok {
		return t + " (docs/practice.md#" + anchor + ")"
	}
	return anchor
}
