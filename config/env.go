package config

import (
	"reflect"
	"strings"
	"time"

	"github.com/spf13/viper"
)

// EnvVar is the environment variable that sets the key with these parts:
// EnvVar("github", "token") is BFAUDIT_GITHUB_TOKEN. A part is kept as it
// is, dots and all (owners, alice@example.com, github).
func EnvVar(parts ...string) string {
	return "BFAUDIT_" + strings.ToUpper(strings.Join(parts, "_"))
}

// bindEnv binds every key of the config to its BFAUDIT_* variable. viper's
// AutomaticEnv alone reads the variable of a key it already knows, from
// the file or a default: BFAUDIT_GITHUB_TOKEN was ignored unless the file
// had github.token. Keys inside lists (sources, waivers, rules.custom) and
// under names the user chooses (owners, rules.params, report.outputs) have
// no fixed name to bind; AutomaticEnv still overrides those the file has.
func bindEnv(v *viper.Viper) {
	for _, k := range envKeys(reflect.TypeOf(Config{}), "") {
		_ = v.BindEnv(k) // fails only without a key
	}
}

// sameSecret drops a secret key's value that only its own env var gave
// when the section's <key>_env names that very variable: with history's
// `dsn_env: BFAUDIT_HISTORY_DSN` (as docs/deploy.md sets it up), the
// variable is also history.dsn's own, and the two would be refused as
// "set dsn or dsn_env, not both" though they are one secret.
func sameSecret(v *viper.Viper, section string, settings map[string]any) {
	m, ok := settings[section].(map[string]any)
	if !ok {
		return
	}
	for k, val := range m {
		base, isEnv := strings.CutSuffix(k, "_env")
		name, isText := val.(string)
		if !isEnv || !isText || name != EnvVar(section, base) {
			continue
		}
		if _, set := m[base]; set && !v.InConfig(Key(section, base)) {
			delete(m, base)
		}
	}
}

var durationType = reflect.TypeOf(time.Duration(0))

// envKeys lists the keys of t (viper's spelling, "::"-joined) that hold a
// value an environment variable can give: text, numbers, booleans,
// durations and lists of text.
func envKeys(t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		key := prefix
		if !strings.Contains(opts, "squash") {
			if name == "" {
				name = f.Name
			}
			key = Key(append(nonEmpty(prefix), strings.ToLower(name))...)
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft == durationType || scalar(ft.Kind()):
			out = append(out, key)
		case ft.Kind() == reflect.Slice && scalar(ft.Elem().Kind()):
			out = append(out, key)
		case ft.Kind() == reflect.Struct && ft != reflect.TypeOf(time.Time{}):
			out = append(out, envKeys(ft, key)...)
		}
	}
	return out
}

func nonEmpty(prefix string) []string {
	if prefix == "" {
		return nil
	}
	return []string{prefix}
}

func scalar(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
