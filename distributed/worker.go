package distributed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"runtime/debug"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Handler runs one job to its output, reading the job's inputs from
// the object store through in when it needs them. An error marked
// [Deterministic] fails the job for its input; any other is transient,
// and the job is delivered again.
type Handler func(ctx context.Context, job *Job, in *Inputs) ([]byte, error)

// Worker takes jobs from a deployment's queue and runs them, one at a
// time.
type Worker struct {
	Queue *Queue
	// Name tells the worker's results apart: its identity's name (that
	// name when empty).
	Name string
	// Memory bounds the jobs the worker takes: those of the memory
	// classes up to Memory's ([MemClass]); 0 takes every class.
	Memory uint64
	// Handlers run the jobs, by kind. A job of a kind without one fails
	// deterministically.
	Handlers map[string]Handler
	// Log receives a line per job (nil for none).
	Log io.Writer
	// Poll is how long the worker waits between two looks at an empty
	// queue (250 ms when 0).
	Poll time.Duration

	consumers []jetstream.Consumer
}

// Run takes and runs jobs until ctx ends; it returns nil then, or an
// error that is not a job's. An error of the worker's settings (its
// name, its memory: one that wraps no other error) ends it at once. An
// error of the queue (wrapping the NATS client's) is transient as a
// rule: the consumers of a cluster just started have no leader for a
// moment, and a node that dies leaves its streams and consumers without
// one, and requests without a responder, for the seconds their election
// takes. Such an error is logged and the queue looked at again every
// second (the consumers looked up anew when their lookup failed); it
// ends Run once the errors have lasted a minute without a success.
func (w *Worker) Run(ctx context.Context) error {
	var failing time.Time // the first error of those in a row
	for {
		looked := w.consumers != nil
		took, err := w.Once(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			if errors.Unwrap(err) == nil {
				return err
			}
			if failing.IsZero() {
				failing = time.Now()
			}
			if time.Since(failing) > time.Minute {
				return fmt.Errorf("%w (errors for %v)", err, time.Since(failing).Round(time.Second))
			}
			w.logf("%v; trying again", err)
			if !looked {
				w.consumers = nil // a lookup that failed midway kept some
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(time.Second):
			}
			continue
		}
		failing = time.Time{}
		if !took {
			poll := w.Poll
			if poll == 0 {
				poll = 250 * time.Millisecond
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(poll):
			}
		}
	}
}

// Once takes at most one job, from the largest memory class the worker
// accepts down, and runs it; it reports whether it took one.
func (w *Worker) Once(ctx context.Context) (bool, error) {
	id := w.Queue.cfg.Identity
	if w.Name == "" {
		w.Name = id.Name
	}
	if id.Role != RoleWorker || w.Name != id.Name {
		return false, fmt.Errorf("distributed: worker %q connected as %s %s: a worker runs on a connection of its own identity", w.Name, id.Role, id.Name)
	}
	if w.consumers == nil {
		top := MaxClass
		if w.Memory > 0 {
			// Class k holds jobs of up to 2^k MiB: the worker takes the
			// classes whose largest job fits.
			top = min(bits.Len64(w.Memory>>20)-1, MaxClass)
			if top < 0 {
				return false, fmt.Errorf("distributed: a worker of %d bytes takes no job", w.Memory)
			}
		}
		for k := top; k >= 0; k-- {
			c, err := w.Queue.consumer(ctx, k)
			if err != nil {
				return false, err
			}
			w.consumers = append(w.consumers, c)
		}
	}
	for _, c := range w.consumers {
		batch, err := c.FetchNoWait(1)
		if err != nil {
			return false, fmt.Errorf("distributed: fetch: %w", err)
		}
		for msg := range batch.Messages() {
			w.handle(ctx, msg)
			return true, nil
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			return false, fmt.Errorf("distributed: fetch: %w", err)
		}
	}
	return false, nil
}

func (w *Worker) logf(format string, args ...any) {
	if w.Log != nil {
		fmt.Fprintf(w.Log, "worker %s: "+format+"\n", append([]any{w.Name}, args...)...)
	}
}

// handle runs the job of one message and acknowledges it as the package
// documentation says.
func (w *Worker) handle(ctx context.Context, msg jetstream.Msg) {
	id := w.Queue.cfg.Identity
	job, err := OpenJob(msg.Data(), id.Coordinator)
	if err != nil {
		// Not a job of the coordinator this worker serves: nobody else
		// may publish jobs, so it is dropped, not run.
		w.logf("a job message refused and dropped: %v", err)
		_ = msg.TermWithReason("not signed by the coordinator")
		return
	}
	meta, err := msg.Metadata()
	if err != nil {
		_ = msg.Nak()
		return
	}
	delivered := int(meta.NumDelivered)
	if slices.Contains(job.Avoid, w.Name) && delivered < w.Queue.cfg.MaxDeliver-1 {
		// Another worker should run the job whose output from this one
		// was refused; this one takes it back on its next to last
		// delivery (when no other worker took it), which leaves one
		// delivery for a transient failure. It then stays away for longer
		// than the delay, so that the others' polls find the job first.
		_ = msg.NakWithDelay(time.Second)
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
		return
	}
	result := &Result{Run: job.Run, Job: job.ID, Attempt: job.Attempt, Worker: w.Name, JobDigest: jobDigest(msg.Data())}
	w.logf("job %s (%s, attempt %d, delivery %d) started", job.ID, job.Kind, job.Attempt, delivered)
	start := time.Now()
	output, err := w.run(ctx, msg, job)
	switch {
	case err == nil:
		if result.Output, err = w.Queue.Put(ctx, output); err != nil {
			w.logf("job %s: storing its output: %v", job.ID, err)
			_ = msg.Nak()
			return
		}
	case IsDeterministic(err):
		result.Error, result.Deterministic = clip(err.Error()), true
	case delivered >= w.Queue.cfg.MaxDeliver:
		result.Error = clip(fmt.Sprintf("delivered %d times, failed each time; the last: %v", delivered, err))
	default:
		w.logf("job %s (delivery %d): %v; left for another delivery", job.ID, delivered, err)
		_ = msg.Nak()
		return
	}
	result.Millis = time.Since(start).Milliseconds()
	if err := w.Queue.publishResult(ctx, result); err != nil {
		w.logf("job %s: %v", job.ID, err)
		_ = msg.Nak()
		return
	}
	if err := msg.Ack(); err != nil {
		w.logf("job %s: ack: %v (its result is published)", job.ID, err)
	}
	if result.Error != "" {
		w.logf("job %s (%s, attempt %d) failed in %v: %s", job.ID, job.Kind, job.Attempt, time.Since(start).Round(time.Millisecond), result.Error)
		return
	}
	w.logf("job %s (%s, attempt %d) done in %v", job.ID, job.Kind, job.Attempt, time.Since(start).Round(time.Millisecond))
}

// clip bounds an error message in a result: 4 KiB, the rest cut.
func clip(s string) string {
	const max = 4 << 10
	if len(s) <= max {
		return s
	}
	return s[:max] + "… (cut)"
}

// run reads a job's inputs and runs its handler, telling the server the
// job is in progress every third of the ack wait until it returns. A
// handler that panics fails the job deterministically with the panic's
// value and stack: the worker goes on with the next job.
func (w *Worker) run(ctx context.Context, msg jetstream.Msg, job *Job) (out []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			w.logf("job %s: panic: %v\n%s", job.ID, v, debug.Stack())
			out, err = nil, Deterministic(fmt.Errorf("the worker's handler of %s jobs panicked: %v", job.Kind, v))
		}
	}()
	h, ok := w.Handlers[job.Kind]
	if !ok {
		return nil, Deterministic(fmt.Errorf("no handler for jobs of kind %q", job.Kind))
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTicker(w.Queue.cfg.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	}()
	return h(ctx, job, &Inputs{ctx: ctx, q: w.Queue, job: job})
}
