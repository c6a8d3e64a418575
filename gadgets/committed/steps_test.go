package committed

import (
	"fmt"
	"io"
	"log"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	glinear "github.com/veriformer/veriformer/gadgets/linear"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"

	"github.com/veriformer/veriformer/inference"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/internal/headshapes"
	"github.com/veriformer/veriformer/internal/tier"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/protocol/linear"
	"github.com/veriformer/veriformer/statement"
)

// segmentRun is a proof of one segment of the built-in model over a
// 5-row pass (prompt of 2 tokens, 4 generated) and the segment's shape,
// as both verifiers see them.
type segmentRun struct {
	m     *model.Model
	st    statement.Statement
	pass  native.Pass
	seg   inference.Segment
	proof *native.Proof
	shape *native.Shape
	vk    *native.VerifyingKey

	mu    sync.Mutex
	after map[int]fr.Element
}

var (
	runsMu sync.Mutex
	runs   = map[string]*lazyRun{}
)

// The runs' development SRS, made once.
var (
	srsOnce sync.Once
	srs     *pcs.SRS
	srsErr  error
)

// lazyRun is one shared run, made on first use.
type lazyRun struct {
	once sync.Once
	run  *segmentRun
	err  error
}

// sharedSegmentRun returns the tests' shared run of the built-in model's
// first segment (blocks [0, 1)) or of its last (blocks [1, 2), with the
// LM head and the argmax step).
func sharedSegmentRun(t *testing.T, last bool) *segmentRun {
	t.Helper()
	k := 0
	if last {
		k = 1
	}
	return sharedRunOf(t, model.Tiny, inference.Segment{From: k, To: k + 1})
}

// sharedRunOf returns the tests' shared run of segment seg of the
// built-in model name (a proof takes seconds, the SRS longer).
func sharedRunOf(t *testing.T, name string, seg inference.Segment) *segmentRun {
	t.Helper()
	return sharedPartsRunOf(t, name, seg, native.PartVars)
}

// sharedPartsRunOf is sharedRunOf for proofs whose committed MLEs are in
// parts of partVars variables (native.WithPartVars).
func sharedPartsRunOf(t *testing.T, name string, seg inference.Segment, partVars int) *segmentRun {
	t.Helper()
	key := fmt.Sprintf("%s/%v/parts=%d", name, seg, partVars)
	runsMu.Lock()
	o, ok := runs[key]
	if !ok {
		o = &lazyRun{}
		runs[key] = o
	}
	runsMu.Unlock()
	o.once.Do(func() { o.run, o.err = newSegmentRun(name, seg, native.WithPartVars(partVars)) })
	if o.err != nil {
		t.Fatal(o.err)
	}
	return o.run
}

// testModel returns the built-in model name or the padded head layout
// name of package headshapes.
func testModel(name string) (*model.Model, error) {
	if s, ok := headshapes.ByName(name); ok {
		return s.Model()
	}
	return model.Builtin(name)
}

func newSegmentRun(name string, seg inference.Segment, opts ...native.Option) (*segmentRun, error) {
	m, err := testModel(name)
	if err != nil {
		return nil, err
	}
	prompt := []int{11, 48}
	gen, err := m.Generate(prompt, 4)
	if err != nil {
		return nil, err
	}
	r := &segmentRun{m: m, pass: native.Pass{Prompt: prompt, Output: gen.Tokens, Rows: 8}, seg: seg}
	tr, err := m.Forward(m.NewCache(), r.pass.Tokens())
	if err != nil {
		return nil, err
	}
	if r.st, err = statement.Of[fr.Element](m.ID(), prompt, gen.Tokens); err != nil {
		return nil, err
	}
	srsOnce.Do(func() { srs, srsErr = pcs.NewDevelopmentSRS(1<<18, log.New(io.Discard, "", 0)) })
	if srsErr != nil {
		return nil, srsErr
	}
	if r.proof, _, err = native.Prove(srs, m, r.st, r.pass, tr, seg, opts...); err != nil {
		return nil, err
	}
	view, err := inference.ShapePass(m, len(r.pass.Tokens()))
	if err != nil {
		return nil, err
	}
	if r.shape, err = native.NewShape(view, seg, r.pass, opts...); err != nil {
		return nil, err
	}
	if r.vk, err = native.NewVerifyingKey(srs, m, opts...); err != nil {
		return nil, err
	}
	if err := r.verifyNative(); err != nil {
		return nil, fmt.Errorf("the honest proof is rejected natively: %w", err)
	}
	return r, nil
}

// The native verifier's steps, in order (native Shape.VerifyField).
const (
	stepLookups = iota
	stepRequants
	stepProjections
	stepProducts
	stepRotations
	stepContractions
	stepNorms
	stepSoftmax
	stepResiduals
	stepEmbedding
	stepArgmax
	stepBoundary
	nbSteps
)

// nativeState is the native verifier's state between two steps: its
// transcript and the accumulator points and values the later steps
// read.
type nativeState struct {
	t      *pcs.Transcript
	points [][]fr.Element
	acc    []fr.Element
}

// replay runs the native verifier's steps on the run's proof before step
// (stepLookups … stepBoundary, or nbSteps for all) and returns its state
// there. A step a tampered proof fails is an error.
func (r *segmentRun) replay(step int) (*nativeState, error) {
	s, p := r.shape, r.proof
	t := native.NewTranscript(r.st, r.seg)
	t.Absorb(pcs.Digest(p.Commitments()))
	st := &nativeState{t: t, acc: p.Accumulators}
	for k := range step {
		var err error
		switch k {
		case stepLookups:
			_, err = native.VerifyLookups(t, s.Layout, s.Set, s.IDs, p)
		case stepRequants:
			st.points, _, err = native.VerifyRequants(t, s.Layout, s.Requants, s.Shared, p)
		case stepProjections:
			_, err = s.VerifyProjections(t, st.points, st.acc, p.Projections)
		case stepProducts:
			_, err = s.VerifyProducts(t, st.points, st.acc, p.Products)
		case stepRotations:
			_, err = s.VerifyRotations(t, st.points, st.acc, p.Rotations)
		case stepContractions:
			_, _, err = s.VerifyContractions(t, st.points, st.acc, p.Attention, p.Keys)
		case stepNorms:
			_, err = s.VerifyNorms(t, st.points, st.acc, p.Norms)
		case stepSoftmax:
			_, err = s.VerifySoftmax(t, p.Softmax)
		case stepResiduals:
			_, err = s.VerifyResiduals(t, p.ResidualEvals)
		case stepEmbedding:
			s.EmbeddingPoint(t)
		case stepArgmax:
			_, err = s.VerifyArgmax(t, p.Argmax)
		case stepBoundary:
			s.BoundaryPoint(t, p.BoundaryEval)
		}
		if err != nil {
			return nil, fmt.Errorf("native step %d: %w", k, err)
		}
	}
	return st, nil
}

// stepBase is the part every step circuit shares: the transcript states
// before and after the step (public: the native verifier's) and the
// accumulator points and values the step reads.
type stepBase struct {
	Before, After frontend.Variable `gnark:",public"`
	Points        [][]frontend.Variable
	Acc           []frontend.Variable
}

// begin resumes the transcript before the step.
func (b *stepBase) begin(api frontend.API) (*transcript.Transcript, error) {
	return transcript.Resume(api, b.Before)
}

// end asserts the state after the step.
func (b *stepBase) end(api frontend.API, t *transcript.Transcript) {
	api.AssertIsEqual(t.State(), b.After)
}

// stepBases returns a step's placeholder and assignment bases: the
// honest native states before and after it, and the points and
// accumulators from the replay before it.
func (r *segmentRun) stepBases(step int) (ph, as stepBase, err error) {
	return r.rangeBases(step, step)
}

// rangeBases is stepBases for the steps from to last, in order.
func (r *segmentRun) rangeBases(from, last int) (ph, as stepBase, err error) {
	before, err := r.replay(from)
	if err != nil {
		return ph, as, err
	}
	a, err := r.honestAfter(last)
	if err != nil {
		return ph, as, err
	}
	b := before.t.State()
	as = stepBase{Before: field.BigInt(&b), After: field.BigInt(&a), Acc: gpoly.ValuesOf(before.acc)}
	ph = stepBase{Acc: make([]frontend.Variable, len(before.acc))}
	for _, p := range before.points {
		as.Points = append(as.Points, gpoly.ValuesOf(p))
		ph.Points = append(ph.Points, make([]frontend.Variable, len(p)))
	}
	return ph, as, nil
}

// honestAfter returns the native state after step on the honest proof,
// computed on the first call (before a test changes the proof).
func (r *segmentRun) honestAfter(step int) (fr.Element, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.after[step]; ok {
		return a, nil
	}
	st, err := r.replay(step + 1)
	if err != nil {
		return fr.Element{}, err
	}
	if r.after == nil {
		r.after = map[int]fr.Element{}
	}
	r.after[step] = st.t.State()
	return r.after[step], nil
}

// tamper names a value of the proof that a test changes.
type tamper struct {
	name string
	x    *fr.Element
}

// checkStep checks a step's circuit on the run's proof: the honest
// proof solves it (ending in the native state after the step), and each
// tampered value is rejected by both faces — natively, the step fails
// or ends in another state; in circuit, the compiled circuit is not
// solved. circuits returns the placeholder and the assignment of the
// proof as it is now. It returns the circuit's constraint count.
func checkStep(t *testing.T, r *segmentRun, step int, circuits func() (frontend.Circuit, frontend.Circuit, error), tampers []tamper) int {
	t.Helper()
	return checkSteps(t, r, step, step, circuits, tampers)
}

// checkSteps is checkStep for a circuit of the steps from to last.
func checkSteps(t *testing.T, r *segmentRun, from, last int, circuits func() (frontend.Circuit, frontend.Circuit, error), tampers []tamper) int {
	t.Helper()
	want, err := r.honestAfter(last)
	if err != nil {
		t.Fatal(err)
	}
	ph, as, err := circuits()
	if err != nil {
		t.Fatal(err)
	}
	if err := test.IsSolved(ph, as, ecc.BLS12_377.ScalarField()); err != nil {
		t.Fatalf("the honest proof does not solve the step's circuit: %v", err)
	}
	cs := compileCircuit(t, ph)
	inCircuit := 0
	for i, tp := range tampers {
		undo := bump(tp.x)
		if st, err := r.replay(last + 1); err == nil && st.t.State() == want {
			t.Errorf("%s: accepted by the native verifier", tp.name)
		}
		// The circuit is solved on every other value in the default
		// tier, on every value in the full tier.
		if !tier.Sampled(i, 2, 0) {
			undo()
			continue
		}
		inCircuit++
		_, as, err := circuits()
		if err != nil {
			t.Fatal(err)
		}
		if err := solveCompiled(cs, as); err == nil {
			t.Errorf("%s: accepted by the circuit", tp.name)
		}
		undo()
	}
	t.Logf("%d values changed, each rejected by the native verifier, %d of them by the circuit too; %d R1CS", len(tampers), inCircuit, cs.GetNbConstraints())
	return cs.GetNbConstraints()
}

// ends returns the first and last index of a list of n (one when n = 1).
func ends(n int) []int {
	if n <= 1 {
		return []int{0}
	}
	return []int{0, n - 1}
}

// projectionsCircuit checks the projection step.
type projectionsCircuit struct {
	stepBase
	Proofs []glinear.Proof
	s      *native.Shape `gnark:"-"`
}

func (c *projectionsCircuit) Define(api frontend.API) error {
	t, err := c.begin(api)
	if err != nil {
		return err
	}
	if _, err := verifyProjections(api, t, c.s, c.Points, c.Acc, c.Proofs); err != nil {
		return err
	}
	c.end(api, t)
	return nil
}

// TestProjectionsRejectedByBoth: the projection step of both segments
// (the last with the LM head), on the same proofs; every value of the
// first and last groups' proofs changed.
func TestProjectionsRejectedByBoth(t *testing.T) {
	for _, last := range []bool{false, true} {
		t.Run(fmt.Sprintf("last=%v", last), func(t *testing.T) {
			r := sharedSegmentRun(t, last)
			var tampers []tamper
			for _, k := range ends(len(r.proof.Projections)) {
				for i, x := range linearElements(r.proof.Projections[k]) {
					tampers = append(tampers, tamper{fmt.Sprintf("Projections[%d] value %d", k, i), x})
				}
			}
			checkStep(t, r, stepProjections, func() (frontend.Circuit, frontend.Circuit, error) {
				ph, as, err := r.stepBases(stepProjections)
				if err != nil {
					return nil, nil, err
				}
				return &projectionsCircuit{stepBase: ph, Proofs: PlaceholderProjections(r.shape), s: r.shape},
					&projectionsCircuit{stepBase: as, Proofs: ValueOfProjections(r.proof.Projections), s: r.shape}, nil
			}, tampers)
		})
	}
}

// linearElements lists every value of a linear-layer proof.
func linearElements(p *linear.Proof[fr.Element]) []*fr.Element {
	var out []*fr.Element
	for i := range p.Biases {
		out = append(out, &p.Biases[i])
	}
	for i := range p.SumCheck.Rounds {
		for j := range p.SumCheck.Rounds[i] {
			out = append(out, &p.SumCheck.Rounds[i][j])
		}
	}
	for i := range p.Inputs {
		out = append(out, &p.Inputs[i])
	}
	for i := range p.Weights {
		out = append(out, &p.Weights[i])
	}
	if m := p.Merge; m != nil {
		for i := range m.SumCheck.Rounds {
			for j := range m.SumCheck.Rounds[i] {
				out = append(out, &m.SumCheck.Rounds[i][j])
			}
		}
		out = append(out, &m.Evaluation)
	}
	return out
}

// factorsCircuit checks the three factor steps: gated products,
// rotations, attention contractions.
type factorsCircuit struct {
	stepBase
	Products, Rotations, Contractions []FactorProof
	Keys                              []KeyProof
	s                                 *native.Shape `gnark:"-"`
}

func (c *factorsCircuit) Define(api frontend.API) error {
	t, err := c.begin(api)
	if err != nil {
		return err
	}
	if _, err := verifyFactors(api, t, "committed/product", productSteps(api, c.s, c.Points, c.Acc), c.Products); err != nil {
		return err
	}
	if _, err := verifyFactors(api, t, "committed/rope", rotationSteps(api, nil, c.s, nil, nil, c.Points, c.Acc), c.Rotations); err != nil {
		return err
	}
	if _, _, err := verifyContractions(api, t, c.s, nil, nil, c.Points, c.Acc, c.Contractions, c.Keys); err != nil {
		return err
	}
	c.end(api, t)
	return nil
}

// TestFactorsRejectedByBoth: the gated products, rotations and attention
// contractions of a Llama segment and (full tier) of a Llama whose heads
// are padded (headshapes.Every), and the contractions of the built-in
// model's segments, on the same proofs; every value of the first and
// last proof of each kind changed.
func TestFactorsRejectedByBoth(t *testing.T) {
	for _, c := range []struct {
		name string
		seg  inference.Segment
	}{{model.Tiny, inference.Segment{From: 0, To: 1}}, {model.Tiny, inference.Segment{From: 1, To: 2}}, {model.LlamaTiny, inference.Segment{From: 0, To: 1}},
		{headshapes.Every.Name, inference.Segment{From: 0, To: 1}}} {
		if c.name == headshapes.Every.Name && !tier.Full {
			// TestSegment changes its first and last rotation and
			// contraction in the default tier.
			continue
		}
		t.Run(fmt.Sprintf("%s/%d-%d", c.name, c.seg.From, c.seg.To), func(t *testing.T) {
			r := sharedRunOf(t, c.name, c.seg)
			var tampers []tamper
			for _, kind := range []struct {
				name   string
				proofs []native.FactorProof
			}{{"Products", r.proof.Products}, {"Rotations", r.proof.Rotations}, {"Attention", r.proof.Attention}} {
				for _, k := range ends(len(kind.proofs)) {
					if k >= len(kind.proofs) {
						continue
					}
					p := &kind.proofs[k]
					for i := range p.SumCheck.Rounds {
						for j := range p.SumCheck.Rounds[i] {
							tampers = append(tampers, tamper{fmt.Sprintf("%s[%d] round %d value %d", kind.name, k, i, j), &p.SumCheck.Rounds[i][j]})
						}
					}
					tampers = append(tampers, tamper{fmt.Sprintf("%s[%d].A", kind.name, k), &p.A}, tamper{fmt.Sprintf("%s[%d].B", kind.name, k), &p.B})
				}
			}
			for k := range r.proof.Keys {
				p := &r.proof.Keys[k]
				for i := range p.SumCheck.Rounds {
					for j := range p.SumCheck.Rounds[i] {
						tampers = append(tampers, tamper{fmt.Sprintf("Keys[%d] round %d value %d", k, i, j), &p.SumCheck.Rounds[i][j]})
					}
				}
				tampers = append(tampers, tamper{fmt.Sprintf("Keys[%d].K", k), &p.K})
			}
			if len(r.proof.Keys) == 0 {
				t.Fatal("a segment without key proofs")
			}
			if c.name != model.Tiny && (len(r.proof.Products) == 0 || len(r.proof.Rotations) == 0) {
				t.Fatal("a Llama segment without gated products or rotations")
			}
			checkSteps(t, r, stepProducts, stepContractions, func() (frontend.Circuit, frontend.Circuit, error) {
				ph, as, err := r.rangeBases(stepProducts, stepContractions)
				if err != nil {
					return nil, nil, err
				}
				return &factorsCircuit{stepBase: ph, Products: PlaceholderProducts(r.shape), Rotations: PlaceholderRotations(r.shape), Contractions: PlaceholderContractions(r.shape), Keys: PlaceholderKeys(r.shape), s: r.shape},
					&factorsCircuit{stepBase: as, Products: ValueOfFactors(r.proof.Products), Rotations: ValueOfFactors(r.proof.Rotations), Contractions: ValueOfFactors(r.proof.Attention), Keys: ValueOfKeys(r.proof.Keys), s: r.shape}, nil
			}, tampers)
		})
	}
}

// residualsCircuit checks the residual step.
type residualsCircuit struct {
	stepBase
	Evals []frontend.Variable
	s     *native.Shape `gnark:"-"`
}

func (c *residualsCircuit) Define(api frontend.API) error {
	t, err := c.begin(api)
	if err != nil {
		return err
	}
	if _, err := verifyResiduals(api, t, c.s, c.Evals); err != nil {
		return err
	}
	c.end(api, t)
	return nil
}

// TestResidualsRejectedByBoth: the residual step of both segments (the
// second reads the incoming stream); every residual value changed.
func TestResidualsRejectedByBoth(t *testing.T) {
	for _, last := range []bool{false, true} {
		t.Run(fmt.Sprintf("last=%v", last), func(t *testing.T) {
			r := sharedSegmentRun(t, last)
			var tampers []tamper
			for k := range r.proof.ResidualEvals {
				tampers = append(tampers, tamper{fmt.Sprintf("ResidualEvals[%d]", k), &r.proof.ResidualEvals[k]})
			}
			checkStep(t, r, stepResiduals, func() (frontend.Circuit, frontend.Circuit, error) {
				ph, as, err := r.stepBases(stepResiduals)
				if err != nil {
					return nil, nil, err
				}
				return &residualsCircuit{stepBase: ph, Evals: make([]frontend.Variable, len(r.shape.Residuals.Blocks)), s: r.shape},
					&residualsCircuit{stepBase: as, Evals: gpoly.ValuesOf(r.proof.ResidualEvals), s: r.shape}, nil
			}, tampers)
		})
	}
}

// TestOpeningVars: the shape's opening size is the proofs'.
func TestOpeningVars(t *testing.T) {
	for _, last := range []bool{false, true} {
		r := sharedSegmentRun(t, last)
		if got, want := r.shape.OpeningVars(), len(r.proof.Opening.Opening.Evaluations); got != want {
			t.Errorf("segment %v: OpeningVars %d, the proof's opening %d", r.seg, got, want)
		}
	}
}

// verifyNative runs the native verifier on the run's proof as it is now.
func (r *segmentRun) verifyNative() error {
	_, err := native.Verify(r.vk, r.m, r.st, r.pass, r.seg, r.proof)
	return err
}
