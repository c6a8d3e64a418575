package distributed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// deployment is a test's: an embedded server in a temporary directory
// that lets in a coordinator and the workers of testWorkers, with their
// identities; jobs are delivered again after ackWait.
type deployment struct {
	e           *Embedded
	coordinator *Identity
	workers     map[string]*Identity
	ackWait     time.Duration
}

// testWorkers are the names of the workers a test deployment lets in.
var testWorkers = []string{"w", "w1", "w2", "liar", "honest", "lost", "small", "large"}

func testDeployment(t *testing.T, ackWait time.Duration) *deployment {
	t.Helper()
	c, err := NewCoordinator("coordinator")
	if err != nil {
		t.Fatal(err)
	}
	d := &deployment{coordinator: c, workers: map[string]*Identity{}, ackWait: ackWait}
	users := &Users{Coordinator: c.PublicKey()}
	for _, n := range testWorkers {
		if d.workers[n], err = c.NewWorker(n); err != nil {
			t.Fatal(err)
		}
		users.Workers = append(users.Workers, d.workers[n].PublicKey())
	}
	if d.e, err = StartEmbedded(t.TempDir(), 0, users); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.e.Close)
	return d
}

// testQueue starts a test deployment and connects its coordinator.
func testQueue(t *testing.T, ackWait time.Duration) (*deployment, *Queue) {
	t.Helper()
	d := testDeployment(t, ackWait)
	return d, d.connect(t, d.coordinator)
}

// worker connects the worker of that name.
func (d *deployment) worker(t *testing.T, name string) *Queue {
	t.Helper()
	id := d.workers[name]
	if id == nil {
		t.Fatalf("no worker %s in the test deployment", name)
	}
	return d.connect(t, id)
}

func (d *deployment) connect(t *testing.T, id *Identity) *Queue {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q, err := Connect(ctx, d.e.URL(), Config{AckWait: d.ackWait, Identity: id, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	return q
}

// testLog writes to the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// startWorker runs w until the test ends.
func startWorker(t *testing.T, w *Worker) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker %s: %v", w.Name, err)
		}
	})
}

// sumTasks is a run of three tasks: a and b double their input, c adds
// a's and b's outputs; each output is checked.
func sumTasks(t *testing.T, q *Queue) []*Task {
	t.Helper()
	ctx := context.Background()
	x, err := q.Put(ctx, []byte("20"))
	if err != nil {
		t.Fatal(err)
	}
	y, err := q.Put(ctx, []byte("1"))
	if err != nil {
		t.Fatal(err)
	}
	want := func(v string) func([]byte) error {
		return func(out []byte) error {
			if string(out) != v {
				return fmt.Errorf("output %q, want %q", out, v)
			}
			return nil
		}
	}
	return []*Task{
		{ID: "a", Kind: "double", Inputs: map[string]string{"x": x}, Verify: want("40")},
		{ID: "b", Kind: "double", Inputs: map[string]string{"x": y}, Verify: want("2")},
		{ID: "c", Kind: "add", After: map[string]string{"x": "a", "y": "b"}, Verify: want("42")},
	}
}

// handlers are the sum run's, counting their calls by job.
func handlers(calls *sync.Map) map[string]Handler {
	count := func(id string) {
		n, _ := calls.LoadOrStore(id, new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
	}
	return map[string]Handler{
		"double": func(_ context.Context, j *Job, in *Inputs) ([]byte, error) {
			count(j.ID)
			x, err := in.Get("x", 1<<10)
			if err != nil {
				return nil, err
			}
			var v int
			if _, err := fmt.Sscan(string(x), &v); err != nil {
				return nil, Deterministic(err)
			}
			return []byte(fmt.Sprint(2 * v)), nil
		},
		"add": func(_ context.Context, j *Job, in *Inputs) ([]byte, error) {
			count(j.ID)
			x, err := in.Get("x", 1<<10)
			if err != nil {
				return nil, err
			}
			y, err := in.Get("y", 1<<10)
			if err != nil {
				return nil, err
			}
			var a, b int
			if _, err := fmt.Sscan(string(x)+" "+string(y), &a, &b); err != nil {
				return nil, Deterministic(err)
			}
			return []byte(fmt.Sprint(a + b)), nil
		},
	}
}

func callsOf(calls *sync.Map, id string) int {
	n, ok := calls.Load(id)
	if !ok {
		return 0
	}
	return int(n.(*atomic.Int32).Load())
}

// TestRun runs a run of three tasks, one after the two others, on two
// workers of an embedded server; a coordinator started again with the
// same run id, after a stray result for a task was published, finds
// every verified output in the result stream and publishes nothing.
func TestRun(t *testing.T) {
	d, q := testQueue(t, 5*time.Second)
	var calls sync.Map
	for _, name := range []string{"w1", "w2"} {
		startWorker(t, &Worker{Queue: d.worker(t, name), Name: name, Handlers: handlers(&calls), Poll: 20 * time.Millisecond})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tasks := sumTasks(t, q)
	var log bytes.Buffer
	start := time.Now()
	tl := NewTimeline(start)
	out, err := q.Run(ctx, "run1", tasks, tl.Progress(LogProgress(&log, start)))
	if err != nil {
		t.Fatal(err)
	}
	checkTimeline(t, tl, map[string][]string{"c": {"a", "b"}})
	c, err := q.Get(ctx, out["c"], 1<<30)
	if err != nil || string(c) != "42" {
		t.Fatalf("c = %q, %v", c, err)
	}
	// A stray result of a's, not verifiable, then a coordinator again.
	bad, err := q.Put(ctx, []byte("41"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.worker(t, "w").publishResult(ctx, &Result{Run: "run1", Job: "a", Attempt: 1, Worker: "w", JobDigest: strings.Repeat("ab", 32), Output: bad}); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	out2, err := q.Run(ctx, "run1", sumTasks(t, q), LogProgress(&again, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if out2["c"] != out["c"] || strings.Contains(again.String(), "published") {
		t.Fatalf("the second coordinator:\n%s", again.String())
	}
	for _, id := range []string{"a", "b", "c"} {
		if n := callsOf(&calls, id); n != 1 {
			t.Errorf("job %s ran %d times", id, n)
		}
	}
	t.Logf("first coordinator:\n%s", log.String())
}

// checkTimeline checks a run's timeline: every job there once, its
// times in order, each job started after those it depends on were
// checked; and its chart, a line per job.
func checkTimeline(t *testing.T, tl *Timeline, after map[string][]string) {
	t.Helper()
	spans := tl.Spans()
	by := map[string]Span{}
	for _, s := range spans {
		if _, ok := by[s.Job]; ok {
			t.Fatalf("job %s twice in the timeline", s.Job)
		}
		by[s.Job] = s
		if !(s.Published <= s.Started && s.Started <= s.Received && s.Received <= s.Checked) || s.Worker == "" || s.Attempt != 1 {
			t.Errorf("span %+v", s)
		}
	}
	for job, deps := range after {
		for _, d := range deps {
			if by[job].Published < by[d].Checked {
				t.Errorf("%s published at %v, before %s was checked at %v", job, by[job].Published, d, by[d].Checked)
			}
		}
	}
	var chart bytes.Buffer
	if err := tl.WriteChart(&chart, 40); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(chart.String(), "\n"); lines != len(spans)+1 || !strings.Contains(chart.String(), "#") {
		t.Errorf("chart of %d spans:\n%s", len(spans), chart.String())
	}
	t.Logf("timeline:\n%s", chart.String())
}

// TestRefusedOutput: a worker whose output does not verify is refused,
// and the job goes to another worker, whose output is kept.
func TestRefusedOutput(t *testing.T) {
	d, q := testQueue(t, 5*time.Second)
	var calls sync.Map
	liar := &Worker{Queue: d.worker(t, "liar"), Name: "liar", Handlers: map[string]Handler{
		"double": func(context.Context, *Job, *Inputs) ([]byte, error) { return []byte("0"), nil },
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tasks := sumTasks(t, q)[:1]
	var log syncBuffer
	done := make(chan error, 1)
	var out map[string]string
	go func() {
		var err error
		out, err = q.Run(ctx, "run2", tasks, LogProgress(&log, time.Now()))
		done <- err
	}()
	for {
		took, err := liar.Once(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if took {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	startWorker(t, liar)
	startWorker(t, &Worker{Queue: d.worker(t, "honest"), Name: "honest", Handlers: handlers(&calls), Poll: 20 * time.Millisecond})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a, err := q.Get(ctx, out["a"], 1<<30)
	if err != nil || string(a) != "40" {
		t.Fatalf("a = %q, %v", a, err)
	}
	if !strings.Contains(log.String(), "refused   a (attempt 1, worker liar)") || !strings.Contains(log.String(), "done      a (attempt 2, worker honest)") {
		t.Fatalf("the run's log:\n%s", log.String())
	}
}

// TestDeterministicFailure: a job that fails for its input fails the
// run with its error after one retry.
func TestDeterministicFailure(t *testing.T) {
	d, q := testQueue(t, 5*time.Second)
	var calls sync.Map
	startWorker(t, &Worker{Queue: d.worker(t, "w"), Name: "w", Handlers: handlers(&calls), Poll: 20 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	x, err := q.Put(ctx, []byte("not a number"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = q.Run(ctx, "run3", []*Task{{ID: "a", Kind: "double", Inputs: map[string]string{"x": x}, Verify: func([]byte) error { return nil }}}, nil)
	if err == nil || !strings.Contains(err.Error(), "failed twice") {
		t.Fatalf("a bad input: %v", err)
	}
	if n := callsOf(&calls, "a"); n != 2 {
		t.Fatalf("the job ran %d times, want 2", n)
	}
}

// TestTransientFailure: a job whose handler fails for another reason is
// delivered again, and the run finishes.
func TestTransientFailure(t *testing.T) {
	d, q := testQueue(t, 5*time.Second)
	var calls atomic.Int32
	startWorker(t, &Worker{Queue: d.worker(t, "w"), Name: "w", Poll: 20 * time.Millisecond, Handlers: map[string]Handler{
		"double": func(context.Context, *Job, *Inputs) ([]byte, error) {
			if calls.Add(1) == 1 {
				return nil, errors.New("out of disk")
			}
			return []byte("40"), nil
		},
	}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := q.Run(ctx, "run4", sumTasks(t, q)[:1], nil); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 {
		t.Fatalf("the job ran %d times, want 2", calls.Load())
	}
}

// TestWorkerLost: a worker that loses its connection mid-job (no more
// signs of life, no ack) leaves the job to another worker after the ack
// wait; a long job whose worker lives is never delivered twice.
func TestWorkerLost(t *testing.T) {
	d, q := testQueue(t, 2*time.Second)
	lostQueue := d.worker(t, "lost")
	started := make(chan struct{})
	var lostCalls, calls atomic.Int32
	lost := &Worker{Queue: lostQueue, Name: "lost", Handlers: map[string]Handler{
		"double": func(ctx context.Context, _ *Job, _ *Inputs) ([]byte, error) {
			lostCalls.Add(1)
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := q.Run(ctx, "run5", sumTasks(t, q)[:1], nil)
		done <- err
	}()
	lostCtx, lostCancel := context.WithCancel(ctx)
	go func() {
		for lostCtx.Err() == nil {
			if took, _ := lost.Once(lostCtx); took {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	<-started
	lostQueue.Close() // the worker is gone: no signs of life, no ack
	startWorker(t, &Worker{Queue: d.worker(t, "w"), Name: "w", Poll: 20 * time.Millisecond, Handlers: map[string]Handler{
		"double": func(context.Context, *Job, *Inputs) ([]byte, error) {
			calls.Add(1)
			time.Sleep(3 * time.Second) // longer than the ack wait
			return []byte("40"), nil
		},
	}})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lostCancel()
	if lostCalls.Load() != 1 || calls.Load() != 1 {
		t.Fatalf("the lost worker ran the job %d times, the other %d", lostCalls.Load(), calls.Load())
	}
}

// TestMemoryClasses: a worker takes only the jobs whose estimate fits
// its memory.
func TestMemoryClasses(t *testing.T) {
	d, q := testQueue(t, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tasks := sumTasks(t, q)[:2]
	tasks[0].Memory = 3 << 30 // 3 GiB: class 12
	tasks[1].Memory = 100 << 20
	var calls sync.Map
	small := &Worker{Queue: d.worker(t, "small"), Name: "small", Memory: 2 << 30, Handlers: handlers(&calls), Poll: 20 * time.Millisecond}
	startWorker(t, small)
	done := make(chan error, 1)
	go func() {
		_, err := q.Run(ctx, "run6", tasks, nil)
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for callsOf(&calls, "b") == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if callsOf(&calls, "b") != 1 || callsOf(&calls, "a") != 0 {
		t.Fatalf("the small worker ran a %d times, b %d", callsOf(&calls, "a"), callsOf(&calls, "b"))
	}
	startWorker(t, &Worker{Queue: d.worker(t, "large"), Name: "large", Memory: 4 << 30, Handlers: handlers(&calls), Poll: 20 * time.Millisecond})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		memory uint64
		class  int
	}{{0, 0}, {1 << 20, 0}, {1<<20 + 1, 1}, {2 << 20, 1}, {3 << 30, 12}, {4 << 30, 12}} {
		if got := MemClass(c.memory); got != c.class {
			t.Errorf("MemClass(%d) = %d, want %d", c.memory, got, c.class)
		}
	}
}

// TestRunRefuses: runs whose tasks are not a run are refused before
// anything is published.
func TestRunRefuses(t *testing.T) {
	_, q := testQueue(t, 5*time.Second)
	ok := func([]byte) error { return nil }
	for name, tasks := range map[string][]*Task{
		"none":       nil,
		"two a":      {{ID: "a", Kind: "k", Verify: ok}, {ID: "a", Kind: "k", Verify: ok}},
		"a cycle":    {{ID: "a", Kind: "k", After: map[string]string{"x": "b"}, Verify: ok}, {ID: "b", Kind: "k", After: map[string]string{"x": "a"}, Verify: ok}},
		"no task":    {{ID: "a", Kind: "k", After: map[string]string{"x": "b"}, Verify: ok}},
		"no check":   {{ID: "a", Kind: "k"}},
		"a bad name": {{ID: "a.b", Kind: "k", Verify: ok}},
	} {
		if _, err := q.Run(context.Background(), "run7", tasks, nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := q.Run(context.Background(), "run.7", []*Task{{ID: "a", Kind: "k", Verify: ok}}, nil); err == nil {
		t.Error("a bad run id accepted")
	}
}

// FuzzDecodeJob decodes arbitrary bytes: never a panic, and a job
// accepted passes its check and encodes a subject of tokens.
func FuzzDecodeJob(f *testing.F) {
	f.Add([]byte(`{"run":"r","id":"a","kind":"double","inputs":{"x":"` + strings.Repeat("ab", 32) + `"},"memory":1048576,"attempt":1}`))
	f.Add([]byte(`{"run":"r","id":"a","kind":"k","attempt":3,"avoid":["w1"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := DecodeJob(data)
		if err != nil {
			return
		}
		if j.Check() != nil || strings.ContainsAny(j.Run+j.ID, ".*> ") {
			t.Fatalf("accepted %+v", j)
		}
	})
}

// FuzzDecodeResult decodes arbitrary bytes: never a panic, and a result
// accepted has an output or an error, not both.
func FuzzDecodeResult(f *testing.F) {
	f.Add([]byte(`{"run":"r","job":"a","attempt":1,"worker":"w","jobDigest":"` + strings.Repeat("1e", 32) + `","output":"` + strings.Repeat("0f", 32) + `"}`))
	f.Add([]byte(`{"run":"r","job":"a","attempt":2,"worker":"w","jobDigest":"` + strings.Repeat("1e", 32) + `","error":"bad","deterministic":true}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeResult(data)
		if err != nil {
			return
		}
		if (r.Output == "") == (r.Error == "") {
			t.Fatalf("accepted %+v", r)
		}
	})
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLargeBlob stores a blob of parts and reads it back; a part
// changed in the store is caught by the digest.
func TestLargeBlob(t *testing.T) {
	_, q := testQueue(t, 5*time.Second)
	ctx := context.Background()
	data := make([]byte, 2*partSize+12345)
	for i := range data {
		data[i] = byte(i * 7)
	}
	n, err := q.Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := q.Get(ctx, n, 1<<30)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
	if _, err := q.inputs.PutBytes(ctx, n+".1", []byte("other")); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Get(ctx, n, 1<<30); err == nil {
		t.Fatal("a changed part accepted")
	}
}

// TestFiles stores files as blobs and reads them back to files: a large
// one in parts, found again by its digest without being read; a file
// whose digest is not the one claimed is refused and leaves no blob; a
// blob whose part was changed is not written to its file.
func TestFiles(t *testing.T) {
	_, q := testQueue(t, 5*time.Second)
	ctx := context.Background()
	dir := t.TempDir()
	data := make([]byte, 2*partSize+777)
	for i := range data {
		data[i] = byte(i * 13)
	}
	path := filepath.Join(dir, "key.pk")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := Blob(data)
	n, err := q.PutFile(ctx, path, "sha256:"+want)
	if err != nil || n != want {
		t.Fatalf("PutFile: %s, %v", n, err)
	}
	// Stored: found by its digest, the file not read (it is gone).
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if n, err := q.PutFile(ctx, path, want); err != nil || n != want {
		t.Fatalf("PutFile of a stored blob: %s, %v", n, err)
	}
	out := filepath.Join(dir, "fetched", "key.pk")
	if err := q.GetFile(ctx, want, out, 1<<30); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
	// A file claimed with another digest.
	other := append([]byte(nil), data...)
	other[partSize+1] ^= 1
	if err := os.WriteFile(path, other, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := q.PutFile(ctx, path, Blob(data[:100])); err == nil {
		t.Fatal("a file of another digest stored")
	}
	if ok, err := q.Has(ctx, Blob(data[:100])); err != nil || ok {
		t.Fatalf("a refused file left a blob (%v, %v)", ok, err)
	}
	// Small files, with and without a digest.
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("manifest"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := q.PutFile(ctx, small, ""); err != nil || n != Blob([]byte("manifest")) {
		t.Fatalf("PutFile without a digest: %s, %v", n, err)
	}
	// A digest already in the coordinator's blobs, on a server with
	// users: found without reading the file.
	if _, err := q.PutFile(ctx, small, want); err != nil {
		t.Fatalf("a stored digest: %v", err)
	}
	// A changed part: nothing written.
	if _, err := q.inputs.PutBytes(ctx, want+".1", []byte("other")); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.pk")
	if err := q.GetFile(ctx, want, bad, 1<<30); err == nil {
		t.Fatal("a changed part accepted")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Fatalf("left in the directory: %v", entries)
	}
}

// LogProgress returns a Progress that writes a line per event to w,
// with the time since start: the tests' log of a run.
func LogProgress(w io.Writer, start time.Time) Progress {
	return func(event, job string, r *Result, reason error) {
		at := time.Since(start).Round(time.Millisecond)
		line := fmt.Sprintf("%9v  %-9s %s", at, event, job)
		if r != nil {
			line += fmt.Sprintf(" (attempt %d, worker %s)", r.Attempt, r.Worker)
		}
		if reason != nil {
			line += ": " + reason.Error()
		}
		fmt.Fprintln(w, line)
	}
}

// Has reports whether an object of that name is stored (not whether its
// bytes are those of the name: Queue.Get checks that), for the tests that
// check what a refused file leaves.
func (q *Queue) Has(ctx context.Context, blob string) (bool, error) {
	_, _, err := q.find(ctx, blob)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return false, nil
	}
	return false, fmt.Errorf("distributed: blob %s: %w", blob, err)
}
