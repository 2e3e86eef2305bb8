package awsiam

import (
	"fmt"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// bf4400Write is the replay's write access, granted until 31 October.
const bf4400Write = `{"Version":"2012-10-17","Statement":[{"Sid":"ReplayWrite","Effect":"Allow",` +
	`"Action":["s3:PutObject","s3:DeleteObject","glue:CreateTable","glue:UpdateTable","sqs:SendMessage"],` +
	`"Resource":["arn:aws:s3:::%[1]s/*","arn:aws:glue:eu-west-1:%[2]s:table/scratch/*","arn:aws:sqs:eu-west-1:%[2]s:bf-4400-*"],` +
	`"Condition":{"DateLessThan":{"aws:CurrentTime":"2026-10-31T00:00:00Z"}}}]}`

// TestQuickstartAnswers saves the quickstart's IAM answers
// (BFAUDIT_WRITE_QUICKSTART=1): in both accounts, BF-4400's replay role,
// its write access past its 31 October end and still attached; in the
// first, the runner user whose key is active and was used after the
// backfill; beside a production role and a bf16 training role that
// belong to no backfill; and once the access is revoked.
func TestQuickstartAnswers(t *testing.T) { collectortest.SaveQuickstartAWS(t, quickstartSource, "iam") }

func quickstartSource(t *testing.T, dir string, cleaned bool) collectors.Collector {
	var estate []*fakeIAM
	for i, account := range collectortest.QuickstartAccounts {
		a := &fakeIAM{account: account}
		a.principals = []*fakePrincipal{
			{kind: kindRole, name: "bf-4400-replay", path: "/backfill/bf-4400/",
				inline:   map[string]string{"replay-write": fmt.Sprintf(bf4400Write, []string{"shop-lake-prod", "shop-lake-eu"}[i], account)},
				lastUsed: time.Date(2026, 10, 16, 1, 0, 0, 0, time.UTC)},
			{kind: kindRole, name: "orders-etl", inline: map[string]string{"orders": unbounded}},
			{kind: kindRole, name: "bf16-trainer", attached: []string{s3FullAccess}},
		}
		if cleaned {
			// The role stays, its write access deleted; the runner's
			// key is deleted, the user kept.
			a.principals[0].inline = nil
			if i == 0 {
				a.principals = append(a.principals, &fakePrincipal{kind: kindUser, name: "bf-4400-runner"})
			}
		} else if i == 0 {
			a.principals = append(a.principals, &fakePrincipal{kind: kindUser, name: "bf-4400-runner", keys: []*fakeKey{
				{id: "AKIAQUICKSTART4400R", status: "Active", service: "s3",
					created: time.Date(2026, 10, 11, 14, 0, 0, 0, time.UTC), lastUsed: time.Date(2026, 11, 24, 6, 12, 0, 0, time.UTC)},
			}})
		}
		estate = append(estate, a)
	}
	fake := newFakeAWS(t, estate...)
	return collectorOn(t, fake.URL, "aws-iam", auditNow, func(s *awsconf.Settings) {
		s.SaveAnswers, s.Accounts = dir, collectortest.QuickstartAccountSettings()
	})
}
