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
	"path/filepath"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
)

//go:embed sample.yaml
var sampleConfig string

func init() {
	collectors.Register("notebooks", New, sampleConfig)
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

	// Retry governs retries of 429/5xx answers; tests make Sleep a no-op.
	Retry remote.RetryPolicy `mapstructure:"-"`

	env    collectors.Env
	client *apiclient.Client
	// found is what Units found to read, for CollectUnit.
	found *units
}

// sourceName names the source in errors: its name, else the server's
// host.
func (n *Notebooks) sourceName() string { return n.env.Name(n.JupyterURL, "notebooks") }

// Inputs are the notebook files, folders or globs.
func (n *Notebooks) Inputs() []collectors.Input {
	in := collectors.Inputs(n.env.BaseDir, "paths", n.Paths)
	for i := range in {
		in[i].Hidden = true // checkpoint copies in .ipynb_checkpoints are read too
	}
	return in
}

// Init validates the config and, for a Jupyter server, reads the token
// and builds the client. It reads no file and calls no server. The
// selector ties notebooks to backfills; relative paths are read from the
// config file's directory.
func (n *Notebooks) Init(env collectors.Env) error {
	n.env = env
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
			TLS: n.TLS, Timeout: n.Timeout}, nil, n.Retry)
		if err != nil {
			return err
		}
		n.client = c
	} else if err := remote.CheckTimeout("timeout", n.Timeout); err != nil {
		return err
	}
	if _, err := gitleaks(); err != nil {
		return fmt.Errorf("gitleaks rules: %w", err)
	}
	return nil
}

// Units finds the notebooks to read, each its own unit: the files the
// paths name, or the notebooks of the Jupyter server's tree (its top
// listing failing fails the source). A file, folder or directory where
// finding them failed is a unit that fails; when there is nothing to read
// at all, the whole source answers that it read no notebook.
func (n *Notebooks) Units(ctx context.Context) ([]string, error) {
	if n.env.Selector == nil || (n.JupyterURL != "" && n.client == nil) {
		return nil, fmt.Errorf("notebooks source %s: not initialised (Init was not called)", n.sourceName())
	}
	n.found = &units{by: map[string]*unit{}}
	if n.JupyterURL != "" {
		if err := n.findJupyter(ctx); err != nil {
			return nil, err
		}
	} else {
		n.findFiles(ctx)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(n.found.order) == 0 {
		return []string{""}, nil
	}
	return n.found.order, nil
}

// CollectUnit reads one notebook, scans it, and reports it when it is tied
// to a backfill and holds a credential. A notebook that cannot be read or
// parsed is an error at its unit.
func (n *Notebooks) CollectUnit(ctx context.Context, scope string, sink collectors.Sink) error {
	u := n.found.by[scope]
	if u == nil {
		sink.AddRead(scope, "notebooks", 0, 0)
		return nil
	}
	if !u.read {
		return errors.Join(u.errs...)
	}
	for _, err := range u.errs {
		sink.AddError(scope, err)
	}
	if n.JupyterURL != "" {
		return scrubbed(n.notebook(ctx, sink, u.ref.path))
	}
	return scrubbed(n.readFile(ctx, sink, u.ref, u.full))
}

// units are the units Units declared, in order, and what each reads.
type units struct {
	order []string
	by    map[string]*unit
}

// unit is a notebook to read (read), and the errors met finding
// notebooks at its scope.
type unit struct {
	read bool
	ref  ref
	full string // the notebook file on disk; "" on a Jupyter server
	errs []error
}

func (l *units) at(scope string) *unit {
	u := l.by[scope]
	if u == nil {
		u = &unit{}
		l.by[scope] = u
		l.order = append(l.order, scope)
	}
	return u
}

// fail records an error met finding notebooks at scope.
func (l *units) fail(scope string, err error) {
	u := l.at(scope)
	u.errs = append(u.errs, err)
}

// notebook declares a notebook to read, once for its scope.
func (l *units) notebook(r ref, full string) {
	if u := l.at(scope(r.path)); !u.read {
		u.read, u.ref, u.full = true, r, full
	}
}

var _ collectors.Collector = (*Notebooks)(nil)
