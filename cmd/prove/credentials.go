package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/veriformer/veriformer/distributed"
)

// runCredentials is prove credentials: a deployment's identities (a
// coordinator and its workers), the NATS server's users for them and,
// with --tls-host, a certificate authority and a server certificate.
func runCredentials(args []string) error {
	fs := flag.NewFlagSet("prove credentials", flag.ContinueOnError)
	out := fs.String("out", "", "the directory to write to (required; it must not exist yet)")
	workers := fs.Int("workers", 3, "the number of workers (w1, w2, …)")
	prefix := fs.String("prefix", "", "the deployment's stream prefix (default veriformer)")
	hosts := fs.String("tls-host", "", "host names or IP addresses, separated by commas: also write a certificate authority and a certificate of the NATS servers for them (routes and clients over TLS), and make every identity trust that authority")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: prove credentials --out DIR [flags]

Writes a deployment's credentials: coordinator.json (for prove --credentials),
worker-N.json (for prove worker --credentials), users.conf (the authorization
block of a nats-server configuration: only the coordinator may publish jobs,
a worker its results and the blobs), and with --tls-host tls/ca.pem,
tls/server.pem, tls/server-key.pem. The identity files hold secret keys
(mode 600): give each worker its own.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		return errors.New("prove credentials needs --out DIR and no arguments")
	}
	if *workers < 1 || *workers > 1000 {
		return fmt.Errorf("--workers %d: want 1 to 1000", *workers)
	}
	if _, err := os.Stat(*out); err == nil {
		return fmt.Errorf("%s exists: credentials are written into a new directory only", *out)
	}
	if err := os.MkdirAll(*out, 0o700); err != nil {
		return err
	}
	c, err := distributed.NewCoordinator("coordinator")
	if err != nil {
		return err
	}
	if *hosts != "" {
		ca, err := writeTLS(filepath.Join(*out, "tls"), strings.Split(*hosts, ","))
		if err != nil {
			return err
		}
		c.CA = ca
	}
	if err := c.WriteFile(filepath.Join(*out, "coordinator.json")); err != nil {
		return err
	}
	users := &distributed.Users{Prefix: *prefix, Coordinator: c.PublicKey()}
	for i := range *workers {
		w, err := c.NewWorker(fmt.Sprintf("w%d", i+1))
		if err != nil {
			return err
		}
		if err := w.WriteFile(filepath.Join(*out, fmt.Sprintf("worker-%d.json", i+1))); err != nil {
			return err
		}
		users.Workers = append(users.Workers, w.PublicKey())
	}
	if err := os.WriteFile(filepath.Join(*out, "users.conf"), []byte(users.Config()), 0o644); err != nil {
		return err
	}
	fmt.Printf("credentials of a coordinator and %d workers in %s (coordinator %s)\n", *workers, *out, c.PublicKey())
	return nil
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
