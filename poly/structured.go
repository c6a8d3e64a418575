package poly

import (
	"fmt"
	"math/bits"

	"github.com/veriformer/veriformer/field"
)

// Structured multilinear extensions.
//
// The verifier of several layer protocols needs the MLE of a fixed 0/1 (or
// 0/c) table at a random point: a one-hot row, the "first s rows" selector,
// the causal zeroifier of attention, the head padding matrix. The tables have 2ⁿ entries; their MLEs have closed forms that cost
// O(n) field operations and never build the table. Every closed form below is
// a sum over the accepting paths of a small automaton that reads the bits of
// the table index from one end to the other; each path is a product of one
// factor per bit, each factor multilinear in the coordinates of that bit, so
// the sum is multilinear and agrees with the table on {0,1}ⁿ: it is the MLE.
//
// Notation: n variables, index x = Σₖ xₖ·2^(n−k) (X₁ most significant, as
// everywhere in this package); bit k of an integer v counted from the most
// significant end is vₖ; β(r, b) = r·b + (1−r)(1−b) on one coordinate.
//
// One-hot row (EqIndex). e_v(x) = [x = v]:
//
//	ẽ_v(r) = β(r, bits(v)) = Πₖ (vₖ = 1 ? rₖ : 1 − rₖ),  n − 1 multiplications,
//
// and 0 when v ∉ [0, 2ⁿ). The pad vector of the KV-cache concatenation
// (one 1 at the row of the new token, 0-based row s − 1 when the cache holds
// s tokens) is EqIndex(r, s − 1).
//
// "First s rows" selector (Prefix). Sel_s(x) = [x < s], 0 ≤ s ≤ 2ⁿ. x < s iff
// at the first bit k where they differ sₖ = 1 and xₖ = 0. Reading from the
// least significant bit, with Lₙ₊₁ = 0:
//
//	Lₖ = sₖ = 1 ? (1 − rₖ) + rₖ·Lₖ₊₁ : (1 − rₖ)·Lₖ₊₁,   S̃el_s(r) = L₁,
//
// one multiplication per bit above the lowest set bit of s; Sel_0 = 0 and
// Sel_{2ⁿ} = 1. For s = 2ᵗ it is Π_{k ≤ n−t} (1 − rₖ), the weight of the
// first block in the recursive halving of seed 003. The selector of the first
// s rows of a matrix does not depend on the column variables (as for the
// heads below): at (r_row ‖ r_col) it is Prefix(r_row, s).
//
// Causal zeroifier (CausalZeroifier). Over the padded ŝ×ŝ matrix, ℓ = log₂ ŝ
// variables per side, point (ρ ‖ γ) = (r_row ‖ r_col):
//
//	z[i,j] = [i < s ∧ j < s ∧ j ≤ i] = [i < s ∧ j ≤ i]   (j ≤ i < s ⇒ j < s).
//
// The automaton reads the pairs (iₖ, jₖ) and keeps two comparisons: i against
// s (E: equal so far, L: already less) and j against i (E, L). With the
// per-bit quantities πₖ = ρₖγₖ, gₖ = ρₖ − πₖ = ρₖ(1−γₖ) (iₖ=1, jₖ=0),
// eₖ = 1 − ρₖ − γₖ + 2πₖ = β(ρₖ, γₖ) and wₖ = 1 − ρₖ − γₖ + πₖ (iₖ=jₖ=0), the
// weights of accepting from each state over bits k…ℓ satisfy, from
// LE = 1, EL = 0, EE = 0 past the last bit (LL is constantly 1):
//
//	LEₖ = eₖ·LEₖ₊₁ + gₖ                                   (MLE of [j ≤ i])
//	ELₖ = Lₖ of the selector above                          (MLE of [i < s])
//	EEₖ = sₖ = 1 ? wₖ·LEₖ₊₁ + πₖ·EEₖ₊₁ + gₖ·ELₖ₊₁ : wₖ·EEₖ₊₁
//
// and z̃(ρ, γ) = EE₁ when s < ŝ, LE₁ when s = ŝ: at most 6 multiplications per
// bit. The mask is m = c·(1 − z) (c the field element that stands for −∞),
// so m̃ = c·(1 − z̃). Over ĥ×ŝ×ŝ (heads first) the tables do not depend on the
// head index, and since Σ_x β(r_h, x) = 1 their MLEs do not depend on the head
// coordinates: ẑ(r_h, ρ, γ) = z̃(ρ, γ). The layer protocols build the mask
// and the heads from CausalZeroifier in this way.
//
// Head padding (Padding). For h heads of width m,
// with ĥ = 2^⌈log₂ h⌉, m̂ = 2^⌈log₂ m⌉ and D = 2^⌈log₂(h·m)⌉, the padding
// matrix P ∈ F^{D × ĥm̂} has rows c ∈ [0, D) (the unpadded width h·m padded to
// a power of two) and columns J = i·m̂ + j (head i, offset j):
//
//	P[c, i·m̂ + j] = [i < h ∧ j < m ∧ c = i·m + j],
//
// its point is (r_c ‖ r_i ‖ r_j) with ⌈log₂(hm)⌉ + ⌈log₂ h⌉ + ⌈log₂ m⌉
// coordinates. The unpadding matrix is its transpose U = Pᵀ ∈ F^{ĥm̂ × D},
// point (r_i ‖ r_j ‖ r_c): Ũ(r_i, r_j, r_c) = P̃(r_c, r_i, r_j), Padding at
// the point's groups reordered.
//
// Write m = m'·2ᵃ with m' odd. The low a bits of c = i·m + j are the low a
// bits of j, and the rest is c' = i·m' + j' (j = j'·2ᵃ + j₀); splitting r_c =
// (r_c^hi ‖ r_c^lo) and r_j = (r_j^hi ‖ r_j^lo) with a low coordinates each,
//
//	P̃_{h,m}(r_c, r_i, r_j) = β(r_c^lo, r_j^lo) · P̃_{h,m'}(r_c^hi, r_i, r_j^hi),
//
// and P̃_{h,m'} is evaluated by one of three automata (δ' = ⌈log₂(hm')⌉,
// L = ⌈log₂ h⌉, μ' = ⌈log₂ m'⌉):
//
//   - m' = 1 (every GPT-2 and Llama head width): c' = i, so
//     P̃_{h,1} = Σ_{i<h} β(r_c^hi, i)·β(r_i, i), the selector recurrence on
//     pairs with per-bit weights πₖ = xₖyₖ, wₖ = 1 − xₖ − yₖ + πₖ,
//     eₖ = wₖ + πₖ = β(xₖ, yₖ): Eₖ = hₖ = 1 ? wₖ·Qₖ₊₁ + πₖ·Eₖ₊₁ : wₖ·Eₖ₊₁ and
//     Qₖ = eₖ·Qₖ₊₁ (E = 0 and Q = 1 past the last bit), result E₁ (Q₁ when
//     h = 2^L): at most 4 multiplications per bit, 2a + 4L + 1 in all.
//   - long division (m' small): Σ_{c<hm'} β(r_c^hi, c)·β(r_i, ⌊c/m'⌋)·
//     β(r_j^hi, c mod m'). Reading c from its most significant bit, the state
//     is the remainder t ∈ [0, m') and whether the quotient read so far is
//     already below h; bit cₚ moves t to 2t + cₚ, emits the quotient bit
//     qₚ = [2t + cₚ ≥ m'] (weighted by β of the coordinate of bit p of i, and
//     required to be 0 for p ≥ L) and subtracts qₚ·m'. The final remainder is
//     j', weighted by EqIndex(r_j^hi, t). About δ'·(4m' + 1) + m'·μ'
//     multiplications.
//   - sum over heads (h small): Σ_{i<h} β(r_i, i)·S_i with
//     S_i = Σ_{j<m'} β(r_j^hi, j)·β(r_c^hi, i·m' + j), each S_i read from the
//     least significant bit by a 4-state automaton (carry of i·m' + j, and
//     whether j < m' on the bits read): about h·(9δ' + L) multiplications.
//
// The cheaper of the last two is used: O(min(h, m')·log(hm)) in general, and
// O(log(hm)) whenever the odd part m' of the head width is a small constant
// (48 = 3·2⁴, 80 = 5·2⁴, 96 = 3·2⁵, 112 = 7·2⁴, …).
//
// The vector b of seed 002, b(x) = β(x_head, r), is Eq on the head
// coordinates and needs nothing here.

// EqIndex returns β(point, bits(idx)), the MLE of the one-hot vector of length
// 2ⁿ (n = len(point)) with its 1 at idx, at point. It is 0 when idx is outside
// [0, 2ⁿ). Cost: n − 1 multiplications.
func EqIndex[E field.Scalar, P field.Ptr[E]](point []E, idx int) E {
	var res E
	n := len(point)
	if !inRange(idx, n) {
		return res
	}
	P(&res).SetOne()
	for k := range point {
		f := betaBit[E, P](&point[k], bitFromTop(idx, n, k))
		if k == 0 {
			res = f
			continue
		}
		P(&res).Mul(&res, &f)
	}
	return res
}

// ShiftedCausal returns the MLE at (ρ, γ) of z[j, k] = [j < rows ∧ k ≤ j +
// start] over j ∈ {0,1}^len(ρ), k ∈ {0,1}^len(γ). It is the sum over the
// accepting paths of an automaton that reads the bits of j and k from the
// least significant end, n = max(len ρ, len γ, bits(start)) + 1 of them (a
// missing coordinate is a 0 bit), in the state
//
//	(carry of j + start, [k > j + start on the bits read], [j < rows on the bits read])
//
// starting from (0, 0, 0) and accepting in (0, 0, 1); a bit pair (jb, kb)
// weighs β(ρ, jb)·β(γ, kb). Bit p of a sum s = j + start decides the
// comparison with k when it differs from kb, and so for j against rows.
// Every path is a product of one multilinear factor per coordinate, so the
// sum is the MLE. Cost: about 36 multiplications per bit.
func ShiftedCausal[E field.Scalar, P field.Ptr[E]](rho, gamma []E, rows, start int) E {
	return ShiftedCausalWeights[E, P](betaPairs[E, P](rho), betaPairs[E, P](gamma), rows, start)
}

// betaPairs returns (1 − x, x) for each coordinate x of point.
func betaPairs[E field.Scalar, P field.Ptr[E]](point []E) [][2]E {
	one := field.One[E, P]()
	out := make([][2]E, len(point))
	for i := range point {
		out[i][1] = point[i]
		P(&out[i][0]).Sub(&one, &point[i])
	}
	return out
}

// ShiftedCausalWeights is [ShiftedCausal] for tables that factor by bit:
// Σ_{j,k} x(j)·y(k)·[j < rows ∧ k ≤ j + start] with x(j) = Π_c wj[c][bit c
// of j] and y(k) = Π_c wk[c][bit c of k] (coordinates most significant
// first, as a point's), which for wj[c] = (1 − ρ_c, ρ_c) is ShiftedCausal.
// Products of eq tables, such as eq(e, ·)·eq(r, ·) with the pairs
// ((1 − e_c)(1 − r_c), e_c·r_c), are such tables. Same automaton, same
// cost.
func ShiftedCausalWeights[E field.Scalar, P field.Ptr[E]](wj, wk [][2]E, rows, start int) E {
	nr, nk := len(wj), len(wk)
	n := max(nr, nk, bits.Len(uint(start))) + 1
	const states = 8 // carry·4 + greater·2 + less
	var v [states]E
	var live [states]bool
	P(&v[0]).SetOne()
	live[0] = true
	one := field.One[E, P]()
	for p := range n {
		// w[jb][kb] = x's and y's factors for bit p; a missing coordinate
		// has only the 0 bit, of weight 1.
		var pj, pk [2]E
		nj, nkb := 1, 1
		pj[0], pk[0] = one, one
		if p < nr {
			nj = 2
			pj = wj[nr-1-p]
		}
		if p < nk {
			nkb = 2
			pk = wk[nk-1-p]
		}
		var w [2][2]E
		for jb := range nj {
			for kb := range nkb {
				P(&w[jb][kb]).Mul(&pj[jb], &pk[kb])
			}
		}
		ob, rb := (start>>p)&1, (rows>>p)&1
		var next [states]E
		var nextLive [states]bool
		for st := range states {
			if !live[st] {
				continue
			}
			carry, greater, less := st>>2, (st>>1)&1, st&1
			for jb := range nj {
				for kb := range nkb {
					sum := jb + ob + carry
					g, l := greater, less
					if kb != sum&1 {
						g = kb
					}
					if jb != rb {
						l = rb
					}
					to := (sum>>1)<<2 | g<<1 | l
					var t E
					P(&t).Mul(&v[st], &w[jb][kb])
					P(&next[to]).Add(&next[to], &t)
					nextLive[to] = true
				}
			}
		}
		v, live = next, nextLive
	}
	return v[1]
}

// Prefix returns the MLE at point of the selector of the first s indices,
// Sel_s(x) = [x < s] over n = len(point) variables: 0 for s ≤ 0, 1 for s ≥ 2ⁿ.
// Cost: at most n − 1 multiplications.
func Prefix[E field.Scalar, P field.Ptr[E]](point []E, s int) E {
	var res E
	n := len(point)
	if s <= 0 {
		return res
	}
	if !inRange(s, n) {
		P(&res).SetOne()
		return res
	}
	live := false
	for k := n - 1; k >= 0; k-- {
		r := &point[k]
		if bitFromTop(s, n, k) == 1 {
			// L ← (1 − r) + r·L = 1 − r·(1 − L)
			if live {
				var t E
				one := field.One[E, P]()
				P(&t).Sub(&one, &res)
				P(&t).Mul(&t, r)
				P(&res).Sub(&one, &t)
			} else {
				res = oneMinus[E, P](r)
				live = true
			}
		} else if live {
			// L ← (1 − r)·L
			var t E
			P(&t).Mul(r, &res)
			P(&res).Sub(&res, &t)
		}
	}
	return res
}

// CausalZeroifier returns the MLE at point = (r_row ‖ r_col), ℓ coordinates
// each, of the causal zeroifier over the padded 2^ℓ × 2^ℓ matrix,
// z[i,j] = [i < s ∧ j < s ∧ j ≤ i]. s is clamped to [0, 2^ℓ]. Cost: at most
// 6ℓ multiplications. The length of point must be even.
func CausalZeroifier[E field.Scalar, P field.Ptr[E]](point []E, s int) (E, error) {
	var res E
	if err := CheckCausalShape(len(point)); err != nil {
		return res, fmt.Errorf("poly: causal zeroifier: %w", err)
	}
	return causalZeroifier[E, P](point, s), nil
}

// PaddingVars returns the numbers of variables of the padding matrix of
// [Padding] for h heads of width m: rows ⌈log₂(h·m)⌉, heads ⌈log₂ h⌉, head
// width ⌈log₂ m⌉. Used by the tests of packages poly and gadgets/poly, to
// size the points.
func PaddingVars(h, m int) (rowVars, headVars, widthVars int, err error) {
	if err := checkPaddingShape(h, m); err != nil {
		return 0, 0, 0, fmt.Errorf("poly: padding shape: %w", err)
	}
	return Log2Ceil(h * m), Log2Ceil(h), Log2Ceil(m), nil
}

// SplitPaddingPoint checks h, m and the length of a point of the padding
// matrix of [Padding], (r_c ‖ r_i ‖ r_j), and returns its three groups. It
// is generic so that the in-circuit twin (gadgets/poly) applies the same
// checks to circuit variables.
func SplitPaddingPoint[T any](point []T, h, m int) (rc, ri, rj []T, err error) {
	if err := checkPaddingShape(h, m); err != nil {
		return nil, nil, nil, fmt.Errorf("poly: padding: %w", err)
	}
	rowVars, headVars, widthVars := Log2Ceil(h*m), Log2Ceil(h), Log2Ceil(m)
	if len(point) != rowVars+headVars+widthVars {
		return nil, nil, nil, fmt.Errorf("poly: padding: point has %d coordinates, want %d", len(point), rowVars+headVars+widthVars)
	}
	return point[:rowVars], point[rowVars : rowVars+headVars], point[rowVars+headVars:], nil
}

// checkPaddingShape checks that h and m lie in [1, 2^maxPaddingLog].
func checkPaddingShape(h, m int) error {
	if h < 1 || m < 1 || h > maxPaddingSide || m > maxPaddingSide {
		return fmt.Errorf("heads %d and head width %d must lie in [1, 2^%d]", h, m, maxPaddingLog)
	}
	return nil
}

// CheckCausalShape checks that n variables split into two equal halves
// (rows, columns), the point layout of the causal zeroifier (native and
// in-circuit).
func CheckCausalShape(n int) error {
	if n%2 != 0 {
		return fmt.Errorf("%d variables do not split into two equal halves (rows, columns)", n)
	}
	return nil
}

// maxPaddingLog bounds h and m of the padding matrices so that h·m fits an int
// on every platform Go supports with room to spare.
const (
	maxPaddingLog  = 15
	maxPaddingSide = 1 << maxPaddingLog
)

// Padding returns the MLE of the head padding matrix P ∈ F^{D × ĥm̂} of seed
// 002 at point = (r_c ‖ r_i ‖ r_j), P[c, i·m̂ + j] = [i < h ∧ j < m ∧
// c = i·m + j], with the variable counts of [PaddingVars]. With m = m'·2ᵃ
// (m' odd), δ' = ⌈log₂(hm')⌉, L = ⌈log₂ h⌉, μ' = ⌈log₂ m'⌉, the cost is
// at most 2a + 4L + 1 multiplications when m' = 1 (all GPT-2 and Llama head
// widths) and about 2a + min(δ'·(4m' + 1) + m'·μ', h·(9δ' + L)) otherwise.
func Padding[E field.Scalar, P field.Ptr[E]](point []E, h, m int) (E, error) {
	var res E
	rc, ri, rj, err := SplitPaddingPoint(point, h, m)
	if err != nil {
		return res, err
	}
	return padding[E, P](rc, ri, rj, h, m), nil
}

func padding[E field.Scalar, P field.Ptr[E]](rc, ri, rj []E, h, m int) E {
	// m = odd·2ᵃ: the low a bits of c are the low a bits of j.
	a := bits.TrailingZeros(uint(m))
	odd := m >> a
	rcHi, rcLo := rc[:len(rc)-a], rc[len(rc)-a:]
	rjHi, rjLo := rj[:len(rj)-a], rj[len(rj)-a:]
	res := Eq[E, P](rcLo, rjLo)
	var rest E
	switch {
	case odd == 1:
		rest = diagonalPrefix[E, P](rcHi, ri, h)
	case useDivision(len(rcHi), len(ri), len(rjHi), h, odd):
		rest = paddingByDivision[E, P](rcHi, ri, rjHi, h, odd)
	default:
		rest = paddingByHeads[E, P](rcHi, ri, rjHi, h, odd)
	}
	P(&res).Mul(&res, &rest)
	return res
}

// useDivision reports whether the long-division automaton of
// [paddingByDivision] (about δ·(4m + 1) + m·μ multiplications) is cheaper
// than the sum over heads of [paddingByHeads] (about h·(9δ + L)).
func useDivision(rowVars, headVars, widthVars, h, m int) bool {
	return rowVars*(4*m+1)+m*widthVars <= h*(9*rowVars+headVars)
}

// paddingByHeads returns Σ_{i<h} β(ri, i)·Σ_{j<m} β(rj, j)·β(rc, i·m + j).
func paddingByHeads[E field.Scalar, P field.Ptr[E]](rc, ri, rj []E, h, m int) E {
	var res E
	for i := range h {
		t := shiftedInterval[E, P](rc, rj, i*m, m)
		w := EqIndex[E, P](ri, i)
		P(&t).Mul(&t, &w)
		P(&res).Add(&res, &t)
	}
	return res
}

// paddingByDivision returns Σ_{c < h·m} β(rc, c)·β(ri, ⌊c/m⌋)·β(rj, c mod m)
// by long division of c by m from its most significant bit: the state is the
// running remainder and whether the quotient read so far is already below h;
// quotient bit p pairs with the coordinate of bit p of i (and must be 0 at
// and above bit len(ri)), and the final remainder is j.
func paddingByDivision[E field.Scalar, P field.Ptr[E]](rc, ri, rj []E, h, m int) E {
	nc, ni := len(rc), len(ri)
	// state index remainder·2 + less
	v := make([]E, 2*m)
	live := make([]bool, 2*m)
	start := 0
	if !inRange(h, ni) {
		start = 1
	}
	P(&v[start]).SetOne()
	live[start] = true
	next := make([]E, 2*m)
	nextLive := make([]bool, 2*m)
	for p := nc - 1; p >= 0; p-- {
		c := &rc[nc-1-p]
		// w[cb][qb] = β(rc, cb)·β(ri, qb) for bit p of c and of the quotient.
		var w [2][2]E
		if p < ni {
			r := &ri[ni-1-p]
			P(&w[1][1]).Mul(r, c)
			P(&w[1][0]).Sub(c, &w[1][1])
			P(&w[0][1]).Sub(r, &w[1][1])
			w[0][0] = oneMinus[E, P](c)
			P(&w[0][0]).Sub(&w[0][0], &w[0][1])
		} else {
			w[0][0] = oneMinus[E, P](c)
			w[1][0] = *c
		}
		hb := (h >> p) & 1
		for st := range next {
			var zero E
			next[st], nextLive[st] = zero, false
		}
		for st := range v {
			if !live[st] {
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
				var t E
				P(&t).Mul(&v[st], &w[cb][qb])
				P(&next[to]).Add(&next[to], &t)
				nextLive[to] = true
			}
		}
		v, next = next, v
		live, nextLive = nextLive, live
	}
	var res E
	for rem := range m {
		if !live[rem<<1|1] {
			continue
		}
		t := EqIndex[E, P](rj, rem)
		P(&t).Mul(&t, &v[rem<<1|1])
		P(&res).Add(&res, &t)
	}
	return res
}

// shiftedInterval returns Σ_{j<m} β(rj, j)·β(rc, base + j) (terms with
// base + j ≥ 2^len(rc) are absent), reading bits from the least significant
// end with the state (carry of base + j, [j < m] on the bits read).
func shiftedInterval[E field.Scalar, P field.Ptr[E]](rc, rj []E, base, m int) E {
	const states = 4 // index carry·2 + less
	var v [states]E
	var live [states]bool
	P(&v[0]).SetOne()
	live[0] = true
	nc, nj := len(rc), len(rj)
	for p := range nc {
		c := &rc[nc-1-p]
		// w[jb][cb] = β(rj, jb)·β(rc, cb) for the bit p of j and of c.
		var w [2][2]E
		jBits := 1
		if p < nj {
			jBits = 2
			r := &rj[nj-1-p]
			P(&w[1][1]).Mul(r, c)
			P(&w[1][0]).Sub(r, &w[1][1])
			P(&w[0][1]).Sub(c, &w[1][1])
			w[0][0] = oneMinus[E, P](r)
			P(&w[0][0]).Sub(&w[0][0], &w[0][1])
		} else {
			w[0][0] = oneMinus[E, P](c)
			w[0][1] = *c
		}
		bb, mb := (base>>p)&1, (m>>p)&1
		var next [states]E
		var nextLive [states]bool
		for st := range states {
			if !live[st] {
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
				var t E
				P(&t).Mul(&v[st], &w[jb][sum&1])
				P(&next[to]).Add(&next[to], &t)
				nextLive[to] = true
			}
		}
		v, live = next, nextLive
	}
	if m>>nc != 0 {
		// m has a bit above the bits read, where j has none: j < m.
		P(&v[1]).Add(&v[1], &v[0])
	}
	return v[1]
}

// diagonalPrefix returns Σ_{i<h} β(x, i)·β(y, i) over len(x) = len(y)
// variables (the selector recurrence on pairs of coordinates).
func diagonalPrefix[E field.Scalar, P field.Ptr[E]](x, y []E, h int) E {
	n := len(x)
	full := !inRange(h, n)
	var less E
	all := field.One[E, P]()
	for k := n - 1; k >= 0; k-- {
		var pi, w, e, t E
		P(&pi).Mul(&x[k], &y[k])
		w = oneMinus[E, P](&x[k])
		P(&w).Sub(&w, &y[k])
		P(&w).Add(&w, &pi)
		P(&e).Add(&w, &pi)
		if !full {
			if bitFromTop(h, n, k) == 1 {
				// E ← w·Q + π·E
				P(&t).Mul(&pi, &less)
				P(&less).Mul(&w, &all)
				P(&less).Add(&less, &t)
			} else {
				// E ← w·E
				P(&less).Mul(&w, &less)
			}
		}
		// Q ← e·Q
		P(&all).Mul(&e, &all)
	}
	if full {
		return all
	}
	return less
}

func causalZeroifier[E field.Scalar, P field.Ptr[E]](point []E, s int) E {
	var res E
	l := len(point) / 2
	if s <= 0 {
		return res
	}
	row, col := point[:l], point[l:]
	full := !inRange(s, l)
	le := field.One[E, P]()
	var el, ee E
	for k := l - 1; k >= 0; k-- {
		rho, gamma := &row[k], &col[k]
		var pi, g, e, t E
		P(&pi).Mul(rho, gamma)
		P(&g).Sub(rho, &pi)
		e = oneMinus[E, P](rho)
		P(&e).Sub(&e, gamma)
		w := e
		P(&w).Add(&w, &pi)
		P(&e).Add(&w, &pi)
		if !full {
			if bitFromTop(s, l, k) == 1 {
				// EE ← w·LE + π·EE + g·EL; EL ← 1 − ρ·(1 − EL)
				P(&ee).Mul(&pi, &ee)
				P(&t).Mul(&w, &le)
				P(&ee).Add(&ee, &t)
				P(&t).Mul(&g, &el)
				P(&ee).Add(&ee, &t)
				one := field.One[E, P]()
				P(&t).Sub(&one, &el)
				P(&t).Mul(&t, rho)
				P(&el).Sub(&one, &t)
			} else {
				// EE ← w·EE; EL ← (1 − ρ)·EL
				P(&ee).Mul(&w, &ee)
				P(&t).Mul(rho, &el)
				P(&el).Sub(&el, &t)
			}
		}
		// LE ← e·LE + g
		P(&le).Mul(&e, &le)
		P(&le).Add(&le, &g)
	}
	if full {
		return le
	}
	return ee
}

// betaBit returns β(r, b) for a bit b: r or 1 − r.
func betaBit[E field.Scalar, P field.Ptr[E]](r *E, b int) E {
	if b == 1 {
		return *r
	}
	return oneMinus[E, P](r)
}

func oneMinus[E field.Scalar, P field.Ptr[E]](r *E) E {
	res := field.One[E, P]()
	P(&res).Sub(&res, r)
	return res
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
