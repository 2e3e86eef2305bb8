package cloudasset

import (
	"fmt"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/collectors/bigquery"
	"github.com/bfaudit/bfaudit/collectors/gcpiam"
	"github.com/bfaudit/bfaudit/collectors/pubsub"
	"github.com/bfaudit/bfaudit/correlate/iamcond"
	"github.com/bfaudit/bfaudit/model"
	bq "google.golang.org/api/bigquery/v2"
)

// tie is how an object was tied to a backfill.
type tie struct{ id, how string }

// built is what an inventory yields: the artifacts, the failures at their
// units, and the backfill machinery follow-up searches complete (datasets
// whose tables and ACL entries all belong to it, topics whose
// subscriptions do, accounts whose keys do).
type built struct {
	artifacts []model.Artifact
	errs      []unitError
	datasets  map[string]tie            // full name -> tie
	topics    map[string]model.Artifact // projects/p/topics/t -> artifact
	accounts  *gcpiam.AccountSet
	seen      map[string]bool   // artifact URIs, once each
	emails    map[string]string // account unique id -> e-mail
	now       time.Time
	m         iamcond.Matcher
}

// build turns the inventory into artifacts with the per-project collectors'
// own constructors and the same ties they make, in their order: datasets
// before their tables and ACL entries, topics before subscriptions, every
// way of finding an account before its keys.
func (c *Collector) build(inv *inventory) *built {
	b := &built{
		errs: append([]unitError(nil), inv.errs...), datasets: map[string]tie{}, topics: map[string]model.Artifact{},
		accounts: gcpiam.NewAccountSet(), seen: map[string]bool{}, emails: map[string]string{},
		now: c.now(), m: iamcond.NewMatcher(c.sel, c.Principals),
	}
	for _, r := range inv.sortedResources(typeDataset) {
		c.dataset(b, r)
	}
	for _, r := range inv.sortedResources(typeTable) {
		c.table(b, r)
	}
	for _, r := range inv.sortedResources(typeTopic) {
		c.topic(b, r)
	}
	for _, r := range inv.sortedResources(typeSubscription) {
		c.subscription(b, r)
	}
	for _, r := range inv.sortedResources(typeAccount) {
		c.serviceAccount(b, r)
	}
	for _, p := range inv.sortedPolicies(typeProject) {
		c.projectBindings(b, inv, p)
	}
	// The accounts config and plans name, as gcpiam adds them: their
	// keys are what lingers once the binding is revoked.
	b.accounts.AddDeclared(b.m, c.Principals, c.sel.Principals)
	for _, r := range inv.sortedResources(typeKey) {
		c.key(b, r)
	}
	for _, p := range inv.sortedPolicies(typeDataset) {
		c.datasetACL(b, p)
	}
	return b
}

func (b *built) fail(unit string, err error) { b.errs = append(b.errs, unitError{unit, err}) }

// emit keeps a, once per URI, as the system its per-project collector
// reports (bfaudit fix picks commands by it).
func (b *built) emit(system string, a model.Artifact) {
	if b.seen[a.URI] {
		return
	}
	b.seen[a.URI] = true
	a.System = system
	b.artifacts = append(b.artifacts, a)
}

func (c *Collector) dataset(b *built, r resource) {
	n, _ := parseName(r.name)
	p, d := n.segment("projects"), n.segment("datasets")
	ds, err := decodeDataset(r.data)
	if err != nil {
		b.fail(model.JoinScope(p, d), fmt.Errorf("cloudasset: dataset %s.%s: %w", p, d, err))
		return
	}
	if id, how, ok := c.sel.Match(bigquery.DatasetURI(p, d), d, ds.Labels); ok {
		b.datasets[r.name] = tie{id, how}
	}
}

// table ties a table by its own labels, URI or name, else by its dataset's
// tie, as the bigquery collector does.
func (c *Collector) table(b *built, r resource) {
	n, _ := parseName(r.name)
	p, d, t := n.segment("projects"), n.segment("datasets"), n.segment("tables")
	scope := model.JoinScope(p, d)
	tbl, err := decodeTable(r.data)
	if err != nil {
		b.fail(scope, fmt.Errorf("cloudasset: table %s.%s.%s: %w", p, d, t, err))
		return
	}
	// The name says which table (its URI and unit follow from it), the
	// data what the table holds.
	tbl.TableReference = &bq.TableReference{ProjectId: p, DatasetId: d, TableId: t}
	id, how, ok := c.sel.Match(bigquery.TableURI(p, d, t), t, tbl.Labels)
	if !ok {
		dt, tied := b.datasets[datasetName(p, d)]
		if !tied {
			return
		}
		id, how = dt.id, dt.how
	}
	b.emit("bigquery", bigquery.TableArtifact(p, d, tbl, id, how, c.OwnerLabel, b.now))
}

func (c *Collector) topic(b *built, r resource) {
	n, _ := parseName(r.name)
	p, short := n.segment("projects"), n.segment("topics")
	tp, err := decodeTopic(r.data)
	if err != nil {
		b.fail(model.JoinScope(p, "topics"), fmt.Errorf("cloudasset: topic %s of project %s: %w", short, p, err))
		return
	}
	tp.Name = "projects/" + p + "/topics/" + short
	if a, ok := pubsub.TopicArtifact(c.sel, p, tp); ok {
		b.topics[tp.GetName()] = a
		b.emit("pubsub", a)
	}
}

// subscription ties a subscription by itself or by its topic's tie. Unlike
// the pubsub collector, which knows the topics of the project it lists,
// this knows every backfill topic in the scopes, so a subscription in
// another project on a labelled backfill topic is tied too.
func (c *Collector) subscription(b *built, r resource) {
	n, _ := parseName(r.name)
	p, short := n.segment("projects"), n.segment("subscriptions")
	sub, err := decodeSubscription(r.data)
	if err != nil {
		b.fail(model.JoinScope(p, "subscriptions"), fmt.Errorf("cloudasset: subscription %s of project %s: %w", short, p, err))
		return
	}
	sub.Name = "projects/" + p + "/subscriptions/" + short
	if a, ok := pubsub.SubscriptionArtifact(c.sel, p, sub, b.topics); ok {
		b.emit("pubsub", a)
	}
}

// serviceAccount keeps an account made for a backfill (id in its e-mail,
// display name or description, a declared principal or asset), as gcpiam
// does with the accounts it lists.
func (c *Collector) serviceAccount(b *built, r resource) {
	n, _ := parseName(r.name)
	p := n.segment("projects")
	sa, err := decodeAccount(r.data)
	if err == nil && sa.Email == "" {
		err = fmt.Errorf("the account has no email")
	}
	if err != nil {
		b.fail(model.JoinScope(p, "serviceAccounts"), fmt.Errorf("cloudasset: service account %s: %w", n.segment("serviceAccounts"), err))
		return
	}
	email := strings.ToLower(sa.Email)
	if sa.UniqueId != "" {
		b.emails[sa.UniqueId] = email
	}
	b.accounts.AddListed(b.m, p, sa)
}

// key reports a user-managed key of an account kept above; keys of other
// accounts are not backfill machinery.
func (c *Collector) key(b *built, r resource) {
	n, _ := parseName(r.name)
	p := n.segment("projects")
	k, err := decodeKey(r.data)
	if err != nil {
		b.fail(unitOf(typeKey, r.name), fmt.Errorf("cloudasset: key %s: %w", n.segment("keys"), err))
		return
	}
	if k.KeyType == "SYSTEM_MANAGED" {
		return // gcpiam lists USER_MANAGED keys only
	}
	if k.Name == "" {
		k.Name = strings.Join(n.path, "/")
	}
	email := keyAccount(k.Name)
	if !strings.Contains(email, "@") {
		// An export names the account by its unique id.
		e, ok := b.emails[email]
		if !ok {
			if e, ok = b.emails[n.segment("serviceAccounts")]; !ok {
				b.fail(model.JoinScope(p, "serviceAccounts"), fmt.Errorf("cloudasset: key %s: its account %s is not among the service accounts read, so its e-mail is unknown", n.segment("keys"), email))
				return
			}
		}
		email = e
	}
	email = strings.ToLower(email)
	a, ok := b.accounts.Get(email)
	if !ok {
		return
	}
	if n.segment("keys") == "" {
		b.fail(a.Unit, fmt.Errorf("cloudasset: %s: not a key name", r.name))
		return
	}
	// The key's URI follows from its asset name, as its unit does.
	k.Name = "projects/" + p + "/serviceAccounts/" + email + "/keys/" + n.segment("keys")
	b.emit("gcpiam", gcpiam.KeyArtifact(email, a.Project, a.Unit, a.Disabled, a.BackfillID, a.How, k, b.now))
}

// keyAccount reads the account out of projects/P/serviceAccounts/A/keys/K.
func keyAccount(name string) string {
	parts := strings.Split(name, "/")
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "serviceAccounts" {
			return parts[i+1]
		}
	}
	return ""
}

func datasetName(project, dataset string) string {
	return "//bigquery.googleapis.com/projects/" + project + "/datasets/" + dataset
}
