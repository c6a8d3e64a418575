package recursion

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/algebra/native/sw_bls12377"
	"github.com/consensys/gnark/std/math/bits"
	"github.com/consensys/gnark/std/math/emulated"
	stdgroth16 "github.com/consensys/gnark/std/recursion/groth16"
)

// MaxArity bounds the number of segments one aggregator verifies; it keeps
// the sizes taken from untrusted inputs small.
const MaxArity = 1 << 10

// scalarBitsBLS12377 is the bit length of r(BLS12-377).
const scalarBitsBLS12377 = 253

// segmentVerifier is gnark's in-circuit Groth16 verifier of BLS12-377
// proofs in a BW6-761 circuit.
type segmentVerifier = stdgroth16.Verifier[sw_bls12377.ScalarField, sw_bls12377.G1Affine, sw_bls12377.G2Affine, sw_bls12377.GT]

// newSegmentVerifier returns the emulated BLS12-377 scalar field (the
// segments' public inputs) and the verifier of segment proofs.
func newSegmentVerifier(api frontend.API) (*emulated.Field[sw_bls12377.ScalarField], *segmentVerifier, error) {
	scalars, err := emulated.NewField[sw_bls12377.ScalarField](api)
	if err != nil {
		return nil, nil, fmt.Errorf("recursion: scalar field: %w", err)
	}
	verifier, err := stdgroth16.NewVerifier[sw_bls12377.ScalarField, sw_bls12377.G1Affine, sw_bls12377.G2Affine, sw_bls12377.GT](api)
	if err != nil {
		return nil, nil, fmt.Errorf("recursion: segment verifier: %w", err)
	}
	return scalars, verifier, nil
}

// segmentKeyVariables lists a segment key's coordinates in the order of
// [ModelID].
func segmentKeyVariables(vk *stdgroth16.VerifyingKey[sw_bls12377.G1Affine, sw_bls12377.G2Affine, sw_bls12377.GT]) []frontend.Variable {
	var out []frontend.Variable
	e := &vk.E
	out = append(out,
		e.C0.B0.A0, e.C0.B0.A1, e.C0.B1.A0, e.C0.B1.A1, e.C0.B2.A0, e.C0.B2.A1,
		e.C1.B0.A0, e.C1.B0.A1, e.C1.B1.A0, e.C1.B1.A1, e.C1.B2.A0, e.C1.B2.A1)
	for _, p := range vk.G1.K {
		out = append(out, p.X, p.Y)
	}
	g2 := func(p *sw_bls12377.G2Affine) {
		out = append(out, p.P.X.A0, p.P.X.A1, p.P.Y.A0, p.P.Y.A1)
	}
	g2(&vk.G2.GammaNeg)
	g2(&vk.G2.DeltaNeg)
	for i := range vk.CommitmentKeys {
		g2(&vk.CommitmentKeys[i].G)
		g2(&vk.CommitmentKeys[i].GSigmaNeg)
	}
	return out
}

// canonicalBLS12377Bits decomposes v into 253 bits and asserts v < r(BLS12-377),
// so that v is a canonical BLS12-377 scalar.
func canonicalBLS12377Bits(api frontend.API, v frontend.Variable) []frontend.Variable {
	b := bits.ToBinary(api, v, bits.WithNbDigits(scalarBitsBLS12377))
	assertBitsAtMost(api, b, new(big.Int).Sub(ecc.BLS12_377.ScalarField(), big.NewInt(1)))
	return b
}

// assertBitsAtMost asserts that the little-endian bits b encode an integer
// ≤ bound. Scanning from the most significant bit, eq stays 1 while the
// prefix of b equals the prefix of bound; where bound has a 0 and the prefixes
// are equal, b must have a 0 too.
func assertBitsAtMost(api frontend.API, b []frontend.Variable, bound *big.Int) {
	var eq frontend.Variable = 1
	for i := len(b) - 1; i >= 0; i-- {
		if bound.Bit(i) == 1 {
			eq = api.Mul(eq, b[i])
		} else {
			api.AssertIsEqual(api.Mul(eq, b[i]), 0)
		}
	}
}

// scalarFromBits builds an emulated BLS12-377 scalar from little-endian bits,
// padded to the scalar field's bit length so the element has all its limbs.
func scalarFromBits(f *emulated.Field[sw_bls12377.ScalarField], b []frontend.Variable) emulated.Element[sw_bls12377.ScalarField] {
	padded := make([]frontend.Variable, scalarBitsBLS12377)
	for i := range padded {
		if i < len(b) {
			padded[i] = b[i]
		} else {
			padded[i] = 0
		}
	}
	return *f.FromBits(padded...)
}

// SegmentProverOption is the option a segment prover must pass to
// groth16.Prove so that the commitment challenge of its proof (if any) is
// derived the way the aggregator recomputes it.
func SegmentProverOption() backend.ProverOption {
	return stdgroth16.GetNativeProverOptions(ecc.BW6_761.ScalarField(), ecc.BLS12_377.ScalarField())
}

// SegmentVerifierOption is the matching option of groth16.Verify.
func SegmentVerifierOption() backend.VerifierOption {
	return stdgroth16.GetNativeVerifierOptions(ecc.BW6_761.ScalarField(), ecc.BLS12_377.ScalarField())
}
