package notebooks

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// A notebook that printed for hours (24 MiB of outputs, a different
// key-like value on every line) is scanned within its bounds: the first 2
// MiB of text, the first 100 credentials listed, the rest counted.
func TestRunawayNotebookIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("scans 2 MiB of text")
	}
	var outs []map[string]any
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	rng := rand.New(rand.NewPCG(1, 2))
	for range 24 {
		var b strings.Builder
		for b.Len() < 1<<20 {
			key := []byte("AKIA")
			for range 16 {
				key = append(key, alphabet[rng.IntN(len(alphabet))])
			}
			b.WriteString("step=12 aws_access_key_id=" + string(key) + "\n")
		}
		outs = append(outs, stream(b.String()))
	}
	dir := t.TempDir()
	write(t, dir, "bf-7001.ipynb", v4(nil, code("train()\n", outs...)))
	sink := collect(t, fileCollector(t, dir, "bf-7001.ipynb"))
	if len(sink.Artifacts) != 1 {
		t.Fatalf("artifacts %+v errors %+v", sink.Artifacts, sink.Errors)
	}
	a := sink.Artifacts[0]
	lines := strings.Split(a.Attr(model.AttrSecrets), "\n")
	if len(lines) != maxSecrets || a.Attr(AttrSecretsTotal) == "" || a.Attr(AttrUnscanned) == "" {
		t.Errorf("%d secret lines, secrets_total %q, unscanned %q", len(lines), a.Attr(AttrSecretsTotal), a.Attr(AttrUnscanned))
	}
	noCanary(t, sink)
}
