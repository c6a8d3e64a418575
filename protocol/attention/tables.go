package attention

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
)

// padded holds the padded integer tensors the prover works on.
type padded struct {
	query  []int64 // Q̂: ŝ_q × ĥ·m̂, columns (a, b, t)
	keys   []int64 // K̂: l̂ × ĥ_kv·m̂, columns (a, t)
	values []int64 // V̂: l̂ × ĥ_kv·m̂
	probs  []int64 // A: ĥ × ŝ_q × l̂
}

// padQuery returns Q̂ = Q·P_Q: column i·m + t of row j moves to column
// (a·ĝ + b)·m̂ + t.
func (d *Dims) padQuery(q []int64) []int64 {
	out := make([]int64, d.paddedRows()*d.paddedQueryCols())
	w, pw := d.Heads*d.Width, d.paddedQueryCols()
	for j := range d.QueryRows {
		for c := range w {
			out[j*pw+d.queryColumn(c)] = q[j*w+c]
		}
	}
	return out
}

// padKV returns K̂ = K·P_kv (or V̂): column a·m + t moves to a·m̂ + t.
func (d *Dims) padKV(k []int64) []int64 {
	out := make([]int64, d.paddedKeys()*d.paddedKVCols())
	w, pw := d.KVHeads*d.Width, d.paddedKVCols()
	for r := range d.KeyRows {
		for c := range w {
			out[r*pw+d.kvColumn(c)] = k[r*w+c]
		}
	}
	return out
}

// scoresOf returns Q̂_{(a,b)}·K̂_aᵀ for every padded head: ĥ × ŝ_q × l̂.
func (d *Dims) scoresOf(q, k []int64) []int64 {
	hkv, hg, mw := d.paddedKVHeads(), d.paddedGroup(), d.paddedWidth()
	rows, keys, qw, kw := d.paddedRows(), d.paddedKeys(), d.paddedQueryCols(), d.paddedKVCols()
	out := make([]int64, hkv*hg*rows*keys)
	for a := range hkv {
		for b := range hg {
			h := a*hg + b
			for j := range rows {
				qr := q[j*qw+h*mw : j*qw+(h+1)*mw]
				dst := out[(h*rows+j)*keys : (h*rows+j+1)*keys]
				for r := range keys {
					dst[r] = dot(qr, k[r*kw+a*mw:r*kw+(a+1)*mw])
				}
			}
		}
	}
	return out
}

// maskedOf returns S ⊙ ẑ + c·(1 − ẑ) over the padded score tensor.
func (d *Dims) maskedOf(s []int64, c int64) []int64 {
	out := make([]int64, len(s))
	rows, keys := d.paddedRows(), d.paddedKeys()
	for i := range out {
		j, k := (i/keys)%rows, i%keys
		if d.zero(j, k) {
			out[i] = s[i]
		} else {
			out[i] = c
		}
	}
	return out
}

// zero is the zeroifier entry z[j, k] over the padded ŝ_q × l̂ matrix.
func (d *Dims) zero(j, k int) bool {
	return j < d.QueryRows && k < d.KeyRows && d.visible(j, k)
}

// outputOf returns Ô = A_{(a,b)}·V̂_a for every padded head, concatenated by
// columns: ŝ_q × ĥ·m̂.
func (d *Dims) outputOf(a, v []int64) []int64 {
	hkv, hg, mw := d.paddedKVHeads(), d.paddedGroup(), d.paddedWidth()
	rows, keys, ow, vw := d.paddedRows(), d.paddedKeys(), d.paddedQueryCols(), d.paddedKVCols()
	out := make([]int64, rows*ow)
	for kv := range hkv {
		for b := range hg {
			h := kv*hg + b
			for j := range rows {
				o := out[j*ow+h*mw : j*ow+(h+1)*mw]
				p := a[(h*rows+j)*keys : (h*rows+j+1)*keys]
				for r, pr := range p {
					if pr == 0 {
						continue
					}
					vr := v[r*vw+kv*mw : r*vw+(kv+1)*mw]
					for t := range o {
						o[t] += pr * vr[t]
					}
				}
			}
		}
	}
	return out
}

// toField returns src as field elements.
func toField[E field.Scalar](src []int64) []E {
	out := make([]E, len(src))
	field.SetInt64s(out, src)
	return out
}

// combineRows returns Σ_r weights[r]·m[r], m a matrix of width cols stored
// row-major (rows beyond len(weights) are ignored, as are zero weights).
func combineRows[E field.Scalar, P field.Ptr[E]](m []int64, cols int, weights []E) []E {
	out := make([]E, cols)
	row := make([]E, cols)
	for r := 0; r*cols < len(m) && r < len(weights); r++ {
		if P(&weights[r]).IsZero() {
			continue
		}
		field.SetMontgomeryLimbs(row, m[r*cols:(r+1)*cols])
		field.ScalarMul(row, row, &weights[r])
		field.Add(out, out, row)
	}
	scale := field.MontgomeryR[E, P]()
	field.ScalarMul(out, out, &scale)
	return out
}

// expand returns the table of f(x, y) = v[x] over len(v) × inner entries.
func expand[E field.Scalar](v []E, inner int) []E {
	out := make([]E, len(v)*inner)
	for x := range v {
		for y := range inner {
			out[x*inner+y] = v[x]
		}
	}
	return out
}

// gatherQuery returns T[c] = v[column of c in Q̂] for the real columns c <
// h_q·m of Q and 0 for the other indices of [0, D_q): from eqCol =
// β(r_col, ·) over the ĥ·m̂ columns of Q̂ it is the table of P_Q(·, r_col);
// from a row of Q̂ it is the same row of Q = Q̂·Pᵀ_Q.
func gatherQuery[E field.Scalar](d *Dims, v []E) []E {
	out := make([]E, d.queryCols())
	for c := range d.Heads * d.Width {
		out[c] = v[d.queryColumn(c)]
	}
	return out
}

// scatterQuery returns T[column of c in Q̂] = eqRow[c] for c < h_q·m and 0
// elsewhere: the table of U(·, r_d) = P_Q(r_d, ·) over the ĥ·m̂ columns of
// Ô, from eqRow = β(r_d, ·) over [0, D_q).
func scatterQuery[E field.Scalar](d *Dims, eqRow []E) []E {
	out := make([]E, d.paddedQueryCols())
	for c := range d.Heads * d.Width {
		out[d.queryColumn(c)] = eqRow[c]
	}
	return out
}

// gatherKV is [gatherQuery] for K and V (indices of [0, D_kv)).
func gatherKV[E field.Scalar](d *Dims, v []E) []E {
	out := make([]E, d.kvCols())
	for c := range d.KVHeads * d.Width {
		out[c] = v[d.kvColumn(c)]
	}
	return out
}

// zeroifierTable returns the 0/1 table of z over ŝ_q × l̂.
func zeroifierTable[E field.Scalar, P field.Ptr[E]](d *Dims) []E {
	rows, keys := d.paddedRows(), d.paddedKeys()
	out := make([]E, rows*keys)
	for j := range rows {
		for k := range keys {
			if d.zero(j, k) {
				P(&out[j*keys+k]).SetOne()
			}
		}
	}
	return out
}

// The verifier's closed forms (O(log) field operations each).

// queryPadding returns P̃_Q(r_c, r_a, r_b, r_t) for Q̂ = Q·P_Q,
// P_Q[(a·g + b)·m + t, (a·ĝ + b)·m̂ + t] = 1 (a < h_kv, b < g, t < m):
//   - g a power of two: (a, b) are the bits of the head index i = a·g + b,
//     and P_Q is the padding matrix of h_q heads of width m;
//   - m a power of two: the low log₂ m bits of the row are t, so
//     P̃_Q = β(r_c^lo, r_t) · P̃_{h_kv, g}(r_c^hi, r_a, r_b), the padding
//     matrix of h_kv "heads" of g members.
func queryPadding[E field.Scalar, P field.Ptr[E]](d *Dims, rc, rCol []E) (E, error) {
	if poly.IsPowerOfTwo(d.Group) {
		v, err := poly.Padding[E, P](poly.Concat(rc, rCol), d.Heads, d.Width)
		if err != nil {
			return v, fmt.Errorf("attention: query padding: %w", err)
		}
		return v, nil
	}
	hv := len(rc) - d.WidthVars
	ra := rCol[:d.HeadVars()]
	rt := rCol[d.HeadVars():]
	v, err := poly.Padding[E, P](poly.Concat(rc[:hv], ra), d.KVHeads, d.Group)
	if err != nil {
		return v, fmt.Errorf("attention: query padding: %w", err)
	}
	eq := poly.Eq[E, P](rc[hv:], rt)
	P(&v).Mul(&v, &eq)
	return v, nil
}

// kvPadding returns P̃_kv(r_c, r_a, r_t), the padding matrix of h_kv heads of
// width m.
func kvPadding[E field.Scalar, P field.Ptr[E]](d *Dims, rc, rCol []E) (E, error) {
	v, err := poly.Padding[E, P](poly.Concat(rc, rCol), d.KVHeads, d.Width)
	if err != nil {
		return v, fmt.Errorf("attention: key/value padding: %w", err)
	}
	return v, nil
}

// zeroifier returns z̃(r_row, r_key) for z[j, k] = [j < s_q ∧ k ≤ Start + j]
// over ŝ_q × l̂: the causal zeroifier of seed 002 for a prefill pass, the
// selector of the first Start + 1 keys for one query row, the shifted
// causal automaton (poly.ShiftedCausal) otherwise.
func zeroifier[E field.Scalar, P field.Ptr[E]](d *Dims, rRow, rKey []E) (E, error) {
	switch {
	case d.QueryRows == 1:
		return poly.Prefix[E, P](rKey, d.Start+1), nil
	case d.Start == 0 && d.QueryRows == d.KeyRows:
		z, err := poly.CausalZeroifier[E, P](poly.Concat(rRow, rKey), d.QueryRows)
		if err != nil {
			return z, fmt.Errorf("attention: zeroifier: %w", err)
		}
		return z, nil
	default:
		return poly.ShiftedCausal[E, P](rRow, rKey, d.QueryRows, d.Start), nil
	}
}

// prefixZero returns Πₖ (1 − rₖ): the factor that extends a table of 2ⁿ
// entries with zeros to 2^(n+len(r)) entries (the new variables first).
func prefixZero[E field.Scalar, P field.Ptr[E]](r []E) E {
	res := field.One[E, P]()
	one := field.One[E, P]()
	for k := range r {
		var t E
		P(&t).Sub(&one, &r[k])
		P(&res).Mul(&res, &t)
	}
	return res
}
