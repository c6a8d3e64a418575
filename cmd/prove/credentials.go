package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

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
	var hostList []string
	if *hosts != "" {
		hostList = strings.Split(*hosts, ",")
	}
	c, err := distributed.WriteCredentials(*out, *workers, *prefix, hostList)
	if err != nil {
		return err
	}
	fmt.Printf("credentials of a coordinator and %d workers in %s (coordinator %s)\n", *workers, *out, c.PublicKey())
	return nil
}
