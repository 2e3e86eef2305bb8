// Package config loads bfaudit's one config file (plus BFAUDIT_* env vars
// and flags) through a *viper.Viper into typed structs, and validates it
// with errors that name the file, the key and what was expected.
package config

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/internal/decodeerr"
	"github.com/bfaudit/bfaudit/internal/duration"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/reports"
	"github.com/bfaudit/bfaudit/reports/due"
	"github.com/bfaudit/bfaudit/reports/history"
	"github.com/bfaudit/bfaudit/rules"
)

// DefaultDeadline is how long a whole run may take unless `deadline` or
// --deadline says otherwise: sized for a CronJob that runs hourly or less.
const DefaultDeadline = 30 * time.Minute

// Config is bfaudit's whole configuration.
type Config struct {
	// File is the config file that was read ("" when none).
	File string `mapstructure:"-"`
	// raw is the file's content, for the lines of waivers.
	raw []byte

	Correlation Correlation `mapstructure:"correlation"`
	Concurrency int         `mapstructure:"concurrency"`
	// Deadline bounds the whole run: when it passes, collection stops and
	// the reports are written from what was collected, marked incomplete.
	Deadline time.Duration    `mapstructure:"deadline"`
	Sources  []map[string]any `mapstructure:"sources"`
	Rules    Rules            `mapstructure:"rules"`
	Owners   model.Owners     `mapstructure:"owners"`
	Waivers  []map[string]any `mapstructure:"waivers"`
	Report   Report           `mapstructure:"report"`
	// Fix says what `bfaudit fix --apply` may do beyond reversible actions.
	Fix Fix `mapstructure:"fix"`
	// Due says how long a finding may stay open (docs/reports/due.md).
	Due Due `mapstructure:"due"`
	// Teams groups owners for the escalation and the metrics' team label
	// (docs/reports/due.md).
	Teams model.Teams `mapstructure:"teams"`
	Sinks `mapstructure:",squash"`

	// Built by Load from the sections above.
	Instances []collectors.Instance `mapstructure:"-"`
	Selector  *correlate.Selector   `mapstructure:"-"`
	Engine    *rules.Engine         `mapstructure:"-"`
	// RuleOptions are the validated rule settings the engine was built
	// with; plan check builds its own engine from them.
	RuleOptions rules.Options  `mapstructure:"-"`
	FailOn      model.Severity `mapstructure:"-"`
	// DuePolicy is the validated due section, defaults filled in.
	DuePolicy due.Policy `mapstructure:"-"`
}

// Correlation says how artifacts are tied to backfills.
type Correlation struct {
	LabelKeys    []string `mapstructure:"label_keys"`
	NamePatterns []string `mapstructure:"name_patterns"`
}

// Rules holds rule settings.
type Rules struct {
	Params   map[string]map[string]string `mapstructure:"params"`
	Severity map[string]string            `mapstructure:"severity"`
	Disabled []string                     `mapstructure:"disabled"`
	// Custom are user rules in CEL (CustomRule), decoded strictly in
	// ruleOptions so a misspelt key is an error.
	Custom []map[string]any `mapstructure:"custom"`
}

// Report says which files to write.
type Report struct {
	// Formats to write: table, json, markdown, html, sarif.
	Formats []string `mapstructure:"formats"`
	// Outputs maps a format to a file; a format without one goes to stdout.
	Outputs map[string]string `mapstructure:"outputs"`
	// FailOn is the severity at or above which the audit exits 1.
	FailOn string `mapstructure:"fail_on"`
	// Templates overrides a format's template: "@path/to/file.tmpl".
	Templates map[string]string `mapstructure:"templates"`
}

// Defaults are set on the viper instance so env vars can override them.
func Defaults(v *viper.Viper) {
	v.SetDefault("concurrency", 4)
	v.SetDefault("deadline", DefaultDeadline)
	v.SetDefault(Key("report", "formats"), []string{"table"})
	v.SetDefault(Key("report", "fail_on"), "high")
	v.SetDefault(Key("correlation", "label_keys"), correlate.DefaultLabelKeys)
	v.SetDefault(Key("correlation", "name_patterns"), correlate.DefaultNamePatterns)
}

// NewViper returns a viper instance with defaults and BFAUDIT_* env vars
// (BFAUDIT_REPORT_FAIL_ON sets report.fail_on).
func NewViper() *viper.Viper {
	// Keys hold e-mail addresses (owners) and dotted names, so viper's
	// nesting delimiter must not be ".".
	v := viper.NewWithOptions(viper.KeyDelimiter(keyDelimiter))
	Defaults(v)
	v.SetEnvPrefix("BFAUDIT")
	v.SetEnvKeyReplacer(strings.NewReplacer(keyDelimiter, "_"))
	v.AutomaticEnv()
	bindEnv(v)
	return v
}

const keyDelimiter = "::"

// Key joins a nested config key for viper (Key("report", "fail_on")).
func Key(parts ...string) string { return strings.Join(parts, keyDelimiter) }

// Error is a config problem: the file, the key and what was wrong.
type Error struct {
	File string
	// Line is the line of Key in File, when the file is YAML and writes
	// the key (not an env var or a default); 0 otherwise.
	Line int
	Key  string
	Err  error
}

func (e *Error) Error() string {
	// Several problems (each key of a section) are a line each, every
	// line naming the file, so none reads as if it were about another.
	if j, ok := e.Err.(interface{ Unwrap() []error }); ok {
		lines := make([]string, 0, len(j.Unwrap()))
		for _, err := range j.Unwrap() {
			line := e.Line
			var p *decodeerr.Problem
			if line == 0 && errors.As(err, &p) {
				line = p.Line
			}
			lines = append(lines, e.head(line)+": "+err.Error())
		}
		return strings.Join(lines, "\n")
	}
	line := e.Line
	var p *decodeerr.Problem
	if line == 0 && errors.As(e.Err, &p) {
		line = p.Line
	}
	return fmt.Sprintf("%s: %v", e.head(line), e.Err)
}

// head is "file:line: key", each part when known.
func (e *Error) head(line int) string {
	h := e.File
	if h == "" {
		h = "config"
	}
	if line > 0 {
		h += ":" + strconv.Itoa(line)
	}
	if e.Key != "" {
		h += ": " + e.Key
	}
	return h
}

func (e *Error) Unwrap() error { return e.Err }

// Load reads path (when set) into v, decodes and validates everything, and
// builds the collectors, selector and rule engine.
func Load(v *viper.Viper, path string) (*Config, error) {
	c, err := decode(v, path)
	if err != nil {
		return nil, err
	}
	if err := c.build(); err != nil {
		return nil, err
	}
	return c, nil
}

// sinkSections are the sections that turn a sink on by being in the file.
var sinkSections = []string{"github", "slack", "history", "metrics"}

// decode reads path (when set) into v and decodes the file, env vars and
// defaults into a Config, unchecked.
func decode(v *viper.Viper, path string) (*Config, error) {
	var raw []byte
	if path != "" {
		data, err := readFile(v, path)
		if err != nil {
			return nil, &Error{File: path, Err: err}
		}
		raw = data
	}
	settings := v.AllSettings()
	// An env var sets a key of a sink the file has; it does not turn on a
	// sink the file leaves out (a BFAUDIT_GITHUB_TOKEN in a CI
	// environment would otherwise start filing issues).
	for _, s := range sinkSections {
		if !v.InConfig(s) {
			delete(settings, s)
			continue
		}
		sameSecret(v, s, settings)
	}
	// Secrets are registered before anything can put them in an error.
	registerSecrets("", settings, getenv)
	var c Config
	// Unknown keys are errors: a misspelt section is not silently ignored.
	// Durations read as everywhere else in the config (30d), range-checked.
	// Otherwise as viper's Unmarshal: weakly typed, lists from "a,b".
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		Result:           &c,
		WeaklyTypedInput: true,
		ErrorUnused:      true,
		DecodeHook:       mapstructure.ComposeDecodeHookFunc(duration.Hook, mapstructure.StringToSliceHookFunc(",")),
	})
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	if err := dec.Decode(settings); err != nil {
		err = decodeerr.Mapstructure(err, &c)
		// Each problem names the line of its key, where the file writes it.
		lines := &Config{File: path, raw: raw}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				var p *decodeerr.Problem
				if errors.As(e, &p) && p.Line == 0 {
					p.Line = lines.lineOf(p.Key)
				}
			}
		} else if p := (*decodeerr.Problem)(nil); errors.As(err, &p) && p.Line == 0 {
			p.Line = lines.lineOf(p.Key)
		}
		return nil, &Error{File: path, Err: err}
	}
	c.File, c.raw = path, raw
	// An owner written with nothing under it (`team-x:` or `team-x: {}`)
	// decodes to nothing; keep it, empty, so build refuses it by name
	// rather than accept an owner nobody can be told about.
	if written, ok := v.Get("owners").(map[string]any); ok {
		for name := range written {
			if _, ok := c.Owners[name]; !ok {
				if c.Owners == nil {
					c.Owners = model.Owners{}
				}
				c.Owners[name] = model.Contact{}
			}
		}
	}
	// An empty section (`history: {}`) turns a sink on with its defaults,
	// but decodes to nothing.
	if c.History == nil && v.InConfig("history") {
		c.History = &history.Config{}
	}
	return &c, nil
}

func (c *Config) build() error {
	fail := func(key string, err error) error {
		return &Error{File: c.File, Line: c.lineOf(key), Key: key, Err: err}
	}
	sel, err := correlate.NewSelector(c.Correlation.LabelKeys, c.Correlation.NamePatterns)
	if err != nil {
		return fail("correlation", err)
	}
	c.Selector = sel
	if c.Concurrency < 1 {
		return fail("concurrency", fmt.Errorf("must be 1 or more, got %d", c.Concurrency))
	}
	if c.Deadline <= 0 || c.Deadline > 24*time.Hour {
		return fail("deadline", fmt.Errorf("must be a duration between 1s and 24h such as 30m, got %s", c.Deadline))
	}
	base := ""
	if c.File != "" {
		base = filepath.Dir(c.File)
	}
	names := map[string]bool{}
	for i, entry := range c.Sources {
		in, err := collectors.Decode(entry, sel)
		key := fmt.Sprintf("sources[%d]", i)
		if n, ok := entry["name"].(string); ok && n != "" {
			key += " (" + n + ")"
		}
		if err != nil {
			return fail(key, err)
		}
		registerStruct(in.Collector, getenv)
		if names[in.Name] {
			return fail(key, fmt.Errorf("name %q is used by another source; give each source its own name", in.Name))
		}
		names[in.Name] = true
		if bu, ok := in.Collector.(collectors.BaseDirUser); ok && base != "" {
			bu.SetBaseDir(base)
		}
		c.Instances = append(c.Instances, in)
	}
	if err := c.Fix.Validate(); err != nil {
		return &Error{File: c.File, Err: err}
	}
	if err := c.Sinks.validate(base, c.Owners); err != nil {
		return &Error{File: c.File, Err: err}
	}
	c.registerSinkSecrets(getenv)
	sev, err := model.ParseSeverity(c.Report.FailOn)
	if err != nil {
		return fail("report.fail_on", err)
	}
	c.FailOn = sev
	for _, f := range c.Report.Formats {
		if !reports.IsFormat(f) {
			return fail("report.formats", fmt.Errorf("unknown format %q (expected %s)", f, strings.Join(reports.Formats(), ", ")))
		}
	}
	for f := range c.Report.Outputs {
		if !reports.IsFormat(f) {
			return fail("report.outputs."+f, fmt.Errorf("unknown format (expected %s)", strings.Join(reports.Formats(), ", ")))
		}
	}
	if err := c.Report.resolveTemplates(base); err != nil {
		return &Error{File: c.File, Err: err}
	}
	opts, err := c.ruleOptions()
	if err != nil {
		return err
	}
	eng, err := rules.New(opts)
	if err != nil {
		return &Error{File: c.File, Err: err}
	}
	c.Engine, c.RuleOptions = eng, opts
	pol, kerr := c.Due.policy(eng)
	if kerr != nil {
		return fail(kerr.key, kerr.err)
	}
	c.DuePolicy = pol
	if kerr := checkTeams(c.Teams); kerr != nil {
		return fail(kerr.key, kerr.err)
	}
	for _, owner := range slices.Sorted(maps.Keys(c.Owners)) {
		if ct := c.Owners[owner]; strings.TrimSpace(ct.GitHub) == "" && strings.TrimSpace(ct.Email) == "" {
			return fail("owners."+owner, errors.New("no contact (set github, email or both)"))
		}
	}
	return nil
}

// readError makes viper's parse errors say what they are.
func readError(err error) error {
	var nf viper.ConfigFileNotFoundError
	if errors.As(err, &nf) {
		return errors.New("file not found")
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "While parsing config: ")
	msg = strings.TrimPrefix(msg, "yaml: ")
	// YAML says "line N: what" (under "unmarshal errors:", one a line):
	// make each a problem at its line, so it reads path:N: what.
	var problems []error
	for _, l := range strings.Split(strings.TrimPrefix(msg, "unmarshal errors:\n"), "\n") {
		m := yamlLine.FindStringSubmatch(l)
		if m == nil {
			return errors.New(msg)
		}
		n, _ := strconv.Atoi(m[1])
		problems = append(problems, &decodeerr.Problem{Line: n, Msg: m[2]})
	}
	if len(problems) == 1 {
		return problems[0]
	}
	return errors.Join(problems...)
}

// yamlLine is how the YAML decoder places an error.
var yamlLine = regexp.MustCompile(`^\s*line (\d+): (.*)$`)
