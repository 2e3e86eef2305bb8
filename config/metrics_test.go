package config

import (
	"strings"
	"testing"
	"time"
)

func TestMetricsSection(t *testing.T) {
	p := write(t, "metrics:\n  pushgateway:\n    url: http://pushgateway:9091\n    timeout: 5s\n")
	c, err := Load(NewViper(), p)
	if err != nil {
		t.Fatal(err)
	}
	pg := c.Metrics.Pushgateway
	if pg == nil || pg.URL != "http://pushgateway:9091" || pg.Timeout != 5*time.Second {
		t.Errorf("metrics = %+v", c.Metrics)
	}
	for _, tt := range []struct{ name, body, want string }{
		{"job", "metrics:\n  pushgateway: {url: 'http://pg:9091', job: 'a b'}\n", "metrics.pushgateway.job:"},
		{"url", "metrics:\n  pushgateway: {job: x}\n", "metrics.pushgateway.url: missing"},
		{"key typo", "metrics:\n  pushgateway: {url: 'http://pg:9091', jobs: x}\n", "jobs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, tt.body)
			_, err := Load(NewViper(), p)
			if err == nil || !strings.HasPrefix(err.Error(), p+":") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v: want it to start with the file and contain %q", err, tt.want)
			}
		})
	}
}

// An env var does not turn on a push the file leaves out.
func TestMetricsEnvDoesNotTurnOnThePush(t *testing.T) {
	t.Setenv("BFAUDIT_METRICS_PUSHGATEWAY_URL", "http://pg:9091")
	c, err := Load(NewViper(), write(t, "concurrency: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Metrics != nil {
		t.Errorf("metrics = %+v, want off", c.Metrics)
	}
}
