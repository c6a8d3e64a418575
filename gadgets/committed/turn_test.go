package committed

import (
	"errors"
	"fmt"
	"io"
	"log"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/constraint"

	gstatement "github.com/veriformer/veriformer/gadgets/statement"
	"github.com/veriformer/veriformer/inference"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/internal/snapshot"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/statement"
)

// turnRun is a proven native turn: its request, statement, state in and
// segment proofs.
type turnRun struct {
	pass   native.Pass
	st     statement.Statement
	in     *native.State
	next   *model.Cache
	proofs []*native.Proof
}

// proveTurnRun decodes g tokens greedily after prompt over cache and
// proves the turn's segments from the state in.
func proveTurnRun(t *testing.T, m *model.Model, cache *model.Cache, in *native.State, prompt []int, g, rows int, segs []inference.Segment) *turnRun {
	t.Helper()
	out, err := m.Continue(cache, prompt, g)
	if err != nil {
		t.Fatal(err)
	}
	r := &turnRun{pass: native.Pass{Prompt: prompt, Output: out, Rows: rows}, in: in}
	if r.st, err = statement.Of[fr.Element](m.ID(), prompt, out); err != nil {
		t.Fatal(err)
	}
	tr, next, err := native.TurnTrace(m, cache, r.pass, in.Capacity)
	if err != nil {
		t.Fatal(err)
	}
	r.next = next
	srsOnce.Do(func() { srs, srsErr = pcs.NewDevelopmentSRS(1<<18, log.New(io.Discard, "", 0)) })
	if srsErr != nil {
		t.Fatal(srsErr)
	}
	for _, seg := range segs {
		p, _, err := native.ProveTurn(srs, m, r.st, r.pass, tr, seg, native.Turn{Start: in.Rows, Capacity: in.Capacity})
		if err != nil {
			t.Fatal(err)
		}
		r.proofs = append(r.proofs, p)
	}
	return r
}

// turnShape is the shape of segment seg of a turn of the request's bucket
// from row start of a cache of capacity rows.
func turnShape(t *testing.T, m *model.Model, pass native.Pass, seg inference.Segment, turn native.Turn) *native.Shape {
	t.Helper()
	view, err := native.TurnView(m, pass.Rows, turn)
	if err != nil {
		t.Fatal(err)
	}
	s, err := native.NewShape(view, seg, pass, native.WithTurn(turn))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTurnSegment: the segment circuits of a turn of the built-in model
// (bucket 8, a cache of 16 rows), compiled from the first turn's shape
// (their commitments reading no public input), accept the second turn's
// proofs (another start, another request): one
// circuit serves every turn of the bucket. Rejected by the native
// verifier and by the circuit: the second turn's start changed, each of
// its cache values (a read's y_prev and y_X, W's values, a write's y_X,
// a round of each).
func TestTurnSegment(t *testing.T) {
	m := model.Default()
	const rows, capacity = 8, 16
	segs := []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}}
	vk, err := native.NewVerifyingKey(testSRSOf(t), m)
	if err != nil {
		t.Fatal(err)
	}
	empty := native.EmptyState(m.Config.Layers, capacity)
	first := proveTurnRun(t, m, m.NewCache(), empty, []int{5, 17, 42}, 3, rows, segs)
	state1, err := native.VerifyTurn(vk, m, first.st, first.pass, empty, segs, first.proofs)
	if err != nil {
		t.Fatal(err)
	}
	second := proveTurnRun(t, m, first.next, state1, []int{9, 3}, 4, rows, segs)
	if _, err := native.VerifyTurn(vk, m, second.st, second.pass, state1, segs, second.proofs); err != nil {
		t.Fatal(err)
	}
	var records [][]string
	for k, seg := range segs {
		t.Run(fmt.Sprintf("segment%d-%d", seg.From, seg.To), func(t *testing.T) {
			ph, err := newSegmentCircuit(m, turnShape(t, m, first.pass, seg, native.Turn{Start: 0, Capacity: capacity}))
			if err != nil {
				t.Fatal(err)
			}
			cs := compileCircuit(t, ph)
			// The aggregator verifies segment proofs whose commitments read
			// no public input (recursion.SegmentShapeOf).
			if commitments, ok := cs.GetCommitments().(constraint.Groth16Commitments); ok {
				for i, c := range commitments.GetPublicAndCommitmentCommitted(commitments.CommitmentIndexes(), cs.GetNbPublicVariables()) {
					if len(c) != 0 {
						t.Errorf("commitment %d commits to public inputs %v", i, c)
					}
				}
			}
			n := cs.GetNbConstraints()
			t.Logf("%d R1CS", n)
			records = append(records, []string{"turn segment", fmt.Sprintf("default/segment%d-%d/rows=%d/capacity=%d", seg.From, seg.To, rows, capacity), fmt.Sprint(n)})
			shape := turnShape(t, m, second.pass, seg, native.Turn{Start: state1.Rows, Capacity: capacity})
			proof := second.proofs[k]
			check, _, err := shape.VerifyField(m, second.st, proof)
			if err != nil {
				t.Fatal(err)
			}
			assignment := func(start int, pass native.Pass, st statement.Statement) *segmentCircuit {
				req, err := gstatement.ValueOfRequest(pass)
				if err != nil {
					t.Fatal(err)
				}
				pub := ValueOfPublics(shape, st, proof, check)
				pub.Turn[0] = start
				return &segmentCircuit{Publics: pub, Request: req, Proof: ValueOfProof(proof), shape: shape, model: m}
			}
			if err := solveCompiled(cs, assignment(state1.Rows, second.pass, second.st)); err != nil {
				t.Fatalf("turn 2 on turn 1's circuit: %v", err)
			}
			nativeRejects := func() bool {
				_, err := native.VerifyTurn(vk, m, second.st, second.pass, state1, segs, second.proofs)
				return errors.Is(err, native.ErrRejected)
			}
			rejectedByBoth := func(what string) {
				t.Helper()
				if !nativeRejects() {
					t.Errorf("%s: native accepts", what)
				}
				if solveCompiled(cs, assignment(state1.Rows, second.pass, second.st)) == nil {
					t.Errorf("%s: circuit accepts", what)
				}
			}
			if solveCompiled(cs, assignment(state1.Rows-1, second.pass, second.st)) == nil {
				t.Error("another start: circuit accepts")
			}
			for _, keep := range []int{native.TurnKeep(second.pass) - 1, native.TurnKeep(second.pass) + 1} {
				a := assignment(state1.Rows, second.pass, second.st)
				a.Publics.Turn[1] = keep
				if solveCompiled(cs, a) == nil {
					t.Errorf("%d rows kept for %d: circuit accepts", keep, native.TurnKeep(second.pass))
				}
			}
			moved := *state1
			moved.Rows--
			if _, err := native.VerifyTurn(vk, m, second.st, second.pass, &moved, segs, second.proofs); !errors.Is(err, native.ErrRejected) {
				t.Errorf("another start: native accepts (%v)", err)
			}
			var one fr.Element
			one.SetOne()
			c := &proof.Cache[0]
			for name, v := range map[string]*fr.Element{
				"y_prev of the keys read": &c.ReadKeys.Prev, "y_X of the values read": &c.ReadValues.New,
				"a round of the keys read": &c.ReadKeys.Shift.Rounds[1][0],
				"W of the keys":            &c.KeysEval, "W of the values": &c.ValuesEval,
				"y_X of the keys written": &c.WriteKeys.New, "a round of the values written": &c.WriteValues.Shift.Rounds[2][1],
			} {
				v.Add(v, &one)
				rejectedByBoth(name)
				v.Sub(v, &one)
			}
			if nativeRejects() || solveCompiled(cs, assignment(state1.Rows, second.pass, second.st)) != nil {
				t.Fatal("the honest proof after the tampers is rejected")
			}
		})
	}
	if len(records) == len(segs) {
		snapshot.CheckCSV(t, "testdata/turn.csv", append([][]string{{"circuit", "parameters", "constraints"}}, records...), *update)
	}
}

// testSRSOf returns the package tests' development SRS.
func testSRSOf(t *testing.T) *pcs.SRS {
	t.Helper()
	srsOnce.Do(func() { srs, srsErr = pcs.NewDevelopmentSRS(1<<18, log.New(io.Discard, "", 0)) })
	if srsErr != nil {
		t.Fatal(srsErr)
	}
	return srs
}

// TestTurnSegmentRope: a model with RoPE (llama-tiny) has turn segment
// circuits whose rotations read the model's RoPE rows at the variable
// start. Block 0's circuit, compiled from turn 1's shape (start 0;
// its constraint count in testdata/turn_rope.csv), accepts turn 2's
// proof (start 4), verified natively too; the same proof at another
// start is rejected.
func TestTurnSegmentRope(t *testing.T) {
	m, err := model.Builtin(model.LlamaTiny)
	if err != nil {
		t.Fatal(err)
	}
	const rows, capacity = 4, 8
	segs := []inference.Segment{{From: 0, To: 1}, {From: 1, To: m.Config.Layers}}
	vk, err := native.NewVerifyingKey(testSRSOf(t), m)
	if err != nil {
		t.Fatal(err)
	}
	empty := native.EmptyState(m.Config.Layers, capacity)
	first := proveTurnRun(t, m, m.NewCache(), empty, []int{5, 17}, 2, rows, segs)
	state1, err := native.VerifyTurn(vk, m, first.st, first.pass, empty, segs, first.proofs)
	if err != nil {
		t.Fatal(err)
	}
	second := proveTurnRun(t, m, first.next, state1, []int{9}, 2, rows, segs)
	if _, err := native.VerifyTurn(vk, m, second.st, second.pass, state1, segs, second.proofs); err != nil {
		t.Fatal(err)
	}
	seg := segs[0]
	ph, err := newSegmentCircuit(m, turnShape(t, m, first.pass, seg, native.Turn{Start: 0, Capacity: capacity}))
	if err != nil {
		t.Fatal(err)
	}
	cs := compileCircuit(t, ph)
	snapshot.CheckCSV(t, "testdata/turn_rope.csv", [][]string{{"circuit", "parameters", "constraints"},
		{"turn segment", fmt.Sprintf("llama-tiny/segment0-1/rows=%d/capacity=%d", rows, capacity), fmt.Sprint(cs.GetNbConstraints())}}, *update)
	shape := turnShape(t, m, second.pass, seg, native.Turn{Start: state1.Rows, Capacity: capacity})
	proof := second.proofs[0]
	check, _, err := shape.VerifyField(m, second.st, proof)
	if err != nil {
		t.Fatal(err)
	}
	req, err := gstatement.ValueOfRequest(second.pass)
	if err != nil {
		t.Fatal(err)
	}
	assignment := func(start int) *segmentCircuit {
		pub := ValueOfPublics(shape, second.st, proof, check)
		pub.Turn[0] = start
		return &segmentCircuit{Publics: pub, Request: req, Proof: ValueOfProof(proof), shape: shape, model: m}
	}
	if err := solveCompiled(cs, assignment(state1.Rows)); err != nil {
		t.Fatalf("turn 2 on turn 1's circuit: %v", err)
	}
	for _, start := range []int{state1.Rows - 1, state1.Rows + 1} {
		if solveCompiled(cs, assignment(start)) == nil {
			t.Errorf("start %d for %d: circuit accepts", start, state1.Rows)
		}
	}
}
