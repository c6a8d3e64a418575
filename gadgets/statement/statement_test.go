package statement

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/statement"
)

// TokensDigest returns the digest of the tokens, statement.TokensDigest
// of a fixed number of them; each token is range-checked below 2²⁰. Cost:
// one range check per token and one permutation per twelve tokens, plus
// two. The tests compare it with the native digest and with the digest
// of a buffer's prefix.
func TokensDigest(api frontend.API, tokens []frontend.Variable) (frontend.Variable, error) {
	tr, err := transcript.New(api, "tokens")
	if err != nil {
		return nil, err
	}
	if err := tr.AbsorbPacked(tokens, 0, 1<<tokenBits-1); err != nil {
		return nil, err
	}
	return tr.State(), nil
}

type digestCircuit struct {
	Tokens []frontend.Variable
	Digest frontend.Variable `gnark:",public"`
}

func (c *digestCircuit) Define(api frontend.API) error {
	d, err := TokensDigest(api, c.Tokens)
	if err != nil {
		return err
	}
	api.AssertIsEqual(d, c.Digest)
	return nil
}

func TestTokensDigest(t *testing.T) {
	tokens := []int{72, 101, 108, 108, 111, 0, 255, 50256, 1<<20 - 1, 3, 4, 5, 6}
	for _, curve := range []ecc.ID{ecc.BN254, ecc.BLS12_377} {
		var digest string
		if curve == ecc.BN254 {
			d, err := native.TokensDigest[bn254fr.Element](tokens)
			if err != nil {
				t.Fatal(err)
			}
			digest = d.String()
		} else {
			d, err := native.TokensDigest[bls12377fr.Element](tokens)
			if err != nil {
				t.Fatal(err)
			}
			digest = d.String()
		}
		assign := func(ts []int) *digestCircuit {
			c := &digestCircuit{Digest: digest}
			for _, tk := range ts {
				c.Tokens = append(c.Tokens, tk)
			}
			return c
		}
		changed := append([]int(nil), tokens...)
		changed[3]++
		// Over 2²⁰, refused by the range check alone: token 2 plus 2²⁰
		// and token 3 minus one pack into the honest element.
		tooBig := append([]int(nil), tokens...)
		tooBig[2] += 1 << 20
		tooBig[3]--
		test.NewAssert(t).CheckCircuit(&digestCircuit{Tokens: make([]frontend.Variable, len(tokens))},
			test.WithValidAssignment(assign(tokens)),
			test.WithInvalidAssignment(assign(changed)),
			test.WithInvalidAssignment(assign(tooBig)),
			test.WithCurves(curve), test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks())
	}
}
