//go:build full

package recursion

import (
	"fmt"
	"io"
	"log"
	"math/big"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/std/algebra/native/sw_bls12377"

	"github.com/veriformer/veriformer/circuits"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/internal/g1"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// committedRun is the built-in model's pass proven in two committed
// segments, each verified by its Groth16 segment circuit (development
// keys), ready for the committed aggregator.
type committedRun struct {
	shapes   []SegmentShape
	key      gpcs.Key
	st       statement.Statement
	segments []SegmentProof
	// other is the pass of another model whose segments have the same
	// shapes, proven for its statement otherSt.
	other   []SegmentProof
	otherSt statement.Statement
	// foreign is the other model's second segment proven for st.
	foreign SegmentProof
}

func newCommittedRun(t *testing.T) *committedRun {
	t.Helper()
	return newCommittedRunOf(t, []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}}, true)
}

// newCommittedRunOf is newCommittedRun for the cut segs, with the other
// model's segments (of a cut of two) when other is set.
func newCommittedRunOf(t *testing.T, segs []inference.Segment, other bool) *committedRun {
	t.Helper()
	m, err := model.Builtin(model.Tiny)
	if err != nil {
		t.Fatal(err)
	}
	prompt := []int{11, 48}
	gen, err := m.Generate(prompt, 4)
	if err != nil {
		t.Fatal(err)
	}
	pass := committed.Pass{Prompt: prompt, Output: gen.Tokens, Rows: 5}
	tr, err := m.Forward(m.NewCache(), pass.Tokens())
	if err != nil {
		t.Fatal(err)
	}
	view, err := inference.ShapePass(m, len(pass.Tokens()))
	if err != nil {
		t.Fatal(err)
	}
	srs, err := pcs.NewDevelopmentSRS(1<<18, log.New(io.Discard, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	vk, err := committed.NewVerifyingKey(srs, m)
	if err != nil {
		t.Fatal(err)
	}
	run := &committedRun{key: gpcs.KeyOf(vk.PCS)}
	shapes := make([]*committed.Shape, len(segs))
	ccss := make([]constraint.ConstraintSystem, len(segs))
	pks := make([]groth16.ProvingKey, len(segs))
	vks := make([]groth16.VerifyingKey, len(segs))
	tables := make([][]pcs.Commitment, len(segs))
	for i, seg := range segs {
		if shapes[i], err = committed.NewShape(view, seg, pass); err != nil {
			t.Fatal(err)
		}
		ph, err := circuits.NewCommitted(m, shapes[i])
		if err != nil {
			t.Fatal(err)
		}
		if ccss[i], err = frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, ph); err != nil {
			t.Fatal(err)
		}
		if pks[i], vks[i], err = setup.DevelopmentKeys(ccss[i]); err != nil {
			t.Fatal(err)
		}
		if tables[i], err = vk.TableCommitments(shapes[i]); err != nil {
			t.Fatal(err)
		}
		s := shapes[i]
		multiplicities, boundary, incoming := s.PartIndices()
		nbChosen := 0
		if seg.Chunk() {
			nbChosen = pass.Rows
		}
		sh, err := SegmentShapeOf(ccss[i], s.NbParts(), s.NbTableParts(), s.OpeningVars(), multiplicities, len(s.Parts()[committed.MultiplicitiesCommitment]), boundary, incoming, nbChosen, nil)
		if err != nil {
			t.Fatal(err)
		}
		run.shapes = append(run.shapes, sh)
		t.Logf("segment %v: %d R1CS, %d public inputs", seg, ccss[i].GetNbConstraints(), sh.NbPublic())
	}
	id, err := ModelID(vks, tables)
	if err != nil {
		t.Fatal(err)
	}
	if run.st, err = statement.Of[fr.Element](id, prompt, gen.Tokens); err != nil {
		t.Fatal(err)
	}
	// prove proves the pass's segments for the statement st with the
	// segment keys pks and vks.
	prove := func(st statement.Statement, pks []groth16.ProvingKey, vks []groth16.VerifyingKey) []SegmentProof {
		var segments []SegmentProof
		for i, seg := range segs {
			proof, _, err := committed.Prove(srs, m, st, pass, tr, seg)
			if err != nil {
				t.Fatal(err)
			}
			check, _, err := shapes[i].VerifyField(m, st, proof)
			if err != nil {
				t.Fatal(err)
			}
			assignment, err := circuits.AssignCommitted(m, shapes[i], st, proof, check)
			if err != nil {
				t.Fatal(err)
			}
			w, err := frontend.NewWitness(assignment, ecc.BLS12_377.ScalarField())
			if err != nil {
				t.Fatal(err)
			}
			gp, err := groth16.Prove(ccss[i], pks[i], w, SegmentProverOption())
			if err != nil {
				t.Fatalf("segment %v: %v", seg, err)
			}
			pub, err := w.Public()
			if err != nil {
				t.Fatal(err)
			}
			if err := groth16.Verify(gp, vks[i], pub, SegmentVerifierOption()); err != nil {
				t.Fatalf("segment %v: %v", seg, err)
			}
			var chosen []fr.Element
			if seg.Chunk() {
				chosen = proof.Argmax.Chosen
			}
			cs, err := ValueOfSegmentProof(gp, vks[i], proof.Commitments(), tables[i], &proof.Opening.Opening, check, chosen)
			if err != nil {
				t.Fatal(err)
			}
			segments = append(segments, cs)
		}
		return segments
	}
	run.segments = prove(run.st, pks, vks)
	if !other {
		return run
	}

	// Another model with segments of the same shapes: segment 0's keys
	// and another key set for segment 1 (another setup of its circuit,
	// as other weights would give), hence another model id, its pass
	// proven for its own statement.
	pk1, vk1, err := setup.DevelopmentKeys(ccss[1])
	if err != nil {
		t.Fatal(err)
	}
	otherPKs, otherVKs := []groth16.ProvingKey{pks[0], pk1}, []groth16.VerifyingKey{vks[0], vk1}
	otherID, err := ModelID(otherVKs, tables)
	if err != nil {
		t.Fatal(err)
	}
	if run.otherSt, err = statement.Of[fr.Element](otherID, prompt, gen.Tokens); err != nil {
		t.Fatal(err)
	}
	run.other = prove(run.otherSt, otherPKs, otherVKs)
	// The other model's second segment proven for this model's
	// statement: a valid Groth16 proof under the other key.
	run.foreign = prove(run.st, otherPKs, otherVKs)[1]
	return run
}

// aggregator compiles the committed aggregator of the run's shapes and
// returns it with a function that checks whether segments, for a
// statement, solve it.
func (run *committedRun) aggregator(t *testing.T) (constraint.ConstraintSystem, func([]SegmentProof, statement.Statement) error) {
	t.Helper()
	ph, err := NewAggregator(onePass(run.shapes...), run.key)
	if err != nil {
		t.Fatal(err)
	}
	ccs, err := frontend.Compile(ecc.BW6_761.ScalarField(), r1cs.NewBuilder, ph)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("committed aggregator of %d segments: %d R1CS", len(run.shapes), ccs.GetNbConstraints())
	return ccs, func(segments []SegmentProof, st statement.Statement) error {
		a, err := AggregatorAssignment(onePass(run.shapes...), run.key, requestList(st), []PassWitness{{Statement: st, Segments: segments}})
		if err != nil {
			return err
		}
		w, err := frontend.NewWitness(a, ecc.BW6_761.ScalarField())
		if err != nil {
			return err
		}
		return ccs.IsSolved(w)
	}
}

// TestCommittedAggregatorChunks: the built-in model's pass cut as block
// 0, block 1 without the LM head and three chunks of the LM head
// ([0, 40), [40, 100), [100, 256)), each proven with its Groth16 segment
// circuit, satisfies the committed aggregator; a chunk's chosen logits
// changed, a chunk's incoming stream moved and two chunks swapped do
// not.
func TestCommittedAggregatorChunks(t *testing.T) {
	segs := []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2, NoHead: true}}
	for _, r := range [][2]int{{0, 40}, {40, 100}, {100, 256}} {
		segs = append(segs, inference.Segment{From: 2, To: 2, VocabFrom: r[0], VocabTo: r[1]})
	}
	run := newCommittedRunOf(t, segs, false)
	_, solveFor := run.aggregator(t)
	solve := func(segments []SegmentProof) error { return solveFor(segments, run.st) }
	if err := solve(run.segments); err != nil {
		t.Fatalf("honest segments: %v", err)
	}
	clone := func() []SegmentProof { return append([]SegmentProof(nil), run.segments...) }
	for name, change := range map[string]func() []SegmentProof{
		"a chunk's chosen logit changed": func() []SegmentProof {
			s := clone()
			s[3].Chosen = append([]frontend.Variable(nil), s[3].Chosen...)
			v := new(big.Int).Set(s[3].Chosen[0].(*big.Int))
			s[3].Chosen[0] = v.Add(v, big.NewInt(1))
			return s
		},
		"a chunk's incoming stream moved": func() []SegmentProof {
			s := clone()
			s[4].Commitments = append([]sw_bls12377.G1Affine(nil), s[4].Commitments...)
			s[4].Commitments[run.shapes[4].Incoming] = s[4].Commitments[0]
			return s
		},
		"two chunks swapped": func() []SegmentProof {
			s := clone()
			s[2], s[3] = s[3], s[2]
			return s
		},
	} {
		if err := solve(change()); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestCommittedAggregator: the built-in model's two committed segments,
// proven with their Groth16 segment circuits, satisfy the committed
// aggregator; swapped segments, a segment of another model, a changed
// commitment point, a point outside G1, a scalar changed and a wrong
// statement do not.
func TestCommittedAggregator(t *testing.T) {
	run := newCommittedRun(t)
	outside, err := g1.OutsideSubgroup()
	if err != nil {
		t.Fatal(err)
	}
	ccs, solve := run.aggregator(t)
	if err := solve(run.segments, run.st); err != nil {
		t.Fatalf("honest segments: %v", err)
	}
	// The public list digest: another list's, or the pass's statement
	// read as a list's.
	for name, list := range map[string]func(*big.Int) *big.Int{
		"list digest plus one":     func(l *big.Int) *big.Int { return new(big.Int).Add(l, big.NewInt(1)) },
		"input digest as the list": func(*big.Int) *big.Int { return run.st.InputDigest },
	} {
		a, err := AggregatorAssignment(onePass(run.shapes...), run.key, requestList(run.st), []PassWitness{{Statement: run.st, Segments: run.segments}})
		if err != nil {
			t.Fatal(err)
		}
		a.ListDigest = list(a.ListDigest.(*big.Int))
		w, err := frontend.NewWitness(a, ecc.BW6_761.ScalarField())
		if err != nil {
			t.Fatal(err)
		}
		if err := ccs.IsSolved(w); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	clone := func() []SegmentProof { return append([]SegmentProof(nil), run.segments...) }
	cases := map[string]func() ([]SegmentProof, statement.Statement){
		"input digest changed": func() ([]SegmentProof, statement.Statement) {
			st := run.st
			st.InputDigest = new(big.Int).Add(st.InputDigest, big.NewInt(1))
			return run.segments, st
		},
		"model id changed": func() ([]SegmentProof, statement.Statement) {
			st := run.st
			st.ModelID = new(big.Int).Add(st.ModelID, big.NewInt(1))
			return run.segments, st
		},
		"tensors commitment moved": func() ([]SegmentProof, statement.Statement) {
			s := clone()
			s[0].Commitments = append([]sw_bls12377.G1Affine(nil), s[0].Commitments...)
			s[0].Commitments[0] = s[0].Commitments[2]
			return s, run.st
		},
		"a fold moved": func() ([]SegmentProof, statement.Statement) {
			s := clone()
			s[1].Folds = append([]sw_bls12377.G1Affine(nil), s[1].Folds...)
			s[1].Folds[0] = s[1].Folds[1]
			return s, run.st
		},
		"the quotient moved": func() ([]SegmentProof, statement.Statement) {
			s := clone()
			s[0].Quotient = s[0].Folds[0]
			return s, run.st
		},
		"a table commitment moved": func() ([]SegmentProof, statement.Statement) {
			s := clone()
			s[1].Tables = append([]sw_bls12377.G1Affine(nil), s[1].Tables...)
			s[1].Tables[0] = s[1].Commitments[0]
			return s, run.st
		},
		"a fold outside G1": func() ([]SegmentProof, statement.Statement) {
			s := clone()
			s[0].Folds = append([]sw_bls12377.G1Affine(nil), s[0].Folds...)
			s[0].Folds[0] = sw_bls12377.NewG1Affine(outside)
			return s, run.st
		},
		"the boundary commitment outside G1 on both sides of the link": func() ([]SegmentProof, statement.Statement) {
			s := clone()
			bad := sw_bls12377.NewG1Affine(outside)
			s[0].Commitments = append([]sw_bls12377.G1Affine(nil), s[0].Commitments...)
			s[1].Commitments = append([]sw_bls12377.G1Affine(nil), s[1].Commitments...)
			s[0].Commitments[run.shapes[0].Boundary] = bad
			s[1].Commitments[run.shapes[1].Incoming] = bad
			return s, run.st
		},
		"a commitment scalar above r": func() ([]SegmentProof, statement.Statement) {
			s := clone()
			s[0].Scalars.Commitments = append([]frontend.Variable(nil), s[0].Scalars.Commitments...)
			v := new(big.Int).Set(s[0].Scalars.Commitments[0].(*big.Int))
			s[0].Scalars.Commitments[0] = v.Add(v, fr.Modulus())
			return s, run.st
		},
		"the generator's scalar changed": func() ([]SegmentProof, statement.Statement) {
			s := clone()
			s[0].Scalars.Generator[0] = s[0].Scalars.Quotient[0]
			return s, run.st
		},
	}
	for name, c := range cases {
		segments, st := c()
		if err := solve(segments, st); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Swapped segments do not fit the shapes (the first has no incoming
	// stream, the last no boundary): refused before any witness.
	swapped := []SegmentProof{run.segments[1], run.segments[0]}
	if err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return solve(swapped, run.st)
	}(); err == nil {
		t.Error("swapped segments: accepted")
	}
	// A segment of another model: the other model's run is accepted on
	// its own statement, and its second segment with this model's first
	// is refused on either statement (the keys give a third model id).
	if err := solve(run.other, run.otherSt); err != nil {
		t.Errorf("the other model's run: %v", err)
	}
	mixed := []SegmentProof{run.segments[0], run.other[1]}
	for name, st := range map[string]statement.Statement{"this model's": run.st, "the other model's": run.otherSt} {
		if err := solve(mixed, st); err == nil {
			t.Errorf("a segment of another model, on %s statement: accepted", name)
		}
	}
	// Even proven for this model's statement, the other key changes the
	// model id the aggregator derives from the segments' keys.
	if err := solve([]SegmentProof{run.segments[0], run.foreign}, run.st); err == nil {
		t.Error("a segment of another model proven for this statement: accepted")
	}

	if testing.Short() {
		t.Log("-short: the aggregator's setup (about 18 minutes) and proof are left out")
		return
	}
	// The aggregator proven (development keys) and verified on the
	// statement alone, the wrapper's input.
	start := time.Now()
	pk, vk, err := setup.DevelopmentKeys(ccs)
	if err != nil {
		t.Fatal(err)
	}
	setupTime := time.Since(start)
	start = time.Now()
	a, err := AggregatorAssignment(onePass(run.shapes...), run.key, requestList(run.st), []PassWitness{{Statement: run.st, Segments: run.segments}})
	if err != nil {
		t.Fatal(err)
	}
	w, err := frontend.NewWitness(a, ecc.BW6_761.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	proof, err := groth16.Prove(ccs, pk, w, AggregatorProverOption())
	if err != nil {
		t.Fatal(err)
	}
	prove := time.Since(start)
	if err := VerifyAggregated(proof, vk, requestList(run.st)); err != nil {
		t.Fatalf("the committed aggregator's proof: %v", err)
	}
	wrong := run.st
	wrong.OutputDigest = new(big.Int).Add(wrong.OutputDigest, big.NewInt(1))
	if err := VerifyAggregated(proof, vk, requestList(wrong)); err == nil {
		t.Error("the committed aggregator's proof verifies on a wrong output digest")
	}
	turn := statement.List{ModelID: run.st.ModelID, Leaves: []statement.Leaf{statement.TurnLeaf(statement.EmptyState, run.st.InputDigest, run.st.OutputDigest, big.NewInt(1))}}
	if err := VerifyAggregated(proof, vk, turn); err == nil {
		t.Error("the committed aggregator's proof verifies as a turn's")
	}
	t.Logf("committed aggregator: setup %v, prove %v; its proof verifies on the statement", setupTime.Round(time.Second), prove.Round(time.Second))
}

// requestList is the list of the one request of a pass's statement.
func requestList(st statement.Statement) statement.List {
	return statement.List{ModelID: st.ModelID, Leaves: []statement.Leaf{statement.RequestLeaf(st.InputDigest, st.OutputDigest)}}
}
