package awsconf

import (
	"context"
	"fmt"
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

// Resolver resolves a source's accounts once (Accounts), for its units
// and its fix actions alike: an organisation is listed once a run.
type Resolver struct {
	mu      sync.Mutex
	targets []Target
}

// Targets resolves the accounts of s on the first call and returns the
// same ones after; a failure is not kept, so a later call tries again.
func (r *Resolver) Targets(ctx context.Context, base aws.Config, s Settings) ([]Target, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.targets != nil {
		return r.targets, nil
	}
	targets, err := Accounts(ctx, base, s, s.Timeout)
	if err != nil {
		return nil, err
	}
	r.targets = targets
	return targets, nil
}

// Place is account in region, reached as the source reaches it; an
// account the source does not read is an error (a fix action never acts
// with credentials it was not given for that account).
func (r *Resolver) Place(ctx context.Context, base aws.Config, s Settings, account, region string) (Place, error) {
	targets, err := r.Targets(ctx, base, s)
	if err != nil {
		return Place{}, err
	}
	for _, t := range targets {
		if t.Account == account {
			return Place{Target: t, Region: region}, nil
		}
	}
	return Place{}, fmt.Errorf("account %s is not one this source reads", account)
}
