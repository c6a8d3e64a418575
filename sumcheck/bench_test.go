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
	"github.com/veriformer/veriformer/transcript"
)

var large = flag.Bool("sumcheck.large", false, "also benchmark tables of 2²⁰ and 2²² elements")

// BenchmarkProve measures the prover on ∏_{j<d} f_j over 2ⁿ elements, per
// field, degree, size and number of cores. It reports ns/element and
// mul-ratio: ns/element divided by ns/mul, the time per element of one
// vector field multiplication over a table of the same size (one core),
// measured before each proof of the same run; and the same two figures in
// CPU time (cpu-ns/element, cpu-mul-ratio), which a loaded machine
// disturbs less (with 2 cores, CPU time counts the work of both).
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
	// CPU times (all threads of the process) are less sensitive than wall
	// times to other processes sharing the cores.
	var mulWall, mulCPU, proveCPU time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		wall, cpu := time.Now(), cpuTime()
		field.Mul(product, tables[0], tables[1])
		mulWall += time.Since(wall)
		mulCPU += cpuTime() - cpu
		b.StartTimer()
		cpu = cpuTime()
		if _, _, err := Prove(transcript.New[E, P]("bench"), tables, terms, sum); err != nil {
			b.Fatal(err)
		}
		proveCPU += cpuTime() - cpu
	}
	perOp := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) / float64(size) }
	b.ReportMetric(perOp(b.Elapsed()), "ns/element")
	b.ReportMetric(perOp(mulWall), "ns/mul")
	b.ReportMetric(perOp(b.Elapsed())/perOp(mulWall), "mul-ratio")
	b.ReportMetric(perOp(proveCPU), "cpu-ns/element")
	b.ReportMetric(perOp(proveCPU)/perOp(mulCPU), "cpu-mul-ratio")
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
