//go:build unix

package sumcheck

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

var large = flag.Bool("sumcheck.large", false, "also benchmark tables of 2²⁰ and 2²² elements")

// BenchmarkProve measures the prover on ∏_{j<d} f_j over 2ⁿ elements, per
// field, degree, size and number of cores. It reports ns/element (mean)
// and min-ns/element (fastest proof); ns/mul, the time per element of the
// fastest vector field multiplication over a table of the same size (one
// core), measured before each proof of the same run; mul-ratio, the
// fastest proof over the fastest multiplication; and the CPU-time figures
// cpu-ns/element and cpu-mul-ratio, which a loaded machine disturbs less
// (with 2 cores, CPU time counts the work of both).
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
	product := make([]E, size)

	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cores))
	// The baseline, one vector multiplication over the table, runs before
	// each proof with the timer stopped, so both see the same machine load.
	// The wall-time ratio compares the fastest proof with the fastest
	// multiplication pass; CPU times (all threads of the process) are less
	// sensitive than wall times to other processes sharing the cores.
	var mulCPU, proveCPU time.Duration
	mulWall, proveWall := time.Duration(1<<62), time.Duration(1<<62)
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		wall, cpu := time.Now(), cpuTime()
		field.Mul(product, tables[0], tables[1])
		mulWall = min(mulWall, time.Since(wall))
		mulCPU += cpuTime() - cpu
		b.StartTimer()
		wall, cpu = time.Now(), cpuTime()
		if _, _, err := Prove(transcript.New[E, P]("bench"), tables, terms, sum); err != nil {
			b.Fatal(err)
		}
		proveWall = min(proveWall, time.Since(wall))
		proveCPU += cpuTime() - cpu
	}
	perElement := func(d time.Duration, n int) float64 { return float64(d.Nanoseconds()) / float64(n) / float64(size) }
	b.ReportMetric(perElement(b.Elapsed(), b.N), "ns/element")
	b.ReportMetric(perElement(proveWall, 1), "min-ns/element")
	b.ReportMetric(perElement(mulWall, 1), "ns/mul")
	b.ReportMetric(float64(proveWall)/float64(mulWall), "mul-ratio")
	b.ReportMetric(perElement(proveCPU, b.N), "cpu-ns/element")
	b.ReportMetric(float64(proveCPU)/float64(mulCPU), "cpu-mul-ratio")
}

// cpuTime returns the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
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

// BenchmarkProveEq compares ProveEq with Prove on the same summand, a
// LogUp GKR layer β·(pₑ·qₒ + pₒ·qₑ + λ·qₑ·qₒ) over 2ⁿ elements (BLS12-377),
// both cores, in the same run: eq-ratio is ProveEq's fastest proof over
// Prove's (Prove's time includes building β's table, as its callers do).
func BenchmarkProveEq(b *testing.B) {
	type E = bls12377fr.Element
	sizes := []int{16, 18}
	if *large {
		sizes = append(sizes, 20, 22)
	}
	for _, nbVars := range sizes {
		b.Run(fmt.Sprintf("gkr/n=%d", nbVars), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			tables := make([][]E, 4)
			for j := range tables {
				tables[j] = field.RandomVector[E](rng, 1<<nbVars)
			}
			point := field.RandomVector[E](rng, nbVars)
			terms := []Term[E]{
				{Coefficient: field.One[E](), Factors: []int{0, 3}},
				{Coefficient: field.One[E](), Factors: []int{1, 2}},
				{Coefficient: field.Random[E](rng), Factors: []int{2, 3}},
			}
			augmented := make([]Term[E], len(terms))
			for k, term := range terms {
				augmented[k] = Term[E]{Coefficient: term.Coefficient, Factors: []int{0, term.Factors[0] + 1, term.Factors[1] + 1}}
			}
			var sum E // the rounds do not depend on the claim being true
			generic, eq := time.Duration(1<<62), time.Duration(1<<62)
			for b.Loop() {
				start := time.Now()
				all := append([][]E{poly.EqTable[E](point)}, tables...)
				if _, _, err := Prove(transcript.New[E]("bench"), all, augmented, sum); err != nil {
					b.Fatal(err)
				}
				generic = min(generic, time.Since(start))
				start = time.Now()
				if _, _, err := ProveEq(transcript.New[E]("bench"), point, tables, terms, sum); err != nil {
					b.Fatal(err)
				}
				eq = min(eq, time.Since(start))
			}
			b.ReportMetric(float64(generic.Microseconds())/1e3, "prove-ms")
			b.ReportMetric(float64(eq.Microseconds())/1e3, "prove-eq-ms")
			b.ReportMetric(float64(eq)/float64(generic), "eq-ratio")
		})
	}
}
