package decodeerr

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"gopkg.in/yaml.v3"
)

func TestNearest(t *testing.T) {
	known := []string{"backfill_id", "purpose", "final_data_location", "archived_at", "completed_at", "started_at"}
	tests := map[string]string{
		"final_data_locaton":  "final_data_location", // a letter missing
		"final-data-location": "final_data_location", // '-' for '_'
		"purpsoe":             "purpose",             // two letters swapped
		"completed":           "completed_at",        // the suffix left off
		"Backfill_ID":         "backfill_id",         // case
		"owner":               "",                    // nothing close
		"":                    "",
	}
	for key, want := range tests {
		if got := Nearest(key, known); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", key, got, want)
		}
	}
}

type when struct{ time.Time }

func (w *when) UnmarshalYAML(n *yaml.Node) error {
	t, err := time.Parse("2006-01-02", n.Value)
	if err != nil {
		return errors.New("line 9: not a date")
	}
	w.Time = t
	return nil
}

func (when) ExpectedValue() string { return "a date such as 2026-03-01" }

type span struct {
	Start when `yaml:"start"`
	End   when `yaml:"end"`
}

type plan struct {
	ID       string            `yaml:"id"`
	Range    span              `yaml:"range"`
	Count    int               `yaml:"concurrency"`
	Done     bool              `yaml:"done"`
	Assets   []string          `yaml:"assets"`
	Access   []access          `yaml:"access"`
	Labels   map[string]string `yaml:"labels"`
	Timeline struct {
		CompletedAt when `yaml:"completed_at"`
		VerifiedAt  when `yaml:"verified_at"`
	} `yaml:"timeline"`
}

type access struct {
	Role   string `yaml:"role"`
	Expiry when   `yaml:"expiry"`
}

func TestYAML(t *testing.T) {
	long := strings.Repeat("x", 300)
	doc := `id: BF-1
range: 2026-02-01..2026-03-01
concurrency: two
done: maybe
assets: bigquery://p/d/t
access:
  - {role: r, expiry: soon}
  - {role: r, expirey: 2026-01-01}
labels: {team: [a]}
timeline: {completed: 2026-01-01}
purpose: ` + long + `
`
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	ps := YAML(n.Content[0], reflect.TypeOf(plan{}), "")
	var got []string
	for _, p := range ps {
		got = append(got, strconv.Itoa(p.Line)+": "+p.Error())
	}
	want := []string{
		`2: range: expected a mapping with keys start, end, got "2026-02-01..2026-03-01"`,
		`3: concurrency: expected a whole number, got "two"`,
		`4: done: expected true or false, got "maybe"`,
		`5: assets: expected a list of text values, got "bigquery://p/d/t"`,
		`7: access[0].expiry: expected a date such as 2026-03-01, got "soon"`,
		`8: access[1].expirey: unknown key; did you mean expiry?`,
		`9: labels.team: expected text, got a list`,
		`10: timeline.completed: unknown key; did you mean completed_at?`,
		`11: purpose: unknown key (expected one of access, assets, concurrency, done, id, labels, range, timeline)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, g := range got {
		if strings.Contains(g, "decodeerr.") || strings.Contains(g, "!!str") {
			t.Errorf("a Go type or YAML tag in a message: %s", g)
		}
	}
}

func TestYAMLValueInFull(t *testing.T) {
	value := "2026-02-01 to 2026-03-01, then again in April"
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("range: "+value+"\n"), &n); err != nil {
		t.Fatal(err)
	}
	ps := YAML(n.Content[0], reflect.TypeOf(plan{}), "")
	if len(ps) != 1 || !strings.Contains(ps[0].Msg, `"`+value+`"`) {
		t.Errorf("the value must be shown whole: %v", ps)
	}
	huge := strings.Repeat("y", 5000)
	if err := yaml.Unmarshal([]byte("concurrency: "+huge+"\n"), &n); err != nil {
		t.Fatal(err)
	}
	ps = YAML(n.Content[0], reflect.TypeOf(plan{}), "")
	if len(ps) != 1 || len(ps[0].Msg) > 400 {
		t.Errorf("a pasted blob must be cut: %d bytes", len(ps[0].Msg))
	}
}

func TestYAMLClean(t *testing.T) {
	doc := "id: BF-1\nrange: {start: 2026-01-01, end: 2026-02-01}\nconcurrency: 2\naccess: [{role: r, expiry: 2026-01-01}]\nlabels: ~\n"
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	if ps := YAML(n.Content[0], reflect.TypeOf(plan{}), ""); len(ps) != 0 {
		t.Errorf("a valid document has problems: %v", ps)
	}
}

type section struct {
	Repo    string        `mapstructure:"repo"`
	Token   string        `mapstructure:"token"`
	Wait    time.Duration `mapstructure:"rate_limit_wait"`
	Formats []string      `mapstructure:"formats"`
}

type sinks struct {
	GitHub *section `mapstructure:"github"`
}

type config struct {
	Concurrency int                          `mapstructure:"concurrency"`
	FailOn      string                       `mapstructure:"fail_on"`
	Owners      map[string]map[string]string `mapstructure:"owners"`
	Sources     []map[string]any             `mapstructure:"sources"`
	sinks       `mapstructure:",squash"`
}

func TestMapstructure(t *testing.T) {
	in := map[string]any{
		"concurrenc": 3,
		"fail_on":    []any{"a"},
		"github":     map[string]any{"repo": "a/b", "tokn": "x", "formats": map[string]any{"a": 1}},
		"owners":     map[string]any{"alice@example.com": map[string]any{"github": []any{"x"}}},
	}
	var c config
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{Result: &c, ErrorUnused: true, WeaklyTypedInput: true})
	if err != nil {
		t.Fatal(err)
	}
	err = Mapstructure(dec.Decode(in), &c)
	want := []string{
		"concurrenc: unknown key; did you mean concurrency?",
		"fail_on: expected text, got a list",
		"github.formats[0]: expected text, got a mapping",
		"github.tokn: unknown key; did you mean token?",
		"owners.alice@example.com.github: expected text, got a list",
	}
	if err == nil {
		t.Fatal("no error")
	}
	if got := strings.Split(err.Error(), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	if strings.Contains(err.Error(), "decodeerr.") || strings.Contains(err.Error(), "interface") {
		t.Errorf("a Go type in a message: %s", err)
	}
}

func TestMapstructureParse(t *testing.T) {
	var c config
	dec, _ := mapstructure.NewDecoder(&mapstructure.DecoderConfig{Result: &c, WeaklyTypedInput: true})
	err := Mapstructure(dec.Decode(map[string]any{"concurrency": "four"}), &c)
	if err == nil || err.Error() != `concurrency: expected a whole number, got "four"` {
		t.Errorf("got %v", err)
	}
}

// Aliases can make a few lines a tree of billions of nodes: the walk stops.
func TestYAMLAliasBomb(t *testing.T) {
	doc := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := range 8 {
		name := string(rune('b' + i))
		doc += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Skip("the YAML parser refuses the document itself:", err)
	}
	// Every "x" is a problem where a number belongs: 10^9 of them unbounded.
	ps := YAML(n.Content[0], reflect.TypeOf(map[string][][][][][][][][][]int{}), "")
	if len(ps) > maxNodes {
		t.Errorf("%d problems: the walk did not stop", len(ps))
	}
}
