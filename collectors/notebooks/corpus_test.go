package notebooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// The corpus case of real notebooks with canary credentials inserted
// (testdata/realworld/notebooks-bf16-credential, its SOURCE.md says what was
// inserted where).
const credentialCase = "../../testdata/realworld/notebooks-bf16-credential/notebooks"

// The canaries of that case.
var (
	corpusAWSKeyID = "AKIALALEMEL33243OLIB"
	corpusPEMBody  = "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDbfauditCorpus0" +
		"CanaryNotARealKeyQ2xlYXJseUZha2VLZXlGb3JUZXN0aW5nT25seVBsZWFzZQ1" +
		"Zt9YxWv8UqTs7RpQo6NmLk5JiHg4FeDc3BaZy2XwVu1TsRq0PoNmLk9JiHgFeDcB"
	corpusHFToken = "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"
	corpusSecrets = []string{corpusAWSKeyID, "Zt4Lq9XwB2vN7cRk1pYs8HdE3mGf6JaU0oTiW5e+", corpusPEMBody[:40], corpusHFToken}
)

// What the notebooks of that case hold, one line per credential, counted
// by hand from the files: the AWS key pair printed in three places is one
// credential, the service-account key shown as a dict and as JSON is one.
var corpusCredentials = map[string][]string{
	"notebooks:///bf-1234/IntelTensorFlow_AMX_BF16_Training.ipynb": {
		"aws-key-pair\tcell 5 output 1 stdout line 2, cell 6 output 1 text/html line 26, cell 6 output 1 text/plain line 2 (access key id); " +
			"cell 5 output 1 stdout line 3 (secret access key)\t" + model.ShortHash(corpusAWSKeyID)},
	"notebooks:///bf-1234/pytorch_lightning_training_bf16.ipynb": {
		"gcp-service-account-key\tcell 11 output 1 text/plain lines 3, 4, cell 12 output 1 stdout lines 4, 5\t" + model.ShortHash(corpusPEMBody)},
	"notebooks:///scratch/05-Yuan2.0-2B%20Lora-bf16.ipynb": {
		"huggingface-access-token\tcell 2 source line 1\t" + model.ShortHash(corpusHFToken)},
}

// checkCorpusCredentials checks a collection of the case: each notebook by
// its URI, its tie (the bf-1234 folder, never BF16), its credentials.
func checkCorpusCredentials(t *testing.T, sink *collectors.TestSink) {
	t.Helper()
	if len(sink.Errors) != 0 || len(sink.Artifacts) != len(corpusCredentials) {
		t.Fatalf("artifacts %+v errors %+v", sink.Artifacts, sink.Errors)
	}
	for u, want := range corpusCredentials {
		a := sink.Artifact(u)
		if a == nil {
			t.Errorf("%s not reported: %s", u, uris(sink))
			continue
		}
		wantID := ""
		if strings.Contains(u, "/bf-1234/") {
			wantID = "BF-1234"
		}
		if model.ParseID(a.BackfillID) != model.BackfillID(wantID) {
			t.Errorf("%s tied to %q by %s, want %q", u, a.BackfillID, a.Correlation, wantID)
		}
		if got := strings.Split(a.Attr(model.AttrSecrets), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s credentials:\n%s\nwant:\n%s", u, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if a := sink.Artifact("notebooks:///bf-1234/pytorch_lightning_training_bf16.ipynb"); a != nil && a.Attr(model.AttrKeyIDs) != "4f1d0c9b8a7e6d5c4b3a29180706f5e4d3c2b1a0" {
		t.Errorf("key_ids %q", a.Attr(model.AttrKeyIDs))
	}
	noCorpusSecret(t, sink)
}

func noCorpusSecret(t *testing.T, sink *collectors.TestSink) {
	t.Helper()
	for _, a := range sink.Artifacts {
		for _, s := range corpusSecrets {
			if strings.Contains(a.URI+a.Name+strings.Join(attrValues(a), " "), s) {
				t.Errorf("the canary %.6s… leaked into %s", s, a.URI)
			}
		}
	}
}

func attrValues(a model.Artifact) []string {
	var out []string
	for _, v := range a.Attributes.All() {
		out = append(out, v)
	}
	return out
}

// Read from files, the corpus case's notebooks are what the case says.
func TestCorpusCredentialsFromFiles(t *testing.T) {
	checkCorpusCredentials(t, collect(t, fileCollector(t, ".", credentialCase)))
}

// Through a real Jupyter server serving the same folder (its contents API
// converts nothing here: all three are nbformat 4), the same notebooks have
// the same identities, ties and credentials as read from files.
func TestCorpusCredentialsFromRealJupyter(t *testing.T) {
	url, root := realJupyter(t)
	dir := filepath.Join(root, "corpus-"+strings.ReplaceAll(t.Name(), "/", "-"))
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.CopyFS(dir, os.DirFS(credentialCase)); err != nil {
		t.Fatal(err)
	}
	n := New()
	n.JupyterURL, n.TokenEnv, n.Root = url, "TEST_REAL_JUPYTER_TOKEN", filepath.Base(dir)
	if err := n.Init(env("jupyter", "")); err != nil {
		t.Fatal(err)
	}
	checkCorpusCredentials(t, collect(t, n))
}

// nbformat's own test notebooks (testdata/realworld/notebooks-nbformat-tests)
// read through a real Jupyter server, which converts v2 and v3 to v4 and
// refuses those its nbformat cannot validate: each notebook it serves has
// the same identity, tie and credentials as read from files (the kernel
// key test2.ipynb saved is on the same line of the same output after the
// conversion), and each it refuses is an error at that notebook alone.
func TestNBFormatCorpusThroughRealJupyter(t *testing.T) {
	url, root := realJupyter(t)
	const nbformatCase = "../../testdata/realworld/notebooks-nbformat-tests/notebooks"
	files := collect(t, fileCollector(t, ".", nbformatCase))
	if n, _ := files.Read("", "notebooks"); n != 20 || len(files.Errors) != 0 || len(files.Artifacts) != 20 {
		t.Fatalf("files: read %d, artifacts %d, errors %+v", n, len(files.Artifacts), files.Errors)
	}
	dir := filepath.Join(root, "nbformat-"+strings.ReplaceAll(t.Name(), "/", "-"))
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.CopyFS(dir, os.DirFS(nbformatCase)); err != nil {
		t.Fatal(err)
	}
	n := New()
	n.JupyterURL, n.TokenEnv, n.Root = url, "TEST_REAL_JUPYTER_TOKEN", filepath.Base(dir)
	if err := n.Init(env("jupyter", "")); err != nil {
		t.Fatal(err)
	}
	served := collect(t, n)
	for _, e := range served.Errors {
		if !strings.HasPrefix(e.Scope, filepath.Base(dir)+"/bf-7101/") || !strings.Contains(e.Error, "Unreadable Notebook") {
			t.Errorf("error at %s: %s", e.Scope, e.Error)
		}
	}
	if read, _ := served.Read("", "notebooks"); read+len(served.Errors) != 20 || read != len(served.Artifacts) {
		t.Errorf("jupyter: read %d, %d artifacts, %d errors; want every one of the 20 read or an error", read, len(served.Artifacts), len(served.Errors))
	}
	for _, a := range served.Artifacts {
		f := files.Artifact(a.URI)
		if f == nil {
			t.Errorf("%s: served, not among the files' %s", a.URI, uris(files))
			continue
		}
		if a.BackfillID != f.BackfillID || a.Attr(model.AttrSecrets) != f.Attr(model.AttrSecrets) {
			t.Errorf("%s: served as %s %q, from files %s %q", a.URI, a.BackfillID, a.Attr(model.AttrSecrets), f.BackfillID, f.Attr(model.AttrSecrets))
		}
	}
	if a := served.Artifact("notebooks:///bf-7101/test2.ipynb"); a == nil || !strings.HasPrefix(a.Attr(model.AttrSecrets), "generic-api-key\tcell 15 output 1 stdout line 5\t") {
		t.Errorf("test2.ipynb, converted from nbformat 2: %+v", a)
	}
}
