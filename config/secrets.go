package config

import (
	"net/url"
	"os"
	"reflect"
	"strings"

	"github.com/bfaudit/bfaudit/internal/redact"
	"github.com/bfaudit/bfaudit/reports/github"
	"github.com/bfaudit/bfaudit/reports/slack"
)

// secretWords mark a config key whose value is a secret (github.token,
// history.dsn, slack webhook_url) or, with an _env suffix, names the
// environment variable that holds one (token_env, password_env, dsn_env).
// Keys are matched by name, so a new collector's settings are covered
// without a list to keep up to date.
var secretWords = []string{"token", "password", "passwd", "secret", "dsn", "webhook", "api_key", "apikey", "private_key"}

// notSecretSuffixes are keys that name where a secret lives, not the secret.
var notSecretSuffixes = []string{"_file", "_path", "_dir"}

func secretKey(key string) bool {
	k := strings.ToLower(key)
	for _, s := range notSecretSuffixes {
		if strings.HasSuffix(k, s) {
			return false
		}
	}
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// registerSecrets walks decoded settings (maps, lists and values, as viper
// or a source's section holds them) and registers with redact every
// configured secret: the value of a secret key, the value of the
// environment variable a secret's _env key names, and the credentials of
// any URL that carries a password (a RabbitMQ url with user:password).
func registerSecrets(key string, v any, getenv func(string) string) {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			registerSecrets(k, val, getenv)
		}
	case []any:
		for _, val := range t {
			registerSecrets(key, val, getenv)
		}
	case []string:
		for _, val := range t {
			registerSecrets(key, val, getenv)
		}
	case string:
		registerValue(key, t, getenv)
	}
}

func registerValue(key, value string, getenv func(string) string) {
	if value == "" {
		return
	}
	if secretKey(key) {
		if strings.HasSuffix(strings.ToLower(key), "_env") {
			redact.Add(getenv(strings.TrimSpace(value)))
		} else {
			redact.Add(value)
		}
		return
	}
	if u, err := url.Parse(strings.TrimSpace(value)); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			redact.Add(value)
		}
	}
}

// registerStruct registers the secrets of a decoded section by its
// mapstructure keys: defaults filled in by a collector's factory (an _env
// key with a default variable name) are only visible there.
func registerStruct(v any, getenv func(string) string) {
	registerReflect("", reflect.ValueOf(v), getenv, 0)
}

func registerReflect(key string, rv reflect.Value, getenv func(string) string, depth int) {
	if depth > 6 || !rv.IsValid() {
		return
	}
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !rv.IsNil() {
			registerReflect(key, rv.Elem(), getenv, depth+1)
		}
	case reflect.String:
		registerValue(key, rv.String(), getenv)
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			registerReflect(key, rv.Index(i), getenv, depth+1)
		}
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return
		}
		for it := rv.MapRange(); it.Next(); {
			registerReflect(it.Key().String(), it.Value(), getenv, depth+1)
		}
	case reflect.Struct:
		rt := rv.Type()
		for i := range rt.NumField() {
			f := rt.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			registerReflect(name, rv.Field(i), getenv, depth+1)
		}
	}
}

// registerSinkSecrets registers the sinks' secrets once their defaults are
// filled in: the GitHub token ($GITHUB_TOKEN unless token_env says
// otherwise), the Slack bot token and webhook URL, the history DSN.
func (c *Config) registerSinkSecrets(getenv func(string) string) {
	if gh := c.GitHub; gh != nil {
		redact.Add(gh.Token)
		env := gh.TokenEnv
		if env == "" {
			env = github.DefaultTokenEnv
		}
		redact.Add(getenv(env))
	}
	if sl := c.Slack; sl != nil {
		env := sl.TokenEnv
		if env == "" {
			env = slack.DefaultTokenEnv
		}
		redact.Add(getenv(env))
		if sl.WebhookURLEnv != "" {
			redact.Add(getenv(sl.WebhookURLEnv))
		}
	}
	if m := c.Metrics; m != nil {
		registerStruct(m, getenv) // token_env, password_env
	}
	if h := c.History; h != nil {
		redact.Add(h.DSN)
		if h.DSNEnv != "" {
			redact.Add(getenv(h.DSNEnv))
		}
	}
}

var getenv = os.Getenv
