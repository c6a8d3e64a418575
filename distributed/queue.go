package distributed

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Config names a deployment's streams and sets their delivery.
type Config struct {
	// Prefix starts every stream, subject, consumer and bucket name
	// ("veriformer" when empty).
	Prefix string
	// AckWait is how long a job stays with a worker that sends no sign
	// of life before it is delivered again (30 s when 0).
	AckWait time.Duration
	// MaxDeliver bounds a job's deliveries (5 when 0).
	MaxDeliver int
	// Replicas is the streams' replicas: 1, or 3 on a cluster so that a
	// node may die. When 0: 3 when the server knows of at least three
	// servers (a cluster), else 1.
	Replicas int
	// Identity is the party connecting: the server authenticates it by
	// its key, and it signs what it publishes (required).
	Identity *Identity
	// Insecure lets the party use a server that lets anyone in
	// (authentication off): anyone who reaches such a server can read,
	// delay and delete jobs and blobs. Without it such a server is
	// refused.
	Insecure bool
	// Log receives the client's asynchronous errors, a permission the
	// server denied among them (nil for none).
	Log io.Writer
}

// prefix is a deployment prefix: a subject token that is also a stream
// and bucket name once upper-cased or suffixed.
var prefix = regexp.MustCompile(`^[a-z0-9]{1,32}$`)

func (c *Config) defaults() error {
	if c.Prefix == "" {
		c.Prefix = "veriformer"
	}
	if !prefix.MatchString(c.Prefix) {
		return fmt.Errorf("distributed: prefix %q: want 1 to 32 lowercase letters or digits", c.Prefix)
	}
	if c.AckWait == 0 {
		c.AckWait = 30 * time.Second
	}
	if c.MaxDeliver == 0 {
		c.MaxDeliver = 5
	}
	if c.Identity == nil || c.Identity.kp == nil {
		return errors.New("distributed: a connection needs an identity (ParseIdentity, NewCoordinator)")
	}
	if c.AckWait < time.Second || c.MaxDeliver < 1 || c.Replicas < 0 || c.Replicas > 5 {
		return fmt.Errorf("distributed: ack wait %v, %d deliveries, %d replicas", c.AckWait, c.MaxDeliver, c.Replicas)
	}
	return nil
}

// Queue is a connection to a deployment's streams and blobs.
type Queue struct {
	cfg Config
	nc  *nats.Conn
	js  jetstream.JetStream
	// inputs holds the coordinator's blobs, which workers may read and
	// not write; outputs the workers' (their jobs' outputs).
	inputs, outputs jetstream.ObjectStore
	// insecure is set when the server lets anyone in.
	insecure bool
}

// Connect connects to the NATS server (or cluster: URLs separated by
// commas) at url and creates the deployment's streams and object store
// when they do not exist. The connection reconnects without end: a
// server that restarts, or a node of a cluster that dies, does not end
// it.
func Connect(ctx context.Context, url string, cfg Config) (*Queue, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	id := cfg.Identity
	opts := []nats.Option{nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond), nats.Name(cfg.Prefix + " " + id.Role + " " + id.Name)}
	if id.CA != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(id.CA)) {
			return nil, errors.New("distributed: the identity's CA holds no certificate")
		}
		opts = append(opts, nats.Secure(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}))
	}
	if cfg.Log != nil {
		opts = append(opts, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			fmt.Fprintf(cfg.Log, "%s %s: NATS: %v\n", id.Role, id.Name, err)
		}))
	}
	nc, err := nats.Connect(url, append(opts, nats.Nkey(id.PublicKey(), id.kp.Sign))...)
	if errors.Is(err, nats.ErrNkeysNotSupported) {
		// A server without users: nothing to sign in with.
		if !cfg.Insecure {
			return nil, insecureServer(url)
		}
		nc, err = nats.Connect(url, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("distributed: connect to %s as %s %s: %w", url, id.Role, id.Name, err)
	}
	if !nc.AuthRequired() && !cfg.Insecure {
		nc.Close()
		return nil, insecureServer(url)
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
		if len(nc.Servers()) >= 3 {
			cfg.Replicas = 3
		}
	}
	q := &Queue{cfg: cfg, nc: nc, insecure: !nc.AuthRequired()}
	// A cluster just started elects its leaders for a few seconds, and
	// clients that create the same streams at once wait on each other:
	// try again for up to a minute.
	deadline := time.Now().Add(time.Minute)
	for {
		err := q.setup(ctx)
		if err == nil {
			return q, nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			nc.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// insecureServer is the error of a server without authentication.
func insecureServer(url string) error {
	return fmt.Errorf("distributed: the NATS server at %s lets anyone in (no authentication): whoever reaches it can read, delay and delete jobs and blobs; give it users (prove credentials, docs/distributed.md) or accept that with --insecure", url)
}

// setup creates or updates the streams and the object store; a worker,
// which may not update them, creates those that do not exist yet and
// uses the others as they are.
func (q *Queue) setup(ctx context.Context) error {
	var err error
	if q.js, err = jetstream.New(q.nc); err != nil {
		return fmt.Errorf("distributed: %w", err)
	}
	coordinator := q.cfg.Identity.Role == RoleCoordinator
	p := q.cfg.Prefix
	for _, s := range []jetstream.StreamConfig{
		{Name: q.jobsStream(), Subjects: []string{p + ".jobs.>"}, Retention: jetstream.WorkQueuePolicy},
		{Name: q.resultsStream(), Subjects: []string{p + ".results.>"}, Retention: jetstream.LimitsPolicy},
	} {
		s.Storage, s.Replicas, s.Duplicates = jetstream.FileStorage, q.cfg.Replicas, 10*time.Minute
		if coordinator {
			_, err = q.js.CreateOrUpdateStream(ctx, s)
		} else if _, err = q.js.Stream(ctx, s.Name); errors.Is(err, jetstream.ErrStreamNotFound) {
			if _, err = q.js.CreateStream(ctx, s); errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				err = nil
			}
		}
		if err != nil {
			return fmt.Errorf("distributed: stream %s: %w", s.Name, err)
		}
	}
	for _, b := range []struct {
		name  string
		store *jetstream.ObjectStore
	}{{inputsBucket(p), &q.inputs}, {outputsBucket(p), &q.outputs}} {
		bucket := jetstream.ObjectStoreConfig{Bucket: b.name, Storage: jetstream.FileStorage, Replicas: q.cfg.Replicas}
		var os jetstream.ObjectStore
		if coordinator {
			os, err = q.js.CreateOrUpdateObjectStore(ctx, bucket)
		} else if os, err = q.js.ObjectStore(ctx, bucket.Bucket); errors.Is(err, jetstream.ErrBucketNotFound) {
			if os, err = q.js.CreateObjectStore(ctx, bucket); errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) || errors.Is(err, jetstream.ErrBucketExists) {
				os, err = q.js.ObjectStore(ctx, bucket.Bucket)
			}
		}
		if err != nil {
			return fmt.Errorf("distributed: object store %s: %w", b.name, err)
		}
		*b.store = os
	}
	return nil
}

// The object stores of a deployment: the coordinator's inputs, the
// workers' outputs.
func inputsBucket(prefix string) string  { return prefix + "-blobs" }
func outputsBucket(prefix string) string { return prefix + "-outputs" }

// own returns the object store this party writes to.
func (q *Queue) own() jetstream.ObjectStore {
	if q.cfg.Identity.Role == RoleCoordinator {
		return q.inputs
	}
	return q.outputs
}

// find returns the object store that holds the object of that name and
// its record: the coordinator's inputs first (which only a coordinator
// writes on a server with users), then the workers' outputs.
func (q *Queue) find(ctx context.Context, name string) (jetstream.ObjectStore, *jetstream.ObjectInfo, error) {
	info, err := q.inputs.GetInfo(ctx, name)
	if err == nil {
		return q.inputs, info, nil
	}
	if !errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, nil, err
	}
	info, err = q.outputs.GetInfo(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	return q.outputs, info, nil
}

func (q *Queue) jobsStream() string    { return upper(q.cfg.Prefix) + "_JOBS" }
func (q *Queue) resultsStream() string { return upper(q.cfg.Prefix) + "_RESULTS" }

// upper upper-cases an ASCII prefix.
func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// Close closes the connection.
func (q *Queue) Close() { q.nc.Close() }

// partSize is the size of the parts a large blob is stored in: the
// object store sends an object's chunks without waiting, and a
// replicated stream refuses a burst of hundreds of megabytes.
const partSize = 8 << 20

// Put stores data as a blob and returns its name ([Blob]). A blob of
// that name already stored is read back and checked: one whose bytes
// are not those of its name (a name squatted by whoever could write to
// the store first) is overwritten. A blob larger than 8 MiB is stored
// as parts of 8 MiB (objects named <blob>.<i>) after which the object
// of its name records their number.
func (q *Queue) Put(ctx context.Context, data []byte) (string, error) {
	n := Blob(data)
	if ok, err := q.stored(ctx, n, int64(len(data))); err != nil || ok {
		return n, err
	}
	if len(data) <= partSize {
		if err := q.putObject(ctx, n, data, nil); err != nil {
			return "", err
		}
		return n, nil
	}
	parts := (len(data) + partSize - 1) / partSize
	for i := range parts {
		part := data[i*partSize : min(len(data), (i+1)*partSize)]
		if err := q.putObject(ctx, fmt.Sprintf("%s.%d", n, i), part, nil); err != nil {
			return "", err
		}
	}
	if err := q.putObject(ctx, n, nil, map[string]string{"parts": fmt.Sprint(parts)}); err != nil {
		return "", err
	}
	return n, nil
}

// stored reports whether the blob of that name and size is stored in
// this party's object store with the bytes of its name. An object of
// that name in the coordinator's inputs, on a server with users, was
// put by a coordinator: it is taken as stored. Any other is read back
// (part by part, never whole in memory); a blob stored otherwise (a
// squatted name) is reported as absent, to be overwritten.
func (q *Queue) stored(ctx context.Context, blob string, size int64) (bool, error) {
	own := q.own()
	err := retry(ctx, func() error {
		_, err := own.GetInfo(ctx, blob)
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			return permanent{err}
		}
		return err
	})
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("distributed: blob %s: %w", blob, err)
	}
	if own == q.inputs && !q.insecure {
		return true, nil
	}
	err = q.readFrom(ctx, own, blob, size, io.Discard)
	if errors.Is(err, ErrBadBlob) || errors.Is(err, jetstream.ErrObjectNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// putObject stores one object, again after a pause when the server
// refuses it (a burst on a replicated stream's ingest, a stream without
// a leader while a cluster elects one), as [retry] does: a put of the
// same name and bytes is idempotent.
func (q *Queue) putObject(ctx context.Context, name string, data []byte, meta map[string]string) error {
	err := retry(ctx, func() error {
		_, err := q.own().Put(ctx, jetstream.ObjectMeta{Name: name, Metadata: meta}, bytes.NewReader(data))
		return err
	})
	if err == nil {
		return nil
	}
	return fmt.Errorf("distributed: put blob %s: %w", name, err)
}

// ErrBadBlob is the error of a blob whose stored bytes are not those of
// its name, or more than its reader allows: refused, not read again.
var ErrBadBlob = errors.New("distributed: a bad blob")

// readObject writes the bytes of one object of store to w, refusing a
// link and an object over max bytes before reading it, and reading no
// more than max+1 bytes of it whatever its record says.
func readObject(ctx context.Context, store jetstream.ObjectStore, name string, max int64, w io.Writer) (int64, error) {
	info, err := store.GetInfo(ctx, name)
	if err != nil {
		return 0, fmt.Errorf("distributed: get blob %s: %w", name, err)
	}
	if info.Opts != nil && info.Opts.Link != nil {
		return 0, fmt.Errorf("%w: %s is a link", ErrBadBlob, name)
	}
	if info.Size > uint64(max) {
		return 0, fmt.Errorf("%w: %s holds %d bytes, at most %d expected", ErrBadBlob, name, info.Size, max)
	}
	if info.Size == 0 {
		return 0, nil
	}
	r, err := store.Get(ctx, name)
	if err != nil {
		return 0, fmt.Errorf("distributed: get blob %s: %w", name, err)
	}
	defer r.Close()
	n, err := io.Copy(w, io.LimitReader(r, max+1))
	if n > max {
		return n, fmt.Errorf("%w: %s holds more than %d bytes", ErrBadBlob, name, max)
	}
	if err != nil && !errors.Is(err, jetstream.ErrDigestMismatch) {
		// A digest mismatch of the store's own record is found by the
		// caller's check of the blob's name.
		return n, fmt.Errorf("distributed: get blob %s: %w", name, err)
	}
	return n, nil
}

// read writes the blob of that name (its parts in order, from the
// object store that holds it) to w, at most max bytes of it, and checks
// that its bytes have that digest.
func (q *Queue) read(ctx context.Context, blob string, max int64, w io.Writer) error {
	if !blobName.MatchString(blob) {
		return fmt.Errorf("distributed: %q is not a blob name", blob)
	}
	store, _, err := q.find(ctx, blob)
	if err != nil {
		return fmt.Errorf("distributed: get blob %s: %w", blob, err)
	}
	return q.readFrom(ctx, store, blob, max, w)
}

// readFrom is read from one object store.
func (q *Queue) readFrom(ctx context.Context, store jetstream.ObjectStore, blob string, max int64, w io.Writer) error {
	if max < 0 {
		return fmt.Errorf("distributed: blob %s: a bound of %d bytes", blob, max)
	}
	info, err := store.GetInfo(ctx, blob)
	if err != nil {
		return fmt.Errorf("distributed: get blob %s: %w", blob, err)
	}
	h := sha256.New()
	w = io.MultiWriter(w, h)
	if p, ok := info.Metadata["parts"]; ok {
		parts, err := strconv.Atoi(p)
		if err != nil || parts < 1 || int64(parts-1)*partSize >= max {
			return fmt.Errorf("%w: blob %s: %q parts of %d bytes for at most %d bytes", ErrBadBlob, blob, p, partSize, max)
		}
		left := max
		for i := range parts {
			n, err := readObject(ctx, store, fmt.Sprintf("%s.%d", blob, i), min(left, partSize), w)
			if err != nil {
				return fmt.Errorf("blob %s, part %d: %w", blob, i, err)
			}
			left -= n
		}
	} else if _, err := readObject(ctx, store, blob, max, w); err != nil {
		return err
	}
	if hex.EncodeToString(h.Sum(nil)) != blob {
		return fmt.Errorf("%w: blob %s holds bytes of another digest", ErrBadBlob, blob)
	}
	return nil
}

// Get reads the blob of that name (and its parts), of at most max
// bytes, and checks that its bytes have that digest. Nothing larger
// than max is allocated, whatever the store records.
func (q *Queue) Get(ctx context.Context, blob string, max int64) ([]byte, error) {
	var buf bytes.Buffer
	if err := q.read(ctx, blob, max, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// publish publishes a job, signed, on its memory class's subject and
// returns the digest of its message.
func (q *Queue) publish(ctx context.Context, j *Job) (string, error) {
	data, err := q.cfg.Identity.SignJob(j)
	if err != nil {
		return "", err
	}
	subject := fmt.Sprintf("%s.jobs.mem%d.%s.%s", q.cfg.Prefix, MemClass(j.Memory), j.Run, j.ID)
	if _, err := q.js.Publish(ctx, subject, data, jetstream.WithMsgID(fmt.Sprintf("%s.%s.%d", j.Run, j.ID, j.Attempt))); err != nil {
		return "", fmt.Errorf("distributed: publish job %s: %w", j.ID, err)
	}
	return jobDigest(data), nil
}

// publishResult publishes a worker's result of a job, signed.
func (q *Queue) publishResult(ctx context.Context, r *Result) error {
	data, err := q.cfg.Identity.SignResult(r)
	if err != nil {
		return err
	}
	subject := fmt.Sprintf("%s.results.%s.%s", q.cfg.Prefix, r.Run, r.Job)
	if _, err := q.js.Publish(ctx, subject, data, jetstream.WithMsgID(fmt.Sprintf("%s.%s.%d.%s", r.Run, r.Job, r.Attempt, r.Worker))); err != nil {
		return fmt.Errorf("distributed: publish the result of job %s: %w", r.Job, err)
	}
	return nil
}

// consumer returns the durable consumer of the jobs of a memory class.
func (q *Queue) consumer(ctx context.Context, class int) (jetstream.Consumer, error) {
	c, err := q.js.CreateOrUpdateConsumer(ctx, q.jobsStream(), jetstream.ConsumerConfig{
		Durable:       fmt.Sprintf("%s-mem%d", q.cfg.Prefix, class),
		FilterSubject: fmt.Sprintf("%s.jobs.mem%d.>", q.cfg.Prefix, class),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       q.cfg.AckWait,
		MaxDeliver:    q.cfg.MaxDeliver,
	})
	if err != nil {
		return nil, fmt.Errorf("distributed: consumer of memory class %d: %w", class, err)
	}
	return c, nil
}
