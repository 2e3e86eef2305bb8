// Package s3 collects the temporary data and checkpoint state backfills
// leave in Amazon S3 (a replay's tmp/ or scratch/ output, a Spark or
// Flink checkpoint folder): one artifact per folder of a backfill under
// the configured prefixes of buckets, however many objects it holds,
// with the lifecycle rule that will expire it and the object lock that
// keeps it.
package s3

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/model"
)

//go:embed sample.yaml
var sampleConfig string

// Defaults and bounds.
const (
	defaultMaxObjects = 100000
	// pageSize is the most ListObjectsV2 returns in one page.
	pageSize = 1000
	// unitConcurrency buckets are read at once.
	unitConcurrency = 4
)

func init() { collectors.Register("s3", New, sampleConfig) }

// New returns an S3 collector with its defaults filled in.
func New() *Collector {
	return &Collector{Settings: awsconf.Settings{Timeout: remote.DefaultCallTimeout}, MaxObjects: defaultMaxObjects}
}

// Bucket is one bucket, the prefixes listed in it and the account that
// owns it.
type Bucket struct {
	Name     string   `mapstructure:"name"`
	Prefixes []string `mapstructure:"prefixes"`
	// Account is the account whose credentials read the bucket (12
	// digits); required when the source reads more than one account.
	Account string `mapstructure:"account"`
}

// Collector lists the objects under the configured prefixes of buckets.
type Collector struct {
	// Settings: regions (the first is where each bucket's region is
	// asked), profile, endpoint, accounts or organization, timeout.
	awsconf.Settings `mapstructure:",squash"`
	Buckets          []Bucket `mapstructure:"buckets"`
	// MaxObjects bounds the objects listed under one prefix; more is an
	// error at that prefix.
	MaxObjects int `mapstructure:"max_objects"`

	env    collectors.Env
	source string
	base   aws.Config
	// loadOptions are added to awsconf.Load's (tests: static credentials).
	loadOptions []func(*config.LoadOptions) error

	accounts awsconf.Resolver // the accounts of the run, from Units (or the first fix)
}

var (
	// A bucket name: S3's characters (the legacy names of us-east-1 allow
	// capitals and '_'), never a '/' or an s3:// address. Compiled on first use:
	// its bounded repeat is a large program that every run would hold.
	bucketPattern  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{2,254}$`) })
	accountPattern = regexp.MustCompile(`^\d{12}$`)
)

// UnitConcurrency: buckets are read a few at a time.
func (c *Collector) UnitConcurrency() int { return unitConcurrency }

// Init validates the settings and builds the SDK configuration; it calls
// nothing (credentials are resolved at the first call).
func (c *Collector) Init(env collectors.Env) error {
	c.BaseDir = env.BaseDir
	if err := c.Settings.Check(); err != nil {
		return err
	}
	if err := c.checkBuckets(); err != nil {
		return err
	}
	if c.MaxObjects <= 0 {
		return fmt.Errorf("max_objects: %d; expected a positive bound (default %d)", c.MaxObjects, defaultMaxObjects)
	}
	c.env = env
	c.source = cmp.Or(env.Source, "s3")
	base, err := awsconf.Load(context.Background(), c.Settings, c.loadOptions...)
	if err != nil {
		return err
	}
	c.base = base
	return nil
}

func (c *Collector) checkBuckets() error {
	if len(c.Buckets) == 0 {
		return errors.New("buckets: missing; list the buckets (name and prefixes) that hold temporary data or checkpoints")
	}
	several := c.Organization != nil || len(c.Accounts) > 1
	for i, b := range c.Buckets {
		if !bucketPattern().MatchString(b.Name) {
			return fmt.Errorf("buckets[%d].name: %q is not a bucket name (expected e.g. my-bucket, without s3://)", i, b.Name)
		}
		if err := collectors.CheckPrefixes(fmt.Sprintf("buckets[%d].prefixes", i), b.Prefixes); err != nil {
			return err
		}
		switch {
		case b.Account == "" && several:
			return fmt.Errorf("buckets[%d].account: missing; the source reads several accounts: name the one whose credentials read %s", i, b.Name)
		case b.Account == "":
		case !accountPattern.MatchString(b.Account):
			return fmt.Errorf("buckets[%d].account: %q is not an account id (expected 12 digits)", i, b.Account)
		case len(c.Accounts) > 0 && !slices.ContainsFunc(c.Accounts, func(a awsconf.Account) bool { return a.ID == b.Account }):
			return fmt.Errorf("buckets[%d].account: %s is not among the accounts listed in accounts", i, b.Account)
		}
	}
	return nil
}

// Units are the configured buckets, each under the account that reads it
// (scope <account>/<bucket>): a bucket is where S3 answers or refuses
// (its policy, its region, its owner), and a bucket named in two entries
// is one unit. The accounts are resolved here (a failed listing of the
// organization fails the source); a role is assumed at the bucket's
// first call, so a refused role fails that account's buckets only.
func (c *Collector) Units(ctx context.Context) ([]string, error) {
	targets, err := c.accounts.Resolve(ctx, c.base, c.Settings)
	if err != nil {
		return nil, err
	}
	var units []string
	for _, b := range c.Buckets {
		u := model.JoinScope(accountOf(b, targets), b.Name)
		if !slices.Contains(units, u) {
			units = append(units, u)
		}
	}
	return units, nil
}

// accountOf is the account that reads b: its own, else the run's only one.
func accountOf(b Bucket, targets []awsconf.Target) string {
	if b.Account == "" && len(targets) == 1 {
		return targets[0].Account
	}
	return b.Account
}

// client is an S3 client of target in region. A configured endpoint
// (MinIO, LocalStack, a test server) is addressed path-style
// (http://host/bucket/key): such servers do not answer a bucket's own
// host name (http://bucket.host/key).
func (c *Collector) client(t awsconf.Target, region string) *s3.Client {
	cfg := t.Config.Copy()
	cfg.Region = region
	return s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = c.Endpoint != "" })
}

// CollectUnit reads a bucket (its region, tags, lifecycle rules and object
// lock), whose failure leaves its prefixes unread, then lists each of its
// prefixes (scope <account>/<bucket>/<prefix>): a failed listing is
// recorded there while the other prefixes go on.
func (c *Collector) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	account, name, _ := strings.Cut(unit, "/")
	b, err := c.readBucket(ctx, account, name)
	if err != nil {
		return err
	}
	sink.AddRead(unit, "buckets", 1, 0)
	targets, err := c.accounts.Targets(ctx, c.base, c.Settings)
	if err != nil {
		return err
	}
	for _, cb := range c.Buckets {
		if cb.Name != name || accountOf(cb, targets) != account {
			continue
		}
		for _, p := range cb.Prefixes {
			scope := PrefixScope(account, name, p)
			objs, err := listObjects(ctx, b.client, name, p, c.MaxObjects, c.Timeout)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				sink.AddError(scope, fmt.Errorf("s3: list s3://%s/%s: %w", name, p, err))
				if len(objs) > 0 {
					// Listed before a bound stopped the listing: read, but
					// only in part (none of them is judged).
					sink.AddRead(scope, "objects", len(objs), len(objs))
				}
				continue
			}
			sink.AddRead(scope, "objects", len(objs), 0)
			for _, a := range c.group(b, p, objs) {
				sink.AddArtifact(a)
			}
		}
	}
	return nil
}

// PrefixScope is the scope path of one prefix of a bucket.
func PrefixScope(account, bucket, prefix string) string {
	return model.JoinScope(account, bucket, prefix)
}

// now is the audit's clock; the zero time when none was given (a fix
// then refuses what it cannot date).
func (c *Collector) now() time.Time {
	if c.env.Now == nil {
		return time.Time{}
	}
	return c.env.Now()
}
