package committed

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/statement"
)

// SegmentResult is one segment's outcome in [ProveSegments]: its proof,
// the prover's time by step and the wall time of its [Prove] call.
type SegmentResult struct {
	Proof   *Proof
	Timings *Timings
	Wall    time.Duration
}

// ProveSegments proves the segments segs of the pass tr as [Prove] does
// one, with at most jobs of them proven at once (jobs < 1 counts as 1),
// and returns their results in the order of segs. The segments' proofs
// are independent (each has its own transcript), so they are the proofs
// [Prove] makes one by one, whatever jobs is.
//
// Each proof uses every core in its large steps but leaves them partly
// idle in its small ones (a transcript's hashing, the verifier-side
// scalars, the short sum-checks): two segments at once fill that time.
// GPT-2 small's pass at 16 rows, on a 2-core machine, took 0.88–0.95 of
// its time with jobs = 2 ("Cost" in the package documentation). Memory
// adds up: each segment at once holds its own tables, so jobs = 1 suits
// the largest segments (the LM head at 64 rows and more), whose peak
// alone is most of the memory target.
//
// On the first error no further segment is started; the error names the
// first segment (in the order of segs) that failed.
func ProveSegments(srs *pcs.SRS, m *model.Model, st statement.Statement, pass Pass, tr *model.Trace, segs []inference.Segment, jobs int, opts ...Option) ([]SegmentResult, error) {
	if len(segs) == 0 {
		return nil, fmt.Errorf("committed: no segment to prove")
	}
	if _, err := newConfig(opts); err != nil {
		return nil, err
	}
	jobs = max(1, min(jobs, len(segs)))
	results := make([]SegmentResult, len(segs))
	errs := make([]error, len(segs))
	var (
		failed atomic.Bool
		wg     sync.WaitGroup
	)
	sem := make(chan struct{}, jobs)
	for k, seg := range segs {
		sem <- struct{}{}
		if failed.Load() {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			start := time.Now()
			proof, t, err := Prove(srs, m, st, pass, tr, seg, opts...)
			if err != nil {
				errs[k] = err
				failed.Store(true)
				return
			}
			results[k] = SegmentResult{Proof: proof, Timings: t, Wall: time.Since(start)}
		}()
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("committed: segment %v: %w", segs[k], err)
		}
	}
	return results, nil
}
