package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/split"
)

func serve(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var (
		addrFlag     = fs.String("addr", "127.0.0.1:8470", "listen address")
		modelFlag    = fs.String("model", model.LlamaTiny, "built-in model (llama-tiny, tiny, gpt2-small-random) or directory with config.json, model.safetensors and a tokenizer")
		tokenFlag    = fs.String("token", "", "bearer token (default $"+tokenEnv+")")
		sessionsFlag = fs.Int("max-sessions", 16, "most live sessions (each holds its evaluation keys)")
		ttlFlag      = fs.Duration("session-ttl", 10*time.Minute, "idle time after which a session expires")
		logsFlag     = fs.Bool("logs", false, "log every request")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	tok, err := token(*tokenFlag)
	if err != nil {
		return err
	}
	m, err := load(*modelFlag)
	if err != nil {
		return err
	}
	cfg := split.ServerConfig{Model: m, Token: tok, MaxSessions: *sessionsFlag, SessionTTL: *ttlFlag}
	logger := log.New(os.Stderr, "split: ", log.LstdFlags)
	if *logsFlag {
		cfg.Logf = logger.Printf
	}
	s, err := split.NewServer(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addrFlag)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(os.Stderr, "split: serving %s model (%d layers, d=%d) on http://%s\n", m.Config.Family, m.Config.Layers, m.Config.Hidden, ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
