package distributed

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Embedded is a NATS server with JetStream running in this process, its
// data in a directory: what a run uses when no external server is given.
type Embedded struct {
	s *server.Server
}

// StartEmbedded starts a NATS server with JetStream on 127.0.0.1, on
// port (0 for a free one), its streams and objects in dir, and waits
// until it accepts connections.
func StartEmbedded(dir string, port int) (*Embedded, error) {
	if port == 0 {
		port = server.RANDOM_PORT
	}
	s, err := server.NewServer(&server.Options{
		ServerName: "veriformer",
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   dir,
		NoSigs:     true,
		NoLog:      true,
	})
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
