package notebooks

import (
	"strings"
	"testing"
)

// FuzzParse feeds the notebook parser and scanner anything: nbformat v3
// and v4, huge outputs, binary attachments, invalid JSON. It never panics,
// every piece stays within its bound, and no secret line carries more than
// its rule, where and a 12-character hash.
func FuzzParse(f *testing.F) {
	f.Add(v4(nil, code("k = '"+canaryAWS+"'\n", stream(serviceAccountJSON()))))
	f.Add(v4(map[string]any{"backfill_id": "bf-1"}, code("x\n", map[string]any{"output_type": "display_data",
		"data": map[string]any{"image/png": strings.Repeat("iVBORw0KGgo", 100), "text/plain": []any{"a\n", "b"}}})))
	f.Add([]byte(`{"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "code", "input": "x", "outputs": [{"output_type": "pyerr", "traceback": ["t"]}]}]}]}`))
	f.Add(v4(nil, code("print('x' * 10**7)\n", stream(strings.Repeat("x", maxPieceBytes+10)))))
	f.Add([]byte(`{"nbformat": 4, "cells": [{"source": 1}]}`))
	f.Add([]byte(`{"nbformat": 4, "cells": [`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		nb, err := parse(raw)
		if err != nil {
			if strings.Contains(err.Error(), canaryAWS) {
				t.Fatalf("the error quotes the notebook: %v", err)
			}
			return
		}
		for _, p := range nb.pieces {
			if len(p.text) > maxPieceBytes {
				t.Fatalf("piece of %d bytes", len(p.text))
			}
		}
		found, _, err := scan(t.Context(), nb)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range found {
			if len(s.hash) != 12 || strings.Count(s.line(), "\t") != 2 || strings.Contains(s.line(), canaryAWS) {
				t.Fatalf("secret line %q", s.line())
			}
		}
	})
}
