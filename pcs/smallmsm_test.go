package pcs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
)

// testPoints returns n distinct points of G1 (multiples of the
// generator).
func testPoints(n int) []bls12377.G1Affine {
	_, _, g, _ := bls12377.Generators()
	jac := make([]bls12377.G1Jac, n)
	var acc bls12377.G1Jac
	acc.FromAffine(&g)
	for i := range jac {
		jac[i] = acc
		acc.AddMixed(&g)
	}
	return bls12377.BatchJacobianToAffineG1(jac)
}

// TestMultiExpSmall compares multiExpSmall with gnark-crypto's MultiExp:
// widths from 1 to 64 bits, sizes around the workers' split, and points
// repeated and negated so that buckets meet their own point (doubling)
// and its negation (the point at infinity), and skewed values whose
// bucket is already in the batch (its extra slots).
func TestMultiExpSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := testPoints(1 << 12)
	cases := []struct {
		name   string
		n      int
		bits   int
		points func(i int) bls12377.G1Affine
	}{
		{"one", 1, 15, nil},
		{"few", 7, 3, nil},
		{"bits1", 3000, 1, nil},
		{"bits15", 4096, 15, nil},
		{"bits16", 2500, 16, nil},
		{"bits31", 3001, 31, nil},
		{"bits64", 2049, 64, nil},
		{"zeros", 100, 0, nil},
		{"skewed", 6000, 15, nil},
		{"two-digits", 1 << 14, 15, nil},
		{"near-zero", 1 << 14, 12, nil},
		{"repeated", 5000, 2, func(i int) bls12377.G1Affine { return base[i%3] }},
		{"negated", 5000, 1, func(i int) bls12377.G1Affine {
			p := base[i%2]
			if i%4 >= 2 {
				p.Neg(&p)
			}
			return p
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			points := make([]bls12377.G1Affine, tc.n)
			values := make([]uint64, tc.n)
			scalars := make([]fr.Element, tc.n)
			for i := range points {
				if tc.points != nil {
					points[i] = tc.points(i)
				} else {
					points[i] = base[i%len(base)]
				}
				switch {
				case tc.name == "skewed" && i%5 != 0:
					// Most values in one bucket: additions take extra slots.
					values[i] = 12345
				case tc.name == "two-digits":
					// A top limb: chains in two buckets, reused batch
					// after batch.
					values[i] = topLimb(rng)
				case tc.name == "near-zero":
					values[i] = nearZero(rng)
				case tc.bits == 0:
				case tc.bits == 64:
					values[i] = rng.Uint64()
				default:
					values[i] = rng.Uint64N(1 << tc.bits)
				}
				scalars[i].SetUint64(values[i])
			}
			var want bls12377.G1Affine
			if _, err := want.MultiExp(points, scalars, ecc.MultiExpConfig{}); err != nil {
				t.Fatal(err)
			}
			got := multiExpSmall(points, values, 0)
			var gotAff bls12377.G1Affine
			gotAff.FromJacobian(&got)
			if !gotAff.Equal(&want) {
				t.Fatalf("%d values of %d bits: the sums differ", tc.n, tc.bits)
			}
		})
	}
}

func BenchmarkMultiExpSmall(b *testing.B) {
	points := testPoints(1 << 18)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, nbBits := range []int{15, 31} {
		values := make([]uint64, len(points))
		scalars := make([]fr.Element, len(points))
		for i := range values {
			values[i] = rng.Uint64N(1 << nbBits)
			scalars[i].SetUint64(values[i])
		}
		for _, n := range []int{12, 16, 18} {
			b.Run(fmt.Sprintf("bits=%d/n=%d/small", nbBits, n), func(b *testing.B) {
				for b.Loop() {
					multiExpSmall(points[:1<<n], values[:1<<n], 0)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(int(1)<<n), "ns/point")
			})
			b.Run(fmt.Sprintf("bits=%d/n=%d/gnark", nbBits, n), func(b *testing.B) {
				for b.Loop() {
					var r bls12377.G1Affine
					if _, err := r.MultiExp(points[:1<<n], scalars[:1<<n], ecc.MultiExpConfig{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(int(1)<<n), "ns/point")
			})
		}
	}
}

// topLimb draws a top limb of v − Min for v near zero: one of two digits.
func topLimb(rng *rand.Rand) uint64 { return 1<<14 - rng.Uint64N(2) }

// nearZero draws an activation's magnitude near zero: |v| of a normal law
// (σ = 300), plus one.
func nearZero(rng *rand.Rand) uint64 { return uint64(math.Abs(rng.NormFloat64()*300)) + 1 }

// BenchmarkMultiExpSmallSkewed measures multiExpSmall on 2²⁰ values
// distributed as the committed tables are: uniform limbs, top limbs that
// take two values (the limbs of v − Min for the many v near zero), and
// activations near zero (|v| of a normal law, σ = 300).
func BenchmarkMultiExpSmallSkewed(b *testing.B) {
	points := testPoints(1 << 20)
	rng := rand.New(rand.NewPCG(7, 8))
	laws := []struct {
		name  string
		value func() uint64
	}{
		{"uniform", func() uint64 { return rng.Uint64N(1 << 16) }},
		{"top-limb", func() uint64 { return topLimb(rng) }},
		{"near-zero", func() uint64 { return nearZero(rng) }},
	}
	for _, law := range laws {
		values := make([]uint64, len(points))
		for i := range values {
			values[i] = law.value()
		}
		b.Run(law.name, func(b *testing.B) {
			for b.Loop() {
				multiExpSmall(points, values, 0)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(points)), "ns/point")
		})
	}
}
