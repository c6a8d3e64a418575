package circuits

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/tier"
	"github.com/veriformer/veriformer/model"
)

// TestDirectBucket: one circuit, the default model's in a bucket of 4
// rows (16 in the full tier), is satisfied by requests of 1, 2 and 3
// prompt tokens with 2 generated (1, 5 and 12 with 3); and, each
// rejected by the circuit and (where the proof changes) the native
// verifier: lengths moved under the same digests and tokens, a live
// row's target that is not its output token, a pad row's target that is
// not its argmax, and a pass whose pad rows hold other tokens.
func TestDirectBucket(t *testing.T) {
	field := ecc.BN254.ScalarField()
	prompt := []int{'T', 'h', 'e', ' ', 'q', 'u', 'i', 'c', 'k', ' ', 'f', 'o'}
	bucket, prompts, generated := 4, []int{1, 2, 3}, 2
	if tier.Full {
		bucket, prompts, generated = 16, []int{1, 5, 12}, 3
	}
	var placeholder *Direct
	var fixtures []*fixture
	for _, s := range prompts {
		f := newFixture(t, prompt[:s], generated, bucket)
		if placeholder == nil {
			var err error
			if placeholder, err = f.layout.Placeholder(); err != nil {
				t.Fatal(err)
			}
		}
		assignment, err := f.layout.Assign(f.st, f.req, f.proof)
		if err != nil {
			t.Fatal(err)
		}
		if err := test.IsSolved(placeholder, assignment, field); err != nil {
			t.Fatalf("prompt of %d tokens: %v", s, err)
		}
		fixtures = append(fixtures, f)
	}
	f := fixtures[1] // live rows s − 1 … s + g − 2, then pad rows
	sLen := len(f.req.Prompt)
	honest := func() *Direct {
		a, err := f.layout.Assign(f.st, f.req, f.proof)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	refused := func(name string, a *Direct) {
		t.Helper()
		if err := test.IsSolved(placeholder, a, field); err == nil {
			t.Errorf("%s: satisfies the circuit", name)
		}
	}
	a := honest()
	a.Request.PromptLen, a.Request.OutputLen = sLen+1, generated-1
	refused("lengths s + 1 and g − 1 under the digests of s and g", a)
	a = honest()
	a.Targets[sLen] = (f.req.Output[1] + 1) % 256
	refused("a live row's target not its output token", a)
	a = honest()
	last := bucket - 1
	a.Targets[last] = (a.Targets[last].(int) + 1) % 256
	refused("a pad row's target not its argmax", a)

	// A pass whose pad rows hold token 7 instead of the request's (the
	// last output token, then zeros): every relation of the pass holds,
	// but its tokens are not the request's.
	m := model.Default()
	tokens := f.req.Tokens()
	for i := f.req.Len(); i < len(tokens); i++ {
		tokens[i] = 7
	}
	tr, err := m.Forward(m.NewCache(), tokens)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := inference.Prove[bn254fr.Element](m, f.st, f.req, tr)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := f.layout.Assign(f.st, f.req, proof)
	if err != nil {
		t.Fatal(err)
	}
	rejectedByBoth(t, inference.Verify[bn254fr.Element](m, f.st, f.req, proof), placeholder, bad, field)

	// The proof of a request refused as one of another bucket.
	other := f.req
	other.Rows = bucket * 2
	if _, err := f.layout.Assign(f.st, other, f.proof); err == nil {
		t.Errorf("a request of bucket %d assigned to the circuit of bucket %d", other.Rows, bucket)
	}
	if err := inference.Verify[bn254fr.Element](m, f.st, other, f.proof); err == nil {
		t.Errorf("a proof of bucket %d verified as one of bucket %d", bucket, other.Rows)
	}
}
