package slack

import (
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/internal/duration"
	"github.com/go-viper/mapstructure/v2"
	"gopkg.in/yaml.v3"
)

func TestSampleConfigDecodesAndValidates(t *testing.T) {
	var doc struct {
		Slack map[string]any `yaml:"slack"`
	}
	if err := yaml.Unmarshal([]byte(SampleConfig()), &doc); err != nil {
		t.Fatal(err)
	}
	var cfg Config
	dec, _ := mapstructure.NewDecoder(&mapstructure.DecoderConfig{Result: &cfg, ErrorUnused: true, DecodeHook: duration.Hook})
	if err := dec.Decode(doc.Slack); err != nil {
		t.Fatalf("sample has a key Config does not know: %v", err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("sample does not validate: %v", err)
	}
	if cfg.Channel != "#platform-leads" || cfg.Period != PeriodWeekly || cfg.MaxOldest != DefaultMaxOldest || cfg.Timeout == nil || *cfg.Timeout != 30*time.Second {
		t.Errorf("sample decoded to %+v", cfg)
	}
}
