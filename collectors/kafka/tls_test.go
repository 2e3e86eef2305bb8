package kafka

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/testkit/collectortest"
)

// selfSigned returns a server certificate for 127.0.0.1 and the PEM file
// of the CA that signs it (itself).
func selfSigned(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kfake"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, ca
}

// A cluster behind TLS (a private CA, trusted through ca_file) and SASL
// SCRAM-SHA-512 is read with the source's settings; without the CA, or
// with a wrong password, the source fails and says so without the
// password.
func TestTLSAndSASL(t *testing.T) {
	cert, ca := selfSigned(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"),
		kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}),
		kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", "bfaudit", "right-pw"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	t.Setenv("TEST_KAFKA_RIGHT", "right-pw")
	t.Setenv("TEST_KAFKA_WRONG", "wrong-pw-canary")
	build := func(caFile, pwEnv string) *Kafka {
		k := New()
		k.Brokers, k.Timeout, k.CAFile = c.ListenAddrs(), 2*time.Second, caFile
		k.UseTLS = true
		k.SASL = SASL{Mechanism: MechScramSHA512, Username: "bfaudit", PasswordEnv: pwEnv}
		if err := k.Init(collectors.Env{Selector: correlate.MustSelector()}); err != nil {
			t.Fatal(err)
		}
		return k
	}
	if _, err := collectortest.Collect(t, build(ca, "TEST_KAFKA_RIGHT")); err != nil {
		t.Fatalf("with the CA and the password: %v", err)
	}
	_, err = collectortest.Collect(t, build("", "TEST_KAFKA_RIGHT"))
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA: %v, want a certificate error", err)
	}
	_, err = collectortest.Collect(t, build(ca, "TEST_KAFKA_WRONG"))
	if err == nil || strings.Contains(err.Error(), "wrong-pw-canary") {
		t.Errorf("wrong password: %v", err)
	}
}
