package notebooks

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// Through the contents API: the tree is walked, each notebook read with
// its content and last_modified, the token sent as Jupyter takes it; a
// broken notebook is an error at that notebook only.
func TestJupyterWalksTheContentsAPI(t *testing.T) {
	f := newFakeJupyter(t)
	f.put("backfills/bf-7001/fix refunds.ipynb", v4(nil, code("k = '"+canaryAWS+"'\n")))
	f.put("backfills/other.ipynb", v4(map[string]any{"backfill_id": "BF-7002"}, code("print(1)\n", stream(serviceAccountJSON()))))
	f.put("backfills/bf-7003.ipynb", []byte(`{"nbformat": 4, "cells": [`))
	f.put("scratch.ipynb", v4(nil, code("k = '"+canaryAWS+"'\n")))
	sink := collect(t, jupyterCollector(t, f.URL()))
	if len(sink.Artifacts) != 3 || sink.Artifact("notebooks:///scratch.ipynb").BackfillID != "" {
		t.Fatalf("artifacts %+v errors %+v; want the two tied, and the untied one keeping a key", sink.Artifacts, sink.Errors)
	}
	a := sink.Artifact("notebooks:///backfills/bf-7001/fix%20refunds.ipynb")
	if a == nil || a.Name != "backfills/bf-7001/fix refunds.ipynb" || a.Scope != "backfills/bf-7001/fix refunds.ipynb" ||
		!a.ModifiedAt.Time().Equal(time.Date(2026, 1, 7, 10, 0, 0, 123456000, time.UTC)) ||
		!strings.HasPrefix(a.Attr(model.AttrSecrets), "aws-access-token\tcell 1 source line 1\t") {
		t.Errorf("artifact %+v", a)
	}
	if b := sink.Artifact("notebooks:///backfills/other.ipynb"); b == nil || b.Attr(model.AttrKeyIDs) != canaryKeyID {
		t.Errorf("metadata-tied notebook %+v", b)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "backfills/bf-7003.ipynb" || !strings.Contains(sink.Errors[0].Error, "HTTP 400") {
		t.Errorf("errors %+v", sink.Errors)
	}
	noCanary(t, sink)
}

// A subdirectory that cannot be listed is an error at that directory; the
// top listing failing fails the source; a wrong token fails the source
// without quoting the token.
func TestJupyterUnits(t *testing.T) {
	f := newFakeJupyter(t)
	f.put("a/bf-7001.ipynb", v4(nil, code("k = '"+canaryAWS+"'\n")))
	f.put("b/bf-7001.ipynb", v4(nil, code("k = '"+canaryAWS+"'\n")))
	f.set("/api/contents/b", status(500))
	sink := collect(t, jupyterCollector(t, f.URL()))
	if sink.Artifact("notebooks:///a/bf-7001.ipynb") == nil || len(sink.Errors) != 1 || sink.Errors[0].Scope != "b" {
		t.Errorf("artifacts %+v errors %+v", sink.Artifacts, sink.Errors)
	}
	f.set("/api/contents", status(500))
	n := jupyterCollector(t, f.URL())
	if err := collectors.Collect(t.Context(), n, sink); err == nil || !strings.Contains(err.Error(), "list the root directory") {
		t.Errorf("top listing failed: Collect = %v", err)
	}
	t.Setenv("TEST_JUPYTER_TOKEN", "wrong-token-9f3e")
	n.TokenEnv = "TEST_JUPYTER_TOKEN"
	if err := n.Init(env("jup", "")); err != nil {
		t.Fatal(err)
	}
	f.set("/api/contents", nil)
	err := collectors.Collect(t.Context(), n, sink)
	if err == nil || !strings.Contains(err.Error(), "403") || strings.Contains(err.Error(), "wrong-token-9f3e") {
		t.Errorf("wrong token: Collect = %v", err)
	}
}

// A server message that quotes a notebook's credential, cut short
// (jupyter_server's "Notebook does not appear to be JSON: '...'"),
// reaches no error text.
func TestServerMessageQuotingACredentialIsScrubbed(t *testing.T) {
	f := newFakeJupyter(t)
	f.put("bf-7001.ipynb", v4(nil, code("print(1)\n")))
	f.set("/api/contents/bf-7001.ipynb", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"message": "Unreadable Notebook: NotJSONError(\"Notebook does not appear to be JSON: 'aws_access_key_id=`+canaryAWS[:18]+`...'\")"}`, 400)
	}))
	// The notebook is the only unit: its error is the source's too.
	sink := collectors.NewTestSink()
	err := collectors.Collect(t.Context(), jupyterCollector(t, f.URL()), sink)
	if err == nil || !strings.Contains(err.Error(), "HTTP 400: Unreadable Notebook") ||
		len(sink.Errors) != 1 || !strings.Contains(sink.Errors[0].Error, "HTTP 400: Unreadable Notebook") {
		t.Fatalf("Collect = %v, errors %+v", err, sink.Errors)
	}
	noCanary(t, sink, err.Error())
}
