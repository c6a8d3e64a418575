package committed

import (
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/statement"
)

// stackFixture stacks three greedy generations of m in a bucket of
// rows: requests of 3, 1 and 2 rows, then pad rows.
func stackFixture(t *testing.T, m *model.Model, rows int) (Pass, *model.Trace, statement.Statement) {
	t.Helper()
	var requests []statement.Request
	for k, c := range []struct{ prompt, tokens int }{{2, 2}, {1, 1}, {1, 2}} {
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
	pass := Pass{Rows: rows, Batch: requests}
	if err := pass.Check(m.Config.Vocab, m.Config.MaxPositions); err != nil {
		t.Fatal(err)
	}
	tr, err := m.ForwardStacked(pass.Tokens(), pass.Begins())
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := statement.StackStatement[fr.Element](m.ID(), statement.Stack{Requests: requests, Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	return pass, tr, st
}

// TestStackedPass proves a batch's pass natively, the requests stacked
// in one bucket with a block-diagonal mask and positions restarting per
// request, on a GPT-2 and a Llama family model and, in a bucket of 16
// rows, on the micro model whose context holds 8, every segment of it; the
// verifier, which takes the layout from the pass, accepts it, and
// rejects it for the requests in another order, for another split of the
// same rows into requests, for another statement, and a proof of the
// plain causal pass over the same tokens.
func TestStackedPass(t *testing.T) {
	s := testSRS(t, 1<<18)
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
	}{{"gpt2", model.Default(), 8}, {"llama", llama, 8}, {"beyond the context", micro, 16}} {
		m := c.m
		t.Run(c.name, func(t *testing.T) {
			pass, tr, st := stackFixture(t, m, c.rows)
			vk := testKey(t, s, m)
			segs := []inference.Segment{{From: 0, To: 1}, {From: 1, To: m.Config.Layers}}
			if m.Config.Layers == 1 {
				segs = segs[:1]
			}
			proofs := make([]*Proof, len(segs))
			for k, seg := range segs {
				proof, _, err := Prove(s, m, st, pass, tr, seg, WithPartVars(testPartVars))
				if err != nil {
					t.Fatalf("segment %v: %v", seg, err)
				}
				proofs[k] = proof
			}
			if err := VerifyPass(vk, m, st, pass, segs, proofs); err != nil {
				t.Fatalf("honest batch: %v", err)
			}
			reordered := pass
			reordered.Batch = []statement.Request{pass.Batch[1], pass.Batch[0], pass.Batch[2]}
			merged := pass // requests 1 and 2's rows as one request
			r1, r2 := pass.Batch[1], pass.Batch[2]
			merged.Batch = []statement.Request{pass.Batch[0], {Prompt: slices.Concat(r1.Prompt, r1.Output[:len(r1.Output)-1], r2.Prompt), Output: r2.Output}}
			if !slices.Equal(merged.Tokens(), pass.Tokens()) {
				t.Fatal("the merged layout's tokens differ")
			}
			other := st
			other.OutputDigest = st.InputDigest
			for name, c := range map[string]struct {
				pass Pass
				st   statement.Statement
			}{
				"requests reordered":           {reordered, st},
				"two requests as one":          {merged, st},
				"another statement":            {pass, other},
				"the rows as a single request": {Pass{Prompt: pass.Tokens()[:1], Output: slices.Concat(pass.Tokens()[1:6], []int{0}), Rows: c.rows}, st},
			} {
				if err := VerifyPass(vk, m, c.st, c.pass, segs, proofs); err == nil {
					t.Errorf("%s: accepted", name)
				}
			}
			// The plain causal pass over the same tokens, its trace labelled
			// with the batch's layout: the prover's tables follow its
			// attention, which reads across requests.
			if c.rows > m.Config.MaxPositions {
				return // no plain pass beyond the context
			}
			plain, err := m.Forward(m.NewCache(), pass.Tokens())
			if err != nil {
				t.Fatal(err)
			}
			plain.Begins = pass.Begins()
			for k, seg := range segs {
				proof, _, err := Prove(s, m, st, pass, plain, seg, WithPartVars(testPartVars))
				if err != nil {
					t.Logf("segment %v of the plain pass: the prover refuses (%v)", seg, err)
					continue // nothing to submit
				}
				forged := slices.Clone(proofs)
				forged[k] = proof
				if err := VerifyPass(vk, m, st, pass, segs, forged); err == nil {
					t.Errorf("segment %v of the plain pass accepted for the batch", seg)
				}
			}
		})
	}
}
