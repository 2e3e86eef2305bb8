// Package unleash collects the Unleash feature flags a backfill left
// behind: flags tied to a backfill by a tag (type backfill, value the id),
// their name or their description, read from the Admin API (the projects
// listed and those the feature search across projects finds beyond the
// listing, the feature search per project, each tied flag's environments
// and strategies, archived flags), or from saved API answers (export_dir).
package unleash

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/internal/remote"
	"github.com/bfaudit/bfaudit/internal/remote/apiclient"
)

//go:embed sample.yaml
var sampleConfig string

// Defaults.
const (
	DefaultTagType      = "backfill"
	DefaultGuardTagType = "side-effect-guard"
	defaultConcurrency  = 4
	maxConcurrency      = 32
	defaultMaxPages     = 200
)

func init() {
	collectors.Register("unleash", New, sampleConfig)
}

// New returns an Unleash collector with its defaults filled in: the token
// is sent alone in the Authorization header, as Unleash takes it.
func New() *Unleash {
	return &Unleash{
		Config:      apiclient.Config{Timeout: remote.DefaultCallTimeout, AuthScheme: apiclient.AuthRaw},
		Concurrency: defaultConcurrency, MaxPages: defaultMaxPages,
		TagType: DefaultTagType, GuardTagType: DefaultGuardTagType,
	}
}

// Unleash is one Unleash instance (or an export of its Admin API answers).
type Unleash struct {
	apiclient.Config `mapstructure:",squash"`
	// Concurrency bounds the flag detail reads in flight.
	Concurrency int `mapstructure:"concurrency"`
	// MaxPages bounds the pages of one flag search (a project's, or the
	// search for projects the listing lacks; 100 flags a page, the
	// server's largest).
	MaxPages int `mapstructure:"max_pages"`
	// Projects, when set, is the only projects read; each must be listed
	// or held by the server (one that is not is an error at its unit).
	Projects []string `mapstructure:"projects"`
	// TagType is the tag type whose value is a backfill id; it must be one
	// of the selector's label keys (correlation.label_keys).
	TagType string `mapstructure:"tag_type"`
	// GuardTagType is the tag type that marks a flag as a side-effect
	// guard (any value); a tag of any type valued side-effect-guard does too.
	GuardTagType string `mapstructure:"guard_tag_type"`
	// ExportDir reads saved API answers instead of calling the server.
	ExportDir string `mapstructure:"export_dir"`

	// Retry governs retries of 429/5xx answers; tests make Sleep a no-op.
	Retry remote.RetryPolicy `mapstructure:"-"`

	env    collectors.Env
	client *apiclient.Client
	run    *run // what Units found for this run's CollectUnit calls

	mu    sync.Mutex
	notes []string
	read  []string // the projects read, for the note; nil until they are listed
}

// Notes are what the run has to say that is not an error (collectors.Noter),
// last the projects it read.
func (u *Unleash) Notes() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := slices.Clone(u.notes)
	if u.read != nil {
		out = append(out, projectsNote(u.read))
	}
	return out
}

func (u *Unleash) note(s string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.notes = append(u.notes, s)
}

// Inputs is the folder of saved API answers, when set.
func (u *Unleash) Inputs() []collectors.Input {
	if u.ExportDir == "" {
		return nil
	}
	return []collectors.Input{{Key: "export_dir", Path: u.exportDir()}}
}

// exportDir is export_dir resolved against the config file's folder.
func (u *Unleash) exportDir() string { return u.env.Path(u.ExportDir) }

// Init validates the config, reads the secret it names and builds the
// client. It does not call the server: one that is down fails the run's
// coverage, not the config. env names the source (the host part of its
// URIs), holds the selector that says which flags are backfill machinery
// (its Assets are read at collect time) and the folder export_dir is
// relative to.
func (u *Unleash) Init(env collectors.Env) (err error) {
	u.env = env
	if err := remote.CheckTimeout("timeout", u.Timeout); err != nil {
		return err
	}
	if u.Concurrency <= 0 || u.Concurrency > maxConcurrency {
		return fmt.Errorf("concurrency: %d; expected 1 to %d", u.Concurrency, maxConcurrency)
	}
	if u.MaxPages <= 0 {
		return fmt.Errorf("max_pages: %d; expected a positive number", u.MaxPages)
	}
	if strings.TrimSpace(u.TagType) == "" {
		return errors.New("tag_type: empty; name the tag type whose value is the backfill id (default backfill)")
	}
	if _, ok := env.Selector.FromLabels(map[string]string{u.TagType: "x"}); !ok {
		return fmt.Errorf("tag_type: %q is not one of correlation.label_keys (%s); add it there or use one of them",
			redact.Line(u.TagType, 60), strings.Join(env.Selector.LabelKeys, ", "))
	}
	for i, p := range u.Projects {
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("projects[%d]: empty project id", i)
		}
	}
	// A saved export's directory is checked when the source is read: a
	// missing export fails the run's coverage, not the config.
	if saved, err := apiclient.Saved(u.URL, u.ExportDir); saved || err != nil {
		return err
	}
	u.client, err = apiclient.Connect(u.Config, "the Unleash address, e.g. https://unleash.example.com, or export_dir", u.Retry)
	return err
}

// where names the source in errors: its address or its export directory.
func (u *Unleash) where() string {
	if u.ExportDir != "" {
		return "export " + u.exportDir()
	}
	return u.client.Base()
}

var (
	_ collectors.Collector = (*Unleash)(nil)
	_ collectors.Noter     = (*Unleash)(nil)
)
