package pcs

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
)

// Benchmarks: go test -run '^$' -bench . -benchtime 1x ./pcs
//
// They use a development SRS of 2²⁰ powers cached in the user cache
// directory (made once, in about 8 s on 2 cores).

const benchMaxVars = 20

var (
	benchSRSOnce sync.Once
	benchSRS     *SRS
	benchSRSErr  error
)

func srsForBench(b *testing.B) *SRS {
	benchSRSOnce.Do(func() {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		benchSRS, benchSRSErr = LoadOrCreateDevelopment(filepath.Join(dir, "veriformer", "pcs-bench"), 1<<benchMaxVars, nil)
	})
	if benchSRSErr != nil {
		b.Fatal(benchSRSErr)
	}
	return benchSRS
}

// benchTable returns 2ⁿ values: "16bit" unsigned 16-bit integers,
// "signed16" signed 16-bit integers (negative ones are p − |v|, full-size
// scalars), "full" uniform field elements, "prefix" uniform field
// elements in the first 52% and zeros after them (the share of a GPT-2
// block's batched polynomial at 16 rows: 541,533 of 2²⁰).
func benchTable(rng *rand.Rand, n int, kind string) []fr.Element {
	t := make([]fr.Element, 1<<n)
	if kind == "prefix" {
		copy(t, benchTable(rng, n, "full")[:len(t)*52/100])
		return t
	}
	for i := range t {
		switch kind {
		case "16bit":
			t[i].SetUint64(rng.Uint64N(1 << 16))
		case "signed16":
			t[i].SetInt64(rng.Int64N(1<<16) - 1<<15)
		default:
			t[i] = field.Random[fr.Element](rng)
		}
	}
	return t
}

var benchKinds = []string{"16bit", "signed16", "full"}

func BenchmarkCommit(b *testing.B) {
	srs := srsForBench(b)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{16, 18, 20} {
		for _, kind := range benchKinds {
			table := benchTable(rng, n, kind)
			b.Run(fmt.Sprintf("n=%d/%s", n, kind), func(b *testing.B) {
				for b.Loop() {
					if _, err := Commit(srs, table); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(table)), "ns/element")
			})
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	srs := srsForBench(b)
	rng := rand.New(rand.NewPCG(2, 2))
	for _, n := range []int{16, 18, 20} {
		for _, kind := range []string{"16bit", "full", "prefix"} {
			table := benchTable(rng, n, kind)
			point := field.RandomVector[fr.Element](rng, n)
			b.Run(fmt.Sprintf("n=%d/%s", n, kind), func(b *testing.B) {
				value := poly.Evaluate[fr.Element](table, point)
				var proof *Proof
				for b.Loop() {
					var err error
					if proof, err = open(newTranscript(nil, nil), srs, table, point, value); err != nil {
						b.Fatal(err)
					}
				}
				data, _ := proof.MarshalBinary()
				b.ReportMetric(float64(len(data)), "proof-bytes")
			})
		}
	}
}

// benchGroup is a grouped opening of two committed MLEs of n and n−2
// variables with two claims each.
type benchGroup struct {
	commitments []Commitment
	claims      []Claim
	proof       *GroupProof
	bytes       int
}

func newBenchGroup(b *testing.B, n int) *benchGroup {
	srs := srsForBench(b)
	rng := rand.New(rand.NewPCG(3, uint64(n)))
	tables := [][]fr.Element{benchTable(rng, n, "16bit"), benchTable(rng, n-2, "16bit")}
	bb := &benchGroup{}
	for j, table := range tables {
		c, err := Commit(srs, table)
		if err != nil {
			b.Fatal(err)
		}
		bb.commitments = append(bb.commitments, c)
		for range 2 {
			point := field.RandomVector[fr.Element](rng, n-2*j)
			bb.claims = append(bb.claims, Claim{Commitment: j, Point: point, Value: poly.Evaluate[fr.Element](table, point)})
		}
	}
	proof, err := OpenGroupParts(newTranscript(bb.commitments, bb.claims), srs, tables, bb.claims, MaxNbVars)
	if err != nil {
		b.Fatal(err)
	}
	bb.proof = proof
	data, _ := proof.MarshalBinary()
	bb.bytes = len(data)
	return bb
}

func BenchmarkOpenGroup(b *testing.B) {
	for _, n := range []int{16, 18, 20} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var bb *benchGroup
			for b.Loop() {
				bb = newBenchGroup(b, n)
			}
			b.ReportMetric(float64(bb.bytes), "proof-bytes")
		})
	}
}

func BenchmarkVerify(b *testing.B) {
	srs := srsForBench(b)
	for _, n := range []int{16, 20} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			bb := newBenchGroup(b, n)
			b.Run("field", func(b *testing.B) {
				for b.Loop() {
					if _, err := VerifyGroupFieldParts(newTranscript(bb.commitments, bb.claims), len(bb.commitments), bb.claims, bb.proof, MaxNbVars); err != nil {
						b.Fatal(err)
					}
				}
			})
			check, err := VerifyGroupFieldParts(newTranscript(bb.commitments, bb.claims), len(bb.commitments), bb.claims, bb.proof, MaxNbVars)
			if err != nil {
				b.Fatal(err)
			}
			b.Run("group", func(b *testing.B) {
				for b.Loop() {
					if err := VerifyGroup(srs.VerifyingKey(), bb.commitments, &bb.proof.Opening, check); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkOpenGroupParts opens one claim on a stacked MLE of 2²⁰
// entries, the first 52% of them 16-bit values and zeros after them (a
// GPT-2 block's stacked tensors at 16 rows), committed whole (m = 20) or
// in parts of 2^m entries: the sum-check is the same, the opening runs
// over m variables.
func BenchmarkOpenGroupParts(b *testing.B) {
	srs := srsForBench(b)
	rng := rand.New(rand.NewPCG(4, 4))
	const n = benchMaxVars
	table := benchTable(rng, n, "16bit")
	clear(table[len(table)*52/100:])
	point := field.RandomVector[fr.Element](rng, n)
	claims := []Claim{{Point: point, Value: poly.Evaluate[fr.Element](table, point)}}
	for _, m := range []int{20, 18, 17, 16} {
		parts, err := CommitParts(srs, table, m)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			var proof *GroupProof
			for b.Loop() {
				if proof, err = OpenGroupParts(newTranscript(parts, claims), srs, [][]fr.Element{table}, claims, m); err != nil {
					b.Fatal(err)
				}
			}
			if err := verifyGroupParts(newTranscript(parts, claims), srs.VerifyingKey(), [][]Commitment{parts}, claims, proof, m); err != nil {
				b.Fatal(err)
			}
			data, _ := proof.MarshalBinary()
			b.ReportMetric(float64(len(data)), "proof-bytes")
			b.ReportMetric(float64(len(parts)), "parts")
		})
	}
}

// BenchmarkOpenGroupSparse opens the commitments of a GPT-2 block's
// segment at 16 rows in shape: a stacked MLE of 2^20 entries, its first
// 52% 16-bit values, and eight limb rows of 15-bit values, each non-zero
// over one span (52, 45, 10, 2, 30, 25, 5 and 0% of the table), with ten
// claims on the stacked MLE and two on each limb row (one of them on a
// block), in parts of 2^18 entries; "untracked" proves the same claims
// without skipping the zero granules (the same proof). Measured: the
// grouping sum-check 0.45–0.48 s untracked, 0.35–0.38 s tracked, in an
// opening of about 2.8 s (HyperKZG over 2^18 entries 1.9 s).
func BenchmarkOpenGroupSparse(b *testing.B) {
	srs := srsForBench(b)
	rng := rand.New(rand.NewPCG(8, 8))
	const n, m = benchMaxVars, 18
	size := 1 << n
	stacked := benchTable(rng, n, "16bit")
	clear(stacked[size*52/100:])
	tables := [][]fr.Element{stacked}
	for j, density := range []int{52, 45, 10, 2, 30, 25, 5, 0} {
		row := make([]fr.Element, size)
		start := (j * size / 16) &^ (granule - 1)
		end := min(size, start+size*density/100)
		for i := start; i < end; i++ {
			row[i].SetUint64(rng.Uint64N(1 << 15))
		}
		tables = append(tables, row)
	}
	var claims []Claim
	var commitments []Commitment
	for j, table := range tables {
		parts, err := CommitParts(srs, table, m)
		if err != nil {
			b.Fatal(err)
		}
		commitments = append(commitments, parts...)
		count := 2
		if j == 0 {
			count = 10
		}
		for k := range count {
			point := field.RandomVector[fr.Element](rng, n)
			if k == 1 {
				point[0].SetZero()
				point[1].SetOne()
			}
			claims = append(claims, Claim{Commitment: j, Point: point, Value: poly.Evaluate[fr.Element](table, point)})
		}
	}
	// One opening first, so that neither run pays for the first touch of
	// the prover's fresh tables.
	if _, err := OpenGroupParts(newTranscript(commitments, claims), srs, tables, claims, m); err != nil {
		b.Fatal(err)
	}
	for _, tracked := range []bool{false, true} {
		name := "tracked"
		if !tracked {
			name = "untracked"
		}
		b.Run(name, func(b *testing.B) {
			trackZeros = tracked
			defer func() { trackZeros = true }()
			for b.Loop() {
				if _, err := OpenGroupParts(newTranscript(commitments, claims), srs, tables, claims, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
