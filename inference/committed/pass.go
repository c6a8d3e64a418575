package committed

import (
	"cmp"
	"fmt"
	"slices"
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
// Memory adds up: each segment at once holds its own tables
// ([ProverMemory] estimates them), so a caller chooses jobs from the
// memory it has left, as package pipeline does.
//
// When done is not nil, it is called with each segment's index in segs
// and result as soon as that segment is proven (in the order they finish,
// one call at a time), so that a caller can report progress; it is not
// called for a segment that fails. On the first error no further segment
// is started; the error names the first segment (in the order of segs)
// that failed.
func ProveSegments(srs *pcs.SRS, m *model.Model, st statement.Statement, pass Pass, tr *model.Trace, segs []inference.Segment, jobs int, done func(k int, r SegmentResult), opts ...Option) ([]SegmentResult, error) {
	if len(segs) == 0 {
		return nil, fmt.Errorf("committed: no segment to prove")
	}
	if _, err := newConfig(opts); err != nil {
		return nil, err
	}
	jobs = max(1, min(jobs, len(segs)))
	order := make([]int, len(segs))
	size := make([]uint64, len(segs))
	for k, seg := range segs {
		order[k] = k
		l, err := NewLayout(tr, seg, pass, opts...)
		if err != nil {
			return nil, fmt.Errorf("committed: segment %v: %w", seg, err)
		}
		size[k] = ProverMemory(l)
	}
	if jobs > 1 {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size[b], size[a]) })
	}
	results := make([]SegmentResult, len(segs))
	errs := make([]error, len(segs))
	var (
		failed atomic.Bool
		wg     sync.WaitGroup
		report sync.Mutex
	)
	sem := make(chan struct{}, jobs)
	for _, k := range order {
		seg := segs[k]
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
			if done != nil {
				report.Lock()
				defer report.Unlock()
				done(k, results[k])
			}
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

// ProverMemory estimates the memory [Prove] holds at its peak for the
// segment of layout l, beyond its inputs (the model, the trace, the SRS):
// 512 MiB, 400 bytes an entry of the stacked MLE (2^NbVars entries) and
// 64 bytes an entry of the lookup cube (2^LookupVars). The live heap
// above the inputs, sampled every 20 ms on GPT-2 small's shape, against
// the estimate:
//
//	segment                 stacked, cube   measured    estimate
//	a block, 16 rows        2²⁰, 2²¹        848 MiB     1,040 MiB
//	three blocks, 16 rows   2²¹, 2²³        1,757 MiB   1,824 MiB
//	the LM head, 16 rows    2²², 2²⁴        2,404 MiB   3,136 MiB
//	a block, 64 rows        2²², 2²³        1,908 MiB   2,624 MiB
//	the LM head, 64 rows    2²⁴, 2²⁶        7,518 MiB   10,912 MiB
func ProverMemory(l *Layout) uint64 {
	return 512<<20 + 400<<l.NbVars + 64<<l.LookupVars
}
