package gcpiam

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	crm "google.golang.org/api/cloudresourcemanager/v3"
	iam "google.golang.org/api/iam/v1"
	"google.golang.org/api/option"

	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// iamSystem acts on project IAM bindings and service-account keys with the
// REST clients the gcpiam collector reads them with (Resource Manager v3,
// IAM v1), Application Default Credentials, the source's endpoints and its
// per-call timeout. Nothing here is retried: a setIamPolicy that lost a
// race must be audited again, not tried again.
type iamSystem struct {
	timeout       time.Duration
	crmOpts       []option.ClientOption
	iamOpts       []option.ClientOption
	clientOptions []option.ClientOption

	once sync.Once
	crm  *crm.Service
	iam  *iam.Service
	err  error
}

// iamPolicyVersion 3 is the only version that returns conditional
// bindings with their conditions; a policy written back from a lower
// version would lose them.
const iamPolicyVersion = 3

// newIAM acts with the source's endpoints, timeout and the client options
// it was given (a test's); it builds its own clients when first used.
func newIAM(c *Collector) (*iamSystem, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = remote.DefaultCallTimeout
	}
	return &iamSystem{
		timeout:       timeout,
		crmOpts:       iamEndpoint(c.ResourceManagerEndpoint, c.Endpoint),
		iamOpts:       iamEndpoint(c.IAMEndpoint, c.Endpoint),
		clientOptions: c.clientOptions,
	}, nil
}

// iamEndpoint is the collector's base URL override for one API.
func iamEndpoint(specific, general string) []option.ClientOption {
	e := specific
	if e == "" {
		e = general
	}
	if e == "" {
		return nil
	}
	if !strings.HasSuffix(e, "/") {
		e += "/"
	}
	return []option.ClientOption{option.WithEndpoint(e)}
}

// services builds the clients on first use: a plan that never acts on IAM
// never asks for credentials.
func (s *iamSystem) services(ctx context.Context) (*crm.Service, *iam.Service, error) {
	s.once.Do(func() {
		ctx := context.WithoutCancel(ctx)
		hc, err := gcp.HTTPClient(ctx, append([]option.ClientOption{option.WithScopes("https://www.googleapis.com/auth/cloud-platform")}, s.clientOptions...)...)
		if err != nil {
			s.err = fmt.Errorf("gcpiam: HTTP client (Application Default Credentials): %w", err)
			return
		}
		with := option.WithHTTPClient(hc)
		if s.crm, s.err = crm.NewService(ctx, append([]option.ClientOption{with}, s.crmOpts...)...); s.err != nil {
			s.err = fmt.Errorf("gcpiam: resource manager client: %w", s.err)
			return
		}
		if s.iam, s.err = iam.NewService(ctx, append([]option.ClientOption{with}, s.iamOpts...)...); s.err != nil {
			s.err = fmt.Errorf("gcpiam: IAM client: %w", s.err)
		}
	})
	return s.crm, s.iam, s.err
}

func (s *iamSystem) object(a *model.Artifact) (IAMBinding, error) {
	b, ok := ParseIAM(a)
	if !ok {
		return b, fmt.Errorf("gcpiam: %s is not an artifact bfaudit can act on", a.URI)
	}
	if b.ConditionUnknown {
		// Without the condition the binding cannot be told from another
		// of the same member and role.
		return b, fmt.Errorf("gcpiam: %s names a condition the audit did not carry: audit the source itself, not a saved report", a.URI)
	}
	return b, nil
}

// call runs one request under the source's per-call timeout, its error
// summarised (status and message, nothing of the request).
func iamCall[T any](ctx context.Context, timeout time.Duration, do func(ctx context.Context) (T, error)) (T, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, err := do(cctx)
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			return v, fmt.Errorf("no answer within %s (the per-call timeout)", timeout)
		}
		return v, gcp.Summarize(err)
	}
	return v, nil
}

func (s *iamSystem) policy(ctx context.Context, svc *crm.Service, project string) (*crm.Policy, error) {
	pol, err := iamCall(ctx, s.timeout, func(ctx context.Context) (*crm.Policy, error) {
		return svc.Projects.GetIamPolicy("projects/"+project, &crm.GetIamPolicyRequest{
			Options: &crm.GetPolicyOptions{RequestedPolicyVersion: iamPolicyVersion},
		}).Context(ctx).Do()
	})
	if err != nil {
		return nil, fmt.Errorf("gcpiam: get IAM policy of project %s: %w", project, err)
	}
	if pol.Etag == "" {
		// Without an etag the write could not be conditioned on it.
		return nil, fmt.Errorf("gcpiam: get IAM policy of project %s: the answer is not a policy (no etag)", project)
	}
	return pol, nil
}

func condition(b *crm.Binding) (expr, title string) {
	if b.Condition != nil {
		return b.Condition.Expression, b.Condition.Title
	}
	return "", ""
}

// holding finds the bindings of role holding member whose condition is the
// one the audit saw (exactly: expression and title), and, failing that,
// one the audit's URI would name the same (same title, or both without a
// condition) whose condition changed.
func holding(pol *crm.Policy, b IAMBinding) (exact []int, changed *crm.Binding) {
	for i, pb := range pol.Bindings {
		if pb.Role != b.Role || !slices.Contains(pb.Members, b.Member) {
			continue
		}
		expr, title := condition(pb)
		switch {
		case expr == b.Expression && title == b.Title:
			exact = append(exact, i)
		case changed == nil && b.Title != "" && title == b.Title:
			changed = pb
		}
	}
	return exact, changed
}

func (s *iamSystem) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	b, err := s.object(a)
	if err != nil {
		return remedy.Observed{}, err
	}
	crmSvc, iamSvc, err := s.services(ctx)
	if err != nil {
		return remedy.Observed{}, err
	}
	if b.Key {
		k, err := iamCall(ctx, s.timeout, func(ctx context.Context) (*iam.ServiceAccountKey, error) {
			return iamSvc.Projects.ServiceAccounts.Keys.Get(keyName(b)).Context(ctx).Do()
		})
		if gcp.IsNotFound(err) {
			return remedy.Observed{}, nil
		}
		if err != nil {
			return remedy.Observed{}, fmt.Errorf("gcpiam: get key %s of %s: %w", b.KeyID, b.Account, err)
		}
		return remedy.Observed{Found: true, State: map[string]string{
			"created":  rfc3339(k.ValidAfterTime),
			"disabled": strconv.FormatBool(k.Disabled),
		}}, nil
	}
	pol, err := s.policy(ctx, crmSvc, b.Project)
	if err != nil {
		return remedy.Observed{}, err
	}
	exact, changed := holding(pol, b)
	switch {
	case len(exact) > 0:
		return remedy.Observed{Found: true, State: map[string]string{model.AttrCondition: b.Expression, AttrConditionTitle: b.Title, "etag": pol.Etag}}, nil
	case changed != nil:
		expr, title := condition(changed)
		return remedy.Observed{Found: true, State: map[string]string{model.AttrCondition: expr, AttrConditionTitle: title, "etag": pol.Etag}}, nil
	}
	return remedy.Observed{}, nil
}

// Expected: a binding under the condition the audit saw; a key created
// when it was (a key disabled since, by an earlier step of the same run,
// is still the key to delete).
func (s *iamSystem) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	b, ok := ParseIAM(a)
	if ok && b.Key {
		if a.CreatedAt.IsZero() {
			return map[string]string{}
		}
		return map[string]string{"created": a.CreatedAt.Time().UTC().Format(time.RFC3339)}
	}
	return map[string]string{model.AttrCondition: b.Expression, AttrConditionTitle: b.Title}
}

// Act disables or deletes the key, or removes the member from the binding
// with the exact condition the audit saw: the policy is read again and
// written back with its etag, so an edit made in between fails the write
// (409 ABORTED) instead of being overwritten; that failure is reported,
// not retried.
func (s *iamSystem) Act(ctx context.Context, a *model.Artifact, act remedy.Action) error {
	b, err := s.object(a)
	if err != nil {
		return err
	}
	crmSvc, iamSvc, err := s.services(ctx)
	if err != nil {
		return err
	}
	switch {
	case b.Key && act.Name == remedy.DisableKey:
		_, err = iamCall(ctx, s.timeout, func(ctx context.Context) (*iam.Empty, error) {
			return iamSvc.Projects.ServiceAccounts.Keys.Disable(keyName(b), &iam.DisableServiceAccountKeyRequest{}).Context(ctx).Do()
		})
	case b.Key && act.Name == remedy.DeleteKey:
		_, err = iamCall(ctx, s.timeout, func(ctx context.Context) (*iam.Empty, error) {
			return iamSvc.Projects.ServiceAccounts.Keys.Delete(keyName(b)).Context(ctx).Do()
		})
	case !b.Key && act.Name == remedy.RevokeGrant:
		return s.removeMember(ctx, crmSvc, b)
	default:
		return fmt.Errorf("gcpiam: no %s for %s", act.Name, a.URI)
	}
	if gcp.IsNotFound(err) {
		return nil // gone in between: done either way
	}
	if err != nil {
		return fmt.Errorf("gcpiam: %s %s of %s: %w", act.Name, b.KeyID, b.Account, err)
	}
	return nil
}

func (s *iamSystem) removeMember(ctx context.Context, svc *crm.Service, b IAMBinding) error {
	pol, err := s.policy(ctx, svc, b.Project)
	if err != nil {
		return err
	}
	exact, changed := holding(pol, b)
	if len(exact) == 0 {
		if changed != nil {
			return fmt.Errorf("gcpiam: the binding of %s to %s in project %s changed its condition just now: audit again", b.Member, b.Role, b.Project)
		}
		return nil // gone in between: done either way
	}
	var bindings []*crm.Binding
	for i, pb := range pol.Bindings {
		if !slices.Contains(exact, i) {
			bindings = append(bindings, pb)
			continue
		}
		kept := *pb
		kept.Members = slices.DeleteFunc(slices.Clone(pb.Members), func(m string) bool { return m == b.Member })
		if len(kept.Members) > 0 {
			bindings = append(bindings, &kept)
		}
	}
	pol.Bindings = bindings
	// Version 3 keeps every conditional binding as it is; the etag makes
	// the write fail if the policy changed since it was read.
	pol.Version = iamPolicyVersion
	pol.ForceSendFields = append(pol.ForceSendFields, "Bindings")
	_, err = iamCall(ctx, s.timeout, func(ctx context.Context) (*crm.Policy, error) {
		return svc.Projects.SetIamPolicy("projects/"+b.Project, &crm.SetIamPolicyRequest{Policy: pol}).Context(ctx).Do()
	})
	if err != nil {
		return fmt.Errorf("gcpiam: set IAM policy of project %s (remove %s from %s): %w", b.Project, b.Member, b.Role, err)
	}
	return nil
}

// keyName lets IAM find the account's project, as the collector does.
func keyName(b IAMBinding) string {
	return "projects/-/serviceAccounts/" + b.Account + "/keys/" + b.KeyID
}

func rfc3339(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
