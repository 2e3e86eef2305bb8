// Package notebooks collects the Jupyter notebooks a backfill left behind
// that keep a credential: correction notebooks whose cells or saved
// outputs hold a cloud key, a token or a service-account key JSON. It
// reads .ipynb files from disk (paths) or from a Jupyter server's
// contents API (jupyter_url), scans every cell source and saved output
// with gitleaks' default rules and its own service-account key check,
// and reports each notebook tied to a backfill that holds at least one
// credential. The value of a credential is never kept: only its rule,
// where it is, and a short hash.
package notebooks

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
)

//go:embed sample.yaml
var sampleConfig string

func init() {
	collectors.Register("notebooks", func() collectors.Collector { return New() })
}

// What becomes of a notebook tied to no backfill (Untied).
const (
	UntiedReport = "report"
	UntiedIgnore = "ignore"
)

// Defaults.
const (
	DefaultMaxNotebooks     = 10000
	DefaultMaxNotebookBytes = 32 << 20
	// maxDepth bounds the directory walk on a Jupyter server.
	maxDepth = 32
)

// New returns a notebooks collector with its defaults filled in.
func New() *Notebooks {
	return &Notebooks{Timeout: remote.DefaultCallTimeout, AuthScheme: "token", Untied: UntiedReport,
		MaxNotebooks: DefaultMaxNotebooks, MaxNotebookBytes: DefaultMaxNotebookBytes}
}

// Notebooks is one set of notebooks: files on disk, or one Jupyter server.
type Notebooks struct {
	// Paths are .ipynb files, directories (walked for *.ipynb) and globs;
	// relative ones are read from the config file's directory.
	Paths []string `mapstructure:"paths"`
	// JupyterURL is a Jupyter server's address, read through its contents
	// API; TokenEnv names the variable holding its token, sent as
	// "Authorization: token <t>" (AuthScheme).
	JupyterURL string `mapstructure:"jupyter_url"`
	TokenEnv   string `mapstructure:"token_env"`
	AuthScheme string `mapstructure:"auth_scheme"`
	// Root is, for a Jupyter server, the directory to walk ("" is the
	// server's root); for files, the directory identities are relative to
	// (relative to the config file's directory; every paths entry must be
	// under it), by default each entry's own directory. A notebook's
	// identity, its URI, is its path below Root either way.
	Root       string `mapstructure:"root"`
	remote.TLS `mapstructure:",squash"`
	// Timeout bounds each call to the server.
	Timeout time.Duration `mapstructure:"timeout"`
	// Untied says what becomes of a notebook tied to no backfill: report
	// (the default) scans it and reports it when it holds a credential;
	// ignore reads it only to tie it.
	Untied string `mapstructure:"untied"`
	// MaxNotebooks bounds the notebooks read per source; MaxNotebookBytes
	// the size of one notebook file.
	MaxNotebooks     int   `mapstructure:"max_notebooks"`
	MaxNotebookBytes int64 `mapstructure:"max_notebook_bytes"`

	// HTTP is the client; Init builds one when nil, so tests can hand in
	// their own.
	HTTP *http.Client `mapstructure:"-"`
	// Retry governs retries of 429/5xx answers; tests make Sleep a no-op.
	Retry remote.RetryPolicy `mapstructure:"-"`

	name    string
	baseDir string
	client  *apiclient.Client
	sel     *correlate.Selector
}

// SampleConfig returns the documented sample source entry.
func (n *Notebooks) SampleConfig() string { return sampleConfig }

// UseSelector keeps the selector that ties notebooks to backfills.
func (n *Notebooks) UseSelector(s *correlate.Selector) { n.sel = s }

// SetSourceName sets the name this source reports under, the host part of
// its URIs.
func (n *Notebooks) SetSourceName(name string) { n.name = name }

// SetBaseDir resolves relative paths against the config file's directory.
func (n *Notebooks) SetBaseDir(dir string) { n.baseDir = dir }

func (n *Notebooks) sourceName() string {
	if n.name != "" {
		return n.name
	}
	if u, err := url.Parse(n.JupyterURL); err == nil && u.Host != "" {
		return u.Host
	}
	return "notebooks"
}

// Inputs are the notebook files, folders or globs.
func (n *Notebooks) Inputs() []collectors.Input {
	return collectors.Inputs(n.baseDir, "paths", n.Paths)
}

// Init validates the config and, for a Jupyter server, reads the token
// and builds the client. It reads no file and calls no server.
func (n *Notebooks) Init() error {
	switch {
	case len(n.Paths) == 0 && n.JupyterURL == "":
		return errors.New("paths or jupyter_url: set one, the notebook files or the Jupyter server to read")
	case len(n.Paths) > 0 && n.JupyterURL != "":
		return errors.New("paths and jupyter_url: set one per source (use two sources for both)")
	case n.MaxNotebooks <= 0:
		return fmt.Errorf("max_notebooks: %d; must be positive", n.MaxNotebooks)
	case n.MaxNotebookBytes <= 0:
		return fmt.Errorf("max_notebook_bytes: %d; must be positive", n.MaxNotebookBytes)
	case n.Untied != UntiedReport && n.Untied != UntiedIgnore:
		return fmt.Errorf("untied: %q; expected %s (scan notebooks tied to no backfill, report those holding a credential) or %s", n.Untied, UntiedReport, UntiedIgnore)
	}
	for i, p := range n.Paths {
		if p == "" {
			return fmt.Errorf("paths[%d]: empty", i)
		}
		if _, err := filepath.Match(p, ""); err != nil {
			return fmt.Errorf("paths[%d]: %q is not a valid glob: %v", i, p, err)
		}
	}
	if n.JupyterURL != "" {
		if climbs(n.Root) {
			return fmt.Errorf("root: %q must not climb out of the server's root", n.Root)
		}
		c, err := apiclient.New(apiclient.Config{URL: n.JupyterURL, TokenEnv: n.TokenEnv, AuthScheme: n.AuthScheme,
			TLS: n.TLS, Timeout: n.Timeout}, n.HTTP, n.Retry)
		if err != nil {
			return err
		}
		n.client = c
	} else if err := remote.CheckTimeout("timeout", n.Timeout); err != nil {
		return err
	}
	if n.sel == nil {
		n.sel = correlate.MustSelector()
	}
	if _, err := gitleaks(); err != nil {
		return fmt.Errorf("gitleaks rules: %w", err)
	}
	return nil
}

// Collect reads the notebooks, scans each, and reports those tied to a
// backfill that hold a credential. A file or notebook that cannot be
// read or parsed is an error at its own unit; a Jupyter server whose
// top listing fails fails the source.
func (n *Notebooks) Collect(ctx context.Context, sink collectors.Sink) error {
	if n.sel == nil {
		return fmt.Errorf("notebooks source %s: not initialised (Init was not called)", n.sourceName())
	}
	if n.JupyterURL != "" {
		if n.client == nil {
			return fmt.Errorf("notebooks source %s: not initialised (Init was not called)", n.sourceName())
		}
		return n.collectJupyter(ctx, sink)
	}
	n.collectFiles(ctx, sink)
	return nil
}

var (
	_ collectors.Collector    = (*Notebooks)(nil)
	_ collectors.SelectorUser = (*Notebooks)(nil)
	_ collectors.BaseDirUser  = (*Notebooks)(nil)
)
