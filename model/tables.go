package model

import (
	"fmt"
	"math"
)

// Fixed-point constants of the tables (see doc.go, "Tables").
const (
	// ScoreFrac is the fractional bits of requantized attention scores:
	// the exp table reads z/2^ScoreFrac.
	ScoreFrac = 12
	// ExpFrac is the fractional bits of exp outputs: E(0) = 2^ExpFrac.
	ExpFrac = 16
	// ProbFrac is the fractional bits of softmax probabilities.
	ProbFrac = 16
	// RSqrtFrac is the fractional bits of the 1/√v table: T(v) = round(2^RSqrtFrac/√v).
	RSqrtFrac = 22
	// RopeFrac is the fractional bits of the RoPE cos and sin tables.
	RopeFrac = 14
	// tableBits bounds every table: at most 2^tableBits entries.
	tableBits = 16
	// rsqrtLow is the lower end of a normalised 1/√ input when the row
	// needed a shift: v ∈ [2^14, 2^16).
	rsqrtLow = 1 << (tableBits - 2)
)

// Table is an exact integer function over the contiguous input domain
// [Lo, Lo+Len()−1]: the lookup argument enumerates Entries, and inference
// only ever reads a value through Eval.
type Table struct {
	Name   string
	Lo     int64
	values []int64
	// outLo and outHi are the smallest and largest output.
	outLo, outHi int64
}

func newTable(name string, lo, hi int64, f func(x int64) int64) *Table {
	t := &Table{Name: name, Lo: lo, values: make([]int64, hi-lo+1)}
	for i := range t.values {
		t.values[i] = f(lo + int64(i))
	}
	t.outLo, t.outHi = t.values[0], t.values[0]
	for _, v := range t.values {
		t.outLo, t.outHi = min(t.outLo, v), max(t.outHi, v)
	}
	return t
}

// Domain returns the inclusive input range.
func (t *Table) Domain() (lo, hi int64) { return t.Lo, t.Lo + int64(len(t.values)) - 1 }

// Len returns the number of entries.
func (t *Table) Len() int { return len(t.values) }

// Eval returns the table's value at x, or ok = false outside the domain.
func (t *Table) Eval(x int64) (y int64, ok bool) {
	i := x - t.Lo
	if i < 0 || i >= int64(len(t.values)) {
		return 0, false
	}
	return t.values[i], true
}

// Entries returns copies of all (input, output) pairs in increasing input
// order.
func (t *Table) Entries() (inputs, outputs []int64) {
	inputs = make([]int64, len(t.values))
	for i := range inputs {
		inputs[i] = t.Lo + int64(i)
	}
	return inputs, append([]int64(nil), t.values...)
}

// OutputRange returns the smallest and largest output.
func (t *Table) OutputRange() (lo, hi int64) { return t.outLo, t.outHi }

// apply evaluates t on every input, failing on the first input outside the
// domain.
func (t *Table) apply(name string, in []int64) ([]int64, error) {
	out := make([]int64, len(in))
	lo := t.Lo
	n := int64(len(t.values))
	for i, x := range in {
		j := x - lo
		if j < 0 || j >= n {
			hi := lo + n - 1
			return nil, fmt.Errorf("model: %s: %w", t.Name, &BoundError{Tensor: name, Index: i, Value: x, Min: lo, Max: hi})
		}
		out[i] = t.values[j]
	}
	return out, nil
}

// GELU is the tanh form used by GPT-2 ("gelu_new"):
// ½x(1 + tanh(√(2/π)(x + 0.044715x³))).
func GELU(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

// SiLU is x·σ(x).
func SiLU(x float64) float64 { return x / (1 + math.Exp(-x)) }

// activationTable returns x ↦ round(f(x/2^frac)·2^frac) on the activation
// domain [−2^15, 2^15−1]. Input and output share the format, so
// |output| ≤ |input| for GELU and SiLU and outputs stay in the activation
// range.
func activationTable(name string, f func(float64) float64, frac int) *Table {
	lo, hi := rangeOf(ActivationBits)
	return newTable(name, lo, hi, func(x int64) int64 {
		return int64(math.Round(f(math.Ldexp(float64(x), -frac)) * math.Ldexp(1, frac)))
	})
}

// expTable returns z ↦ round(2^ExpFrac·exp(−z/2^ScoreFrac)) on [0, 2^16): the
// low limb of a max-shifted score.
func expTable() *Table {
	return newTable("exp", 0, 1<<tableBits-1, func(z int64) int64 {
		return int64(math.Round(math.Ldexp(math.Exp(-math.Ldexp(float64(z), -ScoreFrac)), ExpFrac)))
	})
}

// expHighTable returns the high-limb factor: 1 at 0 and 0 elsewhere on
// [0, 2^15), since exp(−2^16/2^ScoreFrac)·2^ExpFrac already rounds to 0.
func expHighTable() *Table {
	return newTable("exp_high", 0, 1<<(ScoreBits+1-tableBits)-1, func(z int64) int64 {
		if z == 0 {
			return 1
		}
		return 0
	})
}

// rsqrtTable returns v ↦ round(2^RSqrtFrac/√v) on [1, 2^16).
func rsqrtTable() *Table {
	return newTable("rsqrt", 1, 1<<tableBits-1, func(v int64) int64 {
		return int64(math.Round(math.Ldexp(1, RSqrtFrac) / math.Sqrt(float64(v))))
	})
}

// ropeTables return the cos and sin tables indexed by i = p·half + j for
// positions p < positions and pairs j < half (hd/2, or more in padded
// heads): round(cos(p·θⱼ)·2^RopeFrac) and round(sin(p·θⱼ)·2^RopeFrac),
// θⱼ = base^(−2j/hd), for j < hd/2, and the identity (cos 1, sin 0) for
// the padding pairs j ≥ hd/2, which rotate zeros.
func ropeTables(headDim, half, positions int, base float64) (cos, sin *Table) {
	angle := func(i int64) (float64, bool) {
		p, j := i/int64(half), i%int64(half)
		return float64(p) * math.Pow(base, -2*float64(j)/float64(headDim)), 2*j < int64(headDim)
	}
	n := int64(positions * half)
	cos = newTable("rope_cos", 0, n-1, func(i int64) int64 {
		a, real := angle(i)
		if !real {
			return 1 << RopeFrac
		}
		return int64(math.Round(math.Cos(a) * (1 << RopeFrac)))
	})
	sin = newTable("rope_sin", 0, n-1, func(i int64) int64 {
		a, real := angle(i)
		if !real {
			return 0
		}
		return int64(math.Round(math.Sin(a) * (1 << RopeFrac)))
	})
	return cos, sin
}

// ropePositions returns how many positions the RoPE tables cover: the
// context length, capped so that a table has at most 2^16 entries.
func ropePositions(c *Config) int {
	return min(c.MaxPositions, (1<<tableBits)/(c.HeadLayout().HeadDim/2))
}
