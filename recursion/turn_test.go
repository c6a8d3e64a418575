//go:build full

package recursion

import (
	"io"
	"log"
	"math/big"
	"testing"

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
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// turnProof is one native turn proven with the turn segment circuits:
// its statement, the states in and out, the rows it keeps and the
// aggregator's segment witnesses.
type turnProof struct {
	st        statement.Statement
	in, out   *committed.State
	keep      int
	next      *model.Cache
	segments  []SegmentProof
	aggregate func(segments []SegmentProof, st statement.Statement, in, out *big.Int, rows int, keys, values []pcs.Commitment, keep int) error
}

// TestTurnAggregator: two turns of the built-in model (bucket 8, a
// cache of 16 rows), each proven by the turn segment circuits compiled
// once (development keys), satisfy the turn aggregator from the state the
// previous left; the aggregator refuses a wrong state out, a wrong
// state in digest, another state in (the second turn from the empty
// state), a state in of
// another row count, another number of kept rows, and the first turn's
// segments in place of the second's.
func TestTurnAggregator(t *testing.T) {
	m, err := model.Builtin(model.Tiny)
	if err != nil {
		t.Fatal(err)
	}
	const rows, capacity = 8, 16
	segs := []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}}
	srs, err := pcs.NewDevelopmentSRS(1<<18, log.New(io.Discard, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	vk, err := committed.NewVerifyingKey(srs, m)
	if err != nil {
		t.Fatal(err)
	}
	key := gpcs.KeyOf(vk.PCS)
	// The circuits, from the shape of a first turn.
	first := committed.Pass{Prompt: []int{5, 17, 42}, Output: []int{1, 2, 3}, Rows: rows}
	view, err := committed.TurnView(m, rows, committed.Turn{Start: 0, Capacity: capacity})
	if err != nil {
		t.Fatal(err)
	}
	ccss := make([]constraint.ConstraintSystem, len(segs))
	pks := make([]groth16.ProvingKey, len(segs))
	vks := make([]groth16.VerifyingKey, len(segs))
	tables := make([][]pcs.Commitment, len(segs))
	shapes := make([]SegmentShape, len(segs))
	for i, seg := range segs {
		s, err := committed.NewShape(view, seg, first, committed.WithTurn(committed.Turn{Start: 0, Capacity: capacity}))
		if err != nil {
			t.Fatal(err)
		}
		ph, err := circuits.NewCommitted(m, s)
		if err != nil {
			t.Fatal(err)
		}
		if ccss[i], err = frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, ph); err != nil {
			t.Fatal(err)
		}
		if pks[i], vks[i], err = setup.DevelopmentKeys(ccss[i]); err != nil {
			t.Fatal(err)
		}
		if tables[i], err = vk.TableCommitments(s); err != nil {
			t.Fatal(err)
		}
		multiplicities, boundary, incoming := s.PartIndices()
		turn := &SegmentTurn{From: seg.From, Blocks: len(s.Cache), Cache: s.PartIndex(s.CacheCommitment())}
		if shapes[i], err = SegmentShapeOf(ccss[i], s.NbParts(), s.NbTableParts(), s.OpeningVars(), multiplicities, len(s.Parts()[committed.MultiplicitiesCommitment]), boundary, incoming, 0, turn); err != nil {
			t.Fatal(err)
		}
	}
	id, err := ModelID(vks, tables)
	if err != nil {
		t.Fatal(err)
	}
	turnShape := AggregatorTurn{Layers: m.Config.Layers, Capacity: capacity}
	ph, err := NewAggregator([]PassShape{TurnPass(shapes, turnShape)}, key)
	if err != nil {
		t.Fatal(err)
	}
	aggCCS, err := frontend.Compile(ecc.BW6_761.ScalarField(), r1cs.NewBuilder, ph)
	if err != nil {
		t.Fatal(err)
	}
	plainShapes := make([]SegmentShape, len(shapes))
	for i, sh := range shapes {
		plainShapes[i] = sh
		plainShapes[i].Turn = nil
	}
	plain, err := CompileAggregator(onePass(plainShapes...), key)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("turn aggregator of %d segments: %d R1CS (%d for a pass's of the same segments)", len(segs), aggCCS.GetNbConstraints(), plain.GetNbConstraints())
	solve := func(segments []SegmentProof, st statement.Statement, in, out *big.Int, rows int, keys, values []pcs.Commitment, keep int) error {
		l := statement.List{ModelID: st.ModelID, Leaves: []statement.Leaf{statement.TurnLeaf(in, st.InputDigest, st.OutputDigest, out)}}
		tw := &TurnWitness{StateIn: in, StateOut: out, Rows: rows, Keys: keys, Values: values, Keep: keep}
		a, err := AggregatorAssignment([]PassShape{TurnPass(shapes, turnShape)}, key, l, []PassWitness{{Statement: st, Segments: segments, Turn: tw}})
		if err != nil {
			return err
		}
		w, err := frontend.NewWitness(a, ecc.BW6_761.ScalarField())
		if err != nil {
			return err
		}
		return aggCCS.IsSolved(w)
	}

	// proveTurn decodes g tokens after prompt over cache and proves the
	// turn from the state in: natively, then each segment's Groth16 proof.
	proveTurn := func(cache *model.Cache, in *committed.State, prompt []int, g int) *turnProof {
		out, err := m.Continue(cache, prompt, g)
		if err != nil {
			t.Fatal(err)
		}
		pass := committed.Pass{Prompt: prompt, Output: out, Rows: rows}
		st, err := statement.Of[fr.Element](id, prompt, out)
		if err != nil {
			t.Fatal(err)
		}
		tr, next, err := committed.TurnTrace(m, cache, pass, capacity)
		if err != nil {
			t.Fatal(err)
		}
		turn := committed.Turn{Start: in.Rows, Capacity: capacity}
		tv, err := committed.TurnView(m, rows, turn)
		if err != nil {
			t.Fatal(err)
		}
		p := &turnProof{st: st, in: in, keep: committed.TurnKeep(pass), next: next, aggregate: solve}
		var proofs []*committed.Proof
		for i, seg := range segs {
			proof, _, err := committed.ProveTurn(srs, m, st, pass, tr, seg, turn)
			if err != nil {
				t.Fatal(err)
			}
			proofs = append(proofs, proof)
			s, err := committed.NewShape(tv, seg, pass, committed.WithTurn(turn))
			if err != nil {
				t.Fatal(err)
			}
			check, _, err := s.VerifyField(m, st, proof)
			if err != nil {
				t.Fatal(err)
			}
			assignment, err := circuits.AssignCommitted(m, s, st, proof, check)
			if err != nil {
				t.Fatal(err)
			}
			w, err := frontend.NewWitness(assignment, ecc.BLS12_377.ScalarField())
			if err != nil {
				t.Fatal(err)
			}
			gp, err := groth16.Prove(ccss[i], pks[i], w, SegmentProverOption())
			if err != nil {
				t.Fatalf("turn from row %d, segment %v: %v", in.Rows, seg, err)
			}
			sp, err := ValueOfSegmentProof(gp, vks[i], proof.Commitments(), tables[i], &proof.Opening.Opening, check, nil)
			if err != nil {
				t.Fatal(err)
			}
			p.segments = append(p.segments, sp)
		}
		if p.out, err = committed.VerifyTurn(vk, m, st, pass, in, segs, proofs); err != nil {
			t.Fatal(err)
		}
		return p
	}
	check := func(name string, p *turnProof, segments []SegmentProof, in *committed.State, out *big.Int, rows, keep int, want bool) {
		t.Helper()
		err := p.aggregate(segments, p.st, in.Digest(), out, rows, in.Keys, in.Values, keep)
		if (err == nil) != want {
			t.Errorf("%s: solved %v, want %v (%v)", name, err == nil, want, err)
		}
	}

	empty := committed.EmptyState(m.Config.Layers, capacity)
	turn1 := proveTurn(m.NewCache(), empty, []int{5, 17, 42}, 3)
	check("turn 1", turn1, turn1.segments, empty, turn1.out.Digest(), 0, turn1.keep, true)
	turn2 := proveTurn(turn1.next, turn1.out, []int{9, 3}, 4)
	state1 := turn1.out
	check("turn 2", turn2, turn2.segments, state1, turn2.out.Digest(), state1.Rows, turn2.keep, true)
	check("a wrong state out", turn2, turn2.segments, state1, new(big.Int).Add(turn2.out.Digest(), big.NewInt(1)), state1.Rows, turn2.keep, false)
	check("turn 2 from the empty state", turn2, turn2.segments, empty, turn2.out.Digest(), 0, turn2.keep, false)
	// The state in's points right, its public digest wrong.
	if err := turn2.aggregate(turn2.segments, turn2.st, new(big.Int).Add(state1.Digest(), big.NewInt(1)), turn2.out.Digest(), state1.Rows, state1.Keys, state1.Values, turn2.keep); err == nil {
		t.Error("a wrong state in digest: solved")
	}
	check("a state in of another row count", turn2, turn2.segments, state1, turn2.out.Digest(), state1.Rows-1, turn2.keep, false)
	check("another number of kept rows", turn2, turn2.segments, state1, turn2.out.Digest(), state1.Rows, turn2.keep+1, false)
	check("turn 1's segments as turn 2's", turn2, turn1.segments, state1, turn2.out.Digest(), state1.Rows, turn2.keep, false)
	moved := append([]SegmentProof(nil), turn2.segments...)
	moved[1].Commitments = append([]sw_bls12377.G1Affine(nil), moved[1].Commitments...)
	c := shapes[1].Turn.Cache
	moved[1].Commitments[c+2], moved[1].Commitments[c+3] = moved[1].Commitments[c+3], moved[1].Commitments[c+2]
	check("the written keys and values swapped", turn2, moved, state1, turn2.out.Digest(), state1.Rows, turn2.keep, false)
}
