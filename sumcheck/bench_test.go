package sumcheck

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/transcript"
)

var large = flag.Bool("sumcheck.large", false, "also benchmark tables of 2²⁰ and 2²² elements")

// BenchmarkProve measures the prover on ∏_{j<d} f_j over 2ⁿ elements, per
// field, degree, size and number of cores. It reports ns/element and
// mul-ratio: ns/element divided by the time of one field multiplication
// per element (the vector kernel over a table of the same size, on one
// core), measured in the same run.
func BenchmarkProve(b *testing.B) {
	b.Run("bn254", benchmarkProve[bn254fr.Element])
	b.Run("bls12-377", benchmarkProve[bls12377fr.Element])
}

func benchmarkProve[E field.Scalar, P field.Ptr[E]](b *testing.B) {
	sizes := []int{16, 18}
	if *large {
		sizes = append(sizes, 20, 22)
	}
	for _, degree := range []int{2, 3} {
		for _, nbVars := range sizes {
			for _, cores := range []int{1, 2} {
				name := fmt.Sprintf("degree=%d/n=%d/cores=%d", degree, nbVars, cores)
				b.Run(name, func(b *testing.B) {
					benchmarkProveOne[E, P](b, degree, nbVars, cores)
				})
			}
		}
	}
}

func benchmarkProveOne[E field.Scalar, P field.Ptr[E]](b *testing.B, degree, nbVars, cores int) {
	rng := rand.New(rand.NewPCG(1, 2))
	size := 1 << nbVars
	tables := make([][]E, degree)
	factors := make([]int, degree)
	for j := range tables {
		tables[j] = field.RandomVector[E, P](rng, size)
		factors[j] = j
	}
	terms := []Term[E]{{Coefficient: field.One[E, P](), Factors: factors}}
	sum := bruteSumProduct[E, P](tables)
	mul := mulBaseline(tables[0], tables[1])

	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cores))
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := Prove(transcript.New[E, P]("bench"), tables, terms, sum); err != nil {
			b.Fatal(err)
		}
	}
	perElement := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(size)
	b.ReportMetric(perElement, "ns/element")
	b.ReportMetric(mul, "ns/mul")
	b.ReportMetric(perElement/mul, "mul-ratio")
}

// mulBaseline returns the time per element of field.Mul over a and b on
// one core, best of a few passes.
func mulBaseline[E field.Scalar](a, b []E) float64 {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	res := make([]E, len(a))
	best := time.Duration(1 << 62)
	for range 5 {
		start := time.Now()
		field.Mul(res, a, b)
		best = min(best, time.Since(start))
	}
	return float64(best.Nanoseconds()) / float64(len(a))
}

// bruteSumProduct returns Σ_x ∏ⱼ f_j(x) with vector kernels.
func bruteSumProduct[E field.Scalar, P field.Ptr[E]](tables [][]E) E {
	if len(tables) == 2 {
		return field.InnerProduct(tables[0], tables[1])
	}
	prod := make([]E, len(tables[0]))
	field.Mul(prod, tables[0], tables[1])
	for _, table := range tables[2 : len(tables)-1] {
		field.Mul(prod, prod, table)
	}
	return field.InnerProduct(prod, tables[len(tables)-1])
}
