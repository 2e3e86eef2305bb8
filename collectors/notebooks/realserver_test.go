package notebooks

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// realJupyter returns the address of the Jupyter server the tests write
// notebooks for, its root directory, and sets the token variable; or
// skips.
func realJupyter(t *testing.T) (url, dir string) {
	t.Helper()
	url, tok, dir := os.Getenv("BFAUDIT_TEST_JUPYTER_URL"), os.Getenv("BFAUDIT_TEST_JUPYTER_TOKEN"), os.Getenv("BFAUDIT_TEST_JUPYTER_DIR")
	if url == "" || tok == "" || dir == "" {
		t.Skip("set BFAUDIT_TEST_JUPYTER_URL, BFAUDIT_TEST_JUPYTER_TOKEN and BFAUDIT_TEST_JUPYTER_DIR (a running jupyter server, its token and its root_dir; .ci/run starts one from the Debian package python3-jupyter-server) to run the real-server tests")
	}
	t.Setenv("TEST_REAL_JUPYTER_TOKEN", tok)
	return strings.TrimRight(url, "/"), dir
}

// A real jupyter_server: notebooks written under a directory of its root
// are read through the contents API (token auth), the one keeping the
// canary key is reported with where it is and the key's id, a notebook
// that is not JSON is an error at that notebook, and the canary is in no
// text, not even where the server's error message quotes it.
func TestRealJupyter(t *testing.T) {
	url, root := realJupyter(t)
	b := make([]byte, 4)
	rand.Read(b)
	run := "run-" + hex.EncodeToString(b)
	dir := filepath.Join(root, run)
	t.Cleanup(func() { os.RemoveAll(dir) })
	write(t, dir, "bf-7001/fix refunds.ipynb", v4(nil,
		code("import json\n"),
		code("creds = json.load(open('key.json'))\nprint(json.dumps(creds))\n", stream(serviceAccountJSON()+"\n")),
		code("aws_access_key_id = '"+canaryAWS+"'\n")))
	write(t, dir, "bf-7001/clean.ipynb", v4(nil, code("print(1)\n")))
	write(t, dir, "bf-7001/broken.ipynb", []byte(`{"nbformat": 4, "cells": [`))
	// jupyter_server's error for a file that is not JSON quotes its first
	// bytes: here the canary key, which must not reach the error text.
	write(t, dir, "bf-7001/leaky.ipynb", []byte("aws_access_key_id = '"+canaryAWS+"' and more text"))
	write(t, dir, "scratch.ipynb", v4(nil, code("k = '"+canaryAWS+"'\n")))
	mtime := time.Date(2026, 1, 7, 10, 0, 0, 0, time.UTC)
	os.Chtimes(filepath.Join(dir, "bf-7001/fix refunds.ipynb"), mtime, mtime)

	n := New()
	n.JupyterURL, n.TokenEnv, n.Root = url, "TEST_REAL_JUPYTER_TOKEN", run
	if err := n.Init(env("jupyter", "")); err != nil {
		t.Fatal(err)
	}
	sink := collect(t, n)
	if len(sink.Artifacts) != 3 || sink.Artifact("notebooks:///scratch.ipynb") == nil {
		t.Fatalf("artifacts %+v errors %+v; want the two tied notebooks that read, and the untied one keeping a key", sink.Artifacts, sink.Errors)
	}
	if clean := sink.Artifact("notebooks:///bf-7001/clean.ipynb"); clean == nil || clean.Attr(model.AttrSecrets) != "" {
		t.Errorf("the tied notebook without a credential should be reported without secrets: %+v", clean)
	}
	a := sink.Artifact("notebooks:///bf-7001/fix%20refunds.ipynb")
	if a == nil {
		t.Fatalf("not reported: %+v", sink.Artifacts)
	}
	if a.Kind != model.KindNotebook || a.Correlation != "path" || model.ParseID(a.BackfillID) != model.ParseID("BF-7001") ||
		a.State != model.StateActive || !a.ModifiedAt.Time().Equal(mtime) || a.Attr(model.AttrKeyIDs) != canaryKeyID {
		t.Errorf("artifact %+v", a)
	}
	secrets := a.Attr(model.AttrSecrets)
	for _, want := range []string{"aws-access-token\tcell 3 source line 1\t" + model.ShortHash(canaryAWS), "gcp-service-account-key\tcell 2 output 1 stdout line 1\t"} {
		if !strings.Contains(secrets, want) {
			t.Errorf("secrets %q lack %q", secrets, want)
		}
	}
	if len(sink.Errors) != 2 || sink.Errors[0].Scope != run+"/bf-7001/broken.ipynb" || !strings.Contains(sink.Errors[0].Error, "HTTP 400") ||
		sink.Errors[1].Scope != run+"/bf-7001/leaky.ipynb" || !strings.Contains(sink.Errors[1].Error, "Unreadable Notebook") {
		t.Errorf("errors %+v; want two, at the broken notebooks, the server's quote of the file dropped", sink.Errors)
	}
	noCanary(t, sink)
}
