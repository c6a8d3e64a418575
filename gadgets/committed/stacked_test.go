package committed

import (
	"io"
	"log"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	gstatement "github.com/veriformer/veriformer/gadgets/statement"
	"github.com/veriformer/veriformer/inference"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/statement"
)

// stackedCircuit runs the segment verifier ([Verify]) on a batch's pass
// whose layout, tokens, live rows and targets are witnesses, as a
// binding of the batch's requests would hand them over.
type stackedCircuit struct {
	Publics                    Publics `gnark:",public"`
	Tokens, Live, Next, Starts []frontend.Variable
	Proof                      Proof

	shape *native.Shape `gnark:"-"`
	model *model.Model  `gnark:"-"`
}

func (c *stackedCircuit) Define(api frontend.API) error {
	bound := gstatement.Bound{Tokens: c.Tokens, Live: c.Live, Next: c.Next, Starts: c.Starts}
	_, err := Verify(api, c.model, c.shape, c.Publics.Statement[:], &bound, c.Publics.Digest, c.Publics.MDigest, c.Publics.FoldDigest, c.Proof, nil)
	return err
}

// stackedPass is a batch of three greedy generations of m stacked in
// rows rows (requests of 3, 1 and 2 rows, then pad rows), or with split
// set another batch over the same rows (requests of 2, 2 and 2 rows).
func stackedPass(t *testing.T, m *model.Model, rows int, split bool) native.Pass {
	t.Helper()
	cases := []struct{ prompt, tokens int }{{2, 2}, {1, 1}, {1, 2}}
	if split {
		cases = []struct{ prompt, tokens int }{{1, 2}, {2, 1}, {1, 2}}
	}
	var requests []statement.Request
	for k, c := range cases {
		prompt := make([]int, c.prompt)
		for i := range prompt {
			prompt[i] = (i*37 + 11 + 5*k) % m.Config.Vocab
		}
		gen, err := m.Generate(prompt, c.tokens)
		if err != nil {
			t.Fatal(err)
		}
		requests = append(requests, statement.Request{Prompt: prompt, Output: gen.Tokens})
	}
	return native.Pass{Rows: rows, Batch: requests}
}

// stackedShape returns the native shape of segment seg of the pass.
func stackedShape(t *testing.T, m *model.Model, pass native.Pass, seg inference.Segment) *native.Shape {
	t.Helper()
	view, err := m.ForwardStacked(make([]int, pass.Rows), pass.Begins())
	if err != nil {
		t.Fatal(err)
	}
	s, err := native.NewShape(view, seg, pass)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stackedAssignment proves segment seg of the pass natively and returns
// the circuit's assignment with the pass's layout.
func stackedAssignment(t *testing.T, m *model.Model, pass native.Pass, seg inference.Segment) *stackedCircuit {
	t.Helper()
	tr, err := m.ForwardStacked(pass.Tokens(), pass.Begins())
	if err != nil {
		t.Fatal(err)
	}
	stack, _ := pass.Stack()
	st, _, err := statement.StackStatement[fr.Element](m.ID(), stack)
	if err != nil {
		t.Fatal(err)
	}
	srsOnce.Do(func() { srs, srsErr = pcs.NewDevelopmentSRS(1<<18, log.New(io.Discard, "", 0)) })
	if srsErr != nil {
		t.Fatal(srsErr)
	}
	proof, _, err := native.Prove(srs, m, st, pass, tr, seg)
	if err != nil {
		t.Fatal(err)
	}
	s := stackedShape(t, m, pass, seg)
	check, _, err := s.VerifyField(m, st, proof)
	if err != nil {
		t.Fatalf("the native verifier rejects the honest batch: %v", err)
	}
	rows := pass.Rows
	c := &stackedCircuit{Publics: ValueOfPublics(s, st, proof, check), Proof: ValueOfProof(proof), shape: s, model: m,
		Tokens: make([]frontend.Variable, rows+1), Live: make([]frontend.Variable, rows), Next: make([]frontend.Variable, rows), Starts: make([]frontend.Variable, rows)}
	tokens, begins := pass.Tokens(), pass.Begins()
	for i := range rows + 1 {
		c.Tokens[i] = 0
		if i < rows {
			c.Tokens[i] = tokens[i]
		}
	}
	for i := range rows {
		next, live := pass.Next(i)
		c.Next[i], c.Live[i], c.Starts[i] = next, 0, 0
		if live {
			c.Live[i] = 1
		}
		if begins[i] == i {
			c.Starts[i] = 1
		}
	}
	return c
}

// TestStackedSegment checks the segment circuit of a batch's pass with
// gnark's test engine on native proofs: compiled from another batch's
// layout (the circuit reads the layout from its witnesses), it accepts
// the honest batch — the first segment of the GPT-2 and the Llama
// built-in models (the block-diagonal mask, the positions of GPT-2's
// embedding and of the RoPE tables; the last segment, with the argmax's
// targets, is TestBatchSegment's) and the micro model's one segment in
// 16 rows, beyond its context of 8 — and rejects another layout of the
// same rows and a token changed.
func TestStackedSegment(t *testing.T) {
	llama, err := model.Builtin(model.LlamaTiny)
	if err != nil {
		t.Fatal(err)
	}
	micro, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    *model.Model
		rows int
	}{
		{"gpt2 first", model.Default(), 8},
		{"llama first", llama, 8},
		{"micro beyond the context", micro, 16},
	} {
		seg := inference.Segment{From: 0, To: 1}
		t.Run(c.name, func(t *testing.T) {
			other := stackedPass(t, c.m, c.rows, true)
			ph := &stackedCircuit{shape: stackedShape(t, c.m, other, seg), model: c.m,
				Tokens: make([]frontend.Variable, c.rows+1), Live: make([]frontend.Variable, c.rows), Next: make([]frontend.Variable, c.rows), Starts: make([]frontend.Variable, c.rows)}
			var err error
			if ph.Publics, err = PlaceholderPublics(ph.shape); err != nil {
				t.Fatal(err)
			}
			if ph.Proof, err = PlaceholderProof(ph.shape); err != nil {
				t.Fatal(err)
			}
			honest := stackedAssignment(t, c.m, stackedPass(t, c.m, c.rows, false), seg)
			if err := test.IsSolved(ph, honest, ecc.BLS12_377.ScalarField()); err != nil {
				t.Fatalf("honest batch: %v", err)
			}
			bad := func(name string, change func(a *stackedCircuit)) {
				a := *honest
				a.Starts, a.Next, a.Tokens = append([]frontend.Variable(nil), honest.Starts...), append([]frontend.Variable(nil), honest.Next...), append([]frontend.Variable(nil), honest.Tokens...)
				change(&a)
				if test.IsSolved(ph, &a, ecc.BLS12_377.ScalarField()) == nil {
					t.Errorf("%s: accepted", name)
				}
			}
			// Rows 3 and 4 (requests 1 and 2's first rows) read as one
			// request.
			bad("requests 1 and 2 as one", func(a *stackedCircuit) { a.Starts[4] = 0 })
			bad("request 0 split", func(a *stackedCircuit) { a.Starts[2] = 1 })
			bad("a token changed", func(a *stackedCircuit) { a.Tokens[4] = (toInt(a.Tokens[4]) + 1) % c.m.Config.Vocab })
		})
	}
}

// toInt returns an int assignment's value.
func toInt(v frontend.Variable) int {
	x, _ := v.(int)
	return x
}

// batchSegmentCircuit is the whole segment circuit of a batch's pass
// ([VerifyBatchSegment]), as circuits.CommittedBatch builds it.
type batchSegmentCircuit struct {
	Publics Publics `gnark:",public"`
	Batch   gstatement.BatchRequest
	Proof   Proof

	shape *native.Shape `gnark:"-"`
	model *model.Model  `gnark:"-"`
}

func (c *batchSegmentCircuit) Define(api frontend.API) error {
	return VerifyBatchSegment(api, c.model, c.shape, c.Publics, c.Batch, c.Proof)
}

// TestBatchSegment checks the whole segment circuit of a batch's pass,
// the requests bound to the statement (model id, list digest, count),
// with gnark's test engine on the native proof of the GPT-2 built-in
// model's last segment (the argmax), the circuit compiled from another
// batch's layout with three request slots: it accepts the honest batch
// and rejects another list digest, another count, a request's token
// changed and two requests' slots exchanged.
func TestBatchSegment(t *testing.T) {
	m := model.Default()
	seg := inference.Segment{From: 1, To: m.Config.Layers}
	const slots = 3
	other := stackedPass(t, m, 8, true)
	ph := &batchSegmentCircuit{shape: stackedShape(t, m, other, seg), model: m, Batch: gstatement.PlaceholderBatchRequest(8, slots)}
	var err error
	if ph.Publics, err = PlaceholderPublics(ph.shape); err != nil {
		t.Fatal(err)
	}
	if ph.Proof, err = PlaceholderProof(ph.shape); err != nil {
		t.Fatal(err)
	}
	pass := stackedPass(t, m, 8, false)
	bound := stackedAssignment(t, m, pass, seg)
	stack, _ := pass.Stack()
	batch, err := gstatement.ValueOfBatchRequest(stack, slots)
	if err != nil {
		t.Fatal(err)
	}
	honest := &batchSegmentCircuit{Publics: bound.Publics, Batch: batch, Proof: bound.Proof}
	if err := test.IsSolved(ph, honest, ecc.BLS12_377.ScalarField()); err != nil {
		t.Fatalf("honest batch: %v", err)
	}
	bad := func(name string, change func(a *batchSegmentCircuit)) {
		a := *honest
		a.Batch.Requests = append([]gstatement.Request(nil), honest.Batch.Requests...)
		for j := range a.Batch.Requests {
			r := &a.Batch.Requests[j]
			r.Prompt = append([]frontend.Variable(nil), r.Prompt...)
		}
		change(&a)
		if test.IsSolved(ph, &a, ecc.BLS12_377.ScalarField()) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	bad("another list digest", func(a *batchSegmentCircuit) { a.Publics.Statement[1] = bumped(a.Publics.Statement[1]) })
	bad("another count", func(a *batchSegmentCircuit) { a.Publics.Statement[2] = 2 })
	bad("a request's token changed", func(a *batchSegmentCircuit) {
		a.Batch.Requests[0].Prompt[1] = (toInt(a.Batch.Requests[0].Prompt[1]) + 1) % m.Config.Vocab
	})
	bad("two requests exchanged", func(a *batchSegmentCircuit) {
		a.Batch.Requests[0], a.Batch.Requests[2] = a.Batch.Requests[2], a.Batch.Requests[0]
	})
}
