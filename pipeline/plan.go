package pipeline

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"

	"github.com/consensys/gnark/constraint"

	"github.com/veriformer/veriformer/circuits"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// PlanItem is one circuit a run needs keys for: what [PlanDirect] and
// [PlanAggregated] report without setting up or proving anything.
type PlanItem struct {
	// Kind is "direct", "segment", "aggregator" or "wrapper"; Name says
	// which one ("segment 2/13 (blocks 1–1)").
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Curve is gnark's name of the circuit's curve ("bn254", "bls12_377",
	// "bw6_761").
	Curve string `json:"curve"`
	// Constraints is the compiled circuit's R1CS count; Circuit its hash,
	// which names its keys in the cache.
	Constraints int    `json:"constraints"`
	Circuit     string `json:"circuit"`
	// Cached tells whether the cache holds its keys, and KeyKind of which
	// kind ("development", "ceremony"; "" when not cached).
	Cached  bool   `json:"cached"`
	KeyKind string `json:"key_kind,omitempty"`
	// SetupEstimateS and ProveEstimateS are the expected wall times, in
	// seconds, of its development setup and of one proof on a quiet
	// 2-core machine ([Rates]); setup is 0 when the keys are cached.
	SetupEstimateS float64 `json:"setup_estimate_s"`
	ProveEstimateS float64 `json:"prove_estimate_s"`
}

// Rate is the cost per R1CS constraint of a Groth16 setup and proof on one
// curve, in seconds.
type Rate struct{ Setup, Prove float64 }

// Rates are the measured costs per constraint on a quiet 2-core machine
// (gnark v0.16.3; README, "Measured"): BN254 from the direct circuit
// (setup 4 min 15 s, proof 18 s at 1,264,785 constraints) and the wrapper
// (31 min and 1 min 34 s – 2 min at 7.7–7.9M); BLS12-377 from GPT-2
// small's segments (setups of 1.1–1.7M constraints at 320 µs each, the
// default model's at 334 µs; proofs 29–41 s, 20–26 µs per constraint
// after the key read); BW6-761 from GPT-2 small's committed aggregator
// (1,768,665 constraints: setup 25 min 37 s, proof with its key read
// 1 min 44 s). Times are close to linear in the constraint count at these
// sizes; expect ±30%.
var Rates = map[string]Rate{
	"bn254":     {Setup: 220e-6, Prove: 13e-6},
	"bls12_377": {Setup: 330e-6, Prove: 25e-6},
	"bw6_761":   {Setup: 870e-6, Prove: 60e-6},
}

// PlanDirect compiles the direct-shape circuit of opts.Model for a prompt
// of promptLen tokens and opts.Tokens generated ones and reports it. It
// runs no inference, setup or proof.
func PlanDirect(opts Options, promptLen int) ([]PlanItem, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	r := &runner{opts: &opts, report: &Report{}}
	layout, err := circuits.NewLayoutOf(opts.Model, statement.ModelID(opts.Model), promptLen, opts.Tokens)
	if err != nil {
		return nil, err
	}
	r.logf("compiling the direct circuit …")
	ccs, err := compileDirect(layout)
	if err != nil {
		return nil, err
	}
	item, err := planItem("direct", "direct circuit", ccs, opts.CacheDir)
	if err != nil {
		return nil, err
	}
	return []PlanItem{item}, nil
}

// PlanAggregated compiles the circuits of the aggregated shape — every
// segment's, the aggregator's and, with opts.Wrap, the BN254 wrapper's
// (minutes and several GB: its 7.9M constraints) — and reports them. It
// runs no inference, setup or proof.
func PlanAggregated(opts AggregatedOptions, promptLen int) ([]PlanItem, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	r := &runner{opts: &opts.Options, report: &Report{}}
	m := opts.Model
	segments, err := aggregatedSegments(m, opts.SegmentSize, opts.VocabChunk)
	if err != nil {
		return nil, err
	}
	var items []PlanItem
	var agg constraint.ConstraintSystem
	if opts.Tensors == Committed {
		items, agg, err = r.planCommitted(&opts, segments, promptLen)
	} else {
		items, agg, err = r.planOpened(&opts, segments, promptLen)
	}
	if err != nil {
		return nil, err
	}
	if !opts.Wrap {
		return items, nil
	}
	r.logf("compiling the wrapper (a few minutes) …")
	n := recursion.AggregatorCommitments(agg)
	wrapper, err := r.compileCached(opts.CacheDir, wrapperName(n), ecc.BN254, "BN254 wrapper", func() (constraint.ConstraintSystem, error) {
		return recursion.CompileWrapper(n)
	})
	if err != nil {
		return nil, err
	}
	item, err := planItem("wrapper", "BN254 wrapper", wrapper, opts.CacheDir)
	if err != nil {
		return nil, err
	}
	return append(items, item), nil
}

// planItem describes a compiled circuit and its keys in the cache.
func planItem(kind, name string, ccs constraint.ConstraintSystem, cacheDir string) (PlanItem, error) {
	hash, err := setup.CircuitHash(ccs)
	if err != nil {
		return PlanItem{}, err
	}
	curve := setup.ShapeOf(ccs).Curve.String()
	rate, ok := Rates[curve]
	if !ok {
		return PlanItem{}, fmt.Errorf("pipeline: no measured rates for curve %s", curve)
	}
	n := ccs.GetNbConstraints()
	item := PlanItem{Kind: kind, Name: name, Curve: curve, Constraints: n, Circuit: hash,
		SetupEstimateS: rate.Setup * float64(n), ProveEstimateS: rate.Prove * float64(n)}
	manifest, err := setup.Cached(ccs, cacheDir)
	if err != nil {
		return PlanItem{}, err
	}
	if manifest != nil {
		item.Cached, item.KeyKind, item.SetupEstimateS = true, string(manifest.Kind), 0
	}
	return item, nil
}

// planOpened compiles and reports the segment circuits and the
// aggregator of the opened design; it returns the aggregator's circuit.
func (r *runner) planOpened(opts *AggregatedOptions, segments []inference.Segment, promptLen int) ([]PlanItem, constraint.ConstraintSystem, error) {
	m := opts.Model
	var items []PlanItem
	layout, err := circuits.NewLayoutOf(m, statement.ModelID(m), promptLen, opts.Tokens)
	if err != nil {
		return nil, nil, err
	}
	var first constraint.ConstraintSystem
	for i, seg := range segments {
		name := segmentName(i, segments)
		r.logf("compiling %s …", name)
		ccs, err := compileSegment(layout, seg)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		item, err := planItem("segment", name, ccs, opts.CacheDir)
		if err != nil {
			return nil, nil, err
		}
		items = append(items, item)
		if i == 0 {
			first = ccs
		}
	}
	shape, err := recursion.SegmentShapeOf(first)
	if err != nil {
		return nil, nil, err
	}
	r.logf("compiling the aggregator …")
	agg, err := recursion.CompileAggregator(len(segments), shape)
	if err != nil {
		return nil, nil, err
	}
	item, err := planItem("aggregator", fmt.Sprintf("aggregator of %d segments", len(segments)), agg, opts.CacheDir)
	if err != nil {
		return nil, nil, err
	}
	return append(items, item), agg, nil
}

// planCommitted compiles and reports the segment circuits and the
// committed aggregator; it returns the aggregator's circuit. The
// aggregator holds the SRS's G2 powers as constants: with no SRS in the cache
// yet (nor a ceremony file) it is compiled on a stand-in of the same size
// and reported as not cached.
func (r *runner) planCommitted(opts *AggregatedOptions, segments []inference.Segment, promptLen int) ([]PlanItem, constraint.ConstraintSystem, error) {
	m := opts.Model
	shapes, err := committedShapes(m, segments, committedPass(promptLen, opts.Tokens))
	if err != nil {
		return nil, nil, err
	}
	var items []PlanItem
	var circuits []recursion.CommittedShape
	id := statement.ModelID(m)
	for i, s := range shapes {
		name := segmentName(i, segments)
		r.logf("compiling %s …", name)
		ccs, err := r.compileCommittedSegment(opts.CacheDir, m, id, s, name)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		item, err := planItem("segment", name, ccs, opts.CacheDir)
		if err != nil {
			return nil, nil, err
		}
		items = append(items, item)
		shape, err := committedShapeOf(ccs, s)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		circuits = append(circuits, shape)
	}
	srs, err := r.cachedSRS(opts, srsSize(shapes))
	if err != nil {
		return nil, nil, err
	}
	key := gpcs.GeneratorKey()
	if srs != nil {
		key = gpcs.KeyOf(srs.VerifyingKey())
	}
	r.logf("compiling the committed aggregator …")
	agg, err := r.compileCommittedAggregator(opts.CacheDir, circuits, key)
	if err != nil {
		return nil, nil, err
	}
	item, err := planItem("aggregator", fmt.Sprintf("committed aggregator of %d segments", len(segments)), agg, opts.CacheDir)
	if err != nil {
		return nil, nil, err
	}
	if srs == nil {
		item.Cached, item.KeyKind = false, ""
		item.SetupEstimateS = Rates[item.Curve].Setup * float64(item.Constraints)
	}
	return append(items, item), agg, nil
}
