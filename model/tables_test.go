package model

import (
	"math"
	"slices"
	"testing"
)

func tableAt(t *testing.T, tb *Table, x int64) int64 {
	t.Helper()
	y, ok := tb.Eval(x)
	if !ok {
		t.Fatalf("%s(%d) outside the domain", tb.Name, x)
	}
	return y
}

func checkDomain(t *testing.T, tb *Table, lo, hi int64) {
	t.Helper()
	gotLo, gotHi := tb.Domain()
	if gotLo != lo || gotHi != hi || int64(tb.Len()) != hi-lo+1 {
		t.Fatalf("%s: domain [%d, %d] with %d entries, want [%d, %d]", tb.Name, gotLo, gotHi, tb.Len(), lo, hi)
	}
	if tb.Len() > 1<<tableBits {
		t.Fatalf("%s: %d entries exceed 2^16", tb.Name, tb.Len())
	}
	if _, ok := tb.Eval(lo - 1); ok {
		t.Errorf("%s(%d) accepted below the domain", tb.Name, lo-1)
	}
	if _, ok := tb.Eval(hi + 1); ok {
		t.Errorf("%s(%d) accepted above the domain", tb.Name, hi+1)
	}
	in, out := tb.Entries()
	if len(in) != tb.Len() || len(out) != tb.Len() || in[0] != lo || in[len(in)-1] != hi {
		t.Fatalf("%s: entries do not enumerate the domain", tb.Name)
	}
	for i := range in {
		if y, _ := tb.Eval(in[i]); y != out[i] {
			t.Fatalf("%s: entry %d disagrees with Eval", tb.Name, i)
		}
	}
}

func TestActivationTables(t *testing.T) {
	lo, hi := rangeOf(ActivationBits)
	for _, frac := range []int{-2, 0, 10, 14} {
		for _, tc := range []struct {
			name string
			f    func(float64) float64
		}{{"gelu", GELU}, {"silu", SiLU}} {
			tb := activationTable(tc.name, tc.f, frac)
			checkDomain(t, tb, lo, hi)
			outLo, outHi := tb.OutputRange()
			if outLo < lo || outHi > hi {
				t.Fatalf("%s at %d bits: outputs [%d, %d] leave the activation range", tc.name, frac, outLo, outHi)
			}
			for _, x := range []int64{lo, lo + 1, -1, 0, 1, hi - 1, hi} {
				want := math.Round(tc.f(math.Ldexp(float64(x), -frac)) * math.Ldexp(1, frac))
				if got := tableAt(t, tb, x); got != int64(want) {
					t.Errorf("%s(%d) at %d bits = %d, want %g", tc.name, x, frac, got, want)
				}
			}
			if got := tableAt(t, tb, 0); got != 0 {
				t.Errorf("%s(0) = %d", tc.name, got)
			}
			if frac <= 10 && tableAt(t, tb, hi) != hi {
				t.Errorf("%s(max) = %d, want the identity far right", tc.name, tableAt(t, tb, hi))
			}
		}
	}
	if math.Abs(GELU(1)-0.8411919906) > 1e-9 || math.Abs(SiLU(1)-0.7310585786) > 1e-9 {
		t.Errorf("GELU(1) = %v, SiLU(1) = %v", GELU(1), SiLU(1))
	}
}

func TestExpTables(t *testing.T) {
	e := expTable()
	checkDomain(t, e, 0, 1<<tableBits-1)
	if got := tableAt(t, e, 0); got != 1<<ExpFrac {
		t.Errorf("exp(0) = %d, want 2^%d", got, ExpFrac)
	}
	if got := tableAt(t, e, 1<<ScoreFrac); got != int64(math.Round(math.Exp(-1)*(1<<ExpFrac))) {
		t.Errorf("exp(−1) = %d", got)
	}
	if got := tableAt(t, e, 1<<tableBits-1); got != 0 {
		t.Errorf("exp at the end of the domain = %d, want 0 so the high limb can cut off", got)
	}
	_, out := e.Entries()
	for i := 1; i < len(out); i++ {
		if out[i] > out[i-1] {
			t.Fatalf("exp increases at %d", i)
		}
	}
	h := expHighTable()
	checkDomain(t, h, 0, 1<<(ScoreBits+1-tableBits)-1)
	if tableAt(t, h, 0) != 1 || tableAt(t, h, 1) != 0 || tableAt(t, h, 1<<(ScoreBits+1-tableBits)-1) != 0 {
		t.Error("exp_high is not the indicator of 0")
	}
}

func TestRSqrtTable(t *testing.T) {
	r := rsqrtTable()
	checkDomain(t, r, 1, 1<<tableBits-1)
	if got := tableAt(t, r, 1); got != 1<<RSqrtFrac {
		t.Errorf("rsqrt(1) = %d", got)
	}
	if got := tableAt(t, r, 4); got != 1<<(RSqrtFrac-1) {
		t.Errorf("rsqrt(4) = %d", got)
	}
	if got, want := tableAt(t, r, 1<<tableBits-1), int64(math.Round(math.Ldexp(1, RSqrtFrac)/math.Sqrt(1<<tableBits-1))); got != want {
		t.Errorf("rsqrt(2^16−1) = %d, want %d", got, want)
	}
	if got := tableAt(t, r, rsqrtLow); got != 1<<(RSqrtFrac-7) {
		t.Errorf("rsqrt(2^14) = %d", got)
	}
}

func TestRopeTables(t *testing.T) {
	const hd, positions = 10, 7
	cos, sin := ropeTables(hd, hd/2, positions, 10000)
	checkDomain(t, cos, 0, positions*hd/2-1)
	checkDomain(t, sin, 0, positions*hd/2-1)
	for j := range int64(hd / 2) {
		if tableAt(t, cos, j) != 1<<RopeFrac || tableAt(t, sin, j) != 0 {
			t.Errorf("position 0, pair %d is not the identity", j)
		}
	}
	p, j := int64(positions-1), int64(hd/2-1)
	angle := float64(p) * math.Pow(10000, -2*float64(j)/hd)
	if got := tableAt(t, cos, p*hd/2+j); got != int64(math.Round(math.Cos(angle)*(1<<RopeFrac))) {
		t.Errorf("cos at the last entry = %d", got)
	}
	if got := tableAt(t, sin, p*hd/2+1); got != int64(math.Round(math.Sin(float64(p)*math.Pow(10000, -2.0/hd))*(1<<RopeFrac))) {
		t.Errorf("sin entry = %d", got)
	}
	c := &Config{Family: Llama, Hidden: 2048, Heads: 32, MaxPositions: 4096}
	if got := ropePositions(c); got != 2048 {
		t.Errorf("RoPE positions for head dim 64 = %d, want 2048 (2^16 entries)", got)
	}
}

func TestModelTables(t *testing.T) {
	names := func(m *Model) []string {
		var out []string
		for _, tb := range m.Quant.Tables.All() {
			if tb.Len() > 1<<tableBits {
				t.Errorf("%s has %d entries", tb.Name, tb.Len())
			}
			out = append(out, tb.Name)
		}
		return out
	}
	if got := names(Default()); !slices.Equal(got, []string{"gelu", "exp", "exp_high", "rsqrt"}) {
		t.Errorf("GPT-2 tables %v", got)
	}
	if got := names(newModel(t, smallLlamaConfig(), 1)); !slices.Equal(got, []string{"silu", "exp", "exp_high", "rsqrt", "rope_cos", "rope_sin"}) {
		t.Errorf("Llama tables %v", got)
	}
}
