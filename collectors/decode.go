package collectors

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"

	"github.com/bfaudit/bfaudit/internal/decodeerr"
	"github.com/bfaudit/bfaudit/internal/duration"
)

// Decode builds the collector one `sources:` entry of the config describes:
// it looks up the entry's type, decodes the rest of the entry into a fresh
// collector (unknown keys are errors, so a typo is caught), and runs Init
// when it has it with env (its Source set to the entry's name). Errors
// name the key that was wrong. env's Selector's assets are filled later,
// before Units.
func Decode(entry map[string]any, env Env) (Instance, error) {
	var s Settings
	if err := mapstructure.Decode(map[string]any{"type": entry["type"], "name": entry["name"]}, &s); err != nil {
		return Instance{}, fmt.Errorf("type/name: %w", err)
	}
	if s.Type == "" {
		return Instance{}, fmt.Errorf("type: missing; expected one of %s", strings.Join(Names(), ", "))
	}
	f, ok := Lookup(s.Type)
	if !ok {
		return Instance{}, fmt.Errorf("type: unknown collector %q; expected one of %s", s.Type, strings.Join(Names(), ", "))
	}
	if s.Name == "" {
		s.Name = s.Type
	}
	c := f()
	rest := make(map[string]any, len(entry))
	for k, v := range entry {
		if k != "type" && k != "name" {
			rest[k] = v
		}
	}
	if err := DecodeInto(rest, c); err != nil {
		return Instance{}, err
	}
	env.Source = s.Name
	if err := c.Init(env.filled()); err != nil {
		return Instance{}, err
	}
	return Instance{Name: s.Name, Type: s.Type, Collector: c}, nil
}

// DecodeInto decodes a loosely typed config section into a typed struct:
// durations ("72h", "30d"), RFC 3339 times and comma-free string lists are
// converted, and unknown keys are reported by name.
func DecodeInto(in map[string]any, out any) error {
	var md mapstructure.Metadata
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		Result:           out,
		Metadata:         &md,
		ErrorUnused:      true,
		WeaklyTypedInput: true,
		TagName:          "mapstructure",
		DecodeHook: mapstructure.ComposeDecodeHookFunc(
			duration.Hook,
			mapstructure.StringToTimeHookFunc(time.RFC3339),
		),
	})
	if err != nil {
		return err
	}
	if err := dec.Decode(in); err != nil {
		return decodeerr.Mapstructure(err, out)
	}
	return nil
}
