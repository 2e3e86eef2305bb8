package history

import (
	"testing"

	"github.com/go-viper/mapstructure/v2"
	"gopkg.in/yaml.v3"
)

func TestSampleConfigDecodesAndValidates(t *testing.T) {
	var doc struct {
		History map[string]any `yaml:"history"`
	}
	if err := yaml.Unmarshal([]byte(SampleConfig()), &doc); err != nil {
		t.Fatal(err)
	}
	var cfg Config
	dec, _ := mapstructure.NewDecoder(&mapstructure.DecoderConfig{Result: &cfg, ErrorUnused: true})
	if err := dec.Decode(doc.History); err != nil {
		t.Fatalf("sample has a key Config does not know: %v", err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("sample does not validate: %v", err)
	}
	if cfg != (Config{}).WithDefaults() {
		t.Errorf("sample %+v differs from the defaults %+v", cfg, Config{}.WithDefaults())
	}
}
