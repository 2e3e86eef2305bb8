package gcpiam

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	iam "google.golang.org/api/iam/v1"
)

// System-specific attributes of keys.
const (
	AttrKeyOrigin    = "key_origin"
	AttrKeyAlgorithm = "key_algorithm"
)

// accountsPageSize is the largest page serviceAccounts.list allows.
const accountsPageSize = 100

// noExpiry is how IAM writes "valid forever" in validBeforeTime.
var noExpiry = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// collectAccounts lists a project's service accounts and keeps those made
// for a backfill: a backfill id in the e-mail, display name or description,
// a declared principal, or a declared asset. An error (any page, or a
// listing that never stops paging) is the caller's to record at
// accountsScope(project).
func (c *Collector) collectAccounts(ctx context.Context, project string, tie iamcond.Matcher, accounts *accountSet, sink collectors.Sink) error {
	pages := remote.Pager{What: "iam.projects.serviceAccounts.list", Max: c.maxPages}
	token := ""
	read := 0
	for {
		page, err := gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (*iam.ListServiceAccountsResponse, error) {
			return c.iam.Projects.ServiceAccounts.List("projects/" + project).
				PageSize(accountsPageSize).PageToken(token).Context(ctx).Do()
		})
		if err != nil {
			return fmt.Errorf("gcpiam: list service accounts of project %s: %w", project, err)
		}
		ids := make([]string, 0, len(page.Accounts))
		for _, sa := range page.Accounts {
			ids = append(ids, sa.Email)
		}
		if err := pages.Next(page.NextPageToken, ids...); err != nil {
			return fmt.Errorf("gcpiam: list service accounts of project %s: %w", project, err)
		}
		for i, sa := range page.Accounts {
			if sa.Email == "" {
				// Malformed, not absent: the listing did not fully answer.
				sink.AddError(accountsScope(project), fmt.Errorf("gcpiam: list service accounts of project %s: entry %d of a page has no email", project, i))
				continue
			}
			read++
			accounts.addListed(tie, project, sa)
		}
		if page.NextPageToken == "" {
			sink.AddRead(accountsScope(project), "service accounts", read, 0)
			return nil
		}
		token = page.NextPageToken
	}
}

// collectKeys reads the user-managed keys of each account, a bounded
// number at a time: keys.list answers for one account only. One account's
// failure is recorded at its unit (account.unit) and taints nothing else.
func (c *Collector) collectKeys(ctx context.Context, accounts []account, sink collectors.Sink) {
	sem := make(chan struct{}, c.Concurrency)
	var wg sync.WaitGroup
	for _, a := range accounts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := c.accountKeys(ctx, a, sink); err != nil {
				sink.AddError(a.unit(), err)
			}
		}()
	}
	wg.Wait()
}

func (c *Collector) accountKeys(ctx context.Context, a account, sink collectors.Sink) error {
	project := a.project
	if project == "" {
		// The wildcard lets IAM find the account's project; it answers
		// 403 rather than 404 for an account that does not exist.
		project = "-"
	}
	name := "projects/" + project + "/serviceAccounts/" + a.email
	resp, err := gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (*iam.ListServiceAccountKeysResponse, error) {
		return c.iam.Projects.ServiceAccounts.Keys.List(name).KeyTypes("USER_MANAGED").Context(ctx).Do()
	})
	if err != nil {
		return fmt.Errorf("gcpiam: list keys of service account %s: %w", a.email, err)
	}
	read := 0
	for i, k := range resp.Keys {
		if lastSegment(k.Name) == "" {
			sink.AddError(a.unit(), fmt.Errorf("gcpiam: list keys of service account %s: key %d has no name", a.email, i))
			continue
		}
		read++
		sink.AddArtifact(c.key(a, k))
	}
	sink.AddRead(a.unit(), "service-account keys", read, 0)
	return nil
}

func (c *Collector) key(a account, k *iam.ServiceAccountKey) model.Artifact {
	project, keyID := keyProject(k.Name), lastSegment(k.Name)
	if project == "" {
		project = a.project
	}
	if project == "" {
		project = emailProject(a.email)
	}
	if project == "" {
		project = "-"
	}
	art := model.Artifact{
		Kind:        model.KindCredential,
		Scope:       a.unit(),
		URI:         keyURI(project, a.email, keyID),
		Name:        a.email + " key " + keyID,
		BackfillID:  a.backfillID,
		Correlation: a.how,
		State:       model.StateActive,
	}
	art.SetAttr(model.AttrPrincipal, "serviceAccount:"+a.email)
	if k.KeyOrigin != "" {
		art.SetAttr(AttrKeyOrigin, k.KeyOrigin)
	}
	if k.KeyAlgorithm != "" {
		art.SetAttr(AttrKeyAlgorithm, k.KeyAlgorithm)
	}
	if t, err := time.Parse(time.RFC3339Nano, k.ValidAfterTime); err == nil {
		art.CreatedAt = model.At(t.UTC())
	}
	if t, err := time.Parse(time.RFC3339Nano, k.ValidBeforeTime); err == nil && t.Before(noExpiry) {
		art.ExpiresAt = model.At(t.UTC())
		art.SetAttr(model.AttrValidUntil, art.ExpiresAt.Time().Format(time.RFC3339))
	}
	// A key that never expires is access that cannot end by itself, like
	// a login role without VALID UNTIL: BF102 reads this.
	art.SetAttr(model.AttrTimeBound, strconv.FormatBool(!art.ExpiresAt.IsZero()))
	// Like a NOLOGIN role, a disabled key (or a key of a disabled
	// account) cannot authenticate: BF004 and BF102 pass it by.
	art.SetAttr(model.AttrLogin, strconv.FormatBool(!k.Disabled && !a.disabled))
	switch {
	case k.Disabled || a.disabled:
		// A key of a disabled account cannot authenticate either.
		art.State = model.StateDisabled
	case !art.ExpiresAt.IsZero() && !art.ExpiresAt.Time().After(c.now()):
		art.State = model.StateExpired
	}
	return art
}

// keyProject reads the project out of projects/P/serviceAccounts/E/keys/K.
func keyProject(name string) string {
	parts := strings.Split(name, "/")
	if len(parts) >= 2 && parts[0] == "projects" && parts[1] != "-" {
		return parts[1]
	}
	return ""
}

func lastSegment(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}
