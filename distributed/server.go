package distributed

import (
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Users are the parties a deployment's server lets in: the
// coordinator's public key and the workers' (nkey users, "U…"), with
// the deployment's prefix ("veriformer" when empty) that their
// permissions name.
type Users struct {
	Prefix      string
	Coordinator string
	Workers     []string
}

// workerSubjects are the subjects a worker may publish to and subscribe
// to: results, its pulls and acknowledgements of jobs, reads of both
// object stores and writes to the workers' outputs, and the JetStream
// requests these take (no job, no write to the coordinator's inputs, no
// stream's update or deletion, no purge but the outputs'). Everything
// else is denied.
func workerSubjects(prefix string) (publish, subscribe []string) {
	jobs, results := upper(prefix)+"_JOBS", upper(prefix)+"_RESULTS"
	inputs, outputs := "OBJ_"+inputsBucket(prefix), "OBJ_"+outputsBucket(prefix)
	publish = []string{
		prefix + ".results.>",
		"$JS.API.INFO",
		"$JS.API.CONSUMER.CREATE." + jobs + ".>", "$JS.API.CONSUMER.DURABLE.CREATE." + jobs + ".>",
		"$JS.API.CONSUMER.INFO." + jobs + ".>", "$JS.API.CONSUMER.MSG.NEXT." + jobs + ".>",
		"$JS.ACK." + jobs + ".>",
		"$JS.API.STREAM.PURGE." + outputs,
		"$O." + outputsBucket(prefix) + ".>",
		"$JS.FC.>",
	}
	for _, stream := range []string{jobs, results, inputs, outputs} {
		publish = append(publish, "$JS.API.STREAM.INFO."+stream, "$JS.API.STREAM.CREATE."+stream)
	}
	for _, stream := range []string{inputs, outputs} {
		publish = append(publish, "$JS.API.CONSUMER.CREATE."+stream+".>", "$JS.API.CONSUMER.DELETE."+stream+".>",
			"$JS.API.DIRECT.GET."+stream+".>", "$JS.API.STREAM.MSG.GET."+stream)
	}
	return publish, []string{"_INBOX.>"}
}

// nkeyUsers returns the server's users of u.
func (u *Users) nkeyUsers() []*server.NkeyUser {
	prefix := u.Prefix
	if prefix == "" {
		prefix = "veriformer"
	}
	pub, sub := workerSubjects(prefix)
	users := []*server.NkeyUser{{Nkey: u.Coordinator}}
	for _, w := range u.Workers {
		users = append(users, &server.NkeyUser{Nkey: w, Permissions: &server.Permissions{
			Publish:   &server.SubjectPermission{Allow: pub},
			Subscribe: &server.SubjectPermission{Allow: sub},
		}})
	}
	return users
}

// Config returns the authorization block of a nats-server configuration
// file that lets the same users in, with the same permissions.
func (u *Users) Config() string {
	prefix := u.Prefix
	if prefix == "" {
		prefix = "veriformer"
	}
	pub, sub := workerSubjects(prefix)
	quote := func(subjects []string) string {
		q := make([]string, len(subjects))
		for i, s := range subjects {
			q[i] = fmt.Sprintf("%q", s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# The users of the deployment %q: its coordinator may publish\n", prefix)
	fmt.Fprintf(&b, "# anything; a worker its results, its pulls and acknowledgements of\n")
	fmt.Fprintf(&b, "# jobs and its outputs, never a job nor the coordinator's blobs.\n")
	fmt.Fprintf(&b, "authorization {\n  users = [\n    { nkey: %s }\n", u.Coordinator)
	for _, w := range u.Workers {
		fmt.Fprintf(&b, "    { nkey: %s, permissions: { publish: { allow: %s }, subscribe: { allow: %s } } }\n", w, quote(pub), quote(sub))
	}
	b.WriteString("  ]\n}\n")
	return b.String()
}

// Embedded is a NATS server with JetStream running in this process, its
// data in a directory: what a run uses when no external server is given.
type Embedded struct {
	s *server.Server
}

// StartEmbedded starts a NATS server with JetStream on 127.0.0.1, on
// port (0 for a free one), its streams and objects in dir, that lets in
// the users of users only (nil: anyone, for tests of a server without
// authentication), and waits until it accepts connections.
func StartEmbedded(dir string, port int, users *Users) (*Embedded, error) {
	if port == 0 {
		port = server.RANDOM_PORT
	}
	opts := &server.Options{
		ServerName: "veriformer",
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   dir,
		NoSigs:     true,
		NoLog:      true,
	}
	if users != nil {
		opts.Nkeys = users.nkeyUsers()
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("distributed: embedded server: %w", err)
	}
	s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("distributed: the embedded server did not start within 30 s")
	}
	return &Embedded{s: s}, nil
}

// URL returns the URL clients connect to.
func (e *Embedded) URL() string { return e.s.ClientURL() }

// Close shuts the server down and waits until it is down.
func (e *Embedded) Close() {
	e.s.Shutdown()
	e.s.WaitForShutdown()
}

// Local is an embedded server with identities made for it alone: a
// coordinator and its workers, the only parties the server lets in.
type Local struct {
	*Embedded
	Coordinator *Identity
	Workers     []*Identity
}

// StartLocal starts an embedded server (StartEmbedded, on a free port)
// that lets in a new coordinator named coordinator and new workers of
// the names given, certified by it.
func StartLocal(dir, coordinator string, workers ...string) (*Local, error) {
	c, err := NewCoordinator(coordinator)
	if err != nil {
		return nil, err
	}
	l := &Local{Coordinator: c}
	users := &Users{Coordinator: c.PublicKey()}
	for _, n := range workers {
		w, err := c.NewWorker(n)
		if err != nil {
			return nil, err
		}
		l.Workers = append(l.Workers, w)
		users.Workers = append(users.Workers, w.PublicKey())
	}
	if l.Embedded, err = StartEmbedded(dir, 0, users); err != nil {
		return nil, err
	}
	return l, nil
}
