package model

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// requantizeBig is the rounding rule on big integers.
func requantizeBig(a, m int64, k uint) (y, rem *big.Int) {
	p := new(big.Int).Mul(big.NewInt(a), big.NewInt(m))
	p.Add(p, new(big.Int).Lsh(big.NewInt(1), k-1))
	pow := new(big.Int).Lsh(big.NewInt(1), k)
	y, rem = new(big.Int), new(big.Int)
	y.Div(p, pow) // Euclidean division: floor for a positive divisor
	rem.Mod(p, pow)
	return y, rem
}

func TestRequantizeMatchesBig(t *testing.T) {
	seed := uint64(12345)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	edges := []int64{0, 1, -1, 2, -2, 127, -127, 1 << 31, -(1 << 31), math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 1<<62 - 1, -(1 << 62)}
	mults := []int64{1, 2, 3, 1<<20 - 1, 1 << 31, math.MaxInt64}
	check := func(a, m int64, k uint) {
		y, rem, ok := Requantize(a, m, k)
		wy, wrem := requantizeBig(a, m, k)
		if !wy.IsInt64() {
			if ok {
				t.Fatalf("Requantize(%d, %d, %d) = %d, want overflow", a, m, k, y)
			}
			return
		}
		if !ok || y != wy.Int64() || rem != wrem.Int64() {
			t.Fatalf("Requantize(%d, %d, %d) = %d, %d, %v; want %v, %v", a, m, k, y, rem, ok, wy, wrem)
		}
		if rem < 0 || rem >= int64(1)<<k {
			t.Fatalf("remainder %d outside [0, 2^%d)", rem, k)
		}
	}
	for _, a := range edges {
		for _, m := range mults {
			for _, k := range []uint{1, 2, 15, 31, 32, 33, 61, 62} {
				check(a, m, k)
			}
		}
	}
	for range 20000 {
		a := rng.Int64() >> rng.UintN(63)
		if rng.IntN(2) == 0 {
			a = -a
		}
		m := max(1, rng.Int64()>>rng.UintN(63))
		check(a, m, 1+rng.UintN(MaxShift))
	}
}

func TestRequantizeRounding(t *testing.T) {
	// Half-way cases round up (towards +∞) on both signs: 5/2 → 3, −5/2 → −2.
	for _, tc := range []struct{ a, want int64 }{{5, 3}, {-5, -2}, {3, 2}, {-3, -1}, {4, 2}, {-4, -2}, {1, 1}, {-1, 0}} {
		y, rem, ok := Requantize(tc.a, 1, 1)
		if !ok || y != tc.want || tc.a+1 != 2*y+rem {
			t.Errorf("Requantize(%d, 1, 1) = %d, %d; want %d", tc.a, y, rem, tc.want)
		}
	}
	for _, bad := range []struct {
		m int64
		k uint
	}{{0, 4}, {-1, 4}, {1, 0}, {1, MaxShift + 1}} {
		if _, _, ok := Requantize(7, bad.m, bad.k); ok {
			t.Errorf("Requantize(7, %d, %d) accepted", bad.m, bad.k)
		}
	}
}

func TestChooseMultipliers(t *testing.T) {
	for _, factors := range [][]float64{{0.001}, {1e-9, 3e-9}, {0.5, 0.25, 0.125}, {1234.5}, {1e-15}} {
		m, k, err := chooseMultipliers(factors)
		if err != nil {
			t.Fatal(err)
		}
		if k < 1 || k > MaxShift {
			t.Fatalf("shift %d", k)
		}
		for i, f := range factors {
			if m[i] < 1 || m[i] >= 1<<MultiplierBits && k > 1 {
				t.Fatalf("factors %v: multiplier %d", factors, m[i])
			}
			got := math.Ldexp(float64(m[i]), -int(k))
			if math.Abs(got-f) > math.Ldexp(1, -int(k)) {
				t.Fatalf("factor %g approximated by %g", f, got)
			}
			if k < MaxShift && math.Abs(got-f)/f > 2e-6*math.Max(1, maxAbs(factors)/f) {
				t.Fatalf("factor %g approximated by %g", f, got)
			}
		}
	}
	for _, bad := range [][]float64{{0}, {-1}, {math.Inf(1)}, {math.NaN()}, {1e30}, {1e-16}} {
		if _, _, err := chooseMultipliers(bad); err == nil {
			t.Errorf("factors %v accepted", bad)
		}
	}
}

func TestQuantizeWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows, cols = 5, 33
	w := make([]float64, rows*cols)
	for i := range w {
		w[i] = rng.NormFloat64() * float64(1+i/cols)
	}
	for i := range cols {
		w[3*cols+i] = 0 // an all-zero row
	}
	for _, perRow := range []bool{false, true} {
		q, scales := quantizeWeights("w", w, rows, cols, perRow)
		for j := range rows {
			hit := false
			for i := range cols {
				v := q.Data[j*cols+i]
				if v < -WeightMax || v > WeightMax {
					t.Fatalf("weight %d", v)
				}
				hit = hit || v == WeightMax || v == -WeightMax
				if err := math.Abs(float64(v)*scales[j] - w[j*cols+i]); err > scales[j]/2+1e-12 {
					t.Fatalf("perRow %v: error %g above half a step %g", perRow, err, scales[j]/2)
				}
			}
			if perRow && j != 3 && !hit {
				t.Errorf("row %d does not use the full int8 range", j)
			}
			if !perRow && scales[j] != scales[0] {
				t.Errorf("per-tensor scales differ")
			}
		}
	}
}

func TestFracFor(t *testing.T) {
	for _, tc := range []struct {
		m, margin  float64
		bits, want int
	}{
		{1, 1, 15, 14}, {1, 4, 15, 12}, {3000, 2, 20, 7}, {0, 4, 15, 8}, {1e-12, 1, 15, 24}, {1e12, 1, 15, -8},
	} {
		if got := fracFor(tc.m, tc.margin, tc.bits); got != tc.want {
			t.Errorf("fracFor(%g, %g, %d) = %d, want %d", tc.m, tc.margin, tc.bits, got, tc.want)
		}
	}
}

func TestNormExponent(t *testing.T) {
	for _, v := range []int64{1, 2, 1<<16 - 1, 1 << 16, 1<<18 - 1, 1 << 18, 1 << 40, 1<<62 - 1} {
		e := normExponentFor(v)
		if v >= int64(1)<<(tableBits+2*e) || (e > 0 && v < int64(1)<<(tableBits+2*e-2)) {
			t.Errorf("exponent %d for %d", e, v)
		}
		small := v >> (2 * e)
		if small < 1 || small >= 1<<tableBits || (e > 0 && small < rsqrtLow) {
			t.Errorf("normalised input %d for %d", small, v)
		}
	}
}
