package pushgateway

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

func TestSampleConfigDecodes(t *testing.T) {
	p := collectortest.DecodeSample(t, "sample.yaml").Collector.(*Pushgateway)
	if p.URL != "http://pushgateway.monitoring:9091" || p.client == nil {
		t.Errorf("sample decoded to %+v", p)
	}
}

// Bad settings are refused when the config loads, naming the key.
func TestBadConfig(t *testing.T) {
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "pushgateway", "url": "http://pgw:9091"})
	for _, c := range []struct {
		entry map[string]any
		want  string
	}{
		{map[string]any{"type": "pushgateway"}, "url: missing"},
		{map[string]any{"type": "pushgateway", "url": "http://u:p@pgw:9091"}, "url: must not carry credentials"},
		{map[string]any{"type": "pushgateway", "url": "http://pgw:9091", "token_env": "BFAUDIT_TEST_UNSET_TOKEN"}, "token_env"},
		{map[string]any{"type": "pushgateway", "url": "http://pgw:9091", "job": "x"}, "job"},
	} {
		if _, err := collectors.Decode(c.entry, collectors.Env{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error saying %q", c.entry, err, c.want)
		}
	}
}

// An answer that is not a Pushgateway's list of groups, or holds a group
// no Pushgateway holds, fails the source: it is never read as "no groups".
func TestMalformedAnswers(t *testing.T) {
	for _, body := range []string{`{"status":"success"}`, `{"status":"error","error":"x"}`, `[]`,
		`{"data":[{"labels":{"job":"bf_1_replay"}}]}`,
		`{"data":[{"labels":{"instance":"x"},"push_time_seconds":{"time_stamp":"2026-01-01T00:00:00Z"}}]}`,
		`{"data":[{"labels":{"job":"x","a/b":"c"},"push_time_seconds":{"time_stamp":"2026-01-01T00:00:00Z"}}]}`,
		`{"data":[{"labels":{"job":"x"},"push_time_seconds":{"time_stamp":"yesterday"}}]}`} {
		s := newSaved(t)
		s.answer = []byte(body)
		sink, err := collectortest.Collect(t, collectorOn(t, hostile.Server(t, s).URL, "pg"))
		if err == nil || len(sink.Artifacts) > 0 {
			t.Errorf("%s: err %v, artifacts %+v", body, err, sink.Artifacts)
		}
	}
}
