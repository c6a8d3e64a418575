package committed

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"testing"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/sumcheck"
)

// bump adds one to x and returns the undo.
func bump(x *fr.Element) func() {
	saved := *x
	var one fr.Element
	one.SetOne()
	x.Add(x, &one)
	return func() { *x = saved }
}

// move adds the generator to p and returns the undo.
// mustLayout returns the layout of segment seg of the fixture's pass.
func mustLayout(t *testing.T, f *fixture, seg inference.Segment) *Layout {
	t.Helper()
	l, err := NewLayout(f.tr, seg, f.pass)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func move(p *bls12377.G1Affine) func() {
	saved := *p
	_, _, g, _ := bls12377.Generators()
	p.Add(p, &g)
	return func() { *p = saved }
}

func bumpInt(x *big.Int) func() {
	saved := new(big.Int).Set(x)
	x.Add(x, big.NewInt(1))
	return func() { x.Set(saved) }
}

type tamper struct {
	name string
	do   func(p *Proof) func()
}

// dropLast drops the last element of a list of the proof.
func dropLast[T any](name string, get func(p *Proof) *[]T) tamper {
	return tamper{name + " last dropped", func(p *Proof) func() {
		saved := *get(p)
		*get(p) = saved[:len(saved)-1]
		return func() { *get(p) = saved }
	}}
}

func fractionTampers(name string, get func(p *Proof) *lookup.FractionProof[fr.Element]) []tamper {
	var out []tamper
	for k := range 4 {
		out = append(out, tamper{fmt.Sprintf("%s.Root[%d]", name, k), func(p *Proof) func() { return bump(&get(p).Root[k]) }})
	}
	out = append(out,
		tamper{name + ".Layers[0].SumCheck", func(p *Proof) func() { return bump(&get(p).Layers[0].SumCheck.Rounds[0][0]) }},
		tamper{name + ".Layers[last].SumCheck", func(p *Proof) func() {
			ls := get(p).Layers
			r := ls[len(ls)-1].SumCheck.Rounds
			return bump(&r[len(r)-1][len(r[len(r)-1])-1])
		}})
	for k := range 4 {
		out = append(out, tamper{fmt.Sprintf("%s.Layers[last].Evals[%d]", name, k), func(p *Proof) func() {
			ls := get(p).Layers
			return bump(&ls[len(ls)-1].Evals[k])
		}})
	}
	return out
}

func roundTampers(name string, get func(p *Proof) *sumcheck.Proof[fr.Element]) []tamper {
	return []tamper{
		{name + ".Rounds[0][0]", func(p *Proof) func() { return bump(&get(p).Rounds[0][0]) }},
		{name + ".Rounds[last][last]", func(p *Proof) func() {
			r := get(p).Rounds
			return bump(&r[len(r)-1][len(r[len(r)-1])-1])
		}},
	}
}

// tampers lists a change of every field of a proof (of a segment with a
// boundary).
func tampers(proof *Proof) []tamper {
	out := []tamper{
		{"Tensors[0]", func(p *Proof) func() { return move(&p.Tensors[0]) }},
		dropLast("Tensors", func(p *Proof) *[]pcs.Commitment { return &p.Tensors }),
		{"Limbs[0][0]", func(p *Proof) func() { return move(&p.Limbs[0][0]) }},
		{"Limbs[7][0]", func(p *Proof) func() { return move(&p.Limbs[7][0]) }},
		dropLast("Limbs[7]", func(p *Proof) *[]pcs.Commitment { return &p.Limbs[7] }),
		{"LimbEvals[0]", func(p *Proof) func() { return bump(&p.LimbEvals[0]) }},
		{"LimbEvals[last]", func(p *Proof) func() { return bump(&p.LimbEvals[len(p.LimbEvals)-1]) }},
		{"Functions[0].In", func(p *Proof) func() { return bump(&p.Functions[0].In) }},
		{"Functions[0].Out", func(p *Proof) func() { return bump(&p.Functions[0].Out) }},
		{"Functions[last].In", func(p *Proof) func() { return bump(&p.Functions[len(p.Functions)-1].In) }},
		{"Functions[last].Out", func(p *Proof) func() { return bump(&p.Functions[len(p.Functions)-1].Out) }},
		dropLast("Functions", func(p *Proof) *[]FunctionEval { return &p.Functions }),
		dropLast("LimbEvals", func(p *Proof) *[]fr.Element { return &p.LimbEvals }),
		{"Argmax added outside the last segment", func(p *Proof) func() {
			saved := p.Argmax
			p.Argmax = &ArgmaxProof{Chosen: make([]fr.Element, 1)}
			return func() { p.Argmax = saved }
		}},
		{"Multiplicities[0]", func(p *Proof) func() { return move(&p.Multiplicities[0]) }},
		dropLast("Multiplicities", func(p *Proof) *[]pcs.Commitment { return &p.Multiplicities }),
		{"Boundary", func(p *Proof) func() { return move(p.Boundary) }},
		{"Boundary removed", func(p *Proof) func() {
			saved := p.Boundary
			p.Boundary = nil
			return func() { p.Boundary = saved }
		}},
		{"BoundaryEval", func(p *Proof) func() { return bump(&p.BoundaryEval) }},
		{"Lookup.MultiplicityEval", func(p *Proof) func() { return bump(&p.Lookup.MultiplicityEval) }},
		{"Lookup.ColumnEvals[0]", func(p *Proof) func() { return bump(&p.Lookup.ColumnEvals[0]) }},
		{"Lookup.ColumnEvals[1]", func(p *Proof) func() { return bump(&p.Lookup.ColumnEvals[1]) }},
		{"Lookup.ColumnEvals[2]", func(p *Proof) func() { return bump(&p.Lookup.ColumnEvals[2]) }},
		{"Lookup.TableEvals[0]", func(p *Proof) func() { return bump(&p.Lookup.TableEvals[0]) }},
		dropLast("Lookup.TableEvals", func(p *Proof) *[]fr.Element { return &p.Lookup.TableEvals }),
		{"RequantEval", func(p *Proof) func() { return bump(&p.RequantEval) }},
		{"Opening.Folds[0]", func(p *Proof) func() { return move(&p.Opening.Opening.Folds[0]) }},
		{"Opening.Quotient", func(p *Proof) func() { return move(&p.Opening.Opening.Quotient) }},
	}
	out = append(out, fractionTampers("Lookup.Witness", func(p *Proof) *lookup.FractionProof[fr.Element] { return &p.Lookup.Witness })...)
	out = append(out, fractionTampers("Lookup.Table", func(p *Proof) *lookup.FractionProof[fr.Element] { return &p.Lookup.Table })...)
	out = append(out, roundTampers("Decomposition.SumCheck", func(p *Proof) *sumcheck.Proof[fr.Element] { return &p.Decomposition.SumCheck })...)
	out = append(out, roundTampers("Requant", func(p *Proof) *sumcheck.Proof[fr.Element] { return &p.Requant })...)
	out = append(out, roundTampers("Opening.SumCheck", func(p *Proof) *sumcheck.Proof[fr.Element] { return &p.Opening.SumCheck })...)
	for k := range proof.Decomposition.Evaluations {
		out = append(out, tamper{fmt.Sprintf("Decomposition.Evaluations[%d]", k), func(p *Proof) func() { return bump(&p.Decomposition.Evaluations[k]) }})
	}
	for k := range proof.Projections {
		out = append(out,
			tamper{fmt.Sprintf("Projections[%d].Inputs[0]", k), func(p *Proof) func() { return bump(&p.Projections[k].Inputs[0]) }},
			tamper{fmt.Sprintf("Projections[%d].Weights[0]", k), func(p *Proof) func() { return bump(&p.Projections[k].Weights[0]) }})
		out = append(out, roundTampers(fmt.Sprintf("Projections[%d].SumCheck", k), func(p *Proof) *sumcheck.Proof[fr.Element] { return &p.Projections[k].SumCheck })...)
		if len(proof.Projections[k].Biases) > 0 {
			out = append(out, tamper{fmt.Sprintf("Projections[%d].Biases[0]", k), func(p *Proof) func() { return bump(&p.Projections[k].Biases[0]) }})
		}
	}
	for k := range proof.ResidualEvals {
		out = append(out, tamper{fmt.Sprintf("ResidualEvals[%d]", k), func(p *Proof) func() { return bump(&p.ResidualEvals[k]) }})
	}
	// An addend and the sum changed together keep the add true: the
	// opening rejects them (the first add is Mid = Embedding + O.Out over
	// ResidualEvals[0], [1], [2]).
	out = append(out, tamper{"ResidualEvals[1] and [2]", func(p *Proof) func() {
		u1, u2 := bump(&p.ResidualEvals[1]), bump(&p.ResidualEvals[2])
		return func() { u1(); u2() }
	}})
	out = append(out, dropLast("ResidualEvals", func(p *Proof) *[]fr.Element { return &p.ResidualEvals }))
	for q := range proof.Accumulators {
		out = append(out, tamper{fmt.Sprintf("Accumulators[%d]", q), func(p *Proof) func() { return bump(&p.Accumulators[q]) }})
	}
	for i := range proof.Opening.Opening.Evaluations {
		for j := range 3 {
			out = append(out, tamper{fmt.Sprintf("Opening.Evaluations[%d][%d]", i, j), func(p *Proof) func() { return bump(&p.Opening.Opening.Evaluations[i][j]) }})
		}
	}
	return out
}

// TestTamperedProof changes every field of a proof in turn: each change
// is rejected.
func TestTamperedProof(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	seg := inference.Segment{From: 0, To: 1}
	proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg)
	if err != nil {
		t.Fatal(err)
	}
	vk := testKey(t, s, f.m)
	for _, c := range tampers(proof) {
		undo := c.do(proof)
		if _, err := Verify(vk, f.m, f.st, f.pass, seg, proof); !errors.Is(err, ErrRejected) {
			t.Errorf("%s changed: %v", c.name, err)
		}
		undo()
	}
	// The statement, the segment and the pass length.
	for name, x := range map[string]*big.Int{"ModelID": f.st.ModelID, "InputDigest": f.st.InputDigest, "OutputDigest": f.st.OutputDigest} {
		undo := bumpInt(x)
		if _, err := Verify(vk, f.m, f.st, f.pass, seg, proof); !errors.Is(err, ErrRejected) {
			t.Errorf("statement %s changed: %v", name, err)
		}
		undo()
	}
	if _, err := Verify(vk, f.m, f.st, f.pass, inference.Segment{From: 1, To: 2}, proof); !errors.Is(err, ErrRejected) {
		t.Errorf("other segment: %v", err)
	}
	// A key whose commitment to one table used by the segment is not the
	// model's, and a key that lacks it.
	set, _, err := TableSet(mustLayout(t, f, seg))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range lookup.DenseColumns(set) {
		name := set.Tables[d.Table].Name
		other := *vk
		other.Tables = maps.Clone(vk.Tables)
		c := slices.Clone(other.Tables[name])
		move(&c[0])
		other.Tables[name] = c
		if _, err := Verify(&other, f.m, f.st, f.pass, seg, proof); !errors.Is(err, ErrRejected) {
			t.Errorf("other commitment to table %s: %v", name, err)
		}
		delete(other.Tables, name)
		if _, err := Verify(&other, f.m, f.st, f.pass, seg, proof); !errors.Is(err, ErrRejected) {
			t.Errorf("no commitment to table %s: %v", name, err)
		}
	}
	if _, err := Verify(nil, f.m, f.st, f.pass, seg, proof); !errors.Is(err, ErrRejected) {
		t.Errorf("no key: %v", err)
	}
	if _, err := Verify(vk, f.m, f.st, Pass{Prompt: f.pass.Prompt, Output: append(slices.Clone(f.pass.Output), 0)}, seg, proof); !errors.Is(err, ErrRejected) {
		t.Errorf("other pass length: %v", err)
	}
	if _, err := Verify(vk, f.m, f.st, f.pass, seg, proof); err != nil {
		t.Fatalf("the restored proof is rejected: %v", err)
	}
}

// TestAccumulatorClaims changes a remainder by one in range: a
// projection's is rejected by its projection sum-check, a norm's by the
// norm's scaling sum-check; a value outside its range cannot be proven.
func TestAccumulatorClaims(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	seg := inference.Segment{From: 1, To: 2}
	layer := &f.tr.Layers[1]
	rejectsOffByOne(t, s, f, seg, &layer.Q.Rem, 0)
	rejectsOffByOne(t, s, f, seg, &layer.AttnNorm.Rem, 0)
	rem := &layer.Q.Rem.Data
	saved := (*rem)[0]
	(*rem)[0] = -1
	if _, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg); err == nil {
		t.Error("a negative remainder was proven")
	}
	(*rem)[0] = saved
	out := &layer.Q.Out
	savedOut := out.Data[0]
	out.Data[0] = out.Max + 1
	if _, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg); err == nil {
		t.Error("an output above its range was proven")
	}
	out.Data[0] = savedOut
}

// TestForgedLimbs proves values outside their ranges with the limbs of the
// honest values (a prover that skips the range check): the verifier
// rejects.
func TestForgedLimbs(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	seg := inference.Segment{From: 1, To: 2}
	l := &f.tr.Layers[1]
	for _, c := range []struct {
		name  string
		value *int64
		forge int64
	}{
		{"output above its maximum", &l.Q.Out.Data[0], l.Q.Out.Max + 1},
		{"negative remainder", &l.Q.Rem.Data[0], -1},
		{"remainder off by 2^shift", &l.Up.Rem.Data[3], l.Up.Rem.Data[3] + 1<<l.Up.Shift},
	} {
		honest := *c.value
		limbs := func(lay *Layout) ([]uint16, error) {
			forged := *c.value
			*c.value = honest
			defer func() { *c.value = forged }()
			return lay.LimbTable()
		}
		*c.value = c.forge
		proof, _, err := prove(s, f.st, f.pass, f.tr, seg, limbs, lookup.SetMultiplicities)
		*c.value = honest
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err = Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, proof)
		if !errors.Is(err, ErrRejected) {
			t.Errorf("%s: %v", c.name, err)
		}
		t.Logf("%s: %v", c.name, err)
	}
}

// TestResidualAdds proves segments whose residual stream is off by one in
// one entry — Mid ≠ Input + O.Out, Output ≠ Mid + Down.Out, the
// embedding — with every value still in range: the residual check
// rejects each. Each segment has both adds of its block; the second
// (From > 0) reads block 0's output from its incoming commitment.
func TestResidualAdds(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	first, second := inference.Segment{From: 0, To: 1}, inference.Segment{From: 1, To: 2}
	for _, c := range []struct {
		name  string
		seg   inference.Segment
		value *int64
	}{
		{"block 0 Mid", first, &f.tr.Layers[0].Mid.Data[5]},
		{"block 0 Output", first, &f.tr.Layers[0].Output.Data[2]},
		{"embedding", first, &f.tr.Embedding.Data[7]},
		{"block 1 Output", second, &f.tr.Layers[1].Output.Data[3]},
		{"block 1 Mid", second, &f.tr.Layers[1].Mid.Data[4]},
		{"block 0 Output, read by segment 1", second, &f.tr.Layers[0].Output.Data[1]},
	} {
		*c.value++
		proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, c.seg)
		*c.value--
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err = Verify(testKey(t, s, f.m), f.m, f.st, f.pass, c.seg, proof)
		if !errors.Is(err, ErrRejected) {
			t.Errorf("%s off by one: %v", c.name, err)
		}
		t.Logf("%s off by one: %v", c.name, err)
	}
	// The honest residuals: 2 adds over 5 tensors in each segment.
	for seg, want := range map[inference.Segment][2]int{first: {2, 5}, second: {2, 5}} {
		l, err := NewLayout(f.tr, seg, f.pass)
		if err != nil {
			t.Fatal(err)
		}
		res, err := residualsOf(f.tr, seg, l)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Adds) != want[0] || len(res.Blocks) != want[1] {
			t.Errorf("segment %v: %d adds over %d tensors, want %v", seg, len(res.Adds), len(res.Blocks), want)
		}
	}
}

// TestChain proves both segments of a pass: they verify and chain; the
// second's Incoming moved is rejected by its own verification, and a
// chain whose links differ, start late or end early is refused.
func TestChain(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	segs := []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}}
	var proofs []*Proof
	for _, seg := range segs {
		proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, proof); err != nil {
			t.Fatalf("segment %v: %v", seg, err)
		}
		proofs = append(proofs, proof)
	}
	if err := CheckChain(segs, proofs); err != nil {
		t.Fatal(err)
	}
	// The incoming stream's value and Mid's changed together keep the
	// add true; the opening of the incoming commitment rejects them.
	u0, u2 := bump(&proofs[1].ResidualEvals[0]), bump(&proofs[1].ResidualEvals[2])
	if _, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, segs[1], proofs[1]); !errors.Is(err, ErrRejected) {
		t.Errorf("incoming and Mid values changed together: %v", err)
	}
	u0()
	u2()
	undo := move(proofs[1].Incoming)
	if _, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, segs[1], proofs[1]); !errors.Is(err, ErrRejected) {
		t.Errorf("Incoming moved: %v", err)
	}
	if err := CheckChain(segs, proofs); !errors.Is(err, ErrRejected) {
		t.Errorf("a chain with a moved link: %v", err)
	}
	undo()
	saved := proofs[1].Incoming
	proofs[1].Incoming = nil
	if _, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, segs[1], proofs[1]); !errors.Is(err, ErrRejected) {
		t.Errorf("Incoming removed: %v", err)
	}
	proofs[1].Incoming = saved
	if err := CheckChain(segs[1:], proofs[1:]); !errors.Is(err, ErrRejected) {
		t.Errorf("a chain that starts at segment 1: %v", err)
	}
	if err := CheckChain(segs[:1], proofs[:1]); !errors.Is(err, ErrRejected) {
		t.Errorf("a chain that ends at segment 0: %v", err)
	}
	if err := CheckChain(segs, proofs); err != nil {
		t.Fatalf("the restored chain: %v", err)
	}
	// The whole pass at once: accepted; refused with the proofs swapped,
	// a segment missing, segments that do not cover the model or do not
	// follow each other, a moved link, and for another pass.
	vk := testKey(t, s, f.m)
	if err := VerifyPass(vk, f.m, f.st, f.pass, segs, proofs); err != nil {
		t.Fatalf("the pass: %v", err)
	}
	refused := map[string]func() error{
		"proofs swapped":  func() error { return VerifyPass(vk, f.m, f.st, f.pass, segs, []*Proof{proofs[1], proofs[0]}) },
		"a proof missing": func() error { return VerifyPass(vk, f.m, f.st, f.pass, segs, proofs[:1]) },
		"no segment":      func() error { return VerifyPass(vk, f.m, f.st, f.pass, nil, nil) },
		"the last block uncovered": func() error {
			return VerifyPass(vk, f.m, f.st, f.pass, segs[:1], proofs[:1])
		},
		"segments out of order": func() error {
			return VerifyPass(vk, f.m, f.st, f.pass, []inference.Segment{segs[1], segs[0]}, []*Proof{proofs[1], proofs[0]})
		},
		"a moved link": func() error {
			undo := move(proofs[1].Incoming)
			defer undo()
			return VerifyPass(vk, f.m, f.st, f.pass, segs, proofs)
		},
		"another output": func() error {
			other := Pass{Prompt: f.pass.Prompt, Output: slices.Clone(f.pass.Output)}
			other.Output[0] = (other.Output[0] + 1) % f.m.Config.Vocab
			return VerifyPass(vk, f.m, f.st, other, segs, proofs)
		},
	}
	for name, run := range refused {
		if err := run(); !errors.Is(err, ErrRejected) {
			t.Errorf("pass with %s: %v", name, err)
		}
	}
}

// TestEmbedding: a first segment whose embedding is not the model's
// embedding of the tokens is rejected — with the residual stream changed
// along with it, so that every residual add still holds — and an honest
// proof is rejected for other tokens of the same length.
func TestEmbedding(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	seg := inference.Segment{From: 0, To: 1}
	l0 := &f.tr.Layers[0]
	values := []*int64{&f.tr.Embedding.Data[6], &l0.Mid.Data[6], &l0.Output.Data[6]}
	for _, v := range values {
		*v++
	}
	proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg)
	for _, v := range values {
		*v--
	}
	if err != nil {
		t.Fatal(err)
	}
	_, err = Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, proof)
	if !errors.Is(err, ErrRejected) {
		t.Errorf("an embedding entry off by one, residual stream along: %v", err)
	}
	t.Logf("embedding off by one: %v", err)

	honest, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, honest); err != nil {
		t.Fatal(err)
	}
	other := Pass{Prompt: slices.Clone(f.pass.Prompt), Output: f.pass.Output}
	other.Prompt[1] = (other.Prompt[1] + 1) % f.m.Config.Vocab
	if _, err := Verify(testKey(t, s, f.m), f.m, f.st, other, seg, honest); !errors.Is(err, ErrRejected) {
		t.Errorf("other tokens: %v", err)
	}
	// The second segment reads no embedding: other tokens do not matter
	// to it (the statement binds them).
	second := inference.Segment{From: 1, To: 2}
	p2, _, err := Prove(s, f.m, f.st, f.pass, f.tr, second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(testKey(t, s, f.m), f.m, f.st, other, second, p2); err != nil {
		t.Errorf("second segment with other tokens: %v", err)
	}
}

// TestGatedProduct proves a Llama segment: its gated product's
// accumulator claim is proven here (not left as output); a product
// remainder off by one (in range) is rejected, and so is every field of
// the product proof changed.
func TestGatedProduct(t *testing.T) {
	m, err := model.Builtin(model.LlamaTiny)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, m, 4)
	s := testSRS(t, 1<<18)
	seg := inference.Segment{From: 1, To: 2}
	proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, proof)
	if err != nil {
		t.Fatal(err)
	}
	if len(proof.Products) != 1 {
		t.Fatalf("%d gated product proofs", len(proof.Products))
	}
	for _, rq := range claims.Requants {
		if rq.Out.Name == f.tr.Layers[1].Product.Out.Name {
			t.Fatal("the gated product's claim is still left as output")
		}
	}
	rejectsEach(t, s, f, seg, proof, factorTampers("Products", func(p *Proof) *[]FactorProof { return &p.Products }))
	// A remainder off by one (in range) changes only the accumulator the
	// requantization gives: the product's sum-check is what rejects it
	// (the output, read by the down projection, is unchanged).
	rejectsOffByOne(t, s, f, seg, &f.tr.Layers[1].Product.Rem, 0)
}

// TestRotations proves a Llama segment: its two RoPE rotations' claims are
// proven here (not left as output); a rotation's remainder off by one (in
// range) is rejected, and so is every field of a rotation proof changed.
func TestRotations(t *testing.T) {
	m, err := model.Builtin(model.LlamaTiny)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, m, 4)
	s := testSRS(t, 1<<18)
	seg := inference.Segment{From: 0, To: 1}
	proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, proof)
	if err != nil {
		t.Fatal(err)
	}
	if len(proof.Rotations) != 2 {
		t.Fatalf("%d rotation proofs", len(proof.Rotations))
	}
	l0 := &f.tr.Layers[0]
	for _, rq := range claims.Requants {
		if rq.Out.Name == l0.RopeQ.Out.Name || rq.Out.Name == l0.RopeK.Out.Name {
			t.Fatalf("the rotation %s is still left as output", rq.Out.Name)
		}
	}
	rejectsEach(t, s, f, seg, proof, factorTampers("Rotations", func(p *Proof) *[]FactorProof { return &p.Rotations }))
	rejectsOffByOne(t, s, f, seg, &l0.RopeQ.Rem, 0)
	rejectsOffByOne(t, s, f, seg, &l0.RopeK.Rem, 0)
}

// TestAttention proves the attention contractions of a GPT-2 and a Llama
// segment: their claims are proven here (not left as output); a score or
// context remainder off by one (in range) and a probability off by one
// are rejected, and so is every field of a contraction proof changed.
func TestAttention(t *testing.T) {
	llama, err := model.Builtin(model.LlamaTiny)
	if err != nil {
		t.Fatal(err)
	}
	s := testSRS(t, 1<<18)
	seg := inference.Segment{From: 0, To: 1}
	for _, m := range []*model.Model{model.Default(), llama} {
		f := newFixture(t, m, 4)
		a := &f.tr.Layers[0].Attention
		proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg)
		if err != nil {
			t.Fatal(err)
		}
		claims, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, proof)
		if err != nil {
			t.Fatalf("%s: %v", m.Config.Family, err)
		}
		if len(proof.Attention) != 2 || len(proof.Keys) != 1 {
			t.Fatalf("%d contraction proofs, %d key proofs", len(proof.Attention), len(proof.Keys))
		}
		for _, rq := range claims.Requants {
			if rq.Out.Name == a.Scores.Out.Name || rq.Out.Name == a.Context.Out.Name {
				t.Fatalf("%s is still left as output", rq.Out.Name)
			}
		}
		rejectsEach(t, s, f, seg, proof, factorTampers("Attention", func(p *Proof) *[]FactorProof { return &p.Attention }))
		rejectsEach(t, s, f, seg, proof, keyTampers)
		// Entry (h=1, i=2, j=1) is unmasked; the context entry (1, 3).
		score := (1*f.rows+2)*f.rows + 1
		rejectsOffByOne(t, s, f, seg, &a.Scores.Rem, score)
		rejectsOffByOne(t, s, f, seg, &a.Context.Rem, 1*a.Context.Rem.Shape[1]+3)
		rejectsOffByOne(t, s, f, seg, &a.Probs, score)
	}
}

// keyTampers changes every round value and K of each key proof, then
// drops the last.
func keyTampers(proof *Proof) []tamper {
	var out []tamper
	for k := range proof.Keys {
		for i := range proof.Keys[k].SumCheck.Rounds {
			for j := range proof.Keys[k].SumCheck.Rounds[i] {
				out = append(out, tamper{fmt.Sprintf("Keys[%d].SumCheck.Rounds[%d][%d]", k, i, j), func(p *Proof) func() { return bump(&p.Keys[k].SumCheck.Rounds[i][j]) }})
			}
		}
		out = append(out, tamper{fmt.Sprintf("Keys[%d].K", k), func(p *Proof) func() { return bump(&p.Keys[k].K) }})
	}
	return append(out, dropLast("Keys", func(p *Proof) *[]KeyProof { return &p.Keys }))
}

// factorTampers changes, for each proof of a list of factor proofs, its
// first and last round value, A and B, then drops the list's last proof.
func factorTampers(name string, get func(p *Proof) *[]FactorProof) func(p *Proof) []tamper {
	return func(proof *Proof) []tamper {
		var out []tamper
		for k := range *get(proof) {
			at := func(p *Proof) *FactorProof { return &(*get(p))[k] }
			out = append(out,
				tamper{fmt.Sprintf("%s[%d].SumCheck.Rounds[0][0]", name, k), func(p *Proof) func() { return bump(&at(p).SumCheck.Rounds[0][0]) }},
				tamper{fmt.Sprintf("%s[%d].SumCheck.Rounds[last][last]", name, k), func(p *Proof) func() {
					r := at(p).SumCheck.Rounds
					return bump(&r[len(r)-1][len(r[len(r)-1])-1])
				}},
				tamper{fmt.Sprintf("%s[%d].A", name, k), func(p *Proof) func() { return bump(&at(p).A) }},
				tamper{fmt.Sprintf("%s[%d].B", name, k), func(p *Proof) func() { return bump(&at(p).B) }})
		}
		return append(out, dropLast(name, get))
	}
}

// rejectsEach applies each tamper to the proof of segment seg in turn:
// the verifier must reject every one; the proof is restored after each.
func rejectsEach(t *testing.T, s *pcs.SRS, f *fixture, seg inference.Segment, proof *Proof, tampers func(p *Proof) []tamper) {
	t.Helper()
	for _, c := range tampers(proof) {
		undo := c.do(proof)
		if _, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, proof); !errors.Is(err, ErrRejected) {
			t.Errorf("%s: %s changed: %v", f.m.Config.Family, c.name, err)
		}
		undo()
	}
}

// rejectsOffByOne proves segment seg with entry k of tensor x moved by
// one inside x's range (down at its maximum), then restores it: the
// verifier must reject.
func rejectsOffByOne(t *testing.T, s *pcs.SRS, f *fixture, seg inference.Segment, x *model.Tensor, k int) {
	t.Helper()
	delta := int64(1)
	if x.Data[k] >= x.Max {
		delta = -1
	}
	x.Data[k] += delta
	forged, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg)
	x.Data[k] -= delta
	if err != nil {
		t.Fatalf("%s off by one: %v", x.Name, err)
	}
	_, err = Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, forged)
	if !errors.Is(err, ErrRejected) {
		t.Errorf("%s: %s[%d] off by one: %v", f.m.Config.Family, x.Name, k, err)
	}
	t.Logf("%s: %s[%d] off by one: %v", f.m.Config.Family, x.Name, k, err)
}

// lenientMultiplicities counts a tuple that is not in its function table
// as the table's row of its key: the multiplicities of a prover that
// forges a table output.
func lenientMultiplicities(s *table.Set, lk *lookup.Lookups) ([]uint64, error) {
	fixed := lookup.Lookups{Shape: lk.Shape, Columns: make([][]int64, len(lk.Columns))}
	for c := range lk.Columns {
		fixed.Columns[c] = slices.Clone(lk.Columns[c])
	}
	for i := range fixed.Columns[0] {
		tuple := []int64{fixed.Columns[0][i], fixed.Columns[1][i], fixed.Columns[2][i]}
		if _, err := s.Row(tuple); err == nil {
			continue
		}
		t := &s.Tables[tuple[0]-1]
		fixed.Columns[2][i] = t.Value(1, int(tuple[1]-t.Columns[0].Offset))
	}
	return lookup.SetMultiplicities(s, &fixed)
}

// TestFunctionLookups checks the table applications of both families: a
// segment's lookups hold its 1/√ and activation tables; an output off by
// one (in range) cannot be proven honestly, and a prover that forges its
// multiplicities is rejected; so is an input off by one.
func TestFunctionLookups(t *testing.T) {
	llama, err := model.Builtin(model.LlamaTiny)
	if err != nil {
		t.Fatal(err)
	}
	s := testSRS(t, 1<<18)
	for _, m := range []*model.Model{model.Default(), llama} {
		f := newFixture(t, m, 4)
		last := inference.Segment{From: len(f.tr.Layers) - 1, To: len(f.tr.Layers)}
		l, err := NewLayout(f.tr, last, f.pass)
		if err != nil {
			t.Fatal(err)
		}
		// Two norms' 1/√, the activation and the softmax's exp per
		// block, the final norm's 1/√, and each norm's three exponent
		// tables.
		if len(l.Functions) != 5+3*3 {
			t.Fatalf("%s: %d table applications in the last segment, want 14", m.Config.Family, len(l.Functions))
		}
		ly := &f.tr.Layers[last.From]
		for _, c := range []struct {
			name  string
			value *int64
		}{
			{"attention norm 1/√", &ly.AttnNorm.RSqrt.Out.Data[1]},
			{"MLP norm 1/√", &ly.MLPNorm.RSqrt.Out.Data[0]},
			{"final norm 1/√", &f.tr.FinalNorm.RSqrt.Out.Data[2]},
			{"activation", &ly.Activation.Out.Data[5]},
		} {
			honest := *c.value
			*c.value = honest + 1
			if _, _, err := Prove(s, f.m, f.st, f.pass, f.tr, last); err == nil {
				t.Errorf("%s: %s off by one was proven", m.Config.Family, c.name)
			}
			forged, _, err := prove(s, f.st, f.pass, f.tr, last, (*Layout).LimbTable, lenientMultiplicities)
			*c.value = honest
			if err != nil {
				t.Fatalf("%s: %s: %v", m.Config.Family, c.name, err)
			}
			_, err = Verify(testKey(t, s, f.m), f.m, f.st, f.pass, last, forged)
			if !errors.Is(err, ErrRejected) {
				t.Errorf("%s: %s off by one: %v", m.Config.Family, c.name, err)
			}
			t.Logf("%s: %s off by one: %v", m.Config.Family, c.name, err)
		}
	}
}

// TestMarginsTieRule checks the margins of a crafted logits row with a
// tie: the first of the tied maxima has every margin in range, the
// second a negative one, as does any other token.
func TestMarginsTieRule(t *testing.T) {
	tr := &model.Trace{LMHead: model.MatMul{Requant: model.Requant{Out: model.Tensor{Shape: []int{1, 4}, Data: []int64{3, 5, 5, 1}, Min: -8, Max: 8}}}}
	for tok, ok := range []bool{false, true, false, false} {
		d := marginsTensor(tr, Pass{Prompt: []int{0}, Output: []int{tok}}, 0, 4)
		if d.Max != 16 || !slices.Equal(d.Shape, []int{1, 4}) {
			t.Fatalf("margins of shape %v, maximum %d", d.Shape, d.Max)
		}
		inRange := slices.Min(d.Data) >= 0
		if inRange != ok {
			t.Errorf("token %d: margins %v", tok, d.Data)
		}
	}
}

// TestArgmax proves the last segment of a greedy generation: every field
// of its argmax proof changed is rejected, and so is another output token,
// whether the verifier is asked about it or a prover claims it with
// forged limbs for its negative margins. A pass of one row (a prompt of
// one token, one output token) has no row sum-check.
func TestArgmax(t *testing.T) {
	s := testSRS(t, 1<<18)
	for _, rows := range []int{4, 1} {
		f := newFixture(t, model.Default(), rows)
		last := inference.Segment{From: len(f.tr.Layers) - 1, To: len(f.tr.Layers)}
		proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, last)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, last, proof); err != nil {
			t.Fatalf("%d rows: %v", rows, err)
		}
		rejectsEach(t, s, f, last, proof, func(p *Proof) []tamper { return argmaxTampers(rows > 1) })
		// Another last token: asked of the verifier, and proven by a
		// prover whose limbs hide the negative margins.
		other := Pass{Prompt: f.pass.Prompt, Output: slices.Clone(f.pass.Output)}
		k := len(other.Output) - 1
		other.Output[k] = (other.Output[k] + 1) % f.m.Config.Vocab
		if _, err := Verify(testKey(t, s, f.m), f.m, f.st, other, last, proof); !errors.Is(err, ErrRejected) {
			t.Errorf("%d rows: another last token: %v", rows, err)
		}
		if _, _, err := Prove(s, f.m, f.st, other, f.tr, last); err == nil {
			t.Errorf("%d rows: a token that is not the argmax was proven", rows)
		}
		// Limbs of the negative margins clamped to zero: the
		// decomposition fails. Margins clamped to zero (committed so):
		// the link to the logits fails.
		for _, c := range []struct {
			name   string
			commit bool
		}{{"forged limbs", false}, {"margins clamped", true}} {
			hide := func(l *Layout) ([]uint16, error) {
				d := l.Margins.Data
				saved := slices.Clone(d)
				for i := range d {
					d[i] = max(d[i], 0)
				}
				if !c.commit {
					defer copy(d, saved)
				}
				return l.LimbTable()
			}
			forged, _, err := prove(s, f.st, other, f.tr, last, hide, lookup.SetMultiplicities)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Verify(testKey(t, s, f.m), f.m, f.st, other, last, forged)
			if !errors.Is(err, ErrRejected) {
				t.Errorf("%d rows: another token, %s: %v", rows, c.name, err)
			}
			t.Logf("%d rows: another token, %s: %v", rows, c.name, err)
		}
	}
}

// argmaxTampers changes the argmax proof's chosen logits (first and
// last), margins and logits values, removes it, and with rounds changes
// each sum-check round.
func argmaxTampers(rounds bool) []tamper {
	out := []tamper{
		{"Argmax.Chosen[0]", func(p *Proof) func() { return bump(&p.Argmax.Chosen[0]) }},
		{"Argmax.Chosen[last]", func(p *Proof) func() { return bump(&p.Argmax.Chosen[len(p.Argmax.Chosen)-1]) }},
		{"Argmax.MarginsEval", func(p *Proof) func() { return bump(&p.Argmax.MarginsEval) }},
		{"Argmax.LogitsEval", func(p *Proof) func() { return bump(&p.Argmax.LogitsEval) }},
		{"Argmax removed", func(p *Proof) func() {
			saved := p.Argmax
			p.Argmax = nil
			return func() { p.Argmax = saved }
		}},
	}
	if rounds {
		out = append(out, roundTampers("Argmax.SumCheck", func(p *Proof) *sumcheck.Proof[fr.Element] { return &p.Argmax.SumCheck })...)
	}
	return out
}

// normTampers changes every value of every norm proof and each
// sum-check's first and last round value, then drops the last proof.
func normTampers(proof *Proof) []tamper {
	var out []tamper
	for k := range proof.Norms {
		at := func(p *Proof) *NormProof { return &p.Norms[k] }
		for j := range nbNormRows {
			out = append(out, tamper{fmt.Sprintf("Norms[%d].Rows[%d]", k, j), func(p *Proof) func() { return bump(&at(p).Rows[j]) }})
		}
		for j := range nbVarianceEvals {
			out = append(out, tamper{fmt.Sprintf("Norms[%d].VarianceEvals[%d]", k, j), func(p *Proof) func() { return bump(&at(p).VarianceEvals[j]) }})
		}
		for j := range nbScaleEvals {
			out = append(out, tamper{fmt.Sprintf("Norms[%d].ScaleEvals[%d]", k, j), func(p *Proof) func() { return bump(&at(p).ScaleEvals[j]) }})
		}
		out = append(out, roundTampers(fmt.Sprintf("Norms[%d].Variance", k), func(p *Proof) *sumcheck.Proof[fr.Element] { return &at(p).Variance })...)
		out = append(out, roundTampers(fmt.Sprintf("Norms[%d].Scale", k), func(p *Proof) *sumcheck.Proof[fr.Element] { return &at(p).Scale })...)
	}
	return append(out, dropLast("Norms", func(p *Proof) *[]NormProof { return &p.Norms }))
}

// TestNorms proves the norms of both families in a first segment, in a
// later one (whose attention norm reads the incoming stream) and in the
// last (the final norm): every field of a norm proof changed is rejected,
// and so is a proof of a norm value off by one in range — the mean, its
// remainder, the exponent, the sum of squares' remainder, the output —
// whose lookups still hold.
func TestNorms(t *testing.T) {
	llama, err := model.Builtin(model.LlamaTiny)
	if err != nil {
		t.Fatal(err)
	}
	s := testSRS(t, 1<<18)
	for _, m := range []*model.Model{model.Default(), llama} {
		f := newFixture(t, m, 4)
		last := len(f.tr.Layers)
		for _, seg := range []inference.Segment{{From: 0, To: 1}, {From: last - 1, To: last}} {
			proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg)
			if err != nil {
				t.Fatal(err)
			}
			want := 2
			if seg.To == last {
				want = 3
			}
			if len(proof.Norms) != want {
				t.Fatalf("%s: segment %v: %d norm proofs, want %d", m.Config.Family, seg, len(proof.Norms), want)
			}
			rejectsEach(t, s, f, seg, proof, normTampers)
		}
		seg := inference.Segment{From: last - 1, To: last}
		ly := &f.tr.Layers[last-1]
		rejectsOffByOne(t, s, f, seg, &ly.AttnNorm.RSqrtRem, 1)
		rejectsOffByOne(t, s, f, seg, &ly.MLPNorm.Out, 2)
		rejectsOffByOne(t, s, f, seg, &f.tr.FinalNorm.Exponent, 0)
		if m.Config.Family == model.GPT2 {
			rejectsOffByOne(t, s, f, seg, &ly.AttnNorm.Mean, 0)
			rejectsOffByOne(t, s, f, seg, &ly.MLPNorm.MeanRem, 1)
			rejectsOffByOne(t, s, f, seg, &f.tr.FinalNorm.Mean, 2)
		}
	}
}

// softmaxTampers changes every value of every softmax proof and each
// sum-check's first and last round value, then drops the last proof.
func softmaxTampers(proof *Proof) []tamper {
	var out []tamper
	for k := range proof.Softmax {
		at := func(p *Proof) *SoftmaxProof { return &p.Softmax[k] }
		for j := range nbSoftmaxTables {
			out = append(out, tamper{fmt.Sprintf("Softmax[%d].Zero.Evaluations[%d]", k, j), func(p *Proof) func() { return bump(&at(p).Zero.Evaluations[j]) }})
		}
		for j := range 3 {
			out = append(out,
				tamper{fmt.Sprintf("Softmax[%d].Rows[%d]", k, j), func(p *Proof) func() { return bump(&at(p).Rows[j]) }},
				tamper{fmt.Sprintf("Softmax[%d].OneHotEvals[%d]", k, j), func(p *Proof) func() { return bump(&at(p).OneHotEvals[j]) }})
		}
		out = append(out, roundTampers(fmt.Sprintf("Softmax[%d].Zero", k), func(p *Proof) *sumcheck.Proof[fr.Element] { return &at(p).Zero.SumCheck })...)
		out = append(out, roundTampers(fmt.Sprintf("Softmax[%d].OneHot", k), func(p *Proof) *sumcheck.Proof[fr.Element] { return &at(p).OneHot })...)
	}
	return append(out, dropLast("Softmax", func(p *Proof) *[]SoftmaxProof { return &p.Softmax }))
}

// TestSoftmax proves the softmax of both families: every field of a
// softmax proof changed is rejected; so is a row maximum, a probability's
// remainder or an exp limb off by one (in range), and a prover that marks
// a non-maximal score as its row's maximum, or two maxima in a row.
func TestSoftmax(t *testing.T) {
	llama, err := model.Builtin(model.LlamaTiny)
	if err != nil {
		t.Fatal(err)
	}
	s := testSRS(t, 1<<18)
	seg := inference.Segment{From: 0, To: 1}
	for _, m := range []*model.Model{model.Default(), llama} {
		f := newFixture(t, m, 4)
		proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg)
		if err != nil {
			t.Fatal(err)
		}
		if len(proof.Softmax) != 1 {
			t.Fatalf("%d softmax proofs", len(proof.Softmax))
		}
		rejectsEach(t, s, f, seg, proof, softmaxTampers)
		a := &f.tr.Layers[0].Attention
		rejectsOffByOne(t, s, f, seg, &a.RowMax, 1)
		rejectsOffByOne(t, s, f, seg, &a.ProbRem, 2)
		rejectsOffByOne(t, s, f, seg, &a.ExpHigh.In, 1*f.rows+0) // (h=0, i=1, j=0), unmasked
		// Row (h, i) = (0, 3): move its mark to another unmasked entry
		// of a smaller score, or add a second mark there.
		base := 3 * f.rows
		var other int
		for j := range 4 {
			if a.Scores.Out.Data[base+j] < a.RowMax.Data[3] {
				other = j
				break
			}
		}
		for _, move := range []bool{true, false} {
			mark := func(l *Layout) ([]uint16, error) {
				d := l.Softmax[0].oneHot.Data
				if move {
					for j := range 4 {
						d[base+j] = 0
					}
				}
				d[base+other] = 1
				return l.LimbTable()
			}
			forged, _, err := prove(s, f.st, f.pass, f.tr, seg, mark, lookup.SetMultiplicities)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, forged)
			if !errors.Is(err, ErrRejected) {
				t.Errorf("%s: a forged row maximum mark (move %v): %v", m.Config.Family, move, err)
			}
			t.Logf("%s: forged row maximum mark (move %v): %v", m.Config.Family, move, err)
		}
	}
}
