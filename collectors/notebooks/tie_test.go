package notebooks

import (
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// Which backfill a notebook belongs to, the most deliberate statement
// first: its metadata, then its file name, then its folders, the nearest
// first. bfloat16's spellings (bf16, BF16) are no backfill id: a notebook
// named for them under a backfill's folder is that backfill's, and one
// elsewhere is tied to nothing. The text of its cells ties nothing.
func TestTiePrecedence(t *testing.T) {
	for _, tt := range []struct {
		path    string
		meta    map[string]any
		src     string
		id, how string // "" id: untied
	}{
		{path: "bf-1234/BF16_eval.ipynb", id: "BF-1234", how: "path"},
		{path: "bf-1234/llama-bf16-inference.ipynb", id: "BF-1234", how: "path"},
		{path: "bf-1234/bf16/train_bf16.ipynb", id: "BF-1234", how: "path"},
		{path: "backfills/bf_1234_refunds/bf-99_fix.ipynb", id: "BF-99", how: "name"},
		{path: "bf-1234/bf_99_fix.ipynb", id: "BF-99", how: "name"},
		{path: "bf_1234_refunds/bf-77/fix.ipynb", id: "BF-77", how: "path"},
		{path: "bf-1234/fix.ipynb", meta: map[string]any{"backfill_id": "BF-5"}, id: "BF-5", how: "label"},
		{path: "BF1234_fix.ipynb", id: "BF-1234", how: "name"},
		{path: "models/BF16_eval.ipynb"},
		{path: "bf16/llama_bf16.ipynb"},
		{path: "notes/replay.ipynb", src: "# BF-1234: the refund replay\n"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "root/"+tt.path, v4(tt.meta, code(tt.src+"print(1)\n")))
			sink := collect(t, fileCollector(t, dir, "root"))
			if tt.id == "" {
				if len(sink.Artifacts) != 0 {
					t.Errorf("tied to %s by %s; want no tie", sink.Artifacts[0].BackfillID, sink.Artifacts[0].Correlation)
				}
				return
			}
			if len(sink.Artifacts) != 1 {
				t.Fatalf("not tied; want %s by %s", tt.id, tt.how)
			}
			a := sink.Artifacts[0]
			if model.ParseID(a.BackfillID) != model.ParseID(tt.id) || a.Correlation != tt.how {
				t.Errorf("tied to %s by %s; want %s by %s", a.BackfillID, a.Correlation, tt.id, tt.how)
			}
		})
	}
}
