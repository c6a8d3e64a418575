package comb

import (
	"math/big"
	"testing"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bn254"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	bw6761 "github.com/consensys/gnark-crypto/ecc/bw6-761"
	bwfr "github.com/consensys/gnark-crypto/ecc/bw6-761/fr"
)

// scalarsOf returns n scalars of the field of elt: 0, 1, r − 1 and
// pseudo-random ones, as canonical words and as integers.
func scalarsOf(n, words int, modulus *big.Int) ([]uint64, []*big.Int) {
	ints := []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(modulus, big.NewInt(1))}
	x := big.NewInt(12345)
	for len(ints) < n {
		x.Mul(x, big.NewInt(6364136223846793005)).Add(x, big.NewInt(1442695040888963407)).Mod(x, modulus)
		ints = append(ints, new(big.Int).Set(x))
	}
	flat := make([]uint64, n*words)
	for i, v := range ints {
		for k, word := range v.Bits() {
			flat[i*words+k] = uint64(word)
		}
	}
	return flat, ints
}

// TestMultiplyBN254G1 and the other cases compare every product with a
// scalar multiplication of its own, for more scalars than one batch.
func TestMultiplyBN254G1(t *testing.T) {
	_, _, g1, _ := bn254.Generators()
	flat, ints := scalarsOf(batch+37, 4, bnfr.Modulus())
	got := Multiply[bn254.G1Jac](&g1, flat, 4, bnfr.Bits, bn254.BatchJacobianToAffineG1)
	for i, s := range ints {
		var want bn254.G1Affine
		want.ScalarMultiplication(&g1, s)
		if !got[i].Equal(&want) {
			t.Fatalf("scalar %d (%s): got %v, want %v", i, s, got[i], want)
		}
	}
}

func TestMultiplyBLS12377G2(t *testing.T) {
	_, _, _, g2 := bls12377.Generators()
	flat, ints := scalarsOf(300, 4, bnfr.Modulus())
	got := Multiply[bls12377.G2Jac](&g2, flat, 4, 256, ToAffine[bls12377.G2Jac, bls12377.G2Affine])
	for i, s := range ints {
		var want bls12377.G2Affine
		want.ScalarMultiplication(&g2, s)
		if !got[i].Equal(&want) {
			t.Fatalf("scalar %d: products differ", i)
		}
	}
}

func TestMultiplyBW6761G1(t *testing.T) {
	_, _, g1, _ := bw6761.Generators()
	flat, ints := scalarsOf(200, 6, bwfr.Modulus())
	got := Multiply[bw6761.G1Jac](&g1, flat, 6, bwfr.Bits, bw6761.BatchJacobianToAffineG1)
	for i, s := range ints {
		var want bw6761.G1Affine
		want.ScalarMultiplication(&g1, s)
		if !got[i].Equal(&want) {
			t.Fatalf("scalar %d: products differ", i)
		}
	}
}

func TestWindow(t *testing.T) {
	if w := Window(1, 254); w > 4 {
		t.Errorf("one scalar: window %d", w)
	}
	small, large := Window(1000, 254), Window(1<<22, 254)
	if small >= large {
		t.Errorf("window %d for 1,000 scalars, %d for 4M", small, large)
	}
	if w := Window(1<<30, 377); ((377+w-1)/w)*(1<<w-1) > maxTable {
		t.Errorf("window %d exceeds the table bound", w)
	}
}

func BenchmarkMultiplyBW6761G1(b *testing.B) {
	_, _, g1, _ := bw6761.Generators()
	flat, _ := scalarsOf(1<<14, 6, bwfr.Modulus())
	for b.Loop() {
		Multiply[bw6761.G1Jac](&g1, flat, 6, bwfr.Bits, bw6761.BatchJacobianToAffineG1)
	}
}

func BenchmarkBatchScalarMultiplicationBW6761G1(b *testing.B) {
	_, _, g1, _ := bw6761.Generators()
	scalars := make([]bwfr.Element, 1<<14)
	for i := range scalars {
		scalars[i].SetUint64(uint64(i) * 0x9e3779b97f4a7c15)
		scalars[i].Square(&scalars[i])
	}
	for b.Loop() {
		bw6761.BatchScalarMultiplicationG1(&g1, scalars)
	}
}
