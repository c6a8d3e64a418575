package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/veriformer/veriformer/distributed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/setup"
)

// parseSize parses a memory size: a number of bytes, or of KiB, MiB,
// GiB or TiB with the suffix K, M, G or T (an optional "iB" or "B"
// after it).
func parseSize(s string) (uint64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	shift := 0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			shift = 10
		case 'M':
			shift = 20
		case 'G':
			shift = 30
		case 'T':
			shift = 40
		}
		if shift > 0 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseUint(t, 10, 64)
	if err != nil || v == 0 || v > (1<<63)>>shift {
		return 0, fmt.Errorf("a memory size %q: want a positive number of bytes, or with K, M, G or T (16G)", s)
	}
	return v << shift, nil
}

// runWorker is prove worker: a worker of a distributed run's jobs until
// it is interrupted.
func runWorker(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("prove worker", flag.ContinueOnError)
	url := fs.String("nats", "", "NATS server URL, or the URLs of a cluster's nodes separated by commas (required)")
	creds := fs.String("credentials", "", "the worker's identity file, from prove credentials (required; $"+credentialsEnv+" names it when the flag is not given): the server lets the worker in by its key, the worker runs only the jobs its coordinator signed and signs its results")
	insecure := fs.Bool("insecure", false, "work for a NATS server that lets anyone in (no authentication): anyone reaching it can read, delay and delete jobs and blobs")
	trusted := fs.String("trusted-cache", "", "a trusted key cache (a coordinator's on this machine) to read compiled circuits and keys from, never written; keys there are used only at the digests a job pins")
	memory := fs.String("max-memory", "", "take only the jobs whose estimated peak fits this much memory (16G); default: every job")
	cache := fs.String("cache", "", "the worker's own cache directory: circuits it compiles, models, and keys fetched from the server once and kept under fetched/, never taken for trusted keys (default: worker/ beside the key cache, $VERIFORMER_CACHE or .cache/keys in the module)")
	prefix := fs.String("prefix", "", "the deployment's stream prefix (default veriformer)")
	ackWait := fs.Duration("ack-wait", 30*time.Second, "a job whose worker shows no sign of life this long goes to another worker (the worker signals every third of it)")
	preload := fs.String("model", "", "a model to load before the first job needs it, as prove's --model names it (a built-in name or a directory); jobs of other models are taken too")
	bos := fs.String("bos", "auto", "with --model DIR: its tokenizer's beginning-of-sequence mode, as prove's --bos")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: prove worker --nats URL --credentials FILE [flags]\n\nTakes the jobs of distributed runs (prove --workers, prove --nats) from a NATS JetStream server and proves them.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *url == "" {
		return errors.New("prove worker needs --nats URL")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("prove worker takes no arguments, got %q", fs.Args())
	}
	if *creds == "" {
		*creds = os.Getenv(credentialsEnv)
	}
	if *creds == "" {
		return errors.New("prove worker needs --credentials FILE, a worker's identity (prove credentials)")
	}
	id, err := distributed.ReadIdentity(*creds)
	if err != nil {
		return err
	}
	if id.Role != distributed.RoleWorker {
		return fmt.Errorf("%s is a %s's identity, not a worker's", *creds, id.Role)
	}
	if *cache == "" {
		dir, err := setup.DefaultCacheDir()
		if err != nil {
			return err
		}
		*cache = filepath.Join(filepath.Dir(dir), "worker")
	}
	var max uint64
	if *memory != "" {
		var err error
		if max, err = parseSize(*memory); err != nil {
			return err
		}
	}
	q, err := distributed.Connect(ctx, *url, distributed.Config{Prefix: *prefix, AckWait: *ackWait, Identity: id, Insecure: *insecure, Log: os.Stderr})
	if err != nil {
		return err
	}
	defer q.Close()
	cfg := pipeline.WorkerConfig{CacheDir: *cache, TrustedDir: *trusted, Log: os.Stdout}
	if *preload != "" {
		src, err := model.ParseSource(*preload, "")
		if err != nil {
			return err
		}
		mode, err := tokenizer.ParseBOSMode(*bos)
		if err != nil {
			return err
		}
		cfg.ModelName = src.Builtin
		cfg.Model = func() (*model.Model, error) { return src.Load(mode) }
	}
	handlers, err := pipeline.WorkerHandlers(cfg)
	if err != nil {
		return err
	}
	fmt.Printf("worker %s: taking jobs from %s, signed by coordinator %s\n", id.Name, *url, id.Coordinator)
	w := &distributed.Worker{Queue: q, Name: id.Name, Memory: max, Handlers: handlers, Log: os.Stdout}
	return w.Run(ctx)
}

// credentialsEnv names the environment variable that gives a worker's
// identity file when --credentials does not.
const credentialsEnv = "VERIFORMER_CREDENTIALS"

// localWorkers is a run's own embedded server with worker processes,
// and the run's identity on it.
type localWorkers struct {
	server   *distributed.Embedded
	procs    []*exec.Cmd
	identity *distributed.Identity
	secrets  string
}

// startLocal starts an embedded NATS server with JetStream, its data in
// the key cache's nats directory, that lets in this run and the n worker
// processes (this program, prove worker) it starts on it, with
// identities made for this run alone; their output goes to stdout. The
// workers read the run's key cache, never writing there: each has a
// cache of its own under workers/ beside it.
func startLocal(n int, cache string, src model.Source) (*localWorkers, error) {
	dir, err := keyCacheDirOf(cache)
	if err != nil {
		return nil, err
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("local-%d", i+1)
	}
	e, err := distributed.StartLocal(filepath.Join(dir, "nats"), "local", names...)
	if err != nil {
		return nil, err
	}
	l := &localWorkers{server: e.Embedded, identity: e.Coordinator}
	// The workers' identities, readable by this user alone, for the
	// run's time.
	if l.secrets, err = os.MkdirTemp("", "veriformer-workers-*"); err != nil {
		l.stop()
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		l.stop()
		return nil, err
	}
	for _, w := range e.Workers {
		path := filepath.Join(l.secrets, w.Name+".json")
		if err := w.WriteFile(path); err != nil {
			l.stop()
			return nil, err
		}
		// The run's model, loaded while the run sets up its keys.
		cmd := exec.Command(self, "worker", "--nats", e.URL(), "--credentials", path, "--cache", filepath.Join(filepath.Dir(dir), "workers", w.Name),
			"--trusted-cache", dir, "--model", src.String(), "--bos", *modelFlags.BOS)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			l.stop()
			return nil, fmt.Errorf("start worker %s: %w", w.Name, err)
		}
		l.procs = append(l.procs, cmd)
	}
	return l, nil
}

// stop interrupts the workers, waits for them (killing one that does not
// end within 10 s) and shuts the server down.
func (l *localWorkers) stop() {
	for _, p := range l.procs {
		_ = p.Process.Signal(os.Interrupt)
	}
	for _, p := range l.procs {
		done := make(chan struct{})
		go func() { _ = p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.Process.Kill()
			<-done
		}
	}
	l.server.Close()
	if l.secrets != "" {
		os.RemoveAll(l.secrets)
	}
}

// keyCacheDirOf is the key cache of --cache: the flag's, else the
// default.
func keyCacheDirOf(cache string) (string, error) {
	if cache != "" {
		return cache, nil
	}
	return setup.DefaultCacheDir()
}

// checkWorkerFlags checks --workers and --nats: the aggregated design,
// one of the two, no conversation's turn.
func checkWorkerFlags(design pipeline.Design, set map[string]bool) error {
	if (set["credentials"] || set["insecure"]) && !set["nats"] {
		return errors.New("--credentials and --insecure are the coordinator's on the server of --nats: add --nats URL (--workers makes its own)")
	}
	if !set["workers"] && !set["nats"] {
		return nil
	}
	switch {
	case *workersFlag < 0:
		return errors.New("--workers must be at least 0")
	case set["workers"] && set["nats"]:
		return errors.New("--workers starts a server of its own: drop --nats, or --workers to use the server at --nats")
	case design != pipeline.Aggregated:
		return errors.New("--workers and --nats run the aggregated design's jobs: add --design aggregated")
	}
	return nil
}

// workersQueue connects to the jobs' server of --nats, or starts the
// local server and workers of --workers, which load the run's model src
// while the run sets up; nil without either. done releases them.
func workersQueue(ctx context.Context, src model.Source) (*distributed.Queue, func(), error) {
	switch {
	case *natsFlag != "":
		if *credentialsFlag == "" {
			return nil, nil, errors.New("--nats needs --credentials FILE, the coordinator's identity (prove credentials)")
		}
		id, err := distributed.ReadIdentity(*credentialsFlag)
		if err != nil {
			return nil, nil, err
		}
		if id.Role != distributed.RoleCoordinator {
			return nil, nil, fmt.Errorf("%s is a %s's identity, not a coordinator's", *credentialsFlag, id.Role)
		}
		q, err := distributed.Connect(ctx, *natsFlag, distributed.Config{Identity: id, Insecure: *insecureFlag, Log: os.Stderr})
		if err != nil {
			return nil, nil, err
		}
		fmt.Printf("jobs: on the workers of %s\n", *natsFlag)
		return q, q.Close, nil
	case *workersFlag > 0:
		l, err := startLocal(*workersFlag, *keyFlags.Cache, src)
		if err != nil {
			return nil, nil, err
		}
		q, err := distributed.Connect(ctx, l.server.URL(), distributed.Config{Identity: l.identity, Log: os.Stderr})
		if err != nil {
			l.stop()
			return nil, nil, err
		}
		fmt.Printf("jobs: on %d local workers, server %s\n", *workersFlag, l.server.URL())
		return q, func() { q.Close(); l.stop() }, nil
	}
	return nil, func() {}, nil
}
