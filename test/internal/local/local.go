// Package local starts the workers of the end-to-end suites: an embedded
// NATS JetStream server and in-process workers with the pipeline's
// handlers, as prove --workers does with processes. It is off the product
// path: only the suites under test import it.
package local

import (
	"context"
	"sync"
	"testing"

	"github.com/veriformer/veriformer/distributed"
	"github.com/veriformer/veriformer/pipeline"
)

// Queue starts an embedded NATS JetStream server and two in-process
// workers on it, w1 and w2, each with a key cache of its own, reading
// compiled circuits and the keys the jobs pin from the trusted cache
// trusted ("" for none: they compile and fetch everything), and its
// handlers passed through wrap (nil for none); it returns the queue a
// run publishes to. Everything stops when the test ends.
func Queue(t *testing.T, ctx context.Context, wrap func(*testing.T, map[string]distributed.Handler) map[string]distributed.Handler, trusted string) *distributed.Queue {
	t.Helper()
	e, err := distributed.StartLocal(t.TempDir(), "coordinator", "w1", "w2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	q, err := distributed.Connect(ctx, e.URL(), distributed.Config{Identity: e.Coordinator, Log: Writer{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	workers, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, id := range e.Workers {
		name := id.Name
		handlers, err := pipeline.WorkerHandlers(pipeline.WorkerConfig{CacheDir: t.TempDir(), Log: Writer{t}, TrustedDir: trusted})
		if err != nil {
			t.Fatal(err)
		}
		if wrap != nil {
			handlers = wrap(t, handlers)
		}
		wq, err := distributed.Connect(ctx, e.URL(), distributed.Config{Identity: id, Log: Writer{t}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(wq.Close)
		w := &distributed.Worker{Queue: wq, Name: name, Handlers: handlers, Log: Writer{t}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(workers); err != nil {
				t.Errorf("worker %s: %v", name, err)
			}
		}()
	}
	// Cleanups run last in first: the workers stop before the server.
	t.Cleanup(func() {
		stop()
		wg.Wait()
	})
	return q
}

// Writer writes to the test's log.
type Writer struct{ T *testing.T }

func (w Writer) Write(p []byte) (int, error) {
	w.T.Log(string(p))
	return len(p), nil
}
