package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/redact"
)

// leafKeys walks the Config type by its mapstructure tags, independently
// of the code under test, and returns every key with a fixed name and a
// value an environment variable can give, with its Go type.
func leafKeys(t reflect.Type, prefix []string, out map[string]reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		path := prefix
		if opts != "squash" {
			path = append(append([]string(nil), prefix...), name)
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct && ft != reflect.TypeOf(time.Time{}):
			leafKeys(ft, path, out)
		case ft.Kind() == reflect.Map, ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.String:
			// Named by the user or inside a list: no fixed env var.
		default:
			out[strings.Join(path, ".")] = ft
		}
	}
}

// fieldAt follows a dotted key through the decoded config.
func fieldAt(v reflect.Value, key string) (reflect.Value, bool) {
	for _, part := range strings.Split(key, ".") {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		}
		found := false
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
			if opts == "squash" {
				if sub, ok := fieldAt(v.Field(i), part); ok {
					v, found = sub, true
					break
				}
				continue
			}
			if name == part {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			return v, false
		}
	}
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	return v, true
}

// Issue 13.7: every key of the config can be set by its BFAUDIT_* env var,
// also when the file does not have it (BFAUDIT_GITHUB_TOKEN with no
// github.token in the file), and overrides the file when it does.
func TestEveryKeyFromEnv(t *testing.T) {
	keys := map[string]reflect.Type{}
	leafKeys(reflect.TypeOf(Config{}), nil, keys)
	for _, must := range []string{"github.token", "github.base_url", "slack.channel", "history.dsn", "report.fail_on", "concurrency"} {
		if keys[must] == nil {
			t.Fatalf("the walk missed %s", must)
		}
	}
	// The sinks' sections (the metrics push too) are in the file (an env var does not turn a sink
	// on); github.repo is set there too, to be overridden.
	path := write(t, "github: {repo: acme/file}\nslack: {channel: '#file'}\nhistory: {}\nmetrics: {pushgateway: {url: \"http://file:9091\"}}\n")
	for key, typ := range keys {
		t.Run(key, func(t *testing.T) {
			env, want := envValue(typ)
			t.Setenv(EnvVar(strings.Split(key, ".")...), env)
			c, col, err := decode(NewViper(), path)
			if err == nil {
				err = col.err()
			}
			if err != nil {
				t.Fatalf("%s=%s: %v", EnvVar(strings.Split(key, ".")...), env, err)
			}
			got, ok := fieldAt(reflect.ValueOf(c), key)
			if !ok {
				t.Fatalf("%s did not reach the config (section missing)", key)
			}
			if fmt.Sprint(got.Interface()) != fmt.Sprint(want) {
				t.Errorf("%s=%s: %s = %v, want %v", EnvVar(strings.Split(key, ".")...), env, key, got.Interface(), want)
			}
		})
	}
}

// envValue is a value of typ as an env var spells it, and as decoded.
func envValue(typ reflect.Type) (string, any) {
	switch {
	case typ == reflect.TypeOf(time.Duration(0)):
		return "17m", 17 * time.Minute
	case typ.Kind() == reflect.String:
		return "from-env", "from-env"
	case typ.Kind() == reflect.Bool:
		return "true", true
	case typ.Kind() == reflect.Int:
		return "7", 7
	case typ.Kind() == reflect.Slice:
		return "a,b", []string{"a", "b"}
	}
	panic("no env value for " + typ.String())
}

// A token given only in the environment is a secret like one in the file.
func TestGitHubTokenFromEnv(t *testing.T) {
	defer redact.Reset()
	const tok = "ghp_fromTheEnvironment123"
	t.Setenv("BFAUDIT_GITHUB_TOKEN", tok)
	c, err := Load(NewViper(), write(t, "github: {repo: acme/cleanup}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.GitHub == nil || c.GitHub.Token != tok {
		t.Fatalf("github.token = %+v, want it from BFAUDIT_GITHUB_TOKEN", c.GitHub)
	}
	if redact.String("token "+tok) != "token "+redact.Mask {
		t.Error("the env token is not registered as a secret")
	}
}

// An env var alone does not turn a sink on: the file's sections do.
func TestEnvDoesNotTurnOnASink(t *testing.T) {
	t.Setenv("BFAUDIT_GITHUB_TOKEN", "ghp_lyingAroundInCI")
	t.Setenv("BFAUDIT_SLACK_CHANNEL", "#leads")
	t.Setenv("BFAUDIT_HISTORY_PATH", "h.db")
	c, err := Load(NewViper(), write(t, "concurrency: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.GitHub != nil || c.Slack != nil || c.History != nil {
		t.Errorf("sinks turned on by env vars: github %v, slack %v, history %v", c.GitHub, c.Slack, c.History)
	}
}

func TestEnvVar(t *testing.T) {
	for want, parts := range map[string][]string{
		"BFAUDIT_GITHUB_TOKEN":                    {"github", "token"},
		"BFAUDIT_REPORT_FAIL_ON":                  {"report", "fail_on"},
		"BFAUDIT_CONCURRENCY":                     {"concurrency"},
		"BFAUDIT_OWNERS_ALICE@EXAMPLE.COM_GITHUB": {"owners", "alice@example.com", "github"},
		"BFAUDIT_TEAMS_PAYMENTS_LEAD":             {"teams", "payments", "lead"},
	} {
		if got := EnvVar(parts...); got != want {
			t.Errorf("EnvVar(%q) = %s, want %s", parts, got, want)
		}
	}
}

// The deployment guide names BFAUDIT_HISTORY_DSN in dsn_env; that is also
// history.dsn's own variable, and the one secret must not count as both.
func TestEnvNamedByItsOwnEnvKey(t *testing.T) {
	defer redact.Reset()
	t.Setenv("BFAUDIT_HISTORY_DSN", "postgres://bfaudit:pw-in-env@db:5432/audit")
	c, err := Load(NewViper(), write(t, "history: {driver: postgres, dsn_env: BFAUDIT_HISTORY_DSN}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.History.DSN != "" || c.History.DSNEnv != "BFAUDIT_HISTORY_DSN" {
		t.Errorf("history = dsn %q, dsn_env %q; want the DSN read through dsn_env only", c.History.DSN, c.History.DSNEnv)
	}
	// A dsn the file gives, with a dsn_env too, is still refused.
	if _, err := Load(NewViper(), write(t, "history: {driver: postgres, dsn: postgres://x@db/a, dsn_env: BFAUDIT_HISTORY_DSN}\n")); err == nil {
		t.Error("dsn and dsn_env both in the file were accepted")
	}
}
