package notebooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
)

// The canaries: credentials no real system issued, each unique enough that
// finding it anywhere in a test's output means it leaked.
const (
	canaryAWS   = "AKIAQ7ZBX4MJWGTK2VNS"
	canaryKeyID = "7c0ffee1d2b3a4958667f0e1d2c3b4a59687fedc"
	// canaryPEM is a service-account private key's body; canaryKeyBody is
	// its middle, the part the tests look for.
	canaryKeyBody = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDcanaryBFAUDITq9Xv2LmZr8TnYwKp3HsJdQe7FbGcUo1"
	canaryPEM     = "-----BEGIN PRIVATE KEY-----\\n" + canaryKeyBody + "\\nZx4Wc8Rt0Ny5Pm2Lk9Jh6Gf3Ds1Aq7Sw4Ed8Rf5Tg2Yh9Uj3Ik6Ol0Pz1Xc7Vb4Nm8Qa2Ws5Ed9\\n-----END PRIVATE KEY-----\\n"
)

// serviceAccountJSON is a key file as `gcloud iam service-accounts keys
// create` writes it, on one line.
func serviceAccountJSON() string {
	return `{"type": "service_account", "project_id": "ledger-prod", "private_key_id": "` + canaryKeyID +
		`", "private_key": "` + canaryPEM + `", "client_email": "bf-7001@ledger-prod.iam.gserviceaccount.com", "client_id": "1234567890"}`
}

// canaries are parts of the values that must never leave the collector:
// a piece of a key is a leak too.
var canaries = []string{canaryAWS[:12], canaryKeyBody[:24], canaryKeyBody[40:64], "BEGIN PRIVATE KEY"}

// v4 builds an nbformat 4 notebook: cells of source text, each with the
// given outputs (already JSON), and metadata.
func v4(meta map[string]any, cells ...map[string]any) []byte {
	if meta == nil {
		meta = map[string]any{}
	}
	b, _ := json.MarshalIndent(map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": meta, "cells": cells}, "", " ")
	return b
}

// code is a code cell whose source is split into lines as Jupyter saves it.
func code(src string, outputs ...map[string]any) map[string]any {
	if outputs == nil {
		outputs = []map[string]any{}
	}
	return map[string]any{"cell_type": "code", "execution_count": 1, "metadata": map[string]any{},
		"source": splitLines(src), "outputs": outputs}
}

func stream(text string) map[string]any {
	return map[string]any{"output_type": "stream", "name": "stdout", "text": splitLines(text)}
}

func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func write(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// noCanary fails when a canary appears in the sink (artifacts, errors) or
// in the texts given.
func noCanary(t *testing.T, sink *collectors.TestSink, texts ...string) {
	t.Helper()
	out, err := json.Marshal(sink)
	if err != nil {
		t.Fatal(err)
	}
	all := append([]string{string(out)}, texts...)
	for _, s := range all {
		for _, c := range canaries {
			if strings.Contains(s, c) {
				t.Errorf("the secret %q leaked into: %.300s", c, s)
			}
		}
	}
}
