package cloudasset

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// Units is the whole source: the files and every scope's searches make one
// inventory, which the follow-up searches complete, before any artifact
// can be built (a dataset of one search, its tables in another's; a key
// under the account a binding of another project found). Which projects
// an organization or a file holds is known only once they are read.
func (c *Collector) Units(context.Context) ([]string, error) { return []string{""}, nil }

// CollectUnit reads the files, searches each scope, completes what the
// searches found with follow-up searches, and emits the artifacts.
//
// Scopes are the per-project collectors' (a project, its datasets, topics,
// subscriptions and accounts): every artifact carries the unit bigquery,
// pubsub or gcpiam would give it. A search of projects/P that fails (any
// page, or paging that never ends) is recorded at P; a search of a folder
// or an organization that fails, at the whole source, since which
// projects it holds is exactly what did not answer. A follow-up that fails
// is recorded at the units it was about. Only when no scope and no file
// answered does the source fail.
func (c *Collector) CollectUnit(ctx context.Context, _ string, sink collectors.Sink) error {
	inv := newInventory()
	var failures []error
	answered := 0
	for _, f := range c.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.readFile(f, inv); err != nil {
			sink.AddError("", err)
			failures = append(failures, err)
			continue
		}
		answered++
	}
	var searched []string
	for _, s := range c.Scopes {
		if err := c.searchScope(ctx, s, inv); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			sink.AddError(scopeUnit(s), err)
			failures = append(failures, err)
			continue
		}
		searched = append(searched, s)
		answered++
	}
	c.followUp(ctx, searched, inv)
	if err := ctx.Err(); err != nil {
		return err
	}
	b := c.build(inv)
	for _, a := range b.artifacts {
		sink.AddArtifact(a)
	}
	for _, e := range b.errs {
		sink.AddError(e.unit, e.err)
	}
	addReads(inv, b, sink)
	if answered == 0 {
		return fmt.Errorf("cloudasset: no scope or file answered: %w", errors.Join(failures...))
	}
	return nil
}

// scopeUnit is the unit a failed search of scope is recorded at: the
// project, for projects/<id>; else the whole source.
func scopeUnit(scope string) string {
	if id, ok := strings.CutPrefix(scope, "projects/"); ok && !allDigits(id) {
		return id
	}
	return ""
}

// searchScope runs the resource and IAM policy searches of one scope.
func (c *Collector) searchScope(ctx context.Context, scope string, inv *inventory) error {
	origin := "search of " + scope
	for _, q := range c.resourceQueries() {
		rs, err := c.searchResources(ctx, scope, q, resourceTypes)
		if err != nil {
			return fmt.Errorf("cloudasset: search resources in %s: %w", scope, err)
		}
		for _, r := range rs {
			inv.addSearchResult(r, origin)
		}
	}
	for _, q := range c.policyQueries() {
		ps, err := c.searchPolicies(ctx, scope, q, policyTypes)
		if err != nil {
			return fmt.Errorf("cloudasset: search IAM policies in %s: %w", scope, err)
		}
		for _, p := range ps {
			inv.addPolicyResult(p, origin)
		}
	}
	return nil
}

// followUp searches, in every scope that answered, for what belongs to
// the backfill machinery found but matches no filter: the tables and ACL
// entries of a backfill dataset, the subscriptions on a backfill topic,
// the keys of a backfill account. Calls grow with that machinery,
// batchSize names a call.
func (c *Collector) followUp(ctx context.Context, scopes []string, inv *inventory) {
	if len(scopes) == 0 {
		return
	}
	b := c.build(inv)
	datasets := sortedKeys(b.datasets)
	topics := sortedKeys(b.topics)
	accounts := b.accounts.List()
	emails := make([]string, len(accounts))
	units := map[string]string{}
	for i, a := range accounts {
		emails[i] = a.Email
		units[a.Email] = a.Unit
	}
	datasetUnit := func(n string) string { return unitOf(typeDataset, n) }
	for _, s := range scopes {
		origin := "search of " + s
		c.each(ctx, s, "tables of", datasets, tablesOf, datasetUnit, inv, func(q string) error {
			rs, err := c.searchResources(ctx, s, q, []string{typeTable})
			for _, r := range rs {
				inv.addSearchResult(r, origin)
			}
			return err
		})
		c.each(ctx, s, "IAM policies of", datasets, policiesOf, datasetUnit, inv, func(q string) error {
			ps, err := c.searchPolicies(ctx, s, q, []string{typeDataset})
			for _, p := range ps {
				inv.addPolicyResult(p, origin)
			}
			return err
		})
		// A subscription on a topic may live in any project: when the
		// search for it fails, no project's subscriptions answered.
		c.each(ctx, s, "subscriptions on", topics, subscriptionsOf, func(string) string { return "" }, inv, func(q string) error {
			rs, err := c.searchResources(ctx, s, q, []string{typeSubscription})
			for _, r := range rs {
				inv.addSearchResult(r, origin)
			}
			return err
		})
		c.each(ctx, s, "keys of", emails, keysOf, func(e string) string { return units[e] }, inv, func(q string) error {
			rs, err := c.searchResources(ctx, s, q, []string{typeKey})
			for _, r := range rs {
				inv.addSearchResult(r, origin)
			}
			return err
		})
	}
}

// each runs one follow-up search per batch of names; a batch that fails is
// recorded at the unit of each of its names.
func (c *Collector) each(ctx context.Context, scope, what string, names []string, query func([]string) []string, unit func(string) string, inv *inventory, search func(q string) error) {
	for len(names) > 0 && ctx.Err() == nil {
		n := min(batchSize, len(names))
		batch := names[:n]
		names = names[n:]
		for _, q := range query(batch) {
			if err := search(q); err != nil {
				if ctx.Err() != nil {
					return
				}
				for _, name := range batch {
					inv.fail(unit(name), fmt.Errorf("cloudasset: search %s %s in %s: %w", what, name, scope, err))
				}
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// readKinds names what an asset of each type read counts as.
var readKinds = map[string]string{
	typeDataset: "datasets", typeTable: "tables", typeTopic: "topics", typeSubscription: "subscriptions",
	typeAccount: "service accounts", typeKey: "service-account keys", typeProject: "projects",
}

// addReads says at each unit how many assets of each type the searches and
// files gave, machinery or not (one without its resource data only in
// part), and how many bindings the IAM policies read there held. A key
// counts at its account's unit, the one its artifact carries.
func addReads(inv *inventory, b *built, sink collectors.Sink) {
	var reads collectors.Reads
	for _, r := range inv.resources {
		what, ok := readKinds[r.assetType]
		if !ok {
			what = "other assets"
		}
		unit := unitOf(r.assetType, r.name)
		switch r.assetType {
		case typeProject:
			unit, _ = projectOfPolicy(inv, r.name)
		case typeKey:
			unit = b.keyUnit(r.name, unit)
		}
		partial := 0
		if r.data == nil {
			partial = 1
		}
		reads.Add(unit, what, 1, partial)
	}
	for _, p := range inv.policies {
		unit := unitOf(p.assetType, p.resource)
		if p.assetType == typeProject {
			unit, _ = projectOfPolicy(inv, p.resource)
		}
		reads.Add(unit, "bindings", len(p.bindings), 0)
	}
	reads.AddTo(sink)
	if reads.Len() == 0 {
		// Nothing found anywhere is an answer: none.
		sink.AddRead("", "assets", 0, 0)
	}
}

// keyUnit is the unit of a key named name: its account's, as its artifact
// would carry it (an export names the account by unique id, which the
// accounts read turn into its e-mail), else unit.
func (b *built) keyUnit(name, unit string) string {
	n, _ := parseName(name)
	email := n.segment("serviceAccounts")
	if e, ok := b.emails[email]; ok {
		email = e
	}
	email = strings.ToLower(email)
	if a, ok := b.accounts.Get(email); ok {
		return a.Unit
	}
	if unit != "" && strings.Contains(email, "@") {
		return model.JoinScope(n.segment("projects"), "serviceAccounts", email)
	}
	return unit
}
