package notebooks

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
)

// One notebook has one identity, its path below the source's root: read
// from files (paths: [<dir>]) or through a Jupyter server serving that
// directory, under sources of different names, it has the same URI, so
// its findings keep their fingerprints when the source changes. A Jupyter
// root and a files entry of the same subdirectory agree too.
func TestOneIdentityFromFilesAndJupyter(t *testing.T) {
	tree := map[string][]byte{
		"backfills/bf-7001/fix refunds.ipynb": v4(nil, code("k = '"+canaryAWS+"'\n")),
		"backfills/bf_7002_replay.ipynb":      v4(nil, code("print(1)\n")),
		"other/labelled.ipynb":                v4(map[string]any{"backfill_id": "BF-7003"}, code("print(1)\n")),
	}
	dir := t.TempDir()
	f := newFakeJupyter(t)
	for p, b := range tree {
		write(t, filepath.Join(dir, "repo"), p, b)
		f.put(p, b)
	}
	files := fileCollector(t, dir, "repo")
	if err := files.Init(env("analytics-repo", dir)); err != nil {
		t.Fatal(err)
	}
	jup := jupyterCollector(t, f.URL())
	if err := jup.Init(env("jupyterhub", "")); err != nil {
		t.Fatal(err)
	}
	want := "notebooks:///backfills/bf-7001/fix%20refunds.ipynb notebooks:///backfills/bf_7002_replay.ipynb notebooks:///other/labelled.ipynb"
	fromFiles, fromJupyter := collect(t, files), collect(t, jup)
	if got := uris(fromFiles); got != want {
		t.Errorf("files: %s\nwant %s", got, want)
	}
	if got := uris(fromJupyter); got != want {
		t.Errorf("jupyter: %s\nwant %s", got, want)
	}
	// The name stays how each source names the notebook.
	if a := fromFiles.Artifact("notebooks:///backfills/bf_7002_replay.ipynb"); a == nil || a.Name != "repo/backfills/bf_7002_replay.ipynb" {
		t.Errorf("files name: %+v", a)
	}

	// A Jupyter root and the files entry naming that directory.
	jup.Root = "backfills"
	sub := fileCollector(t, dir, "repo/backfills")
	want = "notebooks:///bf-7001/fix%20refunds.ipynb notebooks:///bf_7002_replay.ipynb"
	if got := uris(collect(t, jup)); got != want {
		t.Errorf("jupyter root backfills: %s\nwant %s", got, want)
	}
	if got := uris(collect(t, sub)); got != want {
		t.Errorf("files repo/backfills: %s\nwant %s", got, want)
	}
	// A glob's root is its fixed directory; root: sets it for every entry.
	glob := fileCollector(t, dir, "repo/backfills/*.ipynb", "repo/backfills/bf-7001")
	if got := uris(collect(t, glob)); got != "notebooks:///bf_7002_replay.ipynb notebooks:///fix%20refunds.ipynb" {
		t.Errorf("a glob and a directory, each its own root: %s", got)
	}
	glob.Root = "repo/backfills"
	if got := uris(collect(t, glob)); got != want {
		t.Errorf("root: repo/backfills: %s\nwant %s", got, want)
	}
}

// Two entries whose notebooks have the same path below their roots would
// give two notebooks one identity: the second is an error at its file
// saying to set root, and root above both resolves it.
func TestTwoNotebooksOfOneIdentity(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "team-a/bf-7001.ipynb", v4(nil, code("print(1)\n")))
	write(t, dir, "team-b/bf-7001.ipynb", v4(nil, code("print(2)\n")))
	n := fileCollector(t, dir, "team-a", "team-b")
	sink := collect(t, n)
	if len(sink.Artifacts) != 1 || len(sink.Errors) != 1 || sink.Errors[0].Scope != "team-b/bf-7001.ipynb" ||
		!strings.Contains(sink.Errors[0].Error, "set root") {
		t.Errorf("artifacts %+v errors %+v", sink.Artifacts, sink.Errors)
	}
	n.Root = "."
	sink = collect(t, n)
	if got := uris(sink); got != "notebooks:///team-a/bf-7001.ipynb notebooks:///team-b/bf-7001.ipynb" || len(sink.Errors) != 0 {
		t.Errorf("root: . gives %s, errors %+v", got, sink.Errors)
	}
	n.Root = "team-a"
	sink = collect(t, n)
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "team-b" || !strings.Contains(sink.Errors[0].Error, "not under root") {
		t.Errorf("an entry outside root: errors %+v", sink.Errors)
	}
}

// Every notebook read is counted at its unit, tied or not, and those
// scanned only in part (past the bounds) are counted as partial; a file
// that is not a notebook is an error, not a read.
func TestReadsAreReported(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "nb/bf-7001_fix.ipynb", v4(nil, code("k = '"+canaryAWS+"'\n")))
	write(t, dir, "nb/bf-7001_huge.ipynb", v4(nil, code("print('x')\n", stream(strings.Repeat("x", maxPieceBytes+10)))))
	write(t, dir, "nb/scratch.ipynb", v4(nil, code("print(1)\n")))
	write(t, dir, "nb/llama_bf16.ipynb", v4(nil, code("model.to(torch.bfloat16)\n")))
	write(t, dir, "nb/broken.ipynb", []byte(`{"nbformat": 4, "cells": [`))
	sink := collect(t, fileCollector(t, dir, "nb"))
	if n, partial := sink.Read("", "notebooks"); n != 4 || partial != 1 {
		t.Errorf("read %d notebooks, %d in part; want 4, 1 (the huge one)", n, partial)
	}
	if n, partial := sink.Read("nb/bf-7001_huge.ipynb", "notebooks"); n != 1 || partial != 1 {
		t.Errorf("the huge notebook's unit: read %d, %d in part", n, partial)
	}
	if n, _ := sink.Read("nb/scratch.ipynb", "notebooks"); n != 1 {
		t.Errorf("an untied notebook is read too: %d", n)
	}
	if n, _ := sink.Read("nb/broken.ipynb", "notebooks"); n != 0 || len(sink.Errors) != 1 {
		t.Errorf("the broken notebook: read %d, errors %+v", n, sink.Errors)
	}

	f := newFakeJupyter(t)
	f.put("bf-7001/fix.ipynb", v4(nil, code("print(1)\n")))
	f.put("scratch.ipynb", v4(nil, code("print(1)\n")))
	sink = collect(t, jupyterCollector(t, f.URL()))
	if n, partial := sink.Read("", "notebooks"); n != 2 || partial != 0 {
		t.Errorf("jupyter: read %d, %d in part; want 2, 0", n, partial)
	}
	if n, _ := sink.Read("bf-7001/fix.ipynb", "notebooks"); n != 1 {
		t.Errorf("jupyter: the notebook's unit read %d", n)
	}
}

// An error names its unit's path once: the scope says which file, the
// text what went wrong with it (a Jupyter error names the request it
// made, as every API source does, but not the path again by itself).
func TestErrorsNameTheirPathOnce(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "nb/bf-7001_b.ipynb", []byte(`{"nbformat": 4, "cells": [`))
	write(t, dir, "nb/bf-7001_big.ipynb", v4(nil, code(strings.Repeat("x", 200))))
	write(t, dir, "nb/ok.ipynb", v4(nil)) // one unit answers: the source does not fail
	n := fileCollector(t, dir, "nb", "missing.ipynb")
	n.MaxNotebookBytes = 150
	sink := collect(t, n)
	if len(sink.Errors) != 3 {
		t.Fatalf("errors %+v", sink.Errors)
	}
	for _, e := range sink.Errors {
		if strings.Contains(e.Error, filepath.Base(e.Scope)) || strings.Contains(e.Error, "notebooks source") || strings.Contains(e.Error, dir) {
			t.Errorf("error at %s repeats its path, its source or this machine's: %s", e.Scope, e.Error)
		}
	}
	f := newFakeJupyter(t)
	f.put("bf-7001/broken.ipynb", []byte(`{"nbformat": 4, "cells": [`))
	f.put("bf-7002/x.ipynb", v4(nil))
	f.put("ok.ipynb", v4(nil))
	f.set("/api/contents/bf-7002", status(500))
	sink = collect(t, jupyterCollector(t, f.URL()))
	if len(sink.Errors) != 2 {
		t.Fatalf("errors %+v", sink.Errors)
	}
	for _, e := range sink.Errors {
		if strings.HasPrefix(e.Error, e.Scope) || strings.Contains(e.Error, " "+e.Scope+":") || strings.Contains(e.Error, "notebooks source") {
			t.Errorf("error at %s repeats its path or its source: %s", e.Scope, e.Error)
		}
	}
}

// uris are a sink's artifact URIs, sorted, space-separated.
func uris(sink *collectors.TestSink) string {
	var out []string
	for _, a := range sink.Artifacts {
		out = append(out, a.URI)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// A configured folder that is a link to a folder (a repository checked
// out elsewhere, a mounted volume) is walked like the folder itself.
// Before, the walk stopped at the link and read no notebook, and the
// source said it had read none.
func TestALinkedFolderIsWalked(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "repo/corrections/bf-7001_fix.ipynb", v4(nil, code("k = '"+canaryAWS+"'\n")))
	if err := os.Symlink(filepath.Join(dir, "repo", "corrections"), filepath.Join(dir, "nb")); err != nil {
		t.Fatal(err)
	}
	sink := collect(t, fileCollector(t, dir, "nb"))
	if n, _ := sink.Read("nb/bf-7001_fix.ipynb", "notebooks"); n != 1 || len(sink.Errors) != 0 {
		t.Errorf("read %d through the link, errors %+v; reads %+v", n, sink.Errors, sink.Reads)
	}
}
