package remote

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"time"

	"github.com/bfaudit/bfaudit/internal/safefile"
)

// TLS is the TLS part of every source's, sink's and fix action's config
// that talks HTTPS: embed it with `mapstructure:",squash"`.
type TLS struct {
	// CAFile is a PEM bundle trusted besides the system's roots.
	CAFile string `mapstructure:"ca_file"`
	// InsecureSkipVerify turns certificate checks off (a lab only).
	InsecureSkipVerify bool `mapstructure:"insecure_skip_verify"`
}

// ClientOptions says how to build an HTTP client.
type ClientOptions struct {
	TLS TLS
	// Timeout bounds one request, reading the answer included; 0 leaves
	// it to each call's context.
	Timeout time.Duration
	// Conns is how many calls run at once against the server (the
	// source's concurrency): that many idle connections are kept per host,
	// so parallel calls reuse them instead of opening a new TCP (and TLS)
	// connection per call, as Go's default of two would. At least
	// DefaultConns.
	Conns int
}

// DefaultConns is the fewest idle connections kept per host.
const DefaultConns = 8

// maxCAFile caps a CA bundle: a real one is a few hundred KiB.
const maxCAFile = 1 << 20

// NewClient builds the HTTP client every source, sink and fix action uses:
// the default transport's proxy (HTTPS_PROXY, NO_PROXY) and timeouts, TLS
// 1.2 at least, the CA file trusted besides the system's roots, and idle
// connections kept for the calls that run at once. Errors name the key.
func NewClient(o ClientOptions) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tc, err := TLSConfig(o.TLS)
	if err != nil {
		return nil, err
	}
	tr.TLSClientConfig = tc
	conns := max(o.Conns, DefaultConns)
	tr.MaxIdleConnsPerHost = conns
	tr.MaxIdleConns = max(tr.MaxIdleConns, conns)
	return &http.Client{Transport: tr, Timeout: o.Timeout}, nil
}

// TLSConfig builds the TLS settings of a connection from a config's TLS
// part: TLS 1.2 at least, the CA file trusted besides the system's roots,
// certificate checks off only when insecure_skip_verify says so. NewClient
// uses it for HTTPS; a client that dials TCP itself (Kafka) hands it to its
// dialer. Errors name the key.
func TLSConfig(t TLS) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: t.InsecureSkipVerify}
	if t.CAFile != "" {
		pem, err := safefile.ReadLimit(t.CAFile, maxCAFile)
		if err != nil {
			return nil, fmt.Errorf("ca_file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca_file: %s holds no PEM certificate", t.CAFile)
		}
		c.RootCAs = pool
	}
	return c, nil
}
