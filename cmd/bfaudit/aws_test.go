package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bf4400 is what a careful reviewer expects of the quickstart's AWS
// backfill, left as it was in two accounts: the replay role's write
// access past its 31 October end, in IAM and in Lake Formation (on
// sales.orders), the runner's key used since, the tmp/
// folders and Athena scratch tables, the dead-letter queues holding
// orders (high) and the drained retry queues, the one-off schedules
// still enabled. One finding each, nothing on the production role, the
// bf16 trainer or the day's exports.
var bf4400 = []string{
	"BF001 medium scheduler://aws-schedules/111111111111/eu-west-1/default/bf-4400-replay-once",
	"BF001 medium scheduler://aws-schedules/222222222222/eu-west-1/default/bf-4400-replay-once",
	"BF003 high awsiam://aws-iam/111111111111/role/bf-4400-replay/inline/replay-write",
	"BF003 high awsiam://aws-iam/222222222222/role/bf-4400-replay/inline/replay-write",
	"BF003 high glue://aws-catalog/111111111111/eu-west-1/lakeformation/arn:aws:iam::111111111111:role%2Fbackfill%2Fbf-4400%2Fbf-4400-replay/111111111111/table/sales/orders",
	"BF003 high glue://aws-catalog/222222222222/eu-west-1/lakeformation/arn:aws:iam::222222222222:role%2Fbackfill%2Fbf-4400%2Fbf-4400-replay/222222222222/table/sales/orders",
	"BF004 high awsiam://aws-iam/111111111111/user/bf-4400-runner/key/AKIAQUICKSTART4400R",
	"BF005 medium glue://aws-catalog/111111111111/eu-west-1/scratch/orders_bf_4400_tmp",
	"BF005 medium glue://aws-catalog/222222222222/eu-west-1/scratch/orders_bf_4400_tmp",
	"BF005 medium s3://aws-s3/111111111111/eu-west-1/shop-lake-prod/tmp/bf-4400/",
	"BF005 medium s3://aws-s3/222222222222/eu-west-1/shop-lake-eu/tmp/bf-4400/",
	"BF006 high sqs://aws-queues/111111111111/eu-west-1/bf-4400-retries-dlq",
	"BF006 high sqs://aws-queues/222222222222/eu-west-1/bf-4400-retries-dlq",
	"BF006 medium sqs://aws-queues/111111111111/eu-west-1/bf-4400-retries",
	"BF006 medium sqs://aws-queues/222222222222/eu-west-1/bf-4400-retries",
}

// The quickstart's AWS backfill, end to end from saved answers: the
// findings above, each with an aws command in the fix script; once the
// machinery is gone from both accounts, its issue is ticked through and
// closed, history resolves all fifteen, and nothing of it is reported.
// (An account that does not answer is TestNothingTickedOnPartialFailure's.)
func TestAWSBackfillEndToEnd(t *testing.T) {
	fake := newGHFake(t)
	dir, cfg := quickstartWithSinks(t, fake)
	code, out, stderr := bfaudit(t, "audit", "-c", cfg, "--now", "2026-11-30T08:00:00Z", "-f", "json")
	if code != exitFindings {
		t.Fatalf("run 1: exit %d: %s", code, stderr)
	}
	var got []string
	for _, f := range decodeReport(t, out).Findings {
		if f.BackfillID == "BF-4400" && !strings.HasPrefix(f.ArtifactURI, "plans/") && !strings.HasPrefix(f.ArtifactURI, "records/") {
			got = append(got, f.RuleID+" "+f.Severity.String()+" "+f.ArtifactURI)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, bf4400) {
		t.Errorf("BF-4400's findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(bf4400, "\n"))
	}
	issue := fake.snapshot()["BF-4400"]
	if issue.State != "open" || strings.Count(issue.Body, "- [ ]") < len(bf4400) {
		t.Errorf("BF-4400's issue: %s, %d open items", issue.State, strings.Count(issue.Body, "- [ ]"))
	}

	// Each finding is followed, before the next, by an aws command.
	_, script, stderr := bfaudit(t, "fix", "-c", cfg, "--now", "2026-11-30T08:00:00Z", "--backfill", "BF-4400")
	for _, f := range bf4400 {
		uri := strings.Fields(f)[2]
		at := strings.Index(script, " "+uri+": ")
		if at < 0 {
			t.Errorf("the fix script does not name %s:\n%s", uri, stderr)
			continue
		}
		rest := script[at:]
		if next := strings.Index(rest[1:], "\n# BF0"); next > 0 {
			rest = rest[:next]
		}
		if !strings.Contains(rest, "\naws ") {
			t.Errorf("no aws command for %s:\n%s", uri, rest)
		}
	}

	// Cleaned up in both accounts.
	if err := os.RemoveAll(filepath.Join(dir, "aws")); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "aws"), os.DirFS(abs(t, "testdata/aws-cleaned"))); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = bfaudit(t, "audit", "-c", cfg, "--now", "2026-12-01T08:00:00Z", "-f", "json")
	if code != exitFindings { // the other backfills are as they were
		t.Fatalf("run 2: exit %d: %s", code, stderr)
	}
	r := decodeReport(t, out)
	if !r.Summary.Complete {
		t.Errorf("run 2 incomplete: %v", r.Problems)
	}
	for _, f := range r.Findings {
		if f.BackfillID == "BF-4400" {
			t.Errorf("cleaned up, still: %s %s %s", f.RuleID, f.ArtifactURI, f.Message)
		}
	}
	resolved := 0
	for _, f := range r.History.Resolved {
		if f.BackfillID == "BF-4400" {
			resolved++
		}
	}
	if resolved != len(bf4400) {
		t.Errorf("history resolved %d of BF-4400's findings, want %d", resolved, len(bf4400))
	}
	issue = fake.snapshot()["BF-4400"]
	if issue.State != "closed" || strings.Contains(issue.Body, "- [ ]") {
		t.Errorf("BF-4400's issue once cleaned: %s, open items left:\n%s", issue.State, issue.Body)
	}
}
