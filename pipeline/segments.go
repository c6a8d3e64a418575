package pipeline

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/circuits"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// committedPass is a request of a bucket of rows with one prompt and
// one output token, both 0: the shapes of the segment circuits depend on
// the rows only (the request is a circuit variable).
func committedPass(rows int) committed.Pass {
	return committed.Pass{Prompt: []int{0}, Output: []int{0}, Rows: rows}
}

// passStatement is the statement a pass states under the inner model id
// id, a single request's or a batch's (statement.StackStatement), and
// the list it proves: the request's list of one, or the batch's list.
func passStatement(id *big.Int, pass committed.Pass) (statement.Statement, statement.List, error) {
	if stack, ok := pass.Stack(); ok {
		return statement.StackStatement[bls12377fr.Element](id, stack)
	}
	st, err := statement.Of[bls12377fr.Element](id, pass.Prompt, pass.Output)
	if err != nil {
		return statement.Statement{}, statement.List{}, err
	}
	return st, st.List(), nil
}

// placeholderPass is the pass the circuits of a bucket of rows are
// compiled from: a batch's (batchPass) or a single request's
// (committedPass).
func placeholderPass(rows int, batch bool) committed.Pass {
	if batch {
		return batchPass(rows)
	}
	return committedPass(rows)
}

// batchPass is a batch's pass of a bucket of rows with one request of
// one prompt and one output token, both 0: the shapes of a batch's
// segment circuits depend on the rows only (the layout of the requests
// is a circuit variable).
func batchPass(rows int) committed.Pass {
	return committed.Pass{Rows: rows, Batch: []statement.Request{{Prompt: []int{0}, Output: []int{0}}}}
}

// committedShapes returns the native shapes of the segments for a pass
// (a batch's when pass.Batch is set), of a turn when turn is not nil.
func committedShapes(m *model.Model, segs []inference.Segment, pass committed.Pass, turn *committed.Turn) ([]*committed.Shape, error) {
	var view *model.Trace
	var err error
	var opts []committed.Option
	if turn != nil {
		view, err = committed.TurnView(m, pass.Rows, *turn)
		opts = append(opts, committed.WithTurn(*turn))
	} else if begins := pass.Begins(); begins != nil {
		view, err = m.ForwardStacked(make([]int, pass.Rows), begins)
	} else {
		view, err = inference.ShapePass(m, pass.Rows)
	}
	if err != nil {
		return nil, err
	}
	shapes := make([]*committed.Shape, len(segs))
	for i, seg := range segs {
		if shapes[i], err = committed.NewShape(view, seg, pass, opts...); err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
	}
	return shapes, nil
}

// srsSize is the number of SRS powers the segments' openings need.
func srsSize(shapes []*committed.Shape) int {
	vars := 1
	for _, s := range shapes {
		vars = max(vars, s.OpeningVars())
	}
	return 1 << vars
}

// loadSRS returns the KZG SRS of a committed run: from the ceremony file
// opts.SRS when set, else a development SRS cached beside the keys
// (refused when only ceremony keys are accepted).
func (r *runner) loadSRS(opts *AggregatedOptions, size int) (*pcs.SRS, error) {
	dir := filepath.Join(opts.CacheDir, "srs")
	if opts.SRS != "" {
		return pcs.LoadCeremony(opts.SRS, size, dir)
	}
	if opts.KeyKind == setup.Ceremony {
		return nil, fmt.Errorf("pipeline: ceremony keys need the SRS of a ceremony (AggregatedOptions.SRS, --srs), not a development one")
	}
	w := r.opts.Log
	if w == nil {
		w = io.Discard
	}
	return pcs.LoadOrCreateDevelopment(dir, size, log.New(w, "  ", 0))
}

// committedShapeOf returns what the committed aggregator must know of a
// segment circuit.
func committedShapeOf(ccs constraint.ConstraintSystem, s *committed.Shape) (recursion.SegmentShape, error) {
	multiplicities, boundary, incoming := s.PartIndices()
	nbChosen := 0
	if s.Segment.Chunk() {
		nbChosen = s.Pass.Rows
	}
	var turn *recursion.SegmentTurn
	if s.Turn() != nil {
		turn = &recursion.SegmentTurn{From: s.Segment.From, Blocks: len(s.Cache), Cache: s.PartIndex(s.CacheCommitment())}
	}
	return recursion.SegmentShapeOf(ccs, s.NbParts(), s.NbTableParts(), s.OpeningVars(), multiplicities, len(s.Parts()[committed.MultiplicitiesCommitment]), boundary, incoming, nbChosen, turn)
}

// chosenOf returns a chunk's chosen logits (nil for other segments), the
// public inputs its circuit has beyond the other segments'.
func chosenOf(seg inference.Segment, p *committed.Proof) []bls12377fr.Element {
	if !seg.Chunk() || p.Argmax == nil {
		return nil
	}
	return p.Argmax.Chosen
}

// segmentName names segment i of n in progress lines and plans.
func segmentName(i int, segs []inference.Segment) string {
	seg := segs[i]
	if seg.Chunk() {
		return fmt.Sprintf("segment %d/%d (LM head, vocabulary %d–%d)", i+1, len(segs), seg.VocabFrom, seg.VocabTo-1)
	}
	if seg.NoHead {
		return fmt.Sprintf("segment %d/%d (blocks %d–%d, without the LM head)", i+1, len(segs), seg.From, seg.To-1)
	}
	return fmt.Sprintf("segment %d/%d (blocks %d–%d)", i+1, len(segs), seg.From, seg.To-1)
}

// setupSegments runs the first key stages of the aggregated design: the
// segment circuits and keys, the SRS, the model's table commitments and
// the model id.
func (r *runner) setupSegments(opts *AggregatedOptions, k *AggregatedKeys) error {
	m := opts.Model
	cat := k.Catalog
	if err := r.stage("segment circuits and keys (setup or cache)", func() (string, error) {
		for i := range cat.Shapes {
			keys, n, err := r.loadKeys(k, cat.Circuits[i], false)
			if err != nil {
				return "", err
			}
			k.Segment = append(k.Segment, keys)
			k.SegmentConstraints += n
		}
		var err error
		if k.Shapes, err = cat.SegmentShapes(); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d circuits, %d R1CS constraints in all", len(cat.Shapes), k.SegmentConstraints), nil
	}); err != nil {
		return err
	}
	return r.stage("SRS and table commitments", func() (string, error) {
		var err error
		if k.SRS, err = cat.SRS(); err != nil {
			return "", err
		}
		if k.Committed, err = committed.NewVerifyingKey(k.SRS, m); err != nil {
			return "", err
		}
		k.Tables = make([][]pcs.Commitment, len(cat.Shapes))
		for i, s := range cat.Shapes {
			if k.Tables[i], err = k.Committed.TableCommitments(s); err != nil {
				return "", err
			}
		}
		if k.ModelID, err = recursion.ModelID(passItems(cat, k.segmentVKs()), passItems(cat, k.Tables)); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d powers, %d function tables", srsSize(cat.Shapes), len(k.Committed.Tables)), nil
	})
}

// proveAggregated runs the proving stages of the aggregated design for
// the pass tr of a request or a batch: the native segment proofs
// (verified natively, chain included), one Groth16 proof per segment
// circuit, and the committed aggregator's proof, verified on the list the
// pass proves (under the inner model id), which it returns with the
// pass's statement. Each proving key is read from the cache when it is
// needed and dropped after.
func (r *runner) proveAggregated(opts *AggregatedOptions, keys *AggregatedKeys, req statement.Request, tr *model.Trace) (statement.Statement, statement.List, groth16.Proof, error) {
	if opts.Queue != nil {
		return r.proveOnWorkers(opts, keys, req, tr, nil)
	}
	st, list, segments, err := r.proveSegments(opts, keys, req, tr, nil)
	if err != nil {
		return st, list, nil, err
	}
	aggProof, err := r.aggregate(keys, st, list, segments, nil)
	return st, list, aggProof, err
}

// turnProving is a conversation's turn for proveSegments: the turn, its
// state in, and the state out its native proofs give (set by
// proveSegments).
type turnProving struct {
	turn    committed.Turn
	history []int
	in, out *committed.State
}

// list returns the list of the turn's one leaf, of statement st, from
// the state in to the state out.
func (c *turnProving) list(st statement.Statement) statement.List {
	return statement.List{ModelID: st.ModelID, Leaves: []statement.Leaf{statement.TurnLeaf(c.in.Digest(), st.InputDigest, st.OutputDigest, c.out.Digest())}}
}

// proveSegments runs the proving stages of proveAggregated up to
// the aggregation: the statement, the native segment proofs and the
// segments' Groth16 proofs, returned as the aggregator's witnesses. With
// conv, they are a turn's, verified from its state in (which gives
// conv.out).
func (r *runner) proveSegments(opts *AggregatedOptions, keys *AggregatedKeys, pass statement.Request, tr *model.Trace, conv *turnProving) (statement.Statement, statement.List, []recursion.SegmentProof, error) {
	m := opts.Model
	segs := keys.Segments
	var (
		st       statement.Statement
		list     statement.List
		shapes   []*committed.Shape
		natives  = make([]*committed.Proof, len(segs))
		checks   []*pcs.GroupCheck
		segments = make([]recursion.SegmentProof, len(segs))
	)
	if err := r.stage("native segment proofs", func() (string, error) {
		var err error
		if st, list, err = passStatement(keys.ModelID, pass); err != nil {
			return "", err
		}
		var turn *committed.Turn
		var proveOpts []committed.Option
		if conv != nil {
			turn = &conv.turn
			proveOpts = append(proveOpts, committed.WithTurn(conv.turn))
		}
		if shapes, err = committedShapes(m, segs, pass, turn); err != nil {
			return "", err
		}
		jobs := opts.NativeJobs
		if jobs == 0 {
			jobs = autoNativeJobs(shapes)
		}
		if jobs > 1 {
			r.logf("  up to %d segments at once, the largest first", jobs)
		}
		size := 0
		results, err := committed.ProveSegments(keys.SRS, m, st, pass, tr, segs, jobs, func(k int, res committed.SegmentResult) {
			t := res.Timings
			r.logf("  %s: proven in %v (commit %v, GKR %v, sum-checks %v, opening %v), %d bytes", segmentName(k, segs),
				res.Wall.Round(time.Millisecond), t.Commit.Round(time.Millisecond), t.GKR.Round(time.Millisecond),
				t.SumCheck.Round(time.Millisecond), t.Open.Round(time.Millisecond), res.Proof.Size())
		}, proveOpts...)
		if err != nil {
			return "", err
		}
		for k, res := range results {
			natives[k] = res.Proof
			size += res.Proof.Size()
		}
		start := time.Now()
		if conv != nil {
			if conv.out, checks, err = committed.VerifyTurnChecks(keys.Committed, m, st, pass, conv.in, segs, natives); err != nil {
				return "", err
			}
			r.logf("  verified from the state in of %d rows; the state out has %d", conv.in.Rows, conv.out.Rows)
		} else if checks, err = committed.VerifyPassChecks(keys.Committed, m, st, pass, segs, natives); err != nil {
			return "", err
		}
		r.logf("  all segments and their chain verified natively in %v", time.Since(start).Round(time.Millisecond))
		return fmt.Sprintf("%d segments, %d bytes, verified natively", len(segs), size), nil
	}); err != nil {
		return st, list, nil, err
	}
	if err := r.segmentProofs(keys, shapes, natives, checks, st, segments); err != nil {
		return st, list, nil, err
	}
	return st, list, segments, nil
}

// segmentProofs runs the stage of the segments' Groth16 proofs of the
// native proofs natives (of statement st, their shapes and pairing-check
// scalars), each verified, and fills segments with the aggregator's
// witnesses.
func (r *runner) segmentProofs(keys *AggregatedKeys, shapes []*committed.Shape, natives []*committed.Proof, checks []*pcs.GroupCheck, st statement.Statement, segments []recursion.SegmentProof) error {
	m := r.opts.Model
	segs := keys.Segments
	return r.stage("segment groth16 proofs", func() (string, error) {
		for k := range segs {
			start := time.Now()
			var assignment frontend.Circuit
			var err error
			if slots := keys.Catalog.Slots; slots > 0 {
				assignment, err = circuits.AssignCommittedBatch(m, shapes[k], slots, st, natives[k], checks[k])
			} else {
				assignment, err = circuits.AssignCommitted(m, shapes[k], st, natives[k], checks[k])
			}
			if err != nil {
				return "", err
			}
			w, err := frontend.NewWitness(assignment, ecc.BLS12_377.ScalarField())
			if err != nil {
				return "", err
			}
			sk := keys.Segment[k]
			ccs, err := keys.circuit(sk)
			if err != nil {
				return "", fmt.Errorf("%s: %w", segmentName(k, segs), err)
			}
			pk, err := r.provingKey(sk)
			if err != nil {
				return "", fmt.Errorf("%s: %w", segmentName(k, segs), err)
			}
			read := time.Since(start)
			proof, err := groth16.Prove(ccs, pk, w, recursion.SegmentProverOption())
			if err != nil {
				return "", fmt.Errorf("%s: %w", segmentName(k, segs), err)
			}
			proved := time.Since(start) - read
			public, err := w.Public()
			if err != nil {
				return "", err
			}
			if err := groth16.Verify(proof, sk.VK, public, recursion.SegmentVerifierOption()); err != nil {
				return "", fmt.Errorf("%s: %w", segmentName(k, segs), err)
			}
			if segments[k], err = recursion.ValueOfSegmentProof(proof, sk.VK, natives[k].Commitments(), keys.Tables[k], &natives[k].Opening.Opening, checks[k], chosenOf(segs[k], natives[k])); err != nil {
				return "", err
			}
			r.logf("  %s: proven and verified in %v (witness, circuit and proving key %v, prover %v)", segmentName(k, segs),
				time.Since(start).Round(time.Millisecond), read.Round(time.Millisecond), proved.Round(time.Millisecond))
		}
		return fmt.Sprintf("%d proofs", len(segs)), nil
	})
}

// aggregate proves the aggregator on the segments' witnesses for the
// pass's statement st and its list l (a turn's with its witness), and
// verifies its proof on the list.
func (r *runner) aggregate(keys *AggregatedKeys, st statement.Statement, l statement.List, segments []recursion.SegmentProof, turn *recursion.TurnWitness) (groth16.Proof, error) {
	a, err := recursion.AggregatorAssignment(keys.Catalog.layout(keys.Shapes), gpcs.KeyOf(keys.Committed.PCS), l, []recursion.PassWitness{{Statement: st, Segments: segments, Turn: turn}})
	if err != nil {
		return nil, err
	}
	return r.proveAggregator(keys, a, func(p groth16.Proof) error {
		return recursion.VerifyAggregated(p, keys.Aggregator.VK, l)
	})
}

// proveAggregator runs the aggregation stage: the aggregator's proof of
// the assignment a, checked by verify.
func (r *runner) proveAggregator(keys *AggregatedKeys, a *recursion.Aggregator, verify func(groth16.Proof) error) (groth16.Proof, error) {
	var aggProof groth16.Proof
	if err := r.stage("aggregation", func() (string, error) {
		w, err := frontend.NewWitness(a, ecc.BW6_761.ScalarField())
		if err != nil {
			return "", err
		}
		ccs, err := keys.circuit(keys.Aggregator)
		if err != nil {
			return "", err
		}
		pk, err := r.provingKey(keys.Aggregator)
		if err != nil {
			return "", err
		}
		if aggProof, err = groth16.Prove(ccs, pk, w, recursion.AggregatorProverOption()); err != nil {
			return "", err
		}
		if err := verify(aggProof); err != nil {
			return "", err
		}
		return "verified", nil
	}); err != nil {
		return nil, err
	}
	return aggProof, nil
}

// cachedSRS returns the SRS a committed run would use when it needs no
// setup: the ceremony's (opts.SRS) or a development SRS already in the
// cache; nil when there is none yet.
func (r *runner) cachedSRS(opts *AggregatedOptions, size int) (*pcs.SRS, error) {
	if opts.SRS != "" {
		return r.loadSRS(opts, size)
	}
	if _, err := os.Stat(filepath.Join(opts.CacheDir, "srs", fmt.Sprintf("dev-%d.srs", size))); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	return r.loadSRS(opts, size)
}

// autoNativeJobs chooses how many segments' native proofs run at once
// when AggregatedOptions.NativeJobs is 0: the memory left under the
// runtime's soft limit (internal/memlimit sets one unless GOMEMLIMIT
// does) against the segments' estimated peaks (committed.ProverMemory).
func autoNativeJobs(shapes []*committed.Shape) int {
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 {
		return 1 // no limit: the memory left is unknown
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	sizes := make([]uint64, len(shapes))
	for k, s := range shapes {
		sizes[k] = committed.ProverMemory(s.Layout)
	}
	var budget uint64
	if uint64(limit) > ms.HeapInuse {
		budget = uint64(limit) - ms.HeapInuse
	}
	return nativeJobs(sizes, budget, runtime.GOMAXPROCS(0))
}

// nativeJobs returns 2 when the two largest of the segments' estimated
// peaks fit in budget together and there are at least two segments and
// two cores, 1 otherwise. Never more than two: a proof uses every core
// in its large steps, and two at once fill its small ones (GPT-2 small's
// pass at 16 rows in five segments on 2 cores, two at once largest
// first: 0.90 and 0.95 of the time of one at a time in a pair of runs;
// docs/measurements.md, "The committed prover").
func nativeJobs(sizes []uint64, budget uint64, procs int) int {
	if len(sizes) < 2 || procs < 2 {
		return 1
	}
	sorted := slices.Clone(sizes)
	slices.SortFunc(sorted, func(a, b uint64) int { return cmp.Compare(b, a) })
	if sorted[0]+sorted[1] > budget || sorted[0]+sorted[1] < sorted[0] {
		return 1
	}
	return 2
}
