package awsiam

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/model"
)

// Attributes of access keys.
const (
	// AttrKeyStatus is IAM's status of the key: Active, Inactive, Expired.
	AttrKeyStatus = "key_status"
	// AttrLastUsedService is the service the key last called.
	AttrLastUsedService = "last_used_service"
)

// usersScope is the scope of a user's access keys, below its account: a
// user whose keys could not be listed fails there, so its keys are not
// taken as gone.
func usersScope(account, user string) string { return model.JoinScope(account, "users", user) }

// collectKeys reports the access keys of user u, tied to backfill id,
// with when each was created and last used, and how many it read at the
// user's scope (partial: the last use not read).
func (c *Collector) collectKeys(ctx context.Context, client *iam.Client, account string, u *principal, id, how string, sink collectors.Sink) {
	scope := usersScope(account, u.name)
	fail := func(what string, err error) {
		sink.AddError(scope, fmt.Errorf("awsiam: account %s: %s of user %s: %w", account, what, u.name, err))
	}
	pager := iam.NewListAccessKeysPaginator(client, &iam.ListAccessKeysInput{UserName: aws.String(u.name)})
	next := func(ctx context.Context) (*iam.ListAccessKeysOutput, error) { return pager.NextPage(ctx) }
	var keys []types.AccessKeyMetadata
	err := awsconf.Pages(ctx, c.Timeout, pager.HasMorePages, next, func(page *iam.ListAccessKeysOutput) error {
		keys = append(keys, page.AccessKeyMetadata...)
		return nil
	})
	if err != nil {
		fail("access keys", err)
		return
	}
	read, partial := 0, 0
	seen := map[string]bool{}
	for i, k := range keys {
		keyID := aws.ToString(k.AccessKeyId)
		if keyID == "" {
			fail("access keys", fmt.Errorf("key %d has no id", i))
			continue
		}
		if seen[keyID] {
			continue
		}
		seen[keyID] = true
		a := c.artifact(model.KindCredential, scope, KeyURI(c.Env.Source, account, u.name, keyID), "access key "+keyID+" of user "+u.name, id, how)
		a.SetAttr(model.AttrPrincipal, u.arn)
		a.SetAttr(AttrKeyStatus, string(k.Status))
		// An access key never expires by itself: BF102 reads this.
		a.SetAttr(model.AttrTimeBound, "false")
		// An inactive key cannot sign a request, like a NOLOGIN role:
		// BF004 and BF102 pass it by.
		a.SetAttr(model.AttrLogin, fmt.Sprint(k.Status == types.StatusTypeActive))
		switch k.Status {
		case types.StatusTypeActive:
		case types.StatusTypeExpired:
			a.State = model.StateExpired
		default:
			a.State = model.StateDisabled
		}
		if k.CreateDate != nil {
			a.CreatedAt = model.At(k.CreateDate.UTC())
		}
		used, err := awsconf.Call(ctx, c.Timeout, func(ctx context.Context) (*iam.GetAccessKeyLastUsedOutput, error) {
			return client.GetAccessKeyLastUsed(ctx, &iam.GetAccessKeyLastUsedInput{AccessKeyId: aws.String(keyID)})
		})
		switch {
		case err != nil:
			fail("last use of access key "+keyID, err)
			partial++
		case used.AccessKeyLastUsed != nil:
			if t := used.AccessKeyLastUsed.LastUsedDate; t != nil {
				a.LastUsedAt = model.At(t.UTC())
			}
			if s := aws.ToString(used.AccessKeyLastUsed.ServiceName); s != "" && s != "N/A" {
				a.SetAttr(AttrLastUsedService, s)
			}
		}
		sink.AddArtifact(a)
		read++
	}
	sink.AddRead(scope, "access keys", read, partial)
}
