package notebooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

func fileCollector(t *testing.T, base string, paths ...string) *Notebooks {
	t.Helper()
	n := New()
	n.Paths = paths
	if err := n.Init(env("nb", base)); err != nil {
		t.Fatal(err)
	}
	return n
}

// env is what the audit hands a source named source whose config file is
// in dir.
func env(source, dir string) collectors.Env {
	return collectors.Env{Source: source, Selector: correlate.MustSelector(), BaseDir: dir, Now: time.Now}
}

func collect(t *testing.T, n *Notebooks) *collectors.TestSink {
	t.Helper()
	sink := collectors.NewTestSink()
	if err := collectors.Collect(context.Background(), n, sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return sink
}

// A directory of correction notebooks: the tied ones with a credential are
// reported with where each credential is, the hash of each and the
// service-account key's id; the value is nowhere.
func TestFilesReportTiedNotebooks(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "corrections/bf-7001_fix_refunds.ipynb", v4(nil,
		code("import boto3\n"),
		code("s3 = boto3.client('s3',\n    aws_access_key_id='"+canaryAWS+"')\n"),
		code("print(open('key.json').read())\n", stream("loading\n"+serviceAccountJSON()+"\n")),
	))
	write(t, dir, "corrections/bf-7001_clean.ipynb", v4(nil, code("df = spark.table('ledger')\n")))
	write(t, dir, "corrections/scratch.ipynb", v4(nil, code("key = '"+canaryAWS+"'\n")))
	write(t, dir, "corrections/replay.ipynb", v4(map[string]any{"backfill_id": "bf-7002"},
		code("creds = "+strings.ReplaceAll(serviceAccountJSON(), `"`, `'`)+"\n")))
	write(t, dir, "corrections/notes.txt", []byte("key = '"+canaryAWS+"'"))
	mtime := time.Date(2026, 1, 7, 10, 0, 0, 0, time.UTC)
	os.Chtimes(filepath.Join(dir, "corrections/bf-7001_fix_refunds.ipynb"), mtime, mtime)

	sink := collect(t, fileCollector(t, dir, "corrections"))
	if len(sink.Errors) > 0 {
		t.Fatalf("errors: %+v", sink.Errors)
	}
	if len(sink.Artifacts) != 4 {
		t.Fatalf("got %d artifacts, want the three tied notebooks and the untied one with a key: %+v", len(sink.Artifacts), sink.Artifacts)
	}
	if clean := sink.Artifact("notebooks:///bf-7001_clean.ipynb"); clean == nil || clean.Attr(model.AttrSecrets) != "" {
		t.Errorf("the tied notebook without a credential should be reported without secrets: %+v", clean)
	}
	// A notebook tied to no backfill is reported when it keeps a secret.
	if s := sink.Artifact("notebooks:///scratch.ipynb"); s == nil || s.BackfillID != "" ||
		s.Attr(model.AttrSecrets) != "aws-access-token\tcell 1 source line 1\t"+model.ShortHash(canaryAWS) {
		t.Errorf("the untied notebook keeping a key: %+v", s)
	}
	a := sink.Artifact("notebooks:///bf-7001_fix_refunds.ipynb")
	if a == nil {
		t.Fatalf("the tied notebook is missing: %+v", sink.Artifacts)
	}
	if a.Kind != model.KindNotebook || a.System != "notebooks" || a.State != model.StateActive ||
		model.ParseID(a.BackfillID) != model.ParseID("BF-7001") || a.Correlation != "name" ||
		a.Name != "corrections/bf-7001_fix_refunds.ipynb" || a.Scope != "corrections/bf-7001_fix_refunds.ipynb" || !a.ModifiedAt.Time().Equal(mtime) {
		t.Errorf("artifact %+v", a)
	}
	secrets := a.Attr(model.AttrSecrets)
	for _, want := range []string{
		"aws-access-token\tcell 2 source line 2\t" + model.ShortHash(canaryAWS),
		"gcp-service-account-key\tcell 3 output 1 stdout line 2\t",
	} {
		if !strings.Contains(secrets, want) {
			t.Errorf("secrets %q lack %q", secrets, want)
		}
	}
	if got := a.Attr(model.AttrKeyIDs); got != canaryKeyID {
		t.Errorf("key_ids = %q, want %q", got, canaryKeyID)
	}
	for _, line := range strings.Split(secrets, "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || len(f[2]) != 12 {
			t.Errorf("secret line %q is not rule<TAB>where<TAB>12-hex hash", line)
		}
	}
	m := sink.Artifact("notebooks:///replay.ipynb")
	if m == nil || m.Correlation != "label" || m.Attr(model.AttrKeyIDs) != canaryKeyID ||
		!strings.Contains(m.Attr(model.AttrSecrets), "gcp-service-account-key\tcell 1 source line 1\t") {
		t.Errorf("the notebook tied by metadata.backfill_id (a Python dict of the key): %+v", m)
	}
	noCanary(t, sink)

	// untied: ignore reads notebooks tied to no backfill only to tie them.
	n := fileCollector(t, dir, "corrections")
	n.Untied = UntiedIgnore
	sink = collect(t, n)
	if len(sink.Artifacts) != 3 || sink.Artifact("notebooks:///scratch.ipynb") != nil {
		t.Errorf("untied: ignore reported %+v", sink.Artifacts)
	}
	if read, _ := sink.Read("corrections/scratch.ipynb", "notebooks"); read != 1 {
		t.Errorf("untied: ignore still reads the notebook: %d", read)
	}
}

// nbformat 3 (worksheets, input, pyout) is read as well as 4.
func TestFilesReadNBFormat3(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "bf-7001-v3.ipynb", []byte(`{"nbformat": 3, "nbformat_minor": 0, "metadata": {"name": "fix"},
	 "worksheets": [{"cells": [
	  {"cell_type": "markdown", "source": ["# replay fix\n"]},
	  {"cell_type": "code", "input": ["x = 1\n"], "language": "python",
	   "outputs": [{"output_type": "pyout", "prompt_number": 1, "text": ["'aws_access_key_id=`+canaryAWS+`'"]}]}
	 ]}]}`))
	sink := collect(t, fileCollector(t, dir, "*.ipynb"))
	a := sink.Artifact("notebooks:///bf-7001-v3.ipynb")
	if a == nil {
		t.Fatalf("v3 notebook not reported: %+v %+v", sink.Artifacts, sink.Errors)
	}
	if got := a.Attr(model.AttrSecrets); !strings.HasPrefix(got, "aws-access-token\tcell 2 output 1 text/plain line 1\t") || a.Attr(AttrNBFormat) != "3" {
		t.Errorf("secrets %q nbformat %q", got, a.Attr(AttrNBFormat))
	}
	noCanary(t, sink)
}

// Binary output data (image/png) and attachments are never scanned: a
// credential only there is not found, and costs nothing to skip.
func TestBinaryDataIsNotScanned(t *testing.T) {
	dir := t.TempDir()
	c := code("plot()\n", map[string]any{"output_type": "display_data", "metadata": map[string]any{},
		"data": map[string]any{"image/png": "aws_access_key_id=" + canaryAWS, "text/plain": "<Figure>"}})
	md := map[string]any{"cell_type": "markdown", "metadata": map[string]any{}, "source": "![x](attachment:x.png)",
		"attachments": map[string]any{"x.png": map[string]any{"image/png": "aws_access_key_id=" + canaryAWS}}}
	write(t, dir, "bf-7001.ipynb", v4(nil, c, md))
	sink := collect(t, fileCollector(t, dir, "bf-7001.ipynb"))
	if len(sink.Artifacts) != 1 || sink.Artifacts[0].Attr(model.AttrSecrets) != "" || len(sink.Errors) != 0 {
		t.Errorf("binary data was scanned: %+v %+v", sink.Artifacts, sink.Errors)
	}
}

// A file that is not a notebook is an error at that file only, saying
// where the JSON breaks and quoting nothing of it; the others are read.
func TestBrokenFileIsAnErrorAtItsUnit(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "nb/bf-7001_a.ipynb", v4(nil, code("k = '"+canaryAWS+"'\n")))
	write(t, dir, "nb/bf-7001_b.ipynb", []byte(`{"nbformat": 4, "cells": [{"source": "k = '`+canaryAWS+`'"`))
	write(t, dir, "nb/bf-7001_c.ipynb", []byte(`{"nbformat": 4, "cells": [{"source": 12}]}`))
	sink := collect(t, fileCollector(t, dir, "nb", "missing.ipynb"))
	if sink.Artifact("notebooks:///bf-7001_a.ipynb") == nil {
		t.Error("the good notebook was not reported")
	}
	want := map[string]string{"nb/bf-7001_b.ipynb": "not an nbformat notebook", "nb/bf-7001_c.ipynb": "not an nbformat notebook", "missing.ipynb": "no such file"}
	if len(sink.Errors) != len(want) {
		t.Fatalf("errors %+v", sink.Errors)
	}
	for _, e := range sink.Errors {
		if w, ok := want[e.Scope]; !ok || !strings.Contains(e.Error, w) {
			t.Errorf("error at %q: %s; want %q", e.Scope, e.Error, w)
		}
	}
	noCanary(t, sink)
}

// A notebook over max_notebook_bytes is an error at its file; more
// notebooks than max_notebooks is an error naming the cap.
func TestBounds(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b", "c"} {
		write(t, dir, "bf-7001_"+name+".ipynb", v4(nil, code("k = '"+canaryAWS+"'\n")))
	}
	n := fileCollector(t, dir, ".")
	n.MaxNotebooks = 2
	sink := collect(t, n)
	if len(sink.Artifacts) != 2 || len(sink.Errors) != 1 || !strings.Contains(sink.Errors[0].Error, "max_notebooks (2)") {
		t.Errorf("max_notebooks: %d artifacts, errors %+v", len(sink.Artifacts), sink.Errors)
	}
	// The notebook is the only unit: its error is the source's too.
	n = fileCollector(t, dir, "bf-7001_a.ipynb")
	n.MaxNotebookBytes = 100
	sink = collectors.NewTestSink()
	err := collectors.Collect(context.Background(), n, sink)
	if err == nil || !strings.Contains(err.Error(), "too large") ||
		len(sink.Artifacts) != 0 || len(sink.Errors) != 1 || sink.Errors[0].Scope != "bf-7001_a.ipynb" || !strings.Contains(sink.Errors[0].Error, "too large") {
		t.Errorf("max_notebook_bytes: %v %+v %+v", err, sink.Artifacts, sink.Errors)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		entry map[string]any
		want  string
	}{
		{map[string]any{"type": "notebooks"}, "paths or jupyter_url"},
		{map[string]any{"type": "notebooks", "paths": []any{"a"}, "jupyter_url": "http://j:8888"}, "paths and jupyter_url"},
		{map[string]any{"type": "notebooks", "paths": []any{"[a"}}, "paths[0]"},
		{map[string]any{"type": "notebooks", "paths": []any{"a"}, "max_notebooks": 0}, "max_notebooks"},
		{map[string]any{"type": "notebooks", "paths": []any{"a"}, "untied": "skip"}, "untied"},
		{map[string]any{"type": "notebooks", "jupyter_url": "ftp://j"}, "url"},
		{map[string]any{"type": "notebooks", "jupyter_url": "http://j:8888", "token_env": "BFAUDIT_NB_UNSET_TOKEN"}, "token_env"},
	} {
		_, err := collectors.Decode(tt.entry, collectors.Env{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err %v, want it naming %q", tt.entry, err, tt.want)
		}
	}
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "notebooks", "jupyter_url": "http://j:8888"})
	collectortest.RejectsBadTimeouts(t, map[string]any{"type": "notebooks", "paths": []any{"nb"}})
}

func TestSampleConfigDecodes(t *testing.T) {
	inst := collectortest.DecodeSample(t, "sample.yaml")
	n := inst.Collector.(*Notebooks)
	if len(n.Paths) != 2 || n.MaxNotebooks != 10000 || n.MaxNotebookBytes != 32<<20 {
		t.Errorf("sample decoded as %+v", n)
	}
}
