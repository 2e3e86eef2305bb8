package awsiam

import (
	"fmt"
	"time"
)

// auditNow is when the tests audit: BF-1234's plan (fixtest.PlanSource)
// was verified two months before.
var auditNow = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// Policy documents as people write them.
const (
	// An AWS managed policy: its document is not read.
	s3FullAccess = "arn:aws:iam::aws:policy/AmazonS3FullAccess"
	// Ends on 1 October: the condition has passed, the policy is attached.
	expiredWrite = `{"Version":"2012-10-17","Statement":[{"Sid":"ReplayWrite","Effect":"Allow","Action":["s3:PutObject","s3:DeleteObject"],` +
		`"Resource":"arn:aws:s3:::ledger/*","Condition":{"DateLessThan":{"aws:CurrentTime":"2026-10-01T00:00:00Z"}}},` +
		`{"Effect":"Deny","Action":"s3:DeleteBucket","Resource":"*"}]}`
	// No end.
	unbounded = `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"glue:*","Resource":"*"}}`
	// Ends in 2027: time-bound, and still in force.
	boundedRead = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*",` +
		`"Condition":{"NumericLessThan":{"aws:EpochTime":1798761600}}}]}`
	// A production role's policy, with one statement added for BF-1234.
	prodAccess = `{"Version":"2012-10-17","Statement":[{"Sid":"ProdRead","Effect":"Allow","Action":"s3:GetObject","Resource":"*"},` +
		`{"Sid":"BF1234","Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::ledger/*",` +
		`"Condition":{"DateLessThanEquals":{"aws:CurrentTime":"2026-12-31T00:00:00Z"}}}]}`
	denyOnly = `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"*","Resource":"*"}]}`
	// Trust: another account and GitHub's OIDC provider may assume it.
	outsideTrust = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam::999999999999:root","arn:aws:iam::%[1]s:role/ci"]},"Action":"sts:AssumeRole"},` +
		`{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::%[1]s:oidc-provider/token.actions.githubusercontent.com"},"Action":"sts:AssumeRoleWithWebIdentity"}]}`
)

// Access keys of BF-1234's runner: one active and used after the backfill
// ended, one deactivated.
const (
	activeKey   = "AKIAFAKE1234ACTIVE"
	inactiveKey = "AKIAFAKE1234OLDKEY"
)

// bf1234 is an account holding BF-1234's access, tied every way the
// collector ties, beside what belongs to no backfill.
func bf1234(account string) *fakeIAM {
	a := &fakeIAM{account: account}
	write := &fakePolicy{name: "bf-1234-write", document: expiredWrite}
	shared := &fakePolicy{name: "shared-read", path: "/data/", document: boundedRead}
	unused := &fakePolicy{name: "bf-1234-unused", document: unbounded}
	a.policies = []*fakePolicy{write, shared, unused}
	a.principals = []*fakePrincipal{
		// Tied by its name: every policy is a grant.
		{kind: kindRole, name: "bf-1234-replay", attached: []string{s3FullAccess, write.arn(account)},
			inline: map[string]string{"replay-extra": unbounded, "guard": denyOnly}, trust: fmt.Sprintf(outsideTrust, account),
			boundary: "arn:aws:iam::" + account + ":policy/boundary", lastUsed: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)},
		// Tied by its path.
		{kind: kindRole, name: "replayer", path: "/backfill/bf-1234/", attached: []string{shared.arn(account)}},
		// Tied by its tag.
		{kind: kindRole, name: "loader", tags: map[string]string{"team": "data", "backfill_id": "BF-1234"}, attached: []string{shared.arn(account)}},
		// Not tied; one statement of its inline policy is.
		{kind: kindRole, name: "etl-prod", inline: map[string]string{"prod-access": prodAccess}, attached: []string{shared.arn(account)}},
		// Not a backfill: bfloat16.
		{kind: kindRole, name: "bf16-model", attached: []string{s3FullAccess}},
		// BF-1234's runner and its keys.
		{kind: kindUser, name: "bf-1234-runner", keys: []*fakeKey{
			{id: activeKey, status: "Active", service: "s3", created: time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC), lastUsed: time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)},
			{id: inactiveKey, status: "Inactive", created: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)},
		}},
		// Someone else: keys not read.
		{kind: kindUser, name: "alice", keys: []*fakeKey{{id: "AKIAFAKEALICE00001", status: "Active", created: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}}},
		{kind: kindGroup, name: "bf-1234-writers", inline: map[string]string{"write": unbounded}},
	}
	return a
}
