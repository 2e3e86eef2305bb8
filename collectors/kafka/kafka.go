// Package kafka collects the Kafka consumer groups a backfill left behind:
// a replay's group (bf_1234_replay) keeps its committed offsets, and a
// consumer that still runs in it, long after the replay ended. Each group
// tied to a backfill is a checkpoint artifact with its members, state,
// committed offsets and lag, read through the Kafka protocol's admin calls
// (ListGroups, DescribeGroups, OffsetFetch, ListOffsets).
package kafka

import (
	"crypto/tls"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
)

//go:embed sample.yaml
var sampleConfig string

// Defaults and bounds.
const (
	// DefaultMaxGroups is how many tied groups one collection describes;
	// the ones past it are recorded as errors at their own unit.
	DefaultMaxGroups = 1000
	// MaxOffsetsKept caps the partitions listed in the offsets attribute.
	MaxOffsetsKept = 100
)

// SASL mechanisms.
const (
	MechPlain       = "plain"
	MechScramSHA256 = "scram-sha-256"
	MechScramSHA512 = "scram-sha-512"
)

func init() {
	collectors.Register("kafka", New, sampleConfig)
}

// New returns a Kafka collector with its defaults filled in.
func New() *Kafka {
	return &Kafka{Timeout: remote.DefaultCallTimeout, MaxGroups: DefaultMaxGroups}
}

// SASL is the login to the brokers.
type SASL struct {
	// Mechanism is plain, scram-sha-256 or scram-sha-512.
	Mechanism string `mapstructure:"mechanism"`
	Username  string `mapstructure:"username"`
	// PasswordEnv names the environment variable holding the password.
	PasswordEnv string `mapstructure:"password_env"`
}

// Kafka is one Kafka cluster, read through its brokers.
type Kafka struct {
	// Brokers are the bootstrap addresses, host:port.
	Brokers []string `mapstructure:"brokers"`
	// Cluster names the cluster in the artifacts' URIs
	// (kafka://<cluster>/groups/<group>); the source's name when empty.
	Cluster string `mapstructure:"cluster"`
	SASL    SASL   `mapstructure:"sasl"`
	// TLS turns TLS on; ca_file or insecure_skip_verify turn it on too.
	UseTLS     bool `mapstructure:"tls"`
	remote.TLS `mapstructure:",squash"`
	// Timeout bounds each call to the cluster, retries included.
	Timeout time.Duration `mapstructure:"timeout"`
	// Groups, when set, is an allow-list of regular expressions (anchored,
	// full match) on group names: only those groups are considered.
	Groups []string `mapstructure:"groups"`
	// MaxGroups bounds the tied groups described in one collection.
	MaxGroups int `mapstructure:"max_groups"`

	// Admin is the admin client; Init leaves a handed-in one alone, so
	// tests can point it at a fake cluster.
	Admin *kadm.Client `mapstructure:"-"`
	// Retry governs retries of retriable Kafka errors; tests make Sleep a
	// no-op.
	Retry remote.RetryPolicy `mapstructure:"-"`

	// name and sel are env's source name and selector, from Init.
	name     string
	password string
	groupRes []*regexp.Regexp
	opts     []kgo.Opt
	sel      *correlate.Selector
}

// sourceName is the host part of the URIs: the cluster's name, else the
// source's, else the first broker.
func (k *Kafka) sourceName() string {
	switch {
	case k.Cluster != "":
		return k.Cluster
	case k.name != "":
		return k.name
	case len(k.Brokers) > 0:
		return k.Brokers[0]
	}
	return "kafka"
}

// Init validates the config, keeps env's source name and selector, reads
// the password from the environment and prepares the client options (no
// connection is made: a cluster that is down fails the run's coverage, not
// the config).
func (k *Kafka) Init(env collectors.Env) error {
	k.name, k.sel = env.Source, env.Selector
	if len(k.Brokers) == 0 {
		return errors.New("brokers: missing; list the bootstrap brokers, e.g. [kafka-0.kafka:9092]")
	}
	for i, b := range k.Brokers {
		if _, _, err := net.SplitHostPort(b); err != nil || strings.ContainsAny(b, "/ ") {
			return fmt.Errorf("brokers[%d]: %q is not host:port", i, b)
		}
	}
	if err := remote.CheckTimeout("timeout", k.Timeout); err != nil {
		return err
	}
	if k.MaxGroups <= 0 {
		return fmt.Errorf("max_groups: must be positive, got %d", k.MaxGroups)
	}
	k.groupRes = nil
	for i, g := range k.Groups {
		re, err := regexp.Compile("^(?:" + g + ")$")
		if err != nil {
			return fmt.Errorf("groups[%d]: %q is not a regular expression: %w", i, g, err)
		}
		k.groupRes = append(k.groupRes, re)
	}
	mech, err := k.mechanism()
	if err != nil {
		return err
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(k.Brokers...),
		kgo.DialTimeout(k.Timeout),
		kgo.RetryTimeout(k.Timeout),
		kgo.RequestTimeoutOverhead(k.Timeout),
		kgo.ClientID("bfaudit"),
	}
	if mech != nil {
		opts = append(opts, kgo.SASL(mech))
	}
	if k.UseTLS || k.CAFile != "" || k.InsecureSkipVerify {
		tc, err := remote.TLSConfig(k.TLS)
		if err != nil {
			return err
		}
		opts = append(opts, kgo.Dialer((&tls.Dialer{NetDialer: &net.Dialer{Timeout: k.Timeout}, Config: tc}).DialContext))
	}
	k.opts = opts
	return nil
}

// mechanism builds the SASL login; nil without one.
func (k *Kafka) mechanism() (sasl.Mechanism, error) {
	s := k.SASL
	if s == (SASL{}) {
		return nil, nil
	}
	if s.Username == "" {
		return nil, errors.New("sasl.username: missing")
	}
	if s.PasswordEnv == "" {
		return nil, errors.New("sasl.password_env: missing; name the environment variable that holds the password")
	}
	k.password = os.Getenv(s.PasswordEnv)
	if k.password == "" {
		return nil, fmt.Errorf("sasl.password_env: environment variable %s is empty or unset", s.PasswordEnv)
	}
	switch strings.ToLower(s.Mechanism) {
	case MechPlain:
		return plain.Auth{User: s.Username, Pass: k.password}.AsMechanism(), nil
	case MechScramSHA256:
		return scram.Auth{User: s.Username, Pass: k.password}.AsSha256Mechanism(), nil
	case MechScramSHA512:
		return scram.Auth{User: s.Username, Pass: k.password}.AsSha512Mechanism(), nil
	case "":
		return nil, errors.New("sasl.mechanism: missing; one of plain, scram-sha-256, scram-sha-512")
	}
	return nil, fmt.Errorf("sasl.mechanism: %q is not one of plain, scram-sha-256, scram-sha-512", s.Mechanism)
}

// AdminClient returns the admin client to use and the function that
// releases it: the handed-in one (released by its owner), or a new one
// built from the config. The fix action deletes groups with it.
func (k *Kafka) AdminClient() (*kadm.Client, func(), error) {
	if k.Admin != nil {
		return k.Admin, func() {}, nil
	}
	if k.opts == nil {
		return nil, nil, fmt.Errorf("kafka source %s: not initialised (Init was not called)", k.sourceName())
	}
	cl, err := kgo.NewClient(k.opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("kafka source %s: client: %w", k.sourceName(), err)
	}
	adm := kadm.NewClient(cl)
	return adm, adm.Close, nil
}

// Bootstrap is the first broker, the address printed commands use.
func (k *Kafka) Bootstrap() string {
	if len(k.Brokers) == 0 {
		return ""
	}
	return k.Brokers[0]
}

// RetryPolicy is the retry policy of calls to the cluster.
func (k *Kafka) RetryPolicy() remote.RetryPolicy { return k.Retry }

// CallTimeout is the deadline of one call, retries included.
func (k *Kafka) CallTimeout() time.Duration { return k.Timeout }

// allowed says whether a group passes the groups allow-list.
func (k *Kafka) allowed(group string) bool {
	if len(k.groupRes) == 0 {
		return true
	}
	for _, re := range k.groupRes {
		if re.MatchString(group) {
			return true
		}
	}
	return false
}

var _ collectors.Collector = (*Kafka)(nil)
