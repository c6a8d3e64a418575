package distributed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
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
	if c.AckWait < time.Second || c.MaxDeliver < 1 || c.Replicas < 0 || c.Replicas > 5 {
		return fmt.Errorf("distributed: ack wait %v, %d deliveries, %d replicas", c.AckWait, c.MaxDeliver, c.Replicas)
	}
	return nil
}

// Queue is a connection to a deployment's streams and blobs.
type Queue struct {
	cfg   Config
	nc    *nats.Conn
	js    jetstream.JetStream
	blobs jetstream.ObjectStore
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
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond), nats.Name(cfg.Prefix))
	if err != nil {
		return nil, fmt.Errorf("distributed: connect to %s: %w", url, err)
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
		if len(nc.Servers()) >= 3 {
			cfg.Replicas = 3
		}
	}
	q := &Queue{cfg: cfg, nc: nc}
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

// setup creates or updates the streams and the object store.
func (q *Queue) setup(ctx context.Context) error {
	var err error
	if q.js, err = jetstream.New(q.nc); err != nil {
		return fmt.Errorf("distributed: %w", err)
	}
	p := q.cfg.Prefix
	for _, s := range []jetstream.StreamConfig{
		{Name: q.jobsStream(), Subjects: []string{p + ".jobs.>"}, Retention: jetstream.WorkQueuePolicy},
		{Name: q.resultsStream(), Subjects: []string{p + ".results.>"}, Retention: jetstream.LimitsPolicy},
	} {
		s.Storage, s.Replicas, s.Duplicates = jetstream.FileStorage, q.cfg.Replicas, 10*time.Minute
		if _, err := q.js.CreateOrUpdateStream(ctx, s); err != nil {
			return fmt.Errorf("distributed: stream %s: %w", s.Name, err)
		}
	}
	if q.blobs, err = q.js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: p + "-blobs", Storage: jetstream.FileStorage, Replicas: q.cfg.Replicas}); err != nil {
		return fmt.Errorf("distributed: object store: %w", err)
	}
	return nil
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

// Put stores data as a blob and returns its name ([Blob]); a blob
// already stored is not sent again. A blob larger than 8 MiB is stored
// as parts of 8 MiB (objects named <blob>.<i>) after which the object
// of its name records their number.
func (q *Queue) Put(ctx context.Context, data []byte) (string, error) {
	n := Blob(data)
	if _, err := q.blobs.GetInfo(ctx, n); err == nil {
		return n, nil
	} else if !errors.Is(err, jetstream.ErrObjectNotFound) {
		return "", fmt.Errorf("distributed: blob %s: %w", n, err)
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

// putObject stores one object, again after a pause when the server
// refuses it for a burst (a replicated stream's ingest).
func (q *Queue) putObject(ctx context.Context, name string, data []byte, meta map[string]string) error {
	var err error
	for attempt := range 8 {
		if _, err = q.blobs.Put(ctx, jetstream.ObjectMeta{Name: name, Metadata: meta}, bytes.NewReader(data)); err == nil {
			return nil
		}
		if !strings.Contains(err.Error(), "too many requests") {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(250<<attempt) * time.Millisecond):
		}
	}
	return fmt.Errorf("distributed: put blob %s: %w", name, err)
}

// ErrBadBlob is the error of a blob whose stored bytes are not those of
// its name: refused, not read again.
var ErrBadBlob = errors.New("distributed: a bad blob")

// Get reads the blob of that name (and its parts) and checks that its
// bytes have that digest.
func (q *Queue) Get(ctx context.Context, blob string) ([]byte, error) {
	if !blobName.MatchString(blob) {
		return nil, fmt.Errorf("distributed: %q is not a blob name", blob)
	}
	info, err := q.blobs.GetInfo(ctx, blob)
	if err != nil {
		return nil, fmt.Errorf("distributed: get blob %s: %w", blob, err)
	}
	var data []byte
	if p, ok := info.Metadata["parts"]; ok {
		parts, err := strconv.Atoi(p)
		if err != nil || parts < 1 || parts > 1<<16 {
			return nil, fmt.Errorf("%w: blob %s: %q parts", ErrBadBlob, blob, p)
		}
		for i := range parts {
			part, err := q.blobs.GetBytes(ctx, fmt.Sprintf("%s.%d", blob, i))
			if err != nil {
				return nil, fmt.Errorf("distributed: get blob %s, part %d: %w", blob, i, err)
			}
			data = append(data, part...)
		}
	} else if data, err = q.blobs.GetBytes(ctx, blob); err != nil {
		return nil, fmt.Errorf("distributed: get blob %s: %w", blob, err)
	}
	if Blob(data) != blob {
		return nil, fmt.Errorf("%w: blob %s holds bytes of another digest", ErrBadBlob, blob)
	}
	return data, nil
}

// publish publishes a job on its memory class's subject.
func (q *Queue) publish(ctx context.Context, j *Job) error {
	if err := j.Check(); err != nil {
		return err
	}
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	subject := fmt.Sprintf("%s.jobs.mem%d.%s.%s", q.cfg.Prefix, MemClass(j.Memory), j.Run, j.ID)
	if _, err := q.js.Publish(ctx, subject, data, jetstream.WithMsgID(fmt.Sprintf("%s.%s.%d", j.Run, j.ID, j.Attempt))); err != nil {
		return fmt.Errorf("distributed: publish job %s: %w", j.ID, err)
	}
	return nil
}

// publishResult publishes a worker's result of a job.
func (q *Queue) publishResult(ctx context.Context, r *Result) error {
	if err := r.Check(); err != nil {
		return err
	}
	data, err := json.Marshal(r)
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
