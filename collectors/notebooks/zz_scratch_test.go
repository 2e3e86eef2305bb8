package notebooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestZZScanAll(t *testing.T) {
	dir := os.Getenv("ZZ_DIR")
	if dir == "" {
		t.Skip()
	}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if !strings.HasSuffix(p, ".ipynb") {
			return nil
		}
		raw, _ := os.ReadFile(p)
		nb, err := parse(raw)
		if err != nil {
			fmt.Printf("%s: ERROR %v\n", p, err)
			return nil
		}
		found, total, _ := scan(t.Context(), nb)
		id, how, ok := New().sel0().tie(uri(p), strings.TrimPrefix(p, dir+"/"), nb.labels)
		fmt.Printf("%s: nbformat %d unscanned %d secrets %d tie %v %s %s\n", strings.TrimPrefix(p, dir+"/"), nb.format, nb.unscanned, total, ok, id, how)
		for _, s := range found {
			fmt.Printf("    %s %s %s\n", s.rule, s.where, s.hash)
		}
		return nil
	})
}

func (n *Notebooks) sel0() *Notebooks { n.Paths = []string{"x"}; n.Init(); return n }
