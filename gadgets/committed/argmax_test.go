package committed

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	gstatement "github.com/veriformer/veriformer/gadgets/statement"
	"github.com/veriformer/veriformer/inference"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	npoly "github.com/veriformer/veriformer/poly"
)

// argmaxCircuit checks the argmax step for a request whose pass's tokens
// and live rows are Tokens and Live (witnesses, as Request.Bind returns
// them) and, when want is set, that its claims are the native ones.
type argmaxCircuit struct {
	stepBase
	Tokens []frontend.Variable
	Live   []frontend.Variable
	Proof  *ArgmaxProof
	s      *native.Shape `gnark:"-"`
	want   []pcs.Claim   `gnark:"-"`
}

func (c *argmaxCircuit) Define(api frontend.API) error {
	t, err := c.begin(api)
	if err != nil {
		return err
	}
	point, err := verifyArgmax(api, t, c.s, &gstatement.Bound{Tokens: c.Tokens, Live: c.Live}, c.Proof)
	if err != nil {
		return err
	}
	if c.want != nil {
		if err := assertNativeClaims(api, argmaxClaims(api, c.s, point, c.Proof), c.want); err != nil {
			return err
		}
	}
	c.end(api, t)
	return nil
}

// argmaxCircuits returns the argmax step's placeholder and the
// assignment of the run's proof as it is now for the request req (its
// pass's tokens T[0..R] and live rows), with the native claims want
// (nil: not checked).
func (r *segmentRun) argmaxCircuits(req native.Pass, want []pcs.Claim) (frontend.Circuit, frontend.Circuit, error) {
	ph, as, err := r.stepBases(stepArgmax)
	if err != nil {
		return nil, nil, err
	}
	tokens := append(req.Tokens(), 0)
	if tok, ok := req.Next(req.Rows - 1); ok {
		tokens[req.Rows] = tok
	}
	live := make([]int, req.Rows)
	for i := range live {
		if req.Live(i) {
			live[i] = 1
		}
	}
	return &argmaxCircuit{stepBase: ph, Tokens: make([]frontend.Variable, req.Rows+1), Live: make([]frontend.Variable, req.Rows), Proof: PlaceholderArgmax(r.shape), s: r.shape, want: want},
		&argmaxCircuit{stepBase: as, Tokens: gpoly.Ints(tokens), Live: gpoly.Ints(live), Proof: ValueOfArgmax(r.proof.Argmax), s: r.shape, want: want}, nil
}

// argmaxElements lists every value of an argmax proof.
func argmaxElements(p *native.ArgmaxProof) []*fr.Element {
	var out []*fr.Element
	for i := range p.Chosen {
		out = append(out, &p.Chosen[i])
	}
	for i := range p.Local {
		out = append(out, &p.Local[i])
	}
	out = append(out, &p.MarginsEval)
	for i := range p.SumCheck.Rounds {
		for j := range p.SumCheck.Rounds[i] {
			out = append(out, &p.SumCheck.Rounds[i][j])
		}
	}
	return append(out, &p.LogitsEval)
}

// TestArgmaxRejectedByBoth: the argmax step of the last segment, a pass
// of 5 rows in a bucket of 8; every value of its proof changed (the
// targets of a prompt row, a live row and a pad row among them), then an
// output token changed with the proof of the real one, for the first and
// the last output token: to another token of the vocabulary (the native
// verifier of that pass rejects the proof too) and to the vocabulary
// size (the native shape of that pass is refused).
func TestArgmaxRejectedByBoth(t *testing.T) {
	checkArgmax(t, sharedSegmentRun(t, true))
}

// TestArgmaxChunksRejectedByBoth is TestArgmaxRejectedByBoth on chunks
// of the LM head: of the built-in model, whose output tokens (all 48)
// are above the chunk [0, 40), and of the Llama one, whose output tokens
// (159, 117, 236, 100) the chunk [100, 160) holds but the third, which
// is above it. It also checks the claims as TestArgmaxClaims does.
func TestArgmaxChunksRejectedByBoth(t *testing.T) {
	for _, c := range []struct {
		name   string
		layers int
		lo, hi int
	}{{model.Tiny, 2, 0, 40}, {model.LlamaTiny, 3, 100, 160}} {
		t.Run(fmt.Sprintf("%s/%d-%d", c.name, c.lo, c.hi), func(t *testing.T) {
			r := sharedRunOf(t, c.name, inference.Segment{From: c.layers, To: c.layers, VocabFrom: c.lo, VocabTo: c.hi})
			checkArgmax(t, r)
			checkArgmaxClaims(t, r)
		})
	}
}

// checkArgmax checks the argmax step of run r: every value of its proof
// changed (the targets of the first row, the first live row and the last
// row too), then an output token changed with the proof of the real one,
// for the first and the last output token: to another token of the
// vocabulary (the native verifier of that pass rejects the proof too)
// and to the vocabulary size (the native shape of that pass is refused).
func checkArgmax(t *testing.T, r *segmentRun) {
	if r.proof.Argmax == nil || r.shape.Argmax == nil {
		t.Fatal("no argmax step in the segment")
	}
	var tampers []tamper
	for i, x := range argmaxElements(r.proof.Argmax) {
		tampers = append(tampers, tamper{fmt.Sprintf("Argmax value %d", i), x})
	}
	circuits := func(req native.Pass) func() (frontend.Circuit, frontend.Circuit, error) {
		return func() (frontend.Circuit, frontend.Circuit, error) { return r.argmaxCircuits(req, nil) }
	}
	n := checkStep(t, r, stepArgmax, circuits(r.pass), tampers)
	t.Logf("argmax step, %d rows: %d R1CS", r.pass.Rows, n)

	ph, _, err := circuits(r.pass)()
	if err != nil {
		t.Fatal(err)
	}
	cs := compileCircuit(t, ph)
	a := r.shape.Argmax
	vocab := a.Total()
	// Another token the segment tells apart: the next one, or in a chunk
	// the next one of the chunk for a token it holds, and its middle one
	// for a token it does not (a chunk sees only where a token is
	// against its columns).
	other := func(tok int) int {
		if !a.Chunk() {
			return (tok + 1) % vocab
		}
		lo, w := a.Offset(), a.Vocab()
		if tok >= lo && tok < lo+w {
			return lo + (tok-lo+1)%w
		}
		return lo + w/2
	}
	// A row's target changed (the first row's, a prompt row's; the
	// first live row's; the last row's, a pad row's when the pass leaves
	// one): each rejected by both.
	targets := r.proof.Argmax.Targets
	for _, i := range []int{0, len(r.pass.Prompt) - 1, len(targets) - 1} {
		saved := targets[i]
		targets[i] = other(saved)
		_, as, err := circuits(r.pass)()
		if err != nil {
			t.Fatal(err)
		}
		if err := solveCompiled(cs, as); err == nil {
			t.Errorf("row %d's target %d instead of %d: accepted by the circuit", i, targets[i], saved)
		}
		before, err := r.replay(stepArgmax)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.shape.VerifyArgmax(before.t, r.proof.Argmax); err == nil {
			t.Errorf("row %d's target %d instead of %d: accepted by the native verifier", i, targets[i], saved)
		}
		targets[i] = saved
	}
	for _, k := range ends(len(r.pass.Output)) {
		for _, tok := range []int{other(r.pass.Output[k]), vocab} {
			tokens := slices.Clone(r.pass.Output)
			tokens[k] = tok
			pass := native.Pass{Prompt: r.pass.Prompt, Output: tokens, Rows: r.pass.Rows}
			_, as, err := circuits(pass)()
			if err != nil {
				t.Fatal(err)
			}
			if err := solveCompiled(cs, as); err == nil {
				t.Errorf("output token %d = %d instead of %d: accepted by the circuit", k, tok, r.pass.Output[k])
			}
			s, err := native.NewShape(r.shape.Trace, r.seg, pass)
			if err != nil {
				if tok < vocab {
					t.Fatalf("output token %d = %d: %v", k, tok, err)
				}
				continue // refused natively
			}
			if tok >= vocab {
				t.Errorf("output token %d = %d outside the vocabulary of %d: a native shape", k, tok, vocab)
			}
			before, err := r.replay(stepArgmax)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.VerifyArgmax(before.t, r.proof.Argmax); err == nil {
				t.Errorf("output token %d = %d instead of %d: accepted by the native verifier", k, tok, r.pass.Output[k])
			}
		}
	}
}

// TestArgmaxClaims: on the honest proof the gadget's claims are native
// Shape.ArgmaxClaims (commitments, points with the tokens' bits, values);
// a native claim's point coordinate or value changed is not.
func TestArgmaxClaims(t *testing.T) {
	checkArgmaxClaims(t, sharedSegmentRun(t, true))
}

// checkArgmaxClaims is TestArgmaxClaims on run r.
func checkArgmaxClaims(t *testing.T, r *segmentRun) {
	st, err := r.replay(stepArgmax)
	if err != nil {
		t.Fatal(err)
	}
	point, err := r.shape.VerifyArgmax(st.t, r.proof.Argmax)
	if err != nil {
		t.Fatal(err)
	}
	want := r.shape.ArgmaxClaims(point, r.proof.Argmax)
	if len(want) != r.pass.Rows+2 {
		t.Fatalf("%d native claims for %d rows", len(want), r.pass.Rows)
	}
	checkClaims(t, want, func(want []pcs.Claim) (frontend.Circuit, frontend.Circuit, error) {
		return r.argmaxCircuits(r.pass, want)
	})
}

// tokenCircuit bounds a token by its bits and checks its prefix MLE.
type tokenCircuit struct {
	Token  frontend.Variable
	Rho    []frontend.Variable
	Prefix frontend.Variable
	bound  int `gnark:"-"`
}

func (c *tokenCircuit) Define(api frontend.API) error {
	bits := tokenBits(api, c.Token, len(c.Rho))
	assertBitsBelow(api, bits, c.bound)
	api.AssertIsEqual(bitsPrefix(api, c.Rho, bits), c.Prefix)
	return nil
}

// TestTokenBits: over 8 bits, a token below the bound (a power of two
// or not) is accepted with its prefix MLE Prefix_t(ρ) (native
// poly.Prefix at a random ρ) and rejected with another token's; a token
// at or above the bound, or at 2⁸, is rejected.
func TestTokenBits(t *testing.T) {
	const n = 8
	rng := rand.New(rand.NewPCG(1, 2))
	rho := make([]fr.Element, n)
	for i := range rho {
		rho[i].SetUint64(rng.Uint64())
	}
	solve := func(bound, tok, prefixOf int) error {
		pr := npoly.Prefix[fr.Element](rho, prefixOf)
		ph := &tokenCircuit{Rho: make([]frontend.Variable, n), bound: bound}
		as := &tokenCircuit{Token: tok, Rho: gpoly.ValuesOf(rho), Prefix: field.BigInt(&pr), bound: bound}
		return test.IsSolved(ph, as, ecc.BLS12_377.ScalarField())
	}
	for _, bound := range []int{1, 2, 37, 200, 255, 256} {
		for tok := range 1 << n {
			if err := solve(bound, tok, tok); (err == nil) != (tok < bound) {
				t.Errorf("bound %d, token %d: solved %v", bound, tok, err == nil)
			}
			if tok < bound {
				if err := solve(bound, tok, tok+1); err == nil {
					t.Errorf("bound %d, token %d: accepted with the prefix of %d", bound, tok, tok+1)
				}
			}
		}
		if err := solve(bound, 1<<n, 1<<n); err == nil {
			t.Errorf("bound %d, token %d over %d bits: accepted", bound, 1<<n, n)
		}
	}
}

// chunkTokenCircuit places a token in a chunk's columns (chunkToken):
// its column and whether it is above the chunk, with Local and Chosen.
type chunkTokenCircuit struct {
	Token, Local, Chosen frontend.Variable
	Column, Above        frontend.Variable
	a                    *native.ArgmaxStep `gnark:"-"`
}

func (c *chunkTokenCircuit) Define(api frontend.API) error {
	col, above := chunkToken(api, c.a, c.Token, c.Local, c.Chosen)
	api.AssertIsEqual(api.FromBinary(reversed(col)...), c.Column)
	api.AssertIsEqual(above, c.Above)
	return nil
}

// reversed returns bits most significant first as least significant
// first.
func reversed(bits []frontend.Variable) []frontend.Variable {
	out := slices.Clone(bits)
	slices.Reverse(out)
	return out
}

// TestChunkToken: for every token of the vocabulary and a chunk [a, b)
// of the Llama model's LM head, the circuit places the token at column
// t − a inside the chunk (0 outside) and above it exactly when t ≥ b;
// a Local logit other than the chosen one is refused exactly when the
// chunk holds the token; a token at the vocabulary size is refused.
func TestChunkToken(t *testing.T) {
	r := sharedRunOf(t, model.LlamaTiny, inference.Segment{From: 3, To: 3, VocabFrom: 100, VocabTo: 160})
	a := r.shape.Argmax
	lo, hi := a.Offset(), a.Offset()+a.Vocab()
	ph := &chunkTokenCircuit{a: a}
	solve := func(tok, col, above, local int) error {
		return test.IsSolved(ph, &chunkTokenCircuit{Token: tok, Local: local, Chosen: 7, Column: col, Above: above, a: a}, ecc.BLS12_377.ScalarField())
	}
	for tok := range a.Total() {
		col, above, in := 0, 0, tok >= lo && tok < hi
		if in {
			col = tok - lo
		}
		if tok >= hi {
			above = 1
		}
		if err := solve(tok, col, above, 7); err != nil {
			t.Fatalf("token %d: %v", tok, err)
		}
		if err := solve(tok, col+1, above, 7); err == nil {
			t.Errorf("token %d: accepted at column %d", tok, col+1)
		}
		if err := solve(tok, col, 1-above, 7); err == nil {
			t.Errorf("token %d: accepted with above = %d", tok, 1-above)
		}
		if err := solve(tok, col, above, 8); (err == nil) == in {
			t.Errorf("token %d in the chunk %v: another local logit solved %v", tok, in, err == nil)
		}
	}
	if err := solve(a.Total(), 0, 1, 7); err == nil {
		t.Errorf("token %d at the vocabulary size: accepted", a.Total())
	}
}
