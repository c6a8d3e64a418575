package distributed

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteCredentials: a deployment's credentials read back as a
// coordinator and workers it certified, all trusting the new authority,
// whose server certificate it signed for the hosts given; users.conf
// names every key; secrets are private to their owner; an existing
// directory and a worker count out of bounds are refused.
func TestWriteCredentials(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "credentials")
	c, err := WriteCredentials(dir, 2, "", []string{"127.0.0.1", " nats.example "})
	if err != nil {
		t.Fatal(err)
	}
	coord, err := ReadIdentity(filepath.Join(dir, "coordinator.json"))
	if err != nil || coord.Role != RoleCoordinator || coord.PublicKey() != c.PublicKey() || coord.CA == "" {
		t.Fatalf("the coordinator read back: %+v, %v", coord, err)
	}
	users, err := os.ReadFile(filepath.Join(dir, "users.conf"))
	if err != nil || !strings.Contains(string(users), c.PublicKey()) {
		t.Fatalf("users.conf without the coordinator: %v", err)
	}
	for _, name := range []string{"worker-1.json", "worker-2.json"} {
		path := filepath.Join(dir, name)
		w, err := ReadIdentity(path)
		if err != nil || w.Role != RoleWorker || w.Coordinator != c.PublicKey() || w.CA != coord.CA {
			t.Fatalf("%s: %+v, %v", name, w, err)
		}
		if !strings.Contains(string(users), w.PublicKey()) {
			t.Errorf("users.conf does not name %s", name)
		}
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v", name, st.Mode(), err)
		}
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(coord.CA)) {
		t.Fatal("the identities' CA does not parse")
	}
	data, err := os.ReadFile(filepath.Join(dir, "tls", "server.pem"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatal("server.pem holds no PEM block")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.1", "nats.example"} {
		if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}); err != nil {
			t.Errorf("the server certificate for %s: %v", host, err)
		}
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: "other.example"}); err == nil {
		t.Error("the server certificate verifies for a host it was not made for")
	}
	if st, err := os.Stat(filepath.Join(dir, "tls", "server-key.pem")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("server-key.pem: %v, %v", st.Mode(), err)
	}
	if _, err := WriteCredentials(dir, 2, "", nil); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("an existing directory: %v", err)
	}
	for _, n := range []int{0, 1001} {
		if _, err := WriteCredentials(filepath.Join(t.TempDir(), "c"), n, "", nil); err == nil {
			t.Errorf("%d workers accepted", n)
		}
	}
	plain := filepath.Join(t.TempDir(), "plain")
	if c, err := WriteCredentials(plain, 1, "other", nil); err != nil || c.CA != "" {
		t.Fatalf("credentials without TLS: %v", err)
	}
	if _, err := os.Stat(filepath.Join(plain, "tls")); !os.IsNotExist(err) {
		t.Errorf("a tls directory without hosts: %v", err)
	}
}
