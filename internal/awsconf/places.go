package awsconf

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// Place is one account in one region: a unit of a regional service
// (Glue, EventBridge Scheduler, SQS), read with its account's
// credentials and its own region.
type Place struct {
	Target
	Region string
}

// Config is the SDK configuration of the place: its account's, in its
// region.
func (p Place) Config() aws.Config {
	cfg := p.Target.Config.Copy()
	cfg.Region = p.Region
	return cfg
}

// String names the place in errors, with the role assumed to reach it,
// so a role that cannot be assumed is named.
func (p Place) String() string {
	s := "account " + p.Account + " in " + p.Region
	if p.Role != "" {
		s += " (role " + p.Role + ")"
	}
	return s
}

// Places pairs every account with every region, in the order given.
func Places(targets []Target, regions []string) []Place {
	out := make([]Place, 0, len(targets)*len(regions))
	for _, t := range targets {
		for _, r := range regions {
			out = append(out, Place{Target: t, Region: r})
		}
	}
	return out
}

// Resolver keeps the accounts a source resolved (Accounts), for its
// units and its fix actions alike.
type Resolver struct {
	mu      sync.Mutex
	targets []Target
}

// Resolve resolves the accounts of s afresh and keeps them: each run's
// Units lists the organisation again and assumes each role anew, so a
// role refused since the last run fails this one.
func (r *Resolver) Resolve(ctx context.Context, base aws.Config, s Settings) ([]Target, error) {
	targets, err := Accounts(ctx, base, s, s.Timeout)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.targets = targets
	r.mu.Unlock()
	return targets, nil
}

// Targets returns the accounts last resolved, resolving them when none
// were (a fix action before any Units).
func (r *Resolver) Targets(ctx context.Context, base aws.Config, s Settings) ([]Target, error) {
	r.mu.Lock()
	targets := r.targets
	r.mu.Unlock()
	if targets != nil {
		return targets, nil
	}
	return r.Resolve(ctx, base, s)
}

// Place is account in region, reached as the source reaches it; an
// account the source does not read is an error (a fix action never acts
// with credentials it was not given for that account).
func (r *Resolver) Place(ctx context.Context, base aws.Config, s Settings, account, region string) (Place, error) {
	t, err := r.Target(ctx, base, s, account)
	if err != nil {
		return Place{}, err
	}
	return Place{Target: t, Region: region}, nil
}

// Target is account as the source reaches it, for a source whose units
// are not places (S3's buckets); an account the source does not read is
// an error naming those it does.
func (r *Resolver) Target(ctx context.Context, base aws.Config, s Settings, account string) (Target, error) {
	targets, err := r.Targets(ctx, base, s)
	if err != nil {
		return Target{}, err
	}
	ids := make([]string, len(targets))
	for i, t := range targets {
		if t.Account == account {
			return t, nil
		}
		ids[i] = t.Account
	}
	return Target{}, fmt.Errorf("account %s is not one this source reads (%s)", account, strings.Join(ids, ", "))
}
