package notebooks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// matrixNotebook is what BF-7001 left behind: a correction notebook, tied
// by its name, that kept a service-account key in a saved output. Live
// machinery its plan does not list draws BF014 (undeclared asset).
func matrixNotebook() []byte {
	return v4(nil, code("print(open('key.json').read())\n", stream(serviceAccountJSON())))
}

func TestFaultMatrix(t *testing.T) {
	files := func(breakIt func(dir string)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: "file", Scope: "corrections/bf-7001_refunds.ipynb", Setup: func(t *testing.T) (collectors.Collector, func()) {
			dir := t.TempDir()
			write(t, dir, "corrections/bf-7001_refunds.ipynb", matrixNotebook())
			return fileCollector(t, dir, "corrections"), func() { breakIt(dir) }
		}}
	}
	notebook := func(breakIt func(f *fakeJupyter)) faultmatrix.Unit {
		return faultmatrix.Unit{Kind: "notebook", Scope: "corrections/bf-7001_refunds.ipynb", Setup: func(t *testing.T) (collectors.Collector, func()) {
			f := newFakeJupyter(t)
			f.put("corrections/bf-7001_refunds.ipynb", matrixNotebook())
			return jupyterCollector(t, f.URL()), func() { breakIt(f) }
		}}
	}
	source := func(breakIt func(f *fakeJupyter)) faultmatrix.Unit {
		u := notebook(breakIt)
		u.Kind, u.Scope = "source", ""
		return u
	}
	faultmatrix.Run(t, "notebooks", []faultmatrix.Unit{
		files(func(dir string) { // invalid JSON
			os.WriteFile(filepath.Join(dir, "corrections/bf-7001_refunds.ipynb"), []byte(`{"nbformat": 4, "cells": [`), 0o644)
		}),
		notebook(func(f *fakeJupyter) { f.put("corrections/bf-7001_refunds.ipynb", []byte(`{"nbformat": 4, "cells": [`)) }),
		notebook(func(f *fakeJupyter) { f.set("/api/contents/corrections/bf-7001_refunds.ipynb", status(500)) }),
		source(func(f *fakeJupyter) { f.set("/api/contents", status(500)) }),
		source(func(f *fakeJupyter) { f.srv.Close() }),
	})
}
