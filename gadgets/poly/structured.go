package poly

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark/frontend"

	native "github.com/veriformer/veriformer/poly"
)

// Structured multilinear extensions in a circuit.
//
// These are the in-circuit twins of the structured MLEs of the native package
// poly (one-hot row, "first s rows" selector, causal zeroifier, head
// padding); the closed forms are written out there. The integer
// parameters (index, s, h, m) are constants of the circuit, so every branch on
// their bits is taken at compile time and only the point is a witness. A
// product of two non-constant values costs one R1CS constraint; sums and
// products by constants are free. The counts in the doc comments are those of
// the gadget alone; testdata/constraints_structured.csv snapshots them (plus
// one constraint for the equality with the claimed value) for BN254.

// EqIndex returns β(point, bits(idx)) = Πₖ (idxₖ = 1 ? rₖ : 1 − rₖ), the MLE
// of the one-hot vector of length 2ⁿ with its 1 at the constant idx; 0 when
// idx is outside [0, 2ⁿ). n − 1 constraints (none for n ≤ 1 or idx out of
// range).
func EqIndex(api frontend.API, point []frontend.Variable, idx int) frontend.Variable {
	n := len(point)
	if !inRange(idx, n) {
		return 0
	}
	var res frontend.Variable = 1
	for k := range point {
		f := betaBit(api, point[k], bitFromTop(idx, n, k))
		if k == 0 {
			res = f
			continue
		}
		res = api.Mul(res, f)
	}
	return res
}

// EqAt returns β(point, bits(x)) for a circuit variable x, the MLE of the
// one-hot vector of length 2ⁿ with its 1 at x, and asserts 0 ≤ x < 2ⁿ
// (its n-bit decomposition). About 3n constraints: n for the bits, one
// product b·r per bit and n − 1 for the product of the factors.
func EqAt(api frontend.API, point []frontend.Variable, x frontend.Variable) frontend.Variable {
	n := len(point)
	if n == 0 {
		api.AssertIsEqual(x, 0)
		return 1
	}
	bits := api.ToBinary(x, n)
	var res frontend.Variable = 1
	for k := range point {
		b := bits[n-1-k]
		// β(r, b) = b·r + (1 − b)(1 − r) = 1 − r − b + 2·b·r.
		f := api.Add(api.Sub(1, point[k], b), api.Mul(2, api.Mul(b, point[k])))
		if k == 0 {
			res = f
			continue
		}
		res = api.Mul(res, f)
	}
	return res
}

// ShiftedCausal returns the MLE at (ρ, γ) of z[j, k] = [j < rows ∧ k ≤ j
// + start] (the native poly.ShiftedCausal, same automaton and state
// order) for a circuit variable start of startBits bits, asserted by its
// decomposition: its bits are read beside those of j and k, each path
// weighed by β(start's bit, the path's bit) as well, so the value is the
// automaton's for that start. One constraint per bit for the pair weights
// and, per live (state, bit pair) transition whose state value is not a
// constant, one, and one more to split it by start's bit while bits of
// start remain: at most 65 per bit.
func ShiftedCausal(api frontend.API, rho, gamma []frontend.Variable, rows int, start frontend.Variable, startBits int) frontend.Variable {
	return shiftedCausal(api, BetaPairs(api, rho), BetaPairs(api, gamma), rows, start, startBits, true)
}

// BetaPairs returns the factors (1 − x, x) of eq(point, ·)'s bits, one
// pair per coordinate: the tables [ShiftedCausalWeights] reads.
func BetaPairs(api frontend.API, point []frontend.Variable) [][2]frontend.Variable {
	out := make([][2]frontend.Variable, len(point))
	for i, x := range point {
		out[i] = [2]frontend.Variable{api.Sub(1, x), x}
	}
	return out
}

// ShiftedCausalWeights is native poly.ShiftedCausalWeights in circuit,
// with a variable start of startBits bits (as [ShiftedCausal]): the
// shifted causal sum of two tables that factor by bit, wj[c] and wk[c]
// the factors of coordinate c's bits 0 and 1.
func ShiftedCausalWeights(api frontend.API, wj, wk [][2]frontend.Variable, rows int, start frontend.Variable, startBits int) frontend.Variable {
	return shiftedCausal(api, wj, wk, rows, start, startBits, false)
}

// shiftedCausal runs the automaton; beta says that each pair sums to 1
// (β's), so that one product gives a bit's four weights.
func shiftedCausal(api frontend.API, wj, wk [][2]frontend.Variable, rows int, start frontend.Variable, startBits int, beta bool) frontend.Variable {
	nr, nk := len(wj), len(wk)
	n := max(nr, nk, startBits) + 1
	var sb []frontend.Variable
	if startBits > 0 {
		sb = api.ToBinary(start, startBits)
	} else {
		api.AssertIsEqual(start, 0)
	}
	const states = 8 // carry·4 + greater·2 + less
	var v [states]frontend.Variable
	v[0] = 1
	for p := range n {
		var pj, pk [2]frontend.Variable
		nj, nkb := 1, 1
		pj[0], pk[0] = 1, 1
		if p < nr {
			nj = 2
			pj = wj[nr-1-p]
		}
		if p < nk {
			nkb = 2
			pk = wk[nk-1-p]
		}
		var w [2][2]frontend.Variable
		if beta && nj == 2 && nkb == 2 {
			// one product: the other three are linear in it
			w[1][1] = api.Mul(pj[1], pk[1])
			w[1][0] = api.Sub(pj[1], w[1][1])
			w[0][1] = api.Sub(pk[1], w[1][1])
			w[0][0] = api.Sub(pj[0], w[0][1])
		} else {
			for jb := range nj {
				for kb := range nkb {
					w[jb][kb] = api.Mul(pj[jb], pk[kb])
				}
			}
		}
		// A path reading start's bit ob weighs β(start's bit p, ob); start
		// has no bit p: ob = 0.
		nob := 1
		if p < startBits {
			nob = 2
		}
		rb := (rows >> p) & 1
		var next [states]frontend.Variable
		add := func(to int, t frontend.Variable) {
			if next[to] == nil {
				next[to] = t
			} else {
				next[to] = api.Add(next[to], t)
			}
		}
		for st := range states {
			if v[st] == nil {
				continue
			}
			carry, greater, less := st>>2, (st>>1)&1, st&1
			for jb := range nj {
				for kb := range nkb {
					t := api.Mul(v[st], w[jb][kb])
					var one frontend.Variable
					if nob == 2 {
						one = api.Mul(t, sb[p])
					}
					for ob := range nob {
						part := t
						switch {
						case nob == 2 && ob == 1:
							part = one
						case nob == 2:
							part = api.Sub(t, one)
						}
						sum := jb + ob + carry
						g, l := greater, less
						if kb != sum&1 {
							g = kb
						}
						if jb != rb {
							l = rb
						}
						add((sum>>1)<<2|g<<1|l, part)
					}
				}
			}
		}
		v = next
	}
	if v[1] == nil {
		return 0
	}
	return v[1]
}

// ShapeSelector returns the MLE at point of the valid entries of a tensor
// of the given shape in its per-dimension zero-padded layout (each
// dimension d over ⌈log₂ d⌉ of the point's coordinates, the first
// dimension most significant): the product of each dimension's Prefix,
// as the native lookup.Selector without leading variables.
func ShapeSelector(api frontend.API, shape []int, point []frontend.Variable) frontend.Variable {
	var res frontend.Variable = 1
	off := 0
	for _, d := range shape {
		v := native.Log2Ceil(d)
		res = api.Mul(res, Prefix(api, point[off:off+v], d))
		off += v
	}
	return res
}

// Prefix returns the MLE at point of the selector of the first s indices,
// Sel_s(x) = [x < s] over n = len(point) variables, for a constant s: 0 for
// s ≤ 0, 1 for s ≥ 2ⁿ. Reading from the least significant bit,
// L ← sₖ = 1 ? 1 − rₖ·(1 − L) : L − rₖ·L. n − 1 − t constraints for
// 0 < s < 2ⁿ with t trailing zero bits (one per bit above the lowest set bit
// of s), none otherwise.
func Prefix(api frontend.API, point []frontend.Variable, s int) frontend.Variable {
	n := len(point)
	if s <= 0 {
		return 0
	}
	if !inRange(s, n) {
		return 1
	}
	var res frontend.Variable = 0
	for k := n - 1; k >= 0; k-- {
		res = prefixStep(api, point[k], res, bitFromTop(s, n, k))
	}
	return res
}

// prefixStep is one bit of the selector recurrence.
func prefixStep(api frontend.API, r, l frontend.Variable, bit int) frontend.Variable {
	if bit == 1 {
		return api.Sub(1, api.Mul(r, api.Sub(1, l)))
	}
	return api.Sub(l, api.Mul(r, l))
}

// CausalZeroifier returns the MLE at point = (r_row ‖ r_col), ℓ coordinates
// each, of the causal zeroifier over the padded 2^ℓ × 2^ℓ matrix,
// z[i,j] = [i < s ∧ j < s ∧ j ≤ i], for a constant s clamped to [0, 2^ℓ].
// Constraints for 0 < s < 2^ℓ: 6 per set bit and 4 per zero bit of s above
// its lowest set bit, at most 3 per bit from there down, at most 6ℓ − 5 in
// all (s = 2^ℓ − 1); 2ℓ − 1 when s ≥ 2^ℓ; none when s ≤ 0. The length of
// point must be even.
func CausalZeroifier(api frontend.API, point []frontend.Variable, s int) (frontend.Variable, error) {
	if err := native.CheckCausalShape(len(point)); err != nil {
		return nil, fmt.Errorf("poly: causal zeroifier: %w", err)
	}
	return causalZeroifier(api, point, s), nil
}

func causalZeroifier(api frontend.API, point []frontend.Variable, s int) frontend.Variable {
	l := len(point) / 2
	if s <= 0 {
		return 0
	}
	row, col := point[:l], point[l:]
	full := !inRange(s, l)
	// le: MLE of [j ≤ i]; el: MLE of [i < s]; ee: the zeroifier; all over
	// the bits read so far, from the least significant end.
	var le, el, ee frontend.Variable = 1, 0, 0
	for k := l - 1; k >= 0; k-- {
		rho, gamma := row[k], col[k]
		pi := api.Mul(rho, gamma)
		g := api.Sub(rho, pi)
		w := api.Add(api.Sub(1, rho, gamma), pi) // (1 − ρ)(1 − γ)
		e := api.Add(w, pi)                      // β(ρ, γ)
		if !full {
			if bitFromTop(s, l, k) == 1 {
				ee = api.Add(api.Mul(w, le), api.Mul(pi, ee), api.Mul(g, el))
			} else {
				ee = api.Mul(w, ee)
			}
			el = prefixStep(api, rho, el, bitFromTop(s, l, k))
		}
		le = api.Add(api.Mul(e, le), g)
	}
	if full {
		return le
	}
	return ee
}

// Padding returns the MLE of the head padding matrix P ∈ F^{D × ĥm̂} of seed
// 002 at point = (r_c ‖ r_i ‖ r_j), P[c, i·m̂ + j] = [i < h ∧ j < m ∧
// c = i·m + j], with the variable counts of the native poly.PaddingVars and constant h,
// m.
// With m = m'·2ᵃ (m' odd), δ' = ⌈log₂(hm')⌉, L = ⌈log₂ h⌉, μ' = ⌈log₂ m'⌉,
// it is β(r_c^lo, r_j^lo) (a low coordinates each, 2a − 1 constraints) times
//
//   - m' = 1: Σ_{i<h} β(r_c^hi, i)·β(r_i, i), at most 4L − 3 constraints,
//     2a + 4L − 3 in all; 22 for GPT-2 (h = 12, m = 64), 23 for
//     Llama-2-7B (h = 32, m = 128);
//   - otherwise the cheaper of the long-division automaton (about
//     δ'·(4m' + 1) + m'·μ') and the sum over heads (about h·(9δ' + L)); 57
//     for h = 12, m = 48, 100 for h = 25, m = 80, 59 for h = 12, m = 96.
func Padding(api frontend.API, point []frontend.Variable, h, m int) (frontend.Variable, error) {
	rc, ri, rj, err := native.SplitPaddingPoint(point, h, m)
	if err != nil {
		return nil, err
	}
	return padding(api, rc, ri, rj, h, m), nil
}

func padding(api frontend.API, rc, ri, rj []frontend.Variable, h, m int) frontend.Variable {
	// m = odd·2ᵃ: the low a bits of c are the low a bits of j.
	a := bits.TrailingZeros(uint(m))
	odd := m >> a
	rcHi, rcLo := rc[:len(rc)-a], rc[len(rc)-a:]
	rjHi, rjLo := rj[:len(rj)-a], rj[len(rj)-a:]
	var rest frontend.Variable
	switch {
	case odd == 1:
		rest = diagonalPrefix(api, rcHi, ri, h)
	case useDivision(len(rcHi), len(ri), len(rjHi), h, odd):
		rest = paddingByDivision(api, rcHi, ri, rjHi, h, odd)
	default:
		rest = paddingByHeads(api, rcHi, ri, rjHi, h, odd)
	}
	return api.Mul(Eq(api, rcLo, rjLo), rest)
}

// useDivision reports whether the long-division automaton of
// [paddingByDivision] (about δ·(4m + 1) + m·μ constraints) is cheaper than
// the sum over heads of [paddingByHeads] (about h·(9δ + L)); the same rule
// as the native package.
func useDivision(rowVars, headVars, widthVars, h, m int) bool {
	return rowVars*(4*m+1)+m*widthVars <= h*(9*rowVars+headVars)
}

// paddingByHeads returns Σ_{i<h} β(ri, i)·Σ_{j<m} β(rj, j)·β(rc, i·m + j).
// The per-bit weights β(rj, j_p)·β(rc, c_p) are the same for every head and
// computed once.
func paddingByHeads(api frontend.API, rc, ri, rj []frontend.Variable, h, m int) frontend.Variable {
	weights := shiftedIntervalWeights(api, rc, rj)
	var res frontend.Variable = 0
	for i := range h {
		res = api.Add(res, api.Mul(EqIndex(api, ri, i), shiftedInterval(api, weights, len(rj), i*m, m)))
	}
	return res
}

// paddingByDivision returns Σ_{c < h·m} β(rc, c)·β(ri, ⌊c/m⌋)·β(rj, c mod m)
// by long division of c by m from its most significant bit: the state is the
// running remainder and whether the quotient read so far is already below h;
// quotient bit p pairs with the coordinate of bit p of i (and must be 0 at
// and above bit len(ri)), and the final remainder is j. A nil state is
// unreachable.
func paddingByDivision(api frontend.API, rc, ri, rj []frontend.Variable, h, m int) frontend.Variable {
	nc, ni := len(rc), len(ri)
	// state index remainder·2 + less
	v := make([]frontend.Variable, 2*m)
	if inRange(h, ni) {
		v[0] = 1
	} else {
		v[1] = 1
	}
	for p := nc - 1; p >= 0; p-- {
		c := rc[nc-1-p]
		// w[cb][qb] = β(rc, cb)·β(ri, qb) for bit p of c and of the quotient.
		var w [2][2]frontend.Variable
		if p < ni {
			r := ri[ni-1-p]
			w[1][1] = api.Mul(r, c)
			w[1][0] = api.Sub(c, w[1][1])
			w[0][1] = api.Sub(r, w[1][1])
			w[0][0] = api.Sub(api.Sub(1, c), w[0][1])
		} else {
			w[0][0] = api.Sub(1, c)
			w[1][0] = c
		}
		hb := (h >> p) & 1
		next := make([]frontend.Variable, 2*m)
		for st := range v {
			if v[st] == nil {
				continue
			}
			rem, less := st>>1, st&1
			for cb := range 2 {
				r2 := 2*rem + cb
				qb := 0
				if r2 >= m {
					qb, r2 = 1, r2-m
				}
				if p >= ni && qb == 1 {
					continue
				}
				nl := less
				if less == 0 {
					if qb > hb {
						continue
					}
					if qb < hb {
						nl = 1
					}
				}
				to := r2<<1 | nl
				t := api.Mul(v[st], w[cb][qb])
				if next[to] == nil {
					next[to] = t
				} else {
					next[to] = api.Add(next[to], t)
				}
			}
		}
		v = next
	}
	var res frontend.Variable = 0
	for rem := range m {
		if v[rem<<1|1] == nil {
			continue
		}
		res = api.Add(res, api.Mul(EqIndex(api, rj, rem), v[rem<<1|1]))
	}
	return res
}

// shiftedIntervalWeights returns, for each bit p of c from the least
// significant, w[p][jb][cb] = β(r_j, jb)·β(r_c, cb) for bit p of j and of c
// (only jb = 0 once j has no bit p).
func shiftedIntervalWeights(api frontend.API, rc, rj []frontend.Variable) [][2][2]frontend.Variable {
	nc, nj := len(rc), len(rj)
	w := make([][2][2]frontend.Variable, nc)
	for p := range nc {
		c := rc[nc-1-p]
		if p < nj {
			r := rj[nj-1-p]
			w[p][1][1] = api.Mul(r, c)
			w[p][1][0] = api.Sub(r, w[p][1][1])
			w[p][0][1] = api.Sub(c, w[p][1][1])
			w[p][0][0] = api.Sub(api.Sub(1, r), w[p][0][1])
		} else {
			w[p][0][0] = api.Sub(1, c)
			w[p][0][1] = c
		}
	}
	return w
}

// shiftedInterval returns Σ_{j<m} β(r_j, j)·β(r_c, base + j) from the
// per-bit weights, reading bits from the least significant end with the state
// (carry of base + j, [j < m] on the bits read).
func shiftedInterval(api frontend.API, w [][2][2]frontend.Variable, nj, base, m int) frontend.Variable {
	const states = 4 // index carry·2 + less
	var v [states]frontend.Variable
	v[0] = 1
	for p := range w {
		jBits := 1
		if p < nj {
			jBits = 2
		}
		bb, mb := (base>>p)&1, (m>>p)&1
		var next [states]frontend.Variable
		for st := range states {
			if v[st] == nil {
				continue
			}
			carry, less := st>>1, st&1
			for jb := range jBits {
				sum := bb + jb + carry
				nl := less
				if jb < mb {
					nl = 1
				} else if jb > mb {
					nl = 0
				}
				to := (sum>>1)<<1 | nl
				t := api.Mul(v[st], w[p][jb][sum&1])
				if next[to] == nil {
					next[to] = t
				} else {
					next[to] = api.Add(next[to], t)
				}
			}
		}
		v = next
	}
	res := v[1]
	if m>>len(w) != 0 && v[0] != nil {
		// m has a bit above the bits read, where j has none: j < m.
		if res == nil {
			res = v[0]
		} else {
			res = api.Add(res, v[0])
		}
	}
	if res == nil {
		return 0
	}
	return res
}

// diagonalPrefix returns Σ_{i<h} β(x, i)·β(y, i) over len(x) = len(y)
// variables: the selector recurrence on pairs of coordinates.
func diagonalPrefix(api frontend.API, x, y []frontend.Variable, h int) frontend.Variable {
	n := len(x)
	full := !inRange(h, n)
	var less, all frontend.Variable = 0, 1
	for k := n - 1; k >= 0; k-- {
		pi := api.Mul(x[k], y[k])
		w := api.Add(api.Sub(1, x[k], y[k]), pi)
		if !full {
			if bitFromTop(h, n, k) == 1 {
				less = api.Add(api.Mul(w, all), api.Mul(pi, less))
			} else {
				less = api.Mul(w, less)
			}
		}
		all = api.Mul(api.Add(w, pi), all)
	}
	if full {
		return all
	}
	return less
}

// betaBit returns β(r, b) for a constant bit b: r or 1 − r.
func betaBit(api frontend.API, r frontend.Variable, b int) frontend.Variable {
	if b == 1 {
		return r
	}
	return api.Sub(1, r)
}

// inRange reports whether 0 ≤ v < 2ⁿ.
func inRange(v, n int) bool {
	return v >= 0 && (n >= bits.UintSize-1 || v < 1<<n)
}

// bitFromTop returns bit k (0-based, most significant first) of v written
// with n bits; v ≥ 0.
func bitFromTop(v, n, k int) int {
	shift := n - 1 - k
	if shift >= bits.UintSize {
		return 0
	}
	return (v >> shift) & 1
}
