package statement

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/internal/snapshot"
	native "github.com/veriformer/veriformer/statement"
)

// TokensDigestPrefix returns the digest of the first count tokens of a
// buffer, count a circuit variable: statement.TokensDigest of
// tokens[:count], the same value as TokensDigest of those tokens alone;
// prefixDigest with the buffer's thermometer, as Request.Bind computes
// it.
// It asserts 0 ≤ count ≤ len(tokens), every token below 2²⁰ and every
// token at or past count equal to 0, so that the buffer holds exactly one
// sequence for each digest.
//
// The transcript absorbs count, then every packed element of the buffer
// (twelve 20-bit tokens each), keeping each state; the zeros past count
// pack as the native transcript packs the shorter sequence, and the
// digest is the state after element ⌈count/12⌉, read off the thermometer
// τᵢ = [i < count] (gadgets/poly.Thermometer): [⌈count/12⌉ = j] =
// τ_{12(j−1)} − τ_{12j}. Cost: the permutations of [TokensDigest] over the
// whole buffer, plus about five constraints per token.
func TokensDigestPrefix(api frontend.API, tokens []frontend.Variable, count frontend.Variable) (frontend.Variable, error) {
	return prefixDigest(api, tokens, count, gpoly.Thermometer(api, count, len(tokens)))
}

type prefixCircuit struct {
	Tokens []frontend.Variable
	Count  frontend.Variable
	Digest frontend.Variable `gnark:",public"`
}

func (c *prefixCircuit) Define(api frontend.API) error {
	d, err := TokensDigestPrefix(api, c.Tokens, c.Count)
	if err != nil {
		return err
	}
	api.AssertIsEqual(d, c.Digest)
	return nil
}

// nativeDigest is statement.TokensDigest of tokens over the curve's
// scalar field.
func nativeDigest(t *testing.T, curve ecc.ID, tokens []int) *big.Int {
	t.Helper()
	var (
		d   *big.Int
		err error
	)
	if curve == ecc.BN254 {
		var e bn254fr.Element
		e, err = native.TokensDigest[bn254fr.Element](tokens)
		d = e.BigInt(new(big.Int))
	} else {
		var e bls12377fr.Element
		e, err = native.TokensDigest[bls12377fr.Element](tokens)
		d = e.BigInt(new(big.Int))
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// prefixAssignment is the buffer of size tokens holding seq's first count
// tokens, then zeros, with count and the digest.
func prefixAssignment(size, count int, seq []int, digest *big.Int) *prefixCircuit {
	c := &prefixCircuit{Tokens: make([]frontend.Variable, size), Count: count, Digest: digest}
	for i := range c.Tokens {
		c.Tokens[i] = 0
		if i < count {
			c.Tokens[i] = seq[i]
		}
	}
	return c
}

// TestTokensDigestPrefix: for buffers of 1, 12, 13 and 25 tokens (one
// packed element, a full one, one more token, two and a part) and every
// count, the digest of the buffer's first count tokens is the native
// digest of those tokens alone; and it is refused with the count one
// more or one less, a non-zero token at the count, a count past the
// buffer and a token of 2²⁰.
func TestTokensDigestPrefix(t *testing.T) {
	seq := []int{72, 101, 108, 108, 111, 1, 255, 50256, 1<<20 - 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}
	for _, curve := range []ecc.ID{ecc.BN254, ecc.BLS12_377} {
		field := curve.ScalarField()
		for _, size := range []int{1, 12, 13, 25} {
			placeholder := &prefixCircuit{Tokens: make([]frontend.Variable, size)}
			for count := 0; count <= size; count++ {
				name := fmt.Sprintf("%s/buffer %d/count %d", curve, size, count)
				digest := nativeDigest(t, curve, seq[:count])
				if err := test.IsSolved(placeholder, prefixAssignment(size, count, seq, digest), field); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if count < size {
					// The buffer's zero at count read as a token.
					if err := test.IsSolved(placeholder, prefixAssignment(size, count+1, append(seq[:count:count], 0), digest), field); err == nil {
						t.Errorf("%s: accepted with count %d", name, count+1)
					}
					bad := prefixAssignment(size, count, seq, digest)
					bad.Tokens[count] = 1
					if err := test.IsSolved(placeholder, bad, field); err == nil {
						t.Errorf("%s: accepted with a token at the count", name)
					}
				}
				if count > 0 {
					bad := prefixAssignment(size, count, seq, digest)
					bad.Count = count - 1
					if err := test.IsSolved(placeholder, bad, field); err == nil {
						t.Errorf("%s: accepted with count %d", name, count-1)
					}
				}
			}
			past := prefixAssignment(size, size, seq, nativeDigest(t, curve, seq[:size]))
			past.Count = size + 1
			if err := test.IsSolved(placeholder, past, field); err == nil {
				t.Errorf("%s/buffer %d: accepted with a count past the buffer", curve, size)
			}
		}
	}
	// A token of 2²⁰ or more is refused by its range check alone: token
	// 2 plus 2²⁰ and token 3 minus one pack into the element of the
	// honest tokens, so the digest is the honest one.
	tooBig := append([]int(nil), seq[:13]...)
	tooBig[2] += 1 << 20
	tooBig[3]--
	valid := prefixAssignment(16, 13, seq, nativeDigest(t, ecc.BN254, seq[:13]))
	invalid := prefixAssignment(16, 13, tooBig, nativeDigest(t, ecc.BN254, seq[:13]))
	test.NewAssert(t).CheckCircuit(&prefixCircuit{Tokens: make([]frontend.Variable, 16)},
		test.WithValidAssignment(valid), test.WithInvalidAssignment(invalid),
		test.WithCurves(ecc.BN254), test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks())
}

// TestTokensDigestPrefixConstraints snapshots the gadget's R1CS count on
// BN254 for buffers of 16 and 64 tokens against the fixed-length
// TokensDigest of as many tokens (testdata/prefix_constraints.csv).
func TestTokensDigestPrefixConstraints(t *testing.T) {
	checkCounts(t, "testdata/prefix_constraints.csv", "tokens", func(size int) []namedCircuit {
		return []namedCircuit{
			{"TokensDigest", &digestCircuit{Tokens: make([]frontend.Variable, size)}},
			{"TokensDigestPrefix", &prefixCircuit{Tokens: make([]frontend.Variable, size)}},
		}
	})
}

type namedCircuit struct {
	name    string
	circuit frontend.Circuit
}

// checkCounts snapshots in file the BN254 R1CS counts of the circuits
// of each size, 16 and 64 unless sizes are given (a column named by
// sizeName).
func checkCounts(t *testing.T, file, sizeName string, circuits func(size int) []namedCircuit, sizes ...int) {
	t.Helper()
	if len(sizes) == 0 {
		sizes = []int{16, 64}
	}
	rows := [][]string{{"gadget", sizeName, "nb_constraints"}}
	for _, size := range sizes {
		for _, c := range circuits(size) {
			ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c.circuit)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s, %s %d: %d R1CS", c.name, sizeName, size, ccs.GetNbConstraints())
			rows = append(rows, []string{c.name, fmt.Sprint(size), fmt.Sprint(ccs.GetNbConstraints())})
		}
	}
	snapshot.CheckCSV(t, file, rows, *update)
}
