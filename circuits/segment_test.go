package circuits

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/statement"
)

// segmentFixture is a three-block model cut into one-block segments (a
// first, a middle and a last segment), with native segment proofs.
type segmentFixture struct {
	layout         *Layout
	st             statement.Statement
	prompt, output []int
	segs           []inference.Segment
	proofs         []*inference.SegmentProof[bls12377fr.Element]
	chains         []bls12377fr.Element
}

func newSegmentFixture(t testing.TB) *segmentFixture {
	t.Helper()
	c := &model.Config{Family: model.GPT2, Vocab: 64, Hidden: 16, Layers: 3, Heads: 2, KVHeads: 2,
		Intermediate: 32, MaxPositions: 8, NormEps: 1e-5, TiedEmbeddings: true}
	w, err := model.RandomWeights(c, 5, model.DefaultEmbedScale, model.DefaultGain)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(c, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &segmentFixture{prompt: []int{1, 2}}
	var tr *model.Trace
	if f.output, tr, err = inference.Generate(m, f.prompt, 2); err != nil {
		t.Fatal(err)
	}
	if f.st, err = statement.New[bls12377fr.Element](m, f.prompt, f.output); err != nil {
		t.Fatal(err)
	}
	if f.segs, err = inference.Segments(c.Layers, 1); err != nil {
		t.Fatal(err)
	}
	if f.proofs, f.chains, err = inference.ProveSegments[bls12377fr.Element](m, f.st, tr, f.segs); err != nil {
		t.Fatal(err)
	}
	if f.layout, err = NewLayout(m, len(f.prompt), len(f.output)); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *segmentFixture) compile(t testing.TB, k int) constraint.ConstraintSystem {
	t.Helper()
	placeholder, err := f.layout.SegmentPlaceholder(f.segs[k])
	if err != nil {
		t.Fatal(err)
	}
	ccs, err := frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, placeholder)
	if err != nil {
		t.Fatal(err)
	}
	return ccs
}

// usedWires returns the wires with a non-zero coefficient in some
// constraint.
func usedWires(ccs constraint.ConstraintSystem) map[uint32]bool {
	used := map[uint32]bool{}
	it := ccs.(interface{ GetR1CIterator() constraint.R1CIterator }).GetR1CIterator()
	for c := it.Next(); c != nil; c = it.Next() {
		for _, le := range []constraint.LinearExpression{c.L, c.R, c.O} {
			for _, term := range le {
				if term.CID != constraint.CoeffIdZero {
					used[term.VID] = true
				}
			}
		}
	}
	return used
}

// segmentInputs are the segment contract's public inputs, in order.
var segmentInputs = []string{"ModelID", "InputDigest", "OutputDigest", "ChainIn", "ChainOut"}

// checkInputsUsed checks that a compiled segment has the five public
// inputs of the contract and that each is in a constraint: a public input
// in none has a zero verifying-key point, so its value would be free.
func checkInputsUsed(t testing.TB, k int, ccs constraint.ConstraintSystem) {
	t.Helper()
	if n := ccs.GetNbPublicVariables() - 1; n != len(segmentInputs) {
		t.Fatalf("segment %d has %d public inputs, want %d", k, n, len(segmentInputs))
	}
	used := usedWires(ccs)
	for i, name := range segmentInputs {
		// Wire 0 is the constant 1; the public inputs follow in
		// declaration order.
		if !used[uint32(i+1)] {
			t.Errorf("segment %d: public input %s is in no constraint", k, name)
		}
	}
}

// TestSegmentPublicInputsUsed compiles the first, a middle and the last
// segment of a three-block model and checks every public input is in a
// constraint (the middle segment uses none of the statement's values, the
// last not the model id). The Groth16 consequence is tested by
// TestBindUnused here and, on a real segment proof, by the full-tag
// TestSegmentGroth16UnusedInputs.
func TestSegmentPublicInputsUsed(t *testing.T) {
	f := newSegmentFixture(t)
	for k := range f.segs {
		ccs := f.compile(t, k)
		t.Logf("segment %d: %d R1CS constraints", k, ccs.GetNbConstraints())
		checkInputsUsed(t, k, ccs)
	}
}

// unusedInput has a public input that no constraint needs.
type unusedInput struct {
	A, Unused frontend.Variable `gnark:",public"`
	X         frontend.Variable
	bind      bool `gnark:"-"`
}

func (c *unusedInput) Define(api frontend.API) error {
	api.AssertIsEqual(api.Mul(c.X, c.X), c.A)
	if c.bind {
		bindUnused(api, c.Unused)
	}
	return nil
}

// TestBindUnused shows why segments bind their unused inputs: without
// bindUnused, a Groth16 proof verifies with any value of an unused public
// input; with it, only with the value proven.
func TestBindUnused(t *testing.T) {
	field := ecc.BLS12_377.ScalarField()
	for _, bind := range []bool{false, true} {
		ccs, err := frontend.Compile(field, r1cs.NewBuilder, &unusedInput{bind: bind})
		if err != nil {
			t.Fatal(err)
		}
		pk, vk, err := groth16.Setup(ccs)
		if err != nil {
			t.Fatal(err)
		}
		w, err := frontend.NewWitness(&unusedInput{A: 9, Unused: 5, X: 3}, field)
		if err != nil {
			t.Fatal(err)
		}
		proof, err := groth16.Prove(ccs, pk, w)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []int{5, 6} {
			public, err := frontend.NewWitness(&unusedInput{A: 9, Unused: v}, field, frontend.PublicOnly())
			if err != nil {
				t.Fatal(err)
			}
			err = groth16.Verify(proof, vk, public)
			if want := v == 5 || !bind; (err == nil) != want {
				t.Errorf("bind %v, input %d: verify error %v, want accepted %v", bind, v, err, want)
			}
		}
	}
}
