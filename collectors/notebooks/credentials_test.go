package notebooks

import (
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/model"
)

// canaryAWSSecret is the secret access key paired with canaryAWS: no AWS
// account issued it.
const canaryAWSSecret = "q7Vb2NcX9kLmR4tPw8ZsYd3FgH6jK1aE5uI0oQ+n"

func init() { canaries = append(canaries, canaryAWSSecret[:20], canaryAWSSecret[20:]) }

func result(data map[string]any) map[string]any {
	return map[string]any{"output_type": "execute_result", "execution_count": 1, "metadata": map[string]any{}, "data": data}
}

// secretLines is a notebook artifact's credentials, one line each.
func secretLines(t *testing.T, a *model.Artifact) []string {
	t.Helper()
	if a == nil {
		t.Fatal("the notebook was not reported")
	}
	s := a.Attr(model.AttrSecrets)
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// One credential printed several times is one credential: the AWS key id
// in the cell that set it and again in the text/plain and text/html parts
// of one output, the service-account key printed as a key file and again
// as a Python dict. The access key id and the secret access key set next
// to it are one credential naming both parts. gitleaks' private-key and
// generic-api-key findings of the same values are not counted again.
func TestOneCredentialIsCountedOnce(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "bf-7001_fix.ipynb", v4(nil,
		code("aws_access_key_id = '"+canaryAWS+"'\naws_secret_access_key = '"+canaryAWSSecret+"'\n"),
		code("session.get_credentials().access_key\n", result(map[string]any{
			"text/plain": "'" + canaryAWS + "'",
			"text/html":  "<pre>" + canaryAWS + "</pre>",
		})),
		code("print(open('key.json').read())\ncreds\n",
			stream(serviceAccountJSON()+"\n"),
			result(map[string]any{"text/plain": strings.ReplaceAll(serviceAccountJSON(), `"`, `'`)})),
	))
	sink := collect(t, fileCollector(t, dir, "."))
	lines := secretLines(t, sink.Artifact("notebooks:///bf-7001_fix.ipynb"))
	want := []string{
		"aws-key-pair\tcell 1 source line 1, cell 2 output 1 text/html line 1, cell 2 output 1 text/plain line 1 (access key id); cell 1 source line 2 (secret access key)\t" + model.ShortHash(canaryAWS),
		"gcp-service-account-key\tcell 3 output 1 stdout line 1, cell 3 output 2 text/plain line 1\t",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d credentials, want %d (one AWS key pair, one service-account key):\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("credential %d:\n got %q\nwant %q", i+1, lines[i], w)
		}
	}
	// The pair's key is named by its id's hash, so BF022 can ask AWS IAM
	// whether it is still active; the id itself is not shown.
	if got, want := sink.Artifact("notebooks:///bf-7001_fix.ipynb").Attr(model.AttrAWSKeys), model.ShortHash(canaryAWS); got != want {
		t.Errorf("aws_keys = %q, want %q", got, want)
	}
	noCanary(t, sink)
}

// Two different keys are two credentials, each counted once however often
// it appears; a secret access key with no key id near it is a credential
// of its own; AWS's documentation example key pair is a placeholder.
func TestDistinctCredentialsAreCountedApart(t *testing.T) {
	const otherKey = "AKIALALEMEL33243OLIB" // gitleaks' own test value
	dir := t.TempDir()
	write(t, dir, "bf-7001_two.ipynb", v4(nil,
		code("a = '"+canaryAWS+"'\nb = '"+otherKey+"'\n"),
		code("print(a, b)\n", stream(canaryAWS+" "+otherKey+"\n")),
		code("os.environ['AWS_SECRET_ACCESS_KEY'] = '"+canaryAWSSecret+"'\n"),
		code("aws_access_key_id = 'AKIAIOSFODNN7EXAMPLE'\naws_secret_access_key = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'\n"),
	))
	sink := collect(t, fileCollector(t, dir, "."))
	lines := secretLines(t, sink.Artifact("notebooks:///bf-7001_two.ipynb"))
	want := []string{
		"aws-access-token\tcell 1 source line 1, cell 2 output 1 stdout line 1\t" + model.ShortHash(canaryAWS),
		"aws-access-token\tcell 1 source line 2, cell 2 output 1 stdout line 1\t" + model.ShortHash(otherKey),
		"aws-secret-access-key\tcell 3 source line 1\t" + model.ShortHash(canaryAWSSecret),
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("credentials:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// An access key id with no secret next to it is not a key anyone can
	// use: it is not listed among the keys to check.
	if got := sink.Artifact("notebooks:///bf-7001_two.ipynb").Attr(model.AttrAWSKeys); got != "" {
		t.Errorf("aws_keys = %q, want none (no pair)", got)
	}
	noCanary(t, sink)
}

// Where a credential is names the cell, its source or which output, and
// the output's part: the stream, the MIME type of its data, its error;
// the notebook's metadata by itself. Lines count within that part.
func TestWhereNamesTheCellOutputAndPart(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "bf-7001_where.ipynb", v4(map[string]any{"token": "aws_access_key_id=" + canaryAWS},
		map[string]any{"cell_type": "markdown", "metadata": map[string]any{}, "source": "notes\n\nkey " + canaryAWS},
		code("run()\n",
			map[string]any{"output_type": "stream", "name": "stderr", "text": []string{"warning\n", "key=" + canaryAWS + "\n"}},
			map[string]any{"output_type": "display_data", "metadata": map[string]any{}, "data": map[string]any{
				"text/markdown": "a\nb\n" + canaryAWS, "image/png": "aws_access_key_id=" + canaryAWS}},
			map[string]any{"output_type": "error", "ename": "AuthError", "evalue": "bad key", "traceback": []string{"Traceback", "  key " + canaryAWS}}),
	))
	sink := collect(t, fileCollector(t, dir, "."))
	lines := secretLines(t, sink.Artifact("notebooks:///bf-7001_where.ipynb"))
	// The metadata is as the file keeps it, indented: its line 2.
	want := "aws-access-token\tmetadata line 2, cell 1 source line 3, cell 2 output 1 stderr line 2, cell 2 output 2 text/markdown line 3, cell 2 output 3 error line 3\t" + model.ShortHash(canaryAWS)
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("credentials:\n%s\nwant:\n%s", strings.Join(lines, "\n"), want)
	}
	noCanary(t, sink)
}

// nbformat 3 names its parts the same way: pyout's text is text/plain,
// its html text/html, a stream its stream name.
func TestWhereInNBFormat3(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "bf-7001-v3.ipynb", []byte(`{"nbformat": 3, "nbformat_minor": 0, "metadata": {"name": "fix"},
	 "worksheets": [{"cells": [
	  {"cell_type": "code", "input": "x = 1", "language": "python", "outputs": [
	   {"output_type": "stream", "stream": "stdout", "text": "ok\nkey `+canaryAWS+`\n"},
	   {"output_type": "pyout", "prompt_number": 1, "text": ["ok"], "html": ["<b>`+canaryAWS+`</b>"]}]}
	 ]}]}`))
	sink := collect(t, fileCollector(t, dir, "."))
	lines := secretLines(t, sink.Artifact("notebooks:///bf-7001-v3.ipynb"))
	want := "aws-access-token\tcell 1 output 1 stdout line 2, cell 1 output 2 text/html line 1\t" + model.ShortHash(canaryAWS)
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("credentials:\n%s\nwant:\n%s", strings.Join(lines, "\n"), want)
	}
}

// nbformat 2 (IPython 0.12 and 0.13) keeps v3's shapes: it is read the
// same way; a version no Jupyter wrote is an error at its file.
func TestFilesReadNBFormat2(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "bf-7001-v2.ipynb", []byte(`{"nbformat": 2, "metadata": {"name": "fix"}, "worksheets": [{"cells": [
	  {"cell_type": "code", "collapsed": false, "input": "print key", "language": "python", "prompt_number": 1,
	   "outputs": [{"output_type": "stream", "stream": "stdout", "text": "`+canaryAWS+`\n"}]}]}]}`))
	write(t, dir, "bf-7001-v9.ipynb", []byte(`{"nbformat": 9, "cells": []}`))
	sink := collect(t, fileCollector(t, dir, "."))
	lines := secretLines(t, sink.Artifact("notebooks:///bf-7001-v2.ipynb"))
	if want := "aws-access-token\tcell 1 output 1 stdout line 1\t" + model.ShortHash(canaryAWS); len(lines) != 1 || lines[0] != want {
		t.Errorf("credentials %q, want %q", lines, want)
	}
	if len(sink.Errors) != 1 || sink.Errors[0].Scope != "bf-7001-v9.ipynb" || !strings.Contains(sink.Errors[0].Error, "nbformat 9: only versions 2, 3 and 4") {
		t.Errorf("errors %+v", sink.Errors)
	}
}

// Lines saved without their newlines (IPython 0.12 to 1.x) are lines all
// the same, as nbformat joins them: a credential on the fifth is on line
// 5, and two lines never run into one.
func TestLinesWithoutNewlines(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "bf-7001-old.ipynb", []byte(`{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": [
	  {"cell_type": "code", "input": ["import os", "key = '`+canaryAWS+`'"], "language": "python", "outputs": [
	   {"output_type": "stream", "stream": "stdout", "text": ["{", "  \"ip\": \"127.0.0.1\", ", "  \"transport\": \"tcp\", ", "  \"signature_scheme\": \"hmac-sha256\", ", "  \"aws\": \"`+canaryAWS+`\"", "}"]}]}
	 ]}]}`))
	sink := collect(t, fileCollector(t, dir, "."))
	lines := secretLines(t, sink.Artifact("notebooks:///bf-7001-old.ipynb"))
	if want := "aws-access-token\tcell 1 source line 2, cell 1 output 1 stdout line 5\t" + model.ShortHash(canaryAWS); len(lines) != 1 || lines[0] != want {
		t.Errorf("credentials %q, want %q", lines, want)
	}
}
