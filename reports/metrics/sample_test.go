package metrics

import (
	"testing"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/internal/duration"
)

func TestSampleConfigDecodesAndValidates(t *testing.T) {
	var doc struct {
		Metrics map[string]any `yaml:"metrics"`
	}
	if err := yaml.Unmarshal([]byte(SampleConfig()), &doc); err != nil {
		t.Fatal(err)
	}
	var cfg Config
	dec, _ := mapstructure.NewDecoder(&mapstructure.DecoderConfig{Result: &cfg, ErrorUnused: true, DecodeHook: duration.Hook})
	if err := dec.Decode(doc.Metrics); err != nil {
		t.Fatalf("sample has a key Config does not know: %v", err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("sample does not validate: %v", err)
	}
	if p := cfg.Pushgateway; p == nil || p.Job != DefaultJob || p.Timeout != 30*time.Second {
		t.Errorf("sample decoded to %+v", cfg.Pushgateway)
	}
}
