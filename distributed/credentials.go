package distributed

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WriteCredentials writes a deployment's credentials into dir, which
// must not exist yet: coordinator.json (a new coordinator's identity),
// worker-1.json … worker-N.json (workers certified by it), users.conf
// (the authorization block of a nats-server configuration for them,
// [Users.Config], with the stream prefix prefix, "" for the default)
// and, with tlsHosts (host names or IP addresses), tls/ca.pem,
// tls/server.pem and tls/server-key.pem: a new certificate authority,
// which every identity then trusts, and a certificate of the NATS
// servers for those hosts. Identity files and the server's key are
// written with mode 600. It returns the coordinator.
func WriteCredentials(dir string, workers int, prefix string, tlsHosts []string) (*Identity, error) {
	if workers < 1 || workers > 1000 {
		return nil, fmt.Errorf("distributed: %d workers: want 1 to 1000", workers)
	}
	if _, err := os.Stat(dir); err == nil {
		return nil, fmt.Errorf("distributed: %s exists: credentials are written into a new directory only", dir)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	c, err := NewCoordinator("coordinator")
	if err != nil {
		return nil, err
	}
	if len(tlsHosts) > 0 {
		if c.CA, err = writeTLS(filepath.Join(dir, "tls"), tlsHosts); err != nil {
			return nil, err
		}
	}
	if err := c.WriteFile(filepath.Join(dir, "coordinator.json")); err != nil {
		return nil, err
	}
	users := &Users{Prefix: prefix, Coordinator: c.PublicKey()}
	for i := range workers {
		w, err := c.NewWorker(fmt.Sprintf("w%d", i+1))
		if err != nil {
			return nil, err
		}
		if err := w.WriteFile(filepath.Join(dir, fmt.Sprintf("worker-%d.json", i+1))); err != nil {
			return nil, err
		}
		users.Workers = append(users.Workers, w.PublicKey())
	}
	if err := os.WriteFile(filepath.Join(dir, "users.conf"), []byte(users.Config()), 0o644); err != nil {
		return nil, err
	}
	return c, nil
}

// writeTLS writes a new certificate authority and a certificate of the
// NATS servers for hosts, signed by it, into dir, and returns the
// authority's certificate (PEM). The server certificate serves both TLS
// sides, so that the nodes of a cluster check each other with it.
func writeTLS(dir string, hosts []string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	now := time.Now()
	serial := func() *big.Int {
		n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
		return n
	}
	caTmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "veriformer deployment CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(5, 0, 0),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return "", err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return "", err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "veriformer NATS server"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(5, 0, 0),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return "", err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", err
	}
	ca := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	for _, f := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{
		{"ca.pem", []byte(ca), 0o644},
		{"server.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644},
		{"server-key.pem", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600},
	} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, f.mode); err != nil {
			return "", err
		}
	}
	return ca, nil
}
