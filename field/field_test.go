package field

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
)

// testKernels checks every vector kernel against the scalar arithmetic,
// on lengths around the kernels' block sizes.
func testKernels[E Scalar, P Ptr[E]](t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 7, 8, 9, 113, 1000} {
		a, b := RandomVector[E, P](rng, n), RandomVector[E, P](rng, n)
		s := Random[E, P](rng)
		add, sub, mul, smul := make([]E, n), make([]E, n), make([]E, n), make([]E, n)
		Add(add, a, b)
		Sub(sub, a, b)
		Mul(mul, a, b)
		ScalarMul(smul, a, &s)
		var sum, ip, want E
		for i := range n {
			P(&want).Add(&a[i], &b[i])
			if !P(&want).Equal(&add[i]) {
				t.Fatalf("n=%d: Add[%d]", n, i)
			}
			P(&want).Sub(&a[i], &b[i])
			if !P(&want).Equal(&sub[i]) {
				t.Fatalf("n=%d: Sub[%d]", n, i)
			}
			P(&want).Mul(&a[i], &b[i])
			if !P(&want).Equal(&mul[i]) {
				t.Fatalf("n=%d: Mul[%d]", n, i)
			}
			P(&ip).Add(&ip, &want)
			P(&want).Mul(&a[i], &s)
			if !P(&want).Equal(&smul[i]) {
				t.Fatalf("n=%d: ScalarMul[%d]", n, i)
			}
			P(&sum).Add(&sum, &a[i])
		}
		gotSum, gotIP := Sum(a), InnerProduct(a, b)
		if !P(&gotSum).Equal(&sum) || !P(&gotIP).Equal(&ip) {
			t.Fatalf("n=%d: Sum or InnerProduct", n)
		}
		// In place: res aliases an input.
		Add(a, a, b)
		if n > 0 && !P(&a[n-1]).Equal(&add[n-1]) {
			t.Fatalf("n=%d: Add in place", n)
		}
	}
}

func TestKernels(t *testing.T) {
	t.Run("bn254", testKernels[bn254fr.Element])
	t.Run("bls12-377", testKernels[bls12377fr.Element])
}

// ToInt64 maps a field element back to a signed integer when it lies in
// (−2⁶³, 2⁶³) under the "p − |v| is −|v|" convention of FromInt64; ok is
// false otherwise. The tests read FromInt64's elements back with it.
func ToInt64[E Scalar, P Ptr[E]](x *E) (v int64, ok bool) {
	var b big.Int
	P(x).BigInt(&b)
	if b.IsInt64() {
		return b.Int64(), true
	}
	b.Sub(&b, Modulus[E]())
	if b.IsInt64() {
		return b.Int64(), true
	}
	return 0, false
}

func TestIntegers(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 127, -128, 1 << 40, -(1 << 62), 1<<63 - 1} {
		x := FromInt64[bn254fr.Element](v)
		back, ok := ToInt64[bn254fr.Element](&x)
		if !ok || back != v {
			t.Fatalf("%d round-trips to %d, %v", v, back, ok)
		}
	}
	// A large element is not a small integer.
	big := FromInt64[bn254fr.Element](1 << 62)
	big.Square(&big)
	if _, ok := ToInt64[bn254fr.Element](&big); ok {
		t.Fatal("2^124 read as an int64")
	}
	u, seven := FromUint64[bls12377fr.Element](7), FromInt64[bls12377fr.Element](7)
	if !u.Equal(&seven) {
		t.Fatal("FromUint64")
	}
	if one := One[bn254fr.Element](); !one.IsOne() {
		t.Fatal("One")
	}
}

func TestDescriptors(t *testing.T) {
	if Curve[bn254fr.Element]() != ecc.BN254 || Curve[bls12377fr.Element]() != ecc.BLS12_377 {
		t.Fatal("Curve")
	}
	if Name[bn254fr.Element]() != "bn254" || Name[bls12377fr.Element]() != "bls12-377" {
		t.Fatal("Name")
	}
	if Bits[bn254fr.Element]() != 254 || Bits[bls12377fr.Element]() != 253 {
		t.Fatalf("Bits: %d, %d", Bits[bn254fr.Element](), Bits[bls12377fr.Element]())
	}
	a := RandomVector[bn254fr.Element](rand.New(rand.NewPCG(1, 1)), 4)
	b := RandomVector[bn254fr.Element](rand.New(rand.NewPCG(1, 1)), 4)
	for i := range a {
		if !a[i].Equal(&b[i]) {
			t.Fatal("Random is not deterministic for a seeded source")
		}
	}
}

func TestBigInt(t *testing.T) {
	testBigInt[bn254fr.Element](t)
	testBigInt[bls12377fr.Element](t)
}

func testBigInt[E Scalar, P Ptr[E]](t *testing.T) {
	for _, v := range []int64{0, 1, 12345, -1} {
		x := FromInt64[E, P](v)
		want := big.NewInt(v)
		want.Mod(want, Modulus[E]())
		if got := BigInt(&x); got.Cmp(want) != 0 {
			t.Errorf("%s: BigInt(%d) = %v, want %v", Name[E](), v, got, want)
		}
	}
}
