package bqfake

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// tokenPath is the fake's OAuth token endpoint, outside the API (the
// description does not hold it): a service-account key naming it as its
// token_uri authenticates against loopback.
const tokenPath = "/token"

// Token is the access token the token endpoint gives.
const Token = "bqfake-access-token"

// key is the service account's private key, made once per test binary
// (a 2048-bit key takes a while).
var key = sync.OnceValue(func() []byte {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic("bqfake: " + err.Error())
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		panic("bqfake: " + err.Error())
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
})

// Credentials writes a service-account key file whose token endpoint is
// the fake's and returns its path: set GOOGLE_APPLICATION_CREDENTIALS to
// it, and a program that reads Application Default Credentials (the CLI)
// authenticates as in production, against the fake only.
func (s *Server) Credentials(t testing.TB) string {
	b, err := json.Marshal(map[string]string{"type": "service_account", "project_id": "bqfake",
		"private_key_id": "bqfake", "private_key": string(key()), "client_id": "1",
		"client_email": "bfaudit@bqfake.iam.gserviceaccount.com", "token_uri": s.URL + tokenPath})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bqfake-service-account.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// token answers a token request (a signed JWT, which the fake does not
// check) as Google's OAuth endpoint does.
func token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.FormValue("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
		return
	}
	writeJSON(w, map[string]any{"access_token": Token, "token_type": "Bearer", "expires_in": 3600})
}
