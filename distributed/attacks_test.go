package distributed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// publishRaw publishes data as a job message of run on the queue's
// connection, as a party with no signing key would.
func publishRaw(t *testing.T, q *Queue, run, id string, data []byte) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := q.js.Publish(ctx, fmt.Sprintf("%s.jobs.mem0.%s.%s", q.cfg.Prefix, run, id), data)
	return err
}

// TestForgedJobs: jobs not signed by the deployment's coordinator (no
// signature, a signature by another coordinator, a signed job altered)
// are dropped by the worker with a log line and never run, and a
// worker's connection may not publish a job at all; the honest run that
// follows ends as it should.
func TestForgedJobs(t *testing.T) {
	d, q := testQueue(t, 5*time.Second)
	var ran atomic.Int32
	var log syncBuffer
	var calls sync.Map
	h := handlers(&calls)
	h["plant"] = func(context.Context, *Job, *Inputs) ([]byte, error) {
		ran.Add(1)
		return []byte("planted"), nil
	}
	wq := d.worker(t, "w")
	job := &Job{Run: "forged", ID: "a", Kind: "plant", Attempt: 1}
	body, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewCoordinator("other")
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := other.SignJob(job)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := d.coordinator.SignJob(job)
	if err != nil {
		t.Fatal(err)
	}
	var env Signed
	if err := json.Unmarshal(signed, &env); err != nil {
		t.Fatal(err)
	}
	env.Body = json.RawMessage(strings.Replace(string(env.Body), `"id":"a"`, `"id":"b"`, 1))
	altered := mustJSON(t, &env)
	if err := json.Unmarshal(foreign, &env); err != nil {
		t.Fatal(err)
	}
	env.Key = d.coordinator.PublicKey()
	claimed := mustJSON(t, &env)
	for i, m := range [][]byte{body, foreign, altered, claimed} {
		if err := publishRaw(t, q, "forged", fmt.Sprint("f", i), m); err != nil {
			t.Fatal(err)
		}
	}
	// A worker's connection may not publish jobs.
	if err := publishRaw(t, wq, "forged", "byworker", signed); err == nil {
		t.Error("a worker published a job")
	}
	startWorker(t, &Worker{Queue: wq, Handlers: h, Log: &log, Poll: 20 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := q.Run(ctx, "honest", sumTasks(t, q), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := q.Get(ctx, out["c"], 1<<10); err != nil || string(c) != "42" {
		t.Fatalf("c = %q, %v", c, err)
	}
	if ran.Load() != 0 {
		t.Fatalf("a forged job ran %d times", ran.Load())
	}
	if n := strings.Count(log.String(), "a job message refused and dropped"); n != 4 {
		t.Fatalf("%d forged jobs refused, want 4:\n%s", n, log.String())
	}
	t.Logf("the worker's log:\n%s", log.String())
}

// TestForgedResults: results the coordinator must not act on — one
// signed by a key it did not certify, one whose certificate names
// another worker, a failure of a certified worker for a job the
// coordinator did not publish (a forged failure published before the run
// starts, and during it) — are ignored with their reason, and the run
// ends with its outputs; its run id is the coordinator's own
// (unguessable without its key).
func TestForgedResults(t *testing.T) {
	d, q := testQueue(t, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := q.RunID([]byte("the request"))
	if run == d.coordinator.RunID([]byte("another request")) || !name.MatchString(run) {
		t.Fatalf("run id %q", run)
	}
	other, err := NewCoordinator("other")
	if err != nil {
		t.Fatal(err)
	}
	if other.RunID([]byte("the request")) == run {
		t.Fatal("another coordinator's run id is this one's")
	}
	stranger, err := other.NewWorker("w1")
	if err != nil {
		t.Fatal(err)
	}
	digest := strings.Repeat("ab", 32)
	forge := func(id *Identity, r *Result) []byte {
		t.Helper()
		data, err := id.sign(resultDomain, mustJSON(t, r))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	w1 := d.workers["w1"]
	fail := func(job string) *Result {
		return &Result{Run: run, Job: job, Attempt: 1, Worker: "w1", JobDigest: digest, Error: "forged", Deterministic: true}
	}
	wq := d.worker(t, "w1")
	// Before the run: a certified worker's failure of every job.
	for _, job := range []string{"a", "b", "c"} {
		if err := wq.publishResult(ctx, fail(job)); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range [][]byte{
		forge(stranger, fail("a")), // not certified by this coordinator
		forge(w1, &Result{Run: run, Job: "a", Attempt: 1, Worker: "w2", JobDigest: digest, Error: "x"}), // another worker's name
	} {
		if _, err := wq.js.Publish(ctx, fmt.Sprintf("%s.results.%s.a", q.cfg.Prefix, run), m); err != nil {
			t.Fatal(err)
		}
	}
	var log syncBuffer
	var calls sync.Map
	startWorker(t, &Worker{Queue: d.worker(t, "w2"), Handlers: handlers(&calls), Poll: 20 * time.Millisecond})
	out, err := q.Run(ctx, run, sumTasks(t, q), LogProgress(&log, time.Now()))
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if c, err := q.Get(ctx, out["c"], 1<<10); err != nil || string(c) != "42" {
		t.Fatalf("c = %q, %v", c, err)
	}
	for _, want := range []string{"not certified by coordinator", "a failure of a job this coordinator did not publish: forged"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("no %q in the progress:\n%s", want, log.String())
		}
	}
	t.Logf("the coordinator's progress:\n%s", log.String())
}

// mustJSON encodes v.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSquattedBlob: a worker may not write the coordinator's blobs; its
// garbage stored first under the name of a blob the coordinator then
// puts is never read in its place; garbage stored first under the name
// of another worker's output (a blob, a part of a file) is found on put
// and overwritten. Every read gets the right bytes.
func TestSquattedBlob(t *testing.T) {
	d, q := testQueue(t, 5*time.Second)
	wq, w2 := d.worker(t, "w"), d.worker(t, "w2")
	ctx := context.Background()
	data := []byte("the coordinator's input")
	n := Blob(data)
	if _, err := wq.inputs.PutBytes(ctx, n, []byte("garbage")); err == nil {
		t.Fatal("a worker wrote to the coordinator's blobs")
	}
	if _, err := wq.outputs.PutBytes(ctx, n, []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Get(ctx, n, 1<<10); !errors.Is(err, ErrBadBlob) {
		t.Fatalf("the squatted blob read: %v", err)
	}
	if got, err := q.Put(ctx, data); err != nil || got != n {
		t.Fatalf("put: %s, %v", got, err)
	}
	if got, err := w2.Get(ctx, n, 1<<10); err != nil || string(got) != string(data) {
		t.Fatalf("after the put: %q, %v", got, err)
	}
	// Another worker's output, squatted.
	out := []byte("a worker's output")
	on := Blob(out)
	if _, err := wq.outputs.PutBytes(ctx, on, []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	if got, err := w2.Put(ctx, out); err != nil || got != on {
		t.Fatalf("put: %s, %v", got, err)
	}
	if got, err := q.Get(ctx, on, 1<<10); err != nil || string(got) != string(out) {
		t.Fatalf("after the put: %q, %v", got, err)
	}
	// A file of several parts, one part squatted.
	big := make([]byte, partSize+100)
	for i := range big {
		big[i] = byte(i * 7)
	}
	path := t.TempDir() + "/out.bin"
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	bn := Blob(big)
	if _, err := w2.PutFile(ctx, path, bn); err != nil {
		t.Fatal(err)
	}
	if _, err := wq.outputs.PutBytes(ctx, bn+".1", []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	if got, err := w2.PutFile(ctx, path, "sha256:"+bn); err != nil || got != bn {
		t.Fatalf("put file: %s, %v", got, err)
	}
	if got, err := q.Get(ctx, bn, int64(len(big))); err != nil || string(got) != string(big) {
		t.Fatalf("after the put: %d bytes, %v", len(got), err)
	}
}

// TestOversizedBlob: a blob whose stored parts are far larger than its
// reader allows (48 MiB of parts for a bound of 1 MiB), or a link, is
// refused without allocating what it holds.
func TestOversizedBlob(t *testing.T) {
	d, _ := testQueue(t, 5*time.Second)
	wq := d.worker(t, "w")
	ctx := context.Background()
	name := strings.Repeat("0f", 32)
	chunk := make([]byte, 16<<20)
	for i := range 3 {
		if _, err := wq.outputs.PutBytes(ctx, fmt.Sprintf("%s.%d", name, i), chunk); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := wq.outputs.Put(ctx, jetstream.ObjectMeta{Name: name, Metadata: map[string]string{"parts": "3"}}, strings.NewReader("")); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := wq.Get(ctx, name, 1<<20)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrBadBlob) {
		t.Fatalf("an oversized blob: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Fatalf("%d bytes allocated to refuse 48 MiB over a bound of 1 MiB", got)
	}
	// One part of 16 MiB under a bound of 20 MiB: its part is over 8 MiB.
	if _, err := wq.Get(ctx, name, 20<<20); !errors.Is(err, ErrBadBlob) {
		t.Fatalf("an oversized part: %v", err)
	}
	link := strings.Repeat("1e", 32)
	if _, err := wq.outputs.AddLink(ctx, link, &jetstream.ObjectInfo{ObjectMeta: jetstream.ObjectMeta{Name: name + ".0"}, Bucket: outputsBucket(wq.cfg.Prefix)}); err != nil {
		t.Fatal(err)
	}
	if _, err := wq.Get(ctx, link, 1<<30); !errors.Is(err, ErrBadBlob) {
		t.Fatalf("a link: %v", err)
	}
}

// TestPanic: a handler that panics fails its job deterministically with
// the panic's message, and the worker takes the next job.
func TestPanic(t *testing.T) {
	d, q := testQueue(t, 5*time.Second)
	var calls atomic.Int32
	var counts sync.Map
	h := handlers(&counts)
	h["double"] = func(_ context.Context, j *Job, in *Inputs) ([]byte, error) {
		if calls.Add(1) <= 2 {
			var s []int
			_ = s[5] // index out of range
		}
		return []byte("40"), nil
	}
	startWorker(t, &Worker{Queue: d.worker(t, "w"), Handlers: h, Poll: 20 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := q.Run(ctx, "panics", sumTasks(t, q)[:1], nil)
	if err == nil || !strings.Contains(err.Error(), "panicked") || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("a job that panics twice: %v", err)
	}
	if out, err := q.Run(ctx, "after", sumTasks(t, q)[:1], nil); err != nil || out["a"] == "" {
		t.Fatalf("the next job: %v", err)
	}
}

// TestAuthentication: a server that lets anyone in is refused unless the
// party says --insecure; a party the server does not know is not let
// in; an identity file that is not one is refused.
func TestAuthentication(t *testing.T) {
	c, err := NewCoordinator("c")
	if err != nil {
		t.Fatal(err)
	}
	open, err := StartEmbedded(t.TempDir(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := Connect(ctx, open.URL(), Config{Identity: c}); err == nil || !strings.Contains(err.Error(), "lets anyone in") {
		t.Fatalf("a server without authentication: %v", err)
	}
	q, err := Connect(ctx, open.URL(), Config{Identity: c, Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	q.Close()
	d := testDeployment(t, 5*time.Second)
	if _, err := nats.Connect(d.e.URL()); err == nil {
		t.Fatal("a client without a key was let in")
	}
	if _, err := Connect(ctx, d.e.URL(), Config{Identity: c}); err == nil {
		t.Fatal("an unknown coordinator was let in")
	}
	if _, err := Connect(ctx, d.e.URL(), Config{}); err == nil {
		t.Fatal("a connection without an identity")
	}
	w, err := c.NewWorker("w")
	if err != nil {
		t.Fatal(err)
	}
	data, err := w.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseIdentity(data); err != nil {
		t.Fatal(err)
	}
	other, _ := NewCoordinator("o")
	w.Coordinator = other.Coordinator
	data, _ = w.Marshal()
	if _, err := ParseIdentity(data); err == nil {
		t.Fatal("a worker identity whose certificate is another coordinator's")
	}
}

// FuzzOpenJob: OpenJob and OpenResult never panic, and accept only what
// the coordinator (or a worker it certified) signed.
func FuzzOpenJob(f *testing.F) {
	c, err := NewCoordinator("c")
	if err != nil {
		f.Fatal(err)
	}
	w, err := c.NewWorker("w")
	if err != nil {
		f.Fatal(err)
	}
	job, err := c.SignJob(&Job{Run: "r", ID: "a", Kind: "k", Attempt: 1})
	if err != nil {
		f.Fatal(err)
	}
	res, err := w.SignResult(&Result{Run: "r", Job: "a", Attempt: 1, Worker: "w", JobDigest: jobDigest(job), Output: strings.Repeat("0f", 32)})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(job)
	f.Add(res)
	f.Add([]byte(`{"body":{},"key":"U","signature":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if j, err := OpenJob(data, c.Coordinator); err == nil && j.Check() != nil {
			t.Fatalf("accepted %+v", j)
		}
		if r, err := OpenResult(data, c.Coordinator); err == nil && r.Check() != nil {
			t.Fatalf("accepted %+v", r)
		}
	})
}

// FuzzParseIdentity: ParseIdentity never panics, and an identity it
// accepts signs.
func FuzzParseIdentity(f *testing.F) {
	c, err := NewCoordinator("c")
	if err != nil {
		f.Fatal(err)
	}
	w, err := c.NewWorker("w")
	if err != nil {
		f.Fatal(err)
	}
	for _, id := range []*Identity{c, w} {
		data, err := id.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		id, err := ParseIdentity(data)
		if err != nil {
			return
		}
		if _, err := id.sign(jobDomain, []byte("{}")); err != nil {
			t.Fatalf("an accepted identity does not sign: %v", err)
		}
	})
}
