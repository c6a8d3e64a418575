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

	"github.com/veriformer/veriformer/circuits"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// mixedCircuit is one segment circuit of the mixed test with its keys,
// its table commitments and what the aggregator knows of it.
type mixedCircuit struct {
	ccs    constraint.ConstraintSystem
	pk     groth16.ProvingKey
	vk     groth16.VerifyingKey
	tables []pcs.Commitment
	shape  SegmentShape
}

// TestMixedAggregator: one aggregator over three passes of the micro
// model, two requests' and a conversation's second turn's (one segment
// each, one request circuit and one turn circuit, the model id over the
// three passes' keys), is solved by their honest proofs; it refuses the
// requests' passes swapped against the list, the list without the turn,
// a wrong state out, a request's output digest changed and another model
// id. The native side (AggregatorAssignment) refuses a list in another
// order, a list of two leaves and a turn leaf with another state out.
func TestMixedAggregator(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	const rows, capacity = 4, 8
	seg := inference.Segment{From: 0, To: m.Config.Layers}
	segs := []inference.Segment{seg}
	srs, err := pcs.NewDevelopmentSRS(1<<18, log.New(io.Discard, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	vk, err := committed.NewVerifyingKey(srs, m)
	if err != nil {
		t.Fatal(err)
	}
	key := gpcs.KeyOf(vk.PCS)
	placeholder := committed.Pass{Prompt: []int{0}, Output: []int{0}, Rows: rows}
	build := func(s *committed.Shape, turn *SegmentTurn) *mixedCircuit {
		ph, err := circuits.NewCommitted(m, s)
		if err != nil {
			t.Fatal(err)
		}
		c := &mixedCircuit{}
		if c.ccs, err = frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, ph); err != nil {
			t.Fatal(err)
		}
		if c.pk, c.vk, err = setup.DevelopmentKeys(c.ccs); err != nil {
			t.Fatal(err)
		}
		if c.tables, err = vk.TableCommitments(s); err != nil {
			t.Fatal(err)
		}
		multiplicities, boundary, incoming := s.PartIndices()
		if c.shape, err = SegmentShapeOf(c.ccs, s.NbParts(), s.NbTableParts(), s.OpeningVars(), multiplicities, len(s.Parts()[committed.MultiplicitiesCommitment]), boundary, incoming, 0, turn); err != nil {
			t.Fatal(err)
		}
		return c
	}
	view, err := inference.ShapePass(m, rows)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := committed.NewShape(view, seg, placeholder)
	if err != nil {
		t.Fatal(err)
	}
	request := build(rs, nil)
	first := committed.Turn{Start: 0, Capacity: capacity}
	tview, err := committed.TurnView(m, rows, first)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := committed.NewShape(tview, seg, placeholder, committed.WithTurn(first))
	if err != nil {
		t.Fatal(err)
	}
	turnCircuit := build(ts, &SegmentTurn{From: 0, Blocks: len(ts.Cache), Cache: ts.PartIndex(ts.CacheCommitment())})
	id, err := ModelID([]groth16.VerifyingKey{request.vk, request.vk, turnCircuit.vk}, [][]pcs.Commitment{request.tables, request.tables, turnCircuit.tables})
	if err != nil {
		t.Fatal(err)
	}
	layout := []PassShape{
		RequestPass([]SegmentShape{request.shape}),
		RequestPass([]SegmentShape{request.shape}),
		TurnPass([]SegmentShape{turnCircuit.shape}, AggregatorTurn{Layers: m.Config.Layers, Capacity: capacity}),
	}
	ph, err := NewAggregator(layout, key)
	if err != nil {
		t.Fatal(err)
	}
	aggCCS, err := frontend.Compile(ecc.BW6_761.ScalarField(), r1cs.NewBuilder, ph)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("segments: request %d R1CS, turn %d; aggregator of two requests and a turn: %d R1CS", request.ccs.GetNbConstraints(), turnCircuit.ccs.GetNbConstraints(), aggCCS.GetNbConstraints())

	// segmentProof proves one native segment proof in its circuit.
	segmentProof := func(c *mixedCircuit, s *committed.Shape, st statement.Statement, proof *committed.Proof) SegmentProof {
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
		gp, err := groth16.Prove(c.ccs, c.pk, w, SegmentProverOption())
		if err != nil {
			t.Fatal(err)
		}
		sp, err := ValueOfSegmentProof(gp, c.vk, proof.Commitments(), c.tables, &proof.Opening.Opening, check, nil)
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	// proveRequest proves a request's pass under the mixed id.
	proveRequest := func(prompt []int, g int) PassWitness {
		pass, tr, err := inference.Generate(m, prompt, g, rows)
		if err != nil {
			t.Fatal(err)
		}
		st, err := statement.Of[fr.Element](id, prompt, pass.Output)
		if err != nil {
			t.Fatal(err)
		}
		proof, _, err := committed.Prove(srs, m, st, pass, tr, seg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := committed.VerifyPassChecks(vk, m, st, pass, segs, []*committed.Proof{proof}); err != nil {
			t.Fatal(err)
		}
		s, err := committed.NewShape(view, seg, pass)
		if err != nil {
			t.Fatal(err)
		}
		return PassWitness{Statement: st, Segments: []SegmentProof{segmentProof(request, s, st, proof)}}
	}
	a := proveRequest([]int{5, 3}, 2)
	b := proveRequest([]int{7}, 3)

	// The conversation's second turn: the first one's cache, then the
	// turn over it, proven from its state.
	cache := m.NewCache()
	out1, err := m.Continue(cache, []int{9, 4}, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, next, err := committed.TurnTrace(m, cache, committed.Pass{Prompt: []int{9, 4}, Output: out1, Rows: rows}, capacity)
	if err != nil {
		t.Fatal(err)
	}
	in, err := committed.StateOf(srs, m, next, capacity)
	if err != nil {
		t.Fatal(err)
	}
	prompt := []int{2, 6}
	out2, err := m.Continue(next, prompt, 1)
	if err != nil {
		t.Fatal(err)
	}
	pass := committed.Pass{Prompt: prompt, Output: out2, Rows: rows}
	st, err := statement.Of[fr.Element](id, prompt, out2)
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := committed.TurnTrace(m, next, pass, capacity)
	if err != nil {
		t.Fatal(err)
	}
	turn := committed.Turn{Start: in.Rows, Capacity: capacity}
	proof, _, err := committed.ProveTurn(srs, m, st, pass, tr, seg, turn)
	if err != nil {
		t.Fatal(err)
	}
	out, err := committed.VerifyTurn(vk, m, st, pass, in, segs, []*committed.Proof{proof})
	if err != nil {
		t.Fatal(err)
	}
	tv, err := committed.TurnView(m, rows, turn)
	if err != nil {
		t.Fatal(err)
	}
	s, err := committed.NewShape(tv, seg, pass, committed.WithTurn(turn))
	if err != nil {
		t.Fatal(err)
	}
	c := PassWitness{Statement: st, Segments: []SegmentProof{segmentProof(turnCircuit, s, st, proof)},
		Turn: &TurnWitness{StateIn: in.Digest(), StateOut: out.Digest(), Rows: in.Rows, Keys: in.Keys, Values: in.Values, Keep: committed.TurnKeep(pass)}}

	leaf := func(w PassWitness) statement.Leaf {
		if w.Turn != nil {
			return statement.TurnLeaf(w.Turn.StateIn, w.Statement.InputDigest, w.Statement.OutputDigest, w.Turn.StateOut)
		}
		return statement.RequestLeaf(w.Statement.InputDigest, w.Statement.OutputDigest)
	}
	list := statement.List{ModelID: id, Leaves: []statement.Leaf{leaf(a), leaf(b), leaf(c)}}
	passes := []PassWitness{a, b, c}
	assign := func() *Aggregator {
		agg, err := AggregatorAssignment(layout, key, list, passes)
		if err != nil {
			t.Fatal(err)
		}
		return agg
	}
	solve := func(name string, agg *Aggregator, want bool) {
		t.Helper()
		w, err := frontend.NewWitness(agg, ecc.BW6_761.ScalarField())
		if err != nil {
			t.Fatal(err)
		}
		if err := aggCCS.IsSolved(w); (err == nil) != want {
			t.Errorf("%s: solved %v, want %v (%v)", name, err == nil, want, err)
		}
	}
	solve("two requests and a turn", assign(), true)

	swapped := assign()
	swapped.Passes[0], swapped.Passes[1] = swapped.Passes[1], swapped.Passes[0]
	solve("the requests' passes swapped", swapped, false)
	short := assign()
	digest, err := statement.List{ModelID: id, Leaves: list.Leaves[:2]}.ListDigest()
	if err != nil {
		t.Fatal(err)
	}
	short.ListDigest = digest
	solve("the list without the turn", short, false)
	wrongOut := assign()
	wrongOut.Passes[2].States[1] = new(big.Int).Add(out.Digest(), big.NewInt(1))
	solve("a wrong state out", wrongOut, false)
	wrongOutput := assign()
	wrongOutput.Passes[0].OutputDigest = b.Statement.OutputDigest
	solve("a request's output digest changed", wrongOutput, false)
	otherID := assign()
	otherID.ModelID = new(big.Int).Add(id, big.NewInt(1))
	solve("another model id", otherID, false)

	for name, l := range map[string]statement.List{
		"the list in another order": {ModelID: id, Leaves: []statement.Leaf{leaf(b), leaf(a), leaf(c)}},
		"a list of two leaves":      {ModelID: id, Leaves: list.Leaves[:2]},
		"another state out": {ModelID: id, Leaves: []statement.Leaf{leaf(a), leaf(b),
			statement.TurnLeaf(in.Digest(), st.InputDigest, st.OutputDigest, big.NewInt(7))}},
	} {
		if _, err := AggregatorAssignment(layout, key, l, passes); err == nil {
			t.Errorf("%s: assigned", name)
		}
	}
}
