package collectortest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/hostile"
)

// CollectEchoed runs c against a service that fails every call with an
// error echoing the request's credentials (hostile.GRPCEcho, sent
// hostile.GRPCCanaryCredentials): errors are recorded, they keep the
// server's message (so the test sees the echo), and none, nor Collect's
// own, carries the canary.
func CollectEchoed(t *testing.T, c collectors.Collector) {
	t.Helper()
	sink, err := Collect(t, c)
	if len(sink.Errors) == 0 {
		t.Fatal("no error recorded for a server that fails every call")
	}
	texts := []string{fmt.Sprint(err)}
	echoed := false
	for _, e := range sink.Errors {
		texts = append(texts, e.Error)
		echoed = echoed || strings.Contains(e.Error, hostile.GRPCEchoMark)
	}
	if !echoed {
		t.Fatalf("errors %+v; want the server's (echoing) message kept, so this test sees the echo", sink.Errors)
	}
	for _, s := range texts {
		if strings.Contains(s, hostile.Canary) {
			t.Errorf("credential echoed into an error: %s", s)
		}
	}
}
