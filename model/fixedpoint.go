package model

import (
	"fmt"
	"math"
	"math/bits"
)

// Bit widths of the checked ranges. A tensor kind with B bits holds values
// in [−2^B, 2^B − 1]: exactly the signed integers of B + 1 bits, so that a
// range check is a window of B + 1 bits and nothing more.
const (
	// WeightMax is the largest magnitude of an int8 weight: weights lie in
	// [−127, 127], so −128 never occurs and negation stays in range.
	WeightMax = 127
	// ResidualBits bounds the residual stream (embeddings, layer inputs and
	// outputs): −2^22 ≤ h < 2^22. The residual stream needs the widest range
	// because a few channels of trained models carry values in the
	// thousands next to channels of order one; with n ≤ 2^14 channels a
	// norm's sum of squares stays below n·(2^23)² ≤ 2^60.
	ResidualBits = 22
	// ActivationBits bounds every activation that enters a matmul or a
	// table: norm outputs, queries, keys, values, attention contexts, MLP
	// pre-activations and activations: −2^15 ≤ x < 2^15, so a table indexed
	// by such an activation has 2^16 entries.
	ActivationBits = 15
	// ScoreBits bounds the requantized attention scores: −2^30 ≤ s < 2^30, so a
	// max-shifted score lies in [0, 2^31) and splits into two 16-bit limbs.
	ScoreBits = 30
	// LogitBits bounds the requantized logits: −2^30 ≤ l < 2^30.
	LogitBits = 30
	// MultiplierBits is the precision of a requantization multiplier: the
	// shift is chosen so that the largest multiplier of a tensor lies in
	// [2^19, 2^20) when the shift range allows it.
	MultiplierBits = 20
	// minMultiplierBits is the least precision accepted: a rescaling whose
	// largest multiplier would stay below 2^12 even at the largest shift
	// is refused rather than computed with a coarse multiplier.
	minMultiplierBits = 12
	// MaxShift is the largest requantization shift; remainders are below
	// 2^MaxShift.
	MaxShift = 62
	// accumulatorBits bounds every int64 accumulator statically (checked
	// when a model is quantized), so no int64 arithmetic wraps.
	accumulatorBits = 62
)

// rangeOf returns the checked range of a signed kind with b bits:
// [−2^b, 2^b − 1].
func rangeOf(b int) (lo, hi int64) {
	return -int64(1) << b, int64(1)<<b - 1
}

// BoundError reports a value outside the checked range of a tensor: the
// integer forward pass refuses to continue rather than wrap or clamp.
type BoundError struct {
	Tensor string
	Index  int
	Value  int64
	Min    int64
	Max    int64
}

func (e *BoundError) Error() string {
	return fmt.Sprintf("model: %s[%d] = %d outside its checked range [%d, %d]", e.Tensor, e.Index, e.Value, e.Min, e.Max)
}

// checkRange returns a *BoundError for the first value of data outside
// [lo, hi].
func checkRange(name string, data []int64, lo, hi int64) error {
	for i, v := range data {
		if v < lo || v > hi {
			return &BoundError{Tensor: name, Index: i, Value: v, Min: lo, Max: hi}
		}
	}
	return nil
}

// Requantize applies the rounding rule of every rescaling step:
//
//	y   = ⌊(a·m + 2^(k−1)) / 2^k⌋
//	rem = a·m + 2^(k−1) − y·2^k ∈ [0, 2^k)
//
// with floor division (so negative values round half up too, exactly as the
// formula says). The product a·m is computed in 128 bits; m must be
// positive and 1 ≤ k ≤ MaxShift. ok is false when y does not fit an int64.
func Requantize(a, m int64, k uint) (y, rem int64, ok bool) {
	if m <= 0 || k < 1 || k > MaxShift {
		return 0, 0, false
	}
	half := int64(1) << (k - 1)
	mask := int64(1)<<k - 1
	if bits.Len64(absUint(a))+bits.Len64(uint64(m)) < 62 {
		p := a*m + half
		y = p >> k
		return y, p & mask, true
	}
	hi, lo := bits.Mul64(absUint(a), uint64(m))
	if a < 0 {
		lo = ^lo + 1
		hi = ^hi
		if lo == 0 {
			hi++
		}
	}
	var carry uint64
	lo, carry = bits.Add64(lo, uint64(half), 0)
	hi += carry
	rem = int64(lo & uint64(mask))
	yLo := lo>>k | hi<<(64-k)
	yHi := int64(hi) >> k
	if yHi != int64(yLo)>>63 {
		return 0, 0, false
	}
	return int64(yLo), rem, true
}

func absUint(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}

// chooseMultipliers turns positive real factors fⱼ (one per output column,
// or one for the whole tensor) into integer multipliers Mⱼ = round(fⱼ·2^k)
// with one shift k: the largest k ≤ MaxShift such that max Mⱼ < 2^MultiplierBits,
// and k ≥ 1. Multipliers are at least 1.
func chooseMultipliers(factors []float64) ([]int64, uint, error) {
	maxF := 0.0
	for i, f := range factors {
		if !(f > 0) || math.IsInf(f, 0) {
			return nil, 0, fmt.Errorf("model: rescaling factor %d is %g, want a positive finite number", i, f)
		}
		maxF = max(maxF, f)
	}
	k := MaxShift
	for k > 1 && maxF*math.Ldexp(1, k) >= math.Ldexp(1, MultiplierBits) {
		k--
	}
	if maxF*math.Ldexp(1, k) < math.Ldexp(1, minMultiplierBits) {
		return nil, 0, fmt.Errorf("model: rescaling factor %g is too small for a %d-bit shift", maxF, MaxShift)
	}
	m := make([]int64, len(factors))
	for i, f := range factors {
		v := math.Round(f * math.Ldexp(1, k))
		if v >= math.Ldexp(1, accumulatorBits) {
			return nil, 0, fmt.Errorf("model: rescaling factor %g is too large for an int64 multiplier", f)
		}
		m[i] = max(1, int64(v))
	}
	return m, uint(k), nil
}

// toFixed returns round(x·2^frac) or an error when it leaves [lo, hi].
func toFixed(name string, x []float64, frac int, lo, hi int64) ([]int64, error) {
	out := make([]int64, len(x))
	scale := math.Ldexp(1, frac)
	for i, v := range x {
		r := math.Round(v * scale)
		if !(r >= float64(lo) && r <= float64(hi)) {
			return nil, fmt.Errorf("model: %s[%d] = %g does not fit its fixed-point range with %d fractional bits", name, i, v, frac)
		}
		out[i] = int64(r)
	}
	return out, nil
}

// dequantize returns x/2^frac.
func dequantize(x []int64, frac int) []float64 {
	out := make([]float64, len(x))
	scale := math.Ldexp(1, -frac)
	for i, v := range x {
		out[i] = float64(v) * scale
	}
	return out
}
