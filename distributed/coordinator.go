package distributed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Task is a job of a run as the coordinator plans it: the job's id,
// kind and memory estimate, its inputs known before the run (blobs by
// role), the inputs that are other jobs' outputs (job ids by role; the
// job is published once those are verified), and the check of its
// output.
type Task struct {
	ID, Kind string
	Memory   uint64
	Inputs   map[string]string
	After    map[string]string
	// Verify checks an output of the job before anything uses it; a
	// refused output is never used, and the job is published again.
	Verify func(output []byte) error
	// MaxOutput bounds the output's size: a larger one is refused
	// unread (DefaultMaxOutput when 0).
	MaxOutput int64
}

// DefaultMaxOutput bounds a task's output when its MaxOutput is 0.
const DefaultMaxOutput = 64 << 20

// Progress is told of each job's events: "published"; "received" (an
// output arrived, to be verified); "refused" (with the reason),
// "retried" (with the reason), "done"; and "ignored", with the reason,
// for a result message acted on in no way (not signed by a worker the
// coordinator certified, or a failure of a job this coordinator did not
// publish). r is the result, when there is one.
type Progress func(event, job string, r *Result, reason error)

// task is a task's state in a run: its current attempt, whether this
// coordinator published it, the workers to avoid, its verified output.
type task struct {
	*Task
	attempt   int
	published bool
	avoid     []string
	output    string
	done      bool
}

// Run runs the tasks of run id run on the queue's workers and returns
// each task's verified output (blob names by task id). Results already
// in the result stream for this run id — a coordinator started again —
// are read first: a task with a verified result there is not published
// again. The run fails on the first task that fails deterministically
// twice, whose output is refused three times, or that ran out of
// deliveries.
func (q *Queue) Run(ctx context.Context, run string, tasks []*Task, progress Progress) (map[string]string, error) {
	if !name.MatchString(run) {
		return nil, fmt.Errorf("distributed: run id %q is not a name of 1 to 64 letters, digits, _ or -", run)
	}
	byID, err := checkTasks(tasks)
	if err != nil {
		return nil, err
	}
	if q.cfg.Identity.Role != RoleCoordinator {
		return nil, errors.New("distributed: only a coordinator's connection runs jobs")
	}
	if progress == nil {
		progress = func(string, string, *Result, error) {}
	}
	cons, err := q.js.OrderedConsumer(ctx, q.resultsStream(), jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{fmt.Sprintf("%s.results.%s.>", q.cfg.Prefix, run)},
		DeliverPolicy:  jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("distributed: the results of run %s: %w", run, err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("distributed: the results of run %s: %w", run, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return nil, fmt.Errorf("distributed: the results of run %s: %w", run, err)
	}
	defer it.Stop()
	c := &coordinator{q: q, run: run, tasks: byID, progress: progress, published: map[string]string{}}
	// The results of an earlier coordinator of this run first.
	for range info.NumPending {
		msg, err := c.next(ctx, it)
		if err != nil {
			return nil, err
		}
		if err := c.result(ctx, msg); err != nil {
			return nil, err
		}
	}
	if err := c.publishReady(ctx); err != nil {
		return nil, err
	}
	for !c.finished() {
		msg, err := c.next(ctx, it)
		if err != nil {
			return nil, err
		}
		if err := c.result(ctx, msg); err != nil {
			return nil, err
		}
		if err := c.publishReady(ctx); err != nil {
			return nil, err
		}
	}
	out := make(map[string]string, len(tasks))
	for id, t := range byID {
		out[id] = t.output
	}
	return out, nil
}

// checkTasks checks the tasks' ids and kinds, that every dependency is a
// task, and that the dependencies have no cycle.
func checkTasks(tasks []*Task) (map[string]*task, error) {
	if len(tasks) == 0 {
		return nil, errors.New("distributed: a run of no task")
	}
	byID := make(map[string]*task, len(tasks))
	for _, t := range tasks {
		if !name.MatchString(t.ID) || !name.MatchString(t.Kind) {
			return nil, fmt.Errorf("distributed: task %q of kind %q: not names", t.ID, t.Kind)
		}
		if byID[t.ID] != nil {
			return nil, fmt.Errorf("distributed: two tasks %s", t.ID)
		}
		if t.Verify == nil {
			return nil, fmt.Errorf("distributed: task %s has no check of its output", t.ID)
		}
		byID[t.ID] = &task{Task: t}
	}
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(id string) error
	visit = func(id string) error {
		switch state[id] {
		case 1:
			return fmt.Errorf("distributed: task %s depends on itself", id)
		case 2:
			return nil
		}
		state[id] = 1
		for role, dep := range byID[id].After {
			if byID[dep] == nil {
				return fmt.Errorf("distributed: task %s takes %s from task %q, not in the run", id, role, dep)
			}
			if _, ok := byID[id].Inputs[role]; ok {
				return fmt.Errorf("distributed: task %s has two inputs %s", id, role)
			}
			if err := visit(dep); err != nil {
				return err
			}
		}
		state[id] = 2
		return nil
	}
	for id := range byID {
		if err := visit(id); err != nil {
			return nil, err
		}
	}
	return byID, nil
}

// coordinator is a run in progress: published holds the digest of
// each job message it published, by job id and attempt.
type coordinator struct {
	q         *Queue
	run       string
	tasks     map[string]*task
	progress  Progress
	published map[string]string
}

// attemptKey keys a job's attempt.
func attemptKey(job string, attempt int) string { return fmt.Sprintf("%s.%d", job, attempt) }

// next waits for the run's next result message.
func (c *coordinator) next(ctx context.Context, it jetstream.MessagesContext) (jetstream.Msg, error) {
	type next struct {
		msg jetstream.Msg
		err error
	}
	ch := make(chan next, 1)
	go func() {
		msg, err := it.Next()
		ch <- next{msg, err}
	}()
	select {
	case <-ctx.Done():
		it.Stop()
		return nil, ctx.Err()
	case n := <-ch:
		if n.err != nil {
			return nil, fmt.Errorf("distributed: the results of run %s: %w", c.run, n.err)
		}
		return n.msg, nil
	}
}

func (c *coordinator) finished() bool {
	for _, t := range c.tasks {
		if !t.done {
			return false
		}
	}
	return true
}

// publishReady publishes the tasks not published yet whose dependencies
// are all done.
func (c *coordinator) publishReady(ctx context.Context) error {
	for _, t := range c.tasks {
		if t.done || t.published {
			continue
		}
		ready := true
		for _, dep := range t.After {
			ready = ready && c.tasks[dep].done
		}
		if ready {
			t.attempt = max(t.attempt, 1)
			if err := c.publish(ctx, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// publish publishes the task's current attempt.
func (c *coordinator) publish(ctx context.Context, t *task) error {
	inputs := make(map[string]string, len(t.Inputs)+len(t.After))
	for role, blob := range t.Inputs {
		inputs[role] = blob
	}
	for role, dep := range t.After {
		inputs[role] = c.tasks[dep].output
	}
	j := &Job{Run: c.run, ID: t.ID, Kind: t.Kind, Inputs: inputs, Memory: t.Memory, Attempt: t.attempt, Avoid: t.avoid}
	if err := j.Check(); err != nil {
		return err
	}
	// Published again after a failure, the job is one message: its id
	// (run.job.attempt) deduplicates it.
	var digest string
	if err := retry(ctx, func() (err error) { digest, err = c.q.publish(ctx, j); return err }); err != nil {
		return err
	}
	c.published[attemptKey(t.ID, t.attempt)] = digest
	t.published = true
	c.progress("published", t.ID, nil, nil)
	return nil
}

// result takes one result message: one that is not signed by a worker
// this coordinator certified, a duplicate or a stray one is ignored, an
// output is verified and kept or refused, a failure retried once or
// fatal when it answers a job this coordinator published, and else
// retried as the coordinator's own decision.
func (c *coordinator) result(ctx context.Context, msg jetstream.Msg) error {
	r, err := OpenResult(msg.Data(), c.q.cfg.Identity.Coordinator)
	if err != nil {
		c.progress("ignored", "", nil, err)
		return nil
	}
	if r.Run != c.run {
		return nil // not a result of this run's
	}
	t := c.tasks[r.Job]
	if t == nil || t.done {
		return nil // another run's task, or a duplicate
	}
	if !t.published {
		// A result published before this coordinator published the
		// task: an earlier coordinator did.
		t.attempt = max(t.attempt, r.Attempt)
	}
	if r.Error == "" {
		c.progress("received", t.ID, r, nil)
		// The server's failures are retried; an output not stored as
		// named is the worker's and refused, and so is one not found
		// for notFoundFor (a replica of a cluster that answers a read
		// may lag the one that stored it by a moment).
		max := t.MaxOutput
		if max == 0 {
			max = DefaultMaxOutput
		}
		var (
			data     []byte
			notFound time.Time
		)
		err := retry(ctx, func() (err error) {
			data, err = c.q.Get(ctx, r.Output, max)
			switch {
			case errors.Is(err, ErrBadBlob):
				return permanent{err}
			case errors.Is(err, jetstream.ErrObjectNotFound):
				if notFound.IsZero() {
					notFound = time.Now()
				}
				if time.Since(notFound) >= notFoundFor {
					return permanent{err}
				}
			}
			return err
		})
		var p permanent
		if err != nil && !errors.As(err, &p) {
			return fmt.Errorf("distributed: the output of job %s from worker %s: %w", t.ID, r.Worker, err)
		}
		if err == nil {
			err = t.Verify(data)
		}
		if err == nil {
			t.output, t.done = r.Output, true
			c.progress("done", t.ID, r, nil)
			return nil
		}
		c.progress("refused", t.ID, r, err)
		if r.Attempt < t.attempt {
			return nil // an earlier attempt's: the current one is out
		}
		if t.attempt == maxAttempts {
			return fmt.Errorf("distributed: job %s: the outputs of %d attempts refused, the last from worker %s: %w", t.ID, t.attempt, r.Worker, err)
		}
		if !slices.Contains(t.avoid, r.Worker) {
			t.avoid = append(t.avoid, r.Worker)
		}
		c.progress("retried", t.ID, r, err)
		t.attempt, t.published = t.attempt+1, false
		return nil
	}
	if r.Attempt < t.attempt {
		return nil // an earlier attempt's failure: the current one is out
	}
	failure := errors.New(r.Error)
	if d, ok := c.published[attemptKey(t.ID, r.Attempt)]; !ok || d != r.JobDigest {
		// Not the answer to a job of this coordinator's: an earlier
		// coordinator's job, or no job at all. Its failure is not
		// believed; the job is published again while attempts are left.
		c.progress("ignored", t.ID, r, fmt.Errorf("a failure of a job this coordinator did not publish: %w", failure))
		if t.attempt == maxAttempts {
			return fmt.Errorf("distributed: job %s: %d attempts, the last reported failed by worker %s for a job this coordinator did not publish: %s", t.ID, t.attempt, r.Worker, r.Error)
		}
		c.progress("retried", t.ID, r, failure)
		t.attempt, t.published = t.attempt+1, false
		return nil
	}
	if !r.Deterministic {
		return fmt.Errorf("distributed: job %s failed on worker %s: %s", t.ID, r.Worker, r.Error)
	}
	if t.attempt >= 2 {
		return fmt.Errorf("distributed: job %s failed twice, the last time on worker %s: %s", t.ID, r.Worker, r.Error)
	}
	c.progress("retried", t.ID, r, failure)
	t.attempt, t.published = t.attempt+1, false
	return nil
}

// retryFor bounds how long the coordinator retries a request to the
// server that fails: a cluster's streams have no leader for the seconds
// an election takes after a node dies.
const retryFor = time.Minute

// notFoundFor is how long an output's blob may be missing before the
// output is refused.
const notFoundFor = 5 * time.Second

// permanent marks an error retry does not retry.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// retry calls f until it succeeds, fails with a [permanent] error, ctx
// ends or retryFor has passed since its first failure, a second between
// two calls.
func retry(ctx context.Context, f func() error) error {
	var first time.Time
	for {
		err := f()
		var p permanent
		if err == nil || errors.As(err, &p) {
			return err
		}
		if first.IsZero() {
			first = time.Now()
		}
		if time.Since(first) > retryFor {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Second):
		}
	}
}
