// Package config loads bfaudit's one config file (plus BFAUDIT_* env vars
// and flags) through a *viper.Viper into typed structs, and validates it
// with errors that name the file, the key and what was expected.
//
// Load also builds what a run is made of (the sources' collectors, the
// selector, the rule engine, the due policy) and hands them over in the
// Config, rather than leaving that to audit: validating is building. A
// source's settings are checked by its collector's own decoding, a custom
// rule by compiling its CEL, a due period or a waiver by the engine's rule
// ids, and `config validate` must show every problem of the file at once,
// each at its line. Building them in audit would mean building twice or
// moving the line-keeping problem collector up with them. config sits
// below audit and fix (layers_test.go); the collectors, rules and sinks it
// imports are below it.
package config

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"

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
	// Now is the audit's clock, which every source reads through its
	// collectors.Env; nil is the wall clock. The CLI sets it to --now.
	Now func() time.Time `mapstructure:"-"`
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
	// FailOn is the severity at or above which the audit exits 1, or
	// "never".
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
// builds the collectors, selector and rule engine. The error is a
// Problems with every problem found, not only the first.
func Load(v *viper.Viper, path string) (*Config, error) { return loadChecked(v, path, false) }

// Validate is Load, and then checks that every local file and folder the
// config names is there: each source's inputs (plan folders, exports,
// globs that must match something) and, for the files a run writes
// (report outputs, the SQLite history store), a folder that is or can be
// made. `config validate` uses it; the audit does not, so that `audit
// --from` runs where the sources' files are not, and a folder missing at
// run time is a failed source (exit 3), not a refusal to run.
func Validate(v *viper.Viper, path string) (*Config, error) { return loadChecked(v, path, true) }

func loadChecked(v *viper.Viper, path string, checkPaths bool) (*Config, error) {
	c, col, err := decode(v, path)
	if err != nil {
		return nil, err
	}
	c.build(col)
	if checkPaths {
		c.checkPaths(col)
	}
	if err := col.err(); err != nil {
		return nil, err
	}
	return c, nil
}

// sinkSections are the sections that turn a sink on by being in the file.
var sinkSections = []string{"github", "slack", "history", "metrics"}

// decode reads path (when set) into v and decodes the file, env vars and
// defaults into a Config, unchecked. The problems with the values go to
// the collector; the error is for a file that could not be read at all.
func decode(v *viper.Viper, path string) (*Config, *collector, error) {
	c := &Config{File: path}
	col := &collector{c: c}
	if path != "" {
		data, err := readFile(v, path)
		if err != nil {
			return nil, nil, flatten(col, path, err)
		}
		c.raw = data
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
	// Unknown keys are errors: a misspelt section is not silently ignored.
	// Durations read as everywhere else in the config (30d), range-checked.
	// Otherwise as viper's Unmarshal: weakly typed, lists from "a,b", for
	// env vars; what the file writes is checked strictly first.
	for _, p := range decodeerr.Weak(c.yamlRoot(), reflect.TypeOf(Config{}), "") {
		// A rule parameter's type is the rule's to check.
		if !under(p.Key, "rules.params") {
			col.add("", p)
		}
	}
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		Result:           c,
		WeaklyTypedInput: true,
		ErrorUnused:      true,
		DecodeHook:       mapstructure.ComposeDecodeHookFunc(duration.Hook, mapstructure.StringToSliceHookFunc(",")),
	})
	if err != nil {
		return nil, nil, &Error{File: path, Err: err}
	}
	if err := dec.Decode(settings); err != nil {
		col.add("", decodeerr.Mapstructure(err, c))
	}
	c.File = path
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
	return c, col, nil
}

// flatten makes a file that could not be read a Problems too, one
// problem per line the parser named.
func flatten(col *collector, path string, err error) error {
	var ps []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		ps = j.Unwrap()
	} else {
		ps = []error{err}
	}
	out := Problems{}
	for _, e := range ps {
		out = append(out, &Error{File: path, Err: e})
	}
	col.ps = out
	return col.err()
}

// build checks every section and builds what the run needs from them,
// recording each problem in col and going on to the next.
func (c *Config) build(col *collector) {
	fail := func(key string, err error) {
		if err != nil && !col.failed(key) {
			col.add(key, err)
		}
	}
	sel, err := correlate.NewSelector(c.Correlation.LabelKeys, c.Correlation.NamePatterns)
	fail("correlation", err)
	c.Selector = sel
	if c.Concurrency < 1 {
		fail("concurrency", fmt.Errorf("must be 1 or more, got %d", c.Concurrency))
	}
	if c.Deadline <= 0 || c.Deadline > 24*time.Hour {
		fail("deadline", fmt.Errorf("must be a duration between 1s and 24h such as 30m, got %s", c.Deadline))
	}
	base := ""
	if c.File != "" {
		base = filepath.Dir(c.File)
	}
	c.buildSources(col, sel, base)
	fail("fix", c.Fix.Validate())
	fail("", c.Sinks.validate(base, c.Owners))
	c.registerSinkSecrets(getenv)
	// "never" is read by the commands (exit 0 whatever the findings).
	if !strings.EqualFold(strings.TrimSpace(c.Report.FailOn), "never") {
		sev, err := model.ParseSeverity(c.Report.FailOn)
		if err != nil {
			err = fmt.Errorf("%w, or never", err)
		}
		fail("report.fail_on", err)
		c.FailOn = sev
	}
	for i, f := range c.Report.Formats {
		if !reports.IsFormat(f) {
			fail(fmt.Sprintf("report.formats[%d]", i), fmt.Errorf("unknown format %q (expected %s)", f, strings.Join(reports.Formats(), ", ")))
		}
	}
	for _, f := range slices.Sorted(maps.Keys(c.Report.Outputs)) {
		if !reports.IsFormat(f) {
			fail("report.outputs."+f, fmt.Errorf("unknown format (expected %s)", strings.Join(reports.Formats(), ", ")))
		}
	}
	fail("", c.Report.resolveTemplates(base))
	opts, err := c.ruleOptions()
	if err != nil {
		fail("", err)
		return
	}
	eng, err := rules.New(opts)
	if err != nil {
		fail("", err)
		return
	}
	c.Engine, c.RuleOptions = eng, opts
	pol, kerr := c.Due.policy(eng)
	if kerr != nil {
		fail(kerr.key, kerr.err)
	}
	c.DuePolicy = pol
	if kerr := checkTeams(c.Teams); kerr != nil {
		fail(kerr.key, kerr.err)
	}
	for _, owner := range slices.Sorted(maps.Keys(c.Owners)) {
		if ct := c.Owners[owner]; strings.TrimSpace(ct.GitHub) == "" && strings.TrimSpace(ct.Email) == "" {
			fail("owners."+owner, errors.New("no contact (set github, email or both)"))
		}
	}
}

// buildSources decodes every source entry into its collector; a problem
// inside an entry is at its own key (sources[2].schemas) and line.
func (c *Config) buildSources(col *collector, sel *correlate.Selector, base string) {
	names := map[string]bool{}
	entries := sourceNodes(c.yamlRoot())
	for i, entry := range c.Sources {
		key := fmt.Sprintf("sources[%d]", i)
		if f, ok := collectors.Lookup(fmt.Sprint(entry["type"])); ok && i < len(entries) {
			for _, p := range decodeerr.Weak(entries[i], reflect.TypeOf(f()), key) {
				col.add("", p)
			}
		}
		env := collectors.Env{Selector: sel, BaseDir: base, Now: c.now}
		if c.File != "" {
			env.Where = func(k string) string { return c.where(joinKey(key, k)) }
		}
		in, err := collectors.Decode(entry, env)
		if err != nil {
			if !col.failed(key) {
				col.add(key, err)
			}
			continue
		}
		registerStruct(in.Collector, getenv)
		if names[in.Name] {
			col.add(key+".name", fmt.Errorf("%q is used by another source; give each source its own name", in.Name))
		}
		names[in.Name] = true
		c.Instances = append(c.Instances, in)
	}
}

// now reads the audit's clock.
func (c *Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// sourceNodes are the YAML nodes of the source entries, nil when the file
// is not YAML.
func sourceNodes(root *yaml.Node) []*yaml.Node {
	if root == nil {
		return nil
	}
	n, _ := mapValue(root, "sources")
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// readError makes viper's parse errors say what they are.
func readError(err error, data []byte) error {
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
		n, what := decodeerr.YAMLLine(l, data)
		if n == 0 {
			return errors.New(msg)
		}
		problems = append(problems, &decodeerr.Problem{Line: n, Msg: what})
	}
	if len(problems) == 1 {
		return problems[0]
	}
	return errors.Join(problems...)
}
