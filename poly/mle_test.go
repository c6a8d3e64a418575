package poly

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
)

// bruteEval evaluates Σₓ f(x)·β(point, x) one term at a time, independently
// of the folding code.
func bruteEval[E field.Scalar, P field.Ptr[E]](f, point []E) E {
	n := len(point)
	var sum E
	for i := range f {
		x := make([]E, n)
		for k := range n {
			if i>>(n-1-k)&1 == 1 {
				P(&x[k]).SetOne()
			}
		}
		e := Eq[E, P](point, x)
		P(&e).Mul(&e, &f[i])
		P(&sum).Add(&sum, &e)
	}
	return sum
}

func testEvaluate[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for n := 0; n <= 7; n++ {
		f := field.RandomVector[E, P](rng, 1<<n)
		point := field.RandomVector[E, P](rng, n)
		got := Evaluate[E, P](f, point)
		want := bruteEval[E, P](f, point)
		if !P(&got).Equal(&want) {
			t.Fatalf("n=%d: Evaluate differs from brute force", n)
		}
		// Evaluating at a Boolean point returns the table entry, with X₁
		// the most significant bit.
		if n > 0 {
			idx := rng.IntN(1 << n)
			b := make([]E, n)
			for k := range n {
				if idx>>(n-1-k)&1 == 1 {
					P(&b[k]).SetOne()
				}
			}
			v := Evaluate[E, P](f, b)
			if !P(&v).Equal(&f[idx]) {
				t.Fatalf("n=%d: Evaluate at bits(%d) is not the table entry", n, idx)
			}
		}
	}
}

func testEqTable[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{0, 1, 3, 6, 14} {
		point := field.RandomVector[E, P](rng, n)
		table := EqTable[E, P](point)
		for _, idx := range []int{0, len(table) - 1, rng.IntN(len(table))} {
			x := make([]E, n)
			for k := range n {
				if idx>>(n-1-k)&1 == 1 {
					P(&x[k]).SetOne()
				}
			}
			want := Eq[E, P](point, x)
			if !P(&table[idx]).Equal(&want) {
				t.Fatalf("n=%d: EqTable[%d] differs from Eq", n, idx)
			}
		}
		// Σₓ β(r, x) = 1 and Σₓ β(r, x)·f(x) = f(r).
		s := field.Sum(table)
		if !P(&s).IsOne() {
			t.Fatalf("n=%d: eq table does not sum to 1", n)
		}
		f := field.RandomVector[E, P](rng, 1<<n)
		ip := field.InnerProduct(table, f)
		ev := Evaluate[E, P](f, point)
		if !P(&ip).Equal(&ev) {
			t.Fatalf("n=%d: <eq, f> differs from f(r)", n)
		}
	}
}

func testFold[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	n := 15 // large enough to take the parallel path
	f := field.RandomVector[E, P](rng, 1<<n)
	point := field.RandomVector[E, P](rng, n)
	want := Evaluate[E, P](f, point)
	g := append([]E(nil), f...)
	for k := range point {
		g = Fold[E, P](g, &point[k])
	}
	if len(g) != 1 || !P(&g[0]).Equal(&want) {
		t.Fatal("folding all variables does not give the evaluation")
	}
}

func TestEvaluate(t *testing.T) {
	t.Run("bn254", testEvaluate[bn254fr.Element])
	t.Run("bls12-377", testEvaluate[bls12377fr.Element])
}

func TestEqTable(t *testing.T) {
	t.Run("bn254", testEqTable[bn254fr.Element])
	t.Run("bls12-377", testEqTable[bls12377fr.Element])
}

func TestFold(t *testing.T) {
	t.Run("bn254", testFold[bn254fr.Element])
	t.Run("bls12-377", testFold[bls12377fr.Element])
}

// PadMatrix lays out a rows×cols row-major matrix in a 2^a × 2^b table
// (a = ⌈log₂ rows⌉, b = ⌈log₂ cols⌉) with zeros in the padding, so entry
// (i, j) sits at index i·2^b + j: the layout of PadTensor for a matrix,
// written out as the tests' reference.
func PadMatrix[E field.Scalar](values []E, rows, cols int) []E {
	if len(values) != rows*cols {
		panic(fmt.Sprintf("poly: PadMatrix: %d values for a %d×%d matrix", len(values), rows, cols))
	}
	pc := NextPowerOfTwo(cols)
	out := make([]E, NextPowerOfTwo(rows)*pc)
	for i := range rows {
		copy(out[i*pc:i*pc+cols], values[i*cols:(i+1)*cols])
	}
	return out
}

func TestPadMatrix(t *testing.T) {
	vals := []bn254fr.Element{}
	for i := range 6 {
		vals = append(vals, field.FromInt64[bn254fr.Element](int64(i+1)))
	}
	m := PadMatrix(vals, 2, 3) // 2×3 → 2×4
	want := []int64{1, 2, 3, 0, 4, 5, 6, 0}
	for i, w := range want {
		e := field.FromInt64[bn254fr.Element](w)
		if !m[i].Equal(&e) {
			t.Fatalf("entry %d = %s, want %d", i, m[i].String(), w)
		}
	}
	if _, err := NbVars(12); err == nil {
		t.Fatal("NbVars(12) accepted a non-power of two")
	}
	if n, err := NbVars(16); err != nil || n != 4 {
		t.Fatalf("NbVars(16) = %d, %v", n, err)
	}
	if Log2Ceil(5) != 3 || Log2Ceil(1) != 0 || NextPowerOfTwo(768) != 1024 {
		t.Fatal("Log2Ceil / NextPowerOfTwo")
	}
}

func benchEqTable[E field.Scalar, P field.Ptr[E]](b *testing.B, n int) {
	rng := rand.New(rand.NewPCG(1, 2))
	point := field.RandomVector[E, P](rng, n)
	b.ResetTimer()
	for b.Loop() {
		EqTable[E, P](point)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(int(1)<<n), "ns/element")
}

func benchEvaluate[E field.Scalar, P field.Ptr[E]](b *testing.B, n int) {
	rng := rand.New(rand.NewPCG(1, 2))
	f := field.RandomVector[E, P](rng, 1<<n)
	point := field.RandomVector[E, P](rng, n)
	b.ResetTimer()
	for b.Loop() {
		Evaluate[E, P](f, point)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(int(1)<<n), "ns/element")
}

func BenchmarkEqTable(b *testing.B) {
	for _, n := range []int{16, 20} {
		b.Run("bn254/n="+strconv.Itoa(n), func(b *testing.B) { benchEqTable[bn254fr.Element](b, n) })
		b.Run("bls12-377/n="+strconv.Itoa(n), func(b *testing.B) { benchEqTable[bls12377fr.Element](b, n) })
	}
}

func BenchmarkEvaluate(b *testing.B) {
	for _, n := range []int{16, 20} {
		b.Run("bn254/n="+strconv.Itoa(n), func(b *testing.B) { benchEvaluate[bn254fr.Element](b, n) })
		b.Run("bls12-377/n="+strconv.Itoa(n), func(b *testing.B) { benchEvaluate[bls12377fr.Element](b, n) })
	}
}
