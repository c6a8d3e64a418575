package linear

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/poly"
)

// columnBlock is the number of columns whose buckets a worker keeps at
// once: 16 columns of 129 buckets of 40 bytes (81 KiB) stay in L2.
const columnBlock = 16

// weightBound is the largest |w| of an int8 weight.
const weightBound = 128

// EvaluateWeight returns the MLE of the zero-padded out × in int8 matrix w
// (row-major) at point = (r_row ‖ r_col), ⌈log₂ out⌉ + ⌈log₂ in⌉
// coordinates: the native check of a weight claim. It costs one field
// addition per weight (see [foldWeight]) plus two eq tables and an inner
// product.
func EvaluateWeight[E field.Scalar, P field.Ptr[E]](w []int8, out, in int, point []E) (E, error) {
	var res E
	if out < 1 || in < 1 || out > MaxSide || in > MaxSide || len(w) != out*in {
		return res, fmt.Errorf("linear: %d weights for a %d×%d matrix", len(w), out, in)
	}
	a, b := poly.Log2Ceil(out), poly.Log2Ceil(in)
	if len(point) != a+b {
		return res, fmt.Errorf("linear: %d×%d matrix evaluated at a point of %d coordinates, want %d", out, in, len(point), a+b)
	}
	t := foldWeight[E, P](w, out, in, poly.EqTable[E, P](point[:a]), 1<<b)
	return field.InnerProduct(t, poly.EqTable[E, P](point[a:])), nil
}

// EvaluateBias returns the MLE of the zero-padded vector b at point,
// ⌈log₂ len(b)⌉ coordinates.
func EvaluateBias[E field.Scalar, P field.Ptr[E]](b []int64, point []E) (E, error) {
	var res E
	if len(b) < 1 || len(b) > MaxSide || len(point) != poly.Log2Ceil(len(b)) {
		return res, fmt.Errorf("linear: bias of %d entries evaluated at a point of %d coordinates", len(b), len(point))
	}
	eq := poly.EqTable[E, P](point)
	var t E
	for j, v := range b {
		P(&t).SetInt64(v)
		P(&t).Mul(&t, &eq[j])
		P(&res).Add(&res, &t)
	}
	return res, nil
}

// foldWeight returns t[i] = Σ_{j<out} eq[j]·W[j, i] for i < in, zero up to
// padded: the MLE of W with its row variables bound to the point of eq.
//
// The weights are int8, so eq entries are summed by weight value: per
// column, bucket[|v|] = Σ_{j: W[j,i]=v} sign(v)·eq[j] with one addition
// per weight (−eq[j] is precomputed), then Σ_v v·bucket[v] =
// Σ_{t=1}^{128} Σ_{v≥t} bucket[v], 256 additions per column: no
// multiplication at all. The additions are integer additions of the
// Montgomery representations into 320-bit accumulators ([wide]), reduced
// modulo p once per column; the representation is linear, so the reduced
// sum is the representation of the field sum. Bounds: a bucket holds at
// most out ≤ 2^24 values below p < 2^254, and the weighted sum at most
// 128·out·p < 2^286.
func foldWeight[E field.Scalar, P field.Ptr[E]](w []int8, out, in int, eq []E, padded int) []E {
	res := make([]E, padded)
	const width = weightBound + 1
	neg := make([]E, len(eq))
	for j := range eq {
		P(&neg[j]).Neg(&eq[j])
	}
	// signed[j] = (eq[j], −eq[j]), indexed by the sign bit of a weight.
	pos, negs := montgomery(eq), montgomery(neg)
	signed := make([][2][4]uint64, len(eq))
	for j := range signed {
		signed[j] = [2][4]uint64{pos[j], negs[j]}
	}
	red := newReducer[E, P]()
	blocks := (in + columnBlock - 1) / columnBlock
	parallel.Execute(blocks, 1, func(start, end int) {
		buckets := make([]wide, columnBlock*width)
		for blk := start; blk < end; blk++ {
			c0, c1 := blk*columnBlock, min((blk+1)*columnBlock, in)
			for j := range out {
				x := &signed[j]
				for k, v := range w[j*in+c0 : j*in+c1] {
					a := int(v)
					m := a >> 63
					buckets[k*width+(a^m)-m].add(&x[uint8(v)>>7])
				}
			}
			for k := range c1 - c0 {
				bk := buckets[k*width : (k+1)*width]
				var acc, suffix wide
				for v := weightBound; v >= 1; v-- {
					suffix.addWide(&bk[v])
					acc.addWide(&suffix)
				}
				res[c0+k] = red.reduce(&acc)
				clear(bk)
			}
		}
	})
	return res
}

// wide is a 320-bit unsigned integer, little-endian limbs: a sum of up to
// 2^66 field elements' representations without reduction.
type wide [5]uint64

// add adds a 256-bit representation.
func (a *wide) add(x *[4]uint64) {
	var c uint64
	a[0], c = bits.Add64(a[0], x[0], 0)
	a[1], c = bits.Add64(a[1], x[1], c)
	a[2], c = bits.Add64(a[2], x[2], c)
	a[3], c = bits.Add64(a[3], x[3], c)
	a[4] += c
}

// addWide adds another accumulator (the caller keeps the sum below
// 2^320).
func (a *wide) addWide(x *wide) {
	var c uint64
	a[0], c = bits.Add64(a[0], x[0], 0)
	a[1], c = bits.Add64(a[1], x[1], c)
	a[2], c = bits.Add64(a[2], x[2], c)
	a[3], c = bits.Add64(a[3], x[3], c)
	a[4], _ = bits.Add64(a[4], x[4], c)
}

// montgomery returns the Montgomery representations (the limbs) of field
// elements: both Scalar types are [4]uint64 underneath.
func montgomery[E field.Scalar](xs []E) [][4]uint64 {
	out := make([][4]uint64, len(xs))
	for i := range xs {
		out[i] = [4]uint64(xs[i])
	}
	return out
}

// reducer turns a [wide] sum T of representations into the field element
// whose representation is T mod p. With T = lo + hi·2^256: lo mod p (at
// most 13 subtractions of p: 2^256 < 6p for BN254, < 14p for BLS12-377) is a
// representation as it stands, and hi·2^256 is added as the element of
// representation hi times the element of value 2^256 (representation hi
// means the value hi·R⁻¹, R = 2^256, and the product's representation is
// then hi·2^256 mod p). One multiplication per column at most.
type reducer[E field.Scalar, P field.Ptr[E]] struct {
	modulus [4]uint64
	shift   E
}

func newReducer[E field.Scalar, P field.Ptr[E]]() *reducer[E, P] {
	m := field.Modulus[E]()
	r := &reducer[E, P]{}
	for i := range r.modulus {
		r.modulus[i] = new(big.Int).Rsh(m, uint(64*i)).Uint64()
	}
	r.shift = field.MontgomeryR[E, P]()
	return r
}

func (r *reducer[E, P]) reduce(x *wide) E {
	lo := [4]uint64{x[0], x[1], x[2], x[3]}
	for !less(&lo, &r.modulus) {
		var b uint64
		lo[0], b = bits.Sub64(lo[0], r.modulus[0], 0)
		lo[1], b = bits.Sub64(lo[1], r.modulus[1], b)
		lo[2], b = bits.Sub64(lo[2], r.modulus[2], b)
		lo[3], _ = bits.Sub64(lo[3], r.modulus[3], b)
	}
	res := E(lo)
	if x[4] != 0 {
		t := E([4]uint64{x[4], 0, 0, 0})
		P(&t).Mul(&t, &r.shift)
		P(&res).Add(&res, &t)
	}
	return res
}

// less reports a < b for little-endian 256-bit integers.
func less(a, b *[4]uint64) bool {
	for i := 3; i >= 0; i-- {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// inputTable returns X (rows × in) as field elements, rows × paddedIn with
// zeros in the padded columns (the padded rows are never needed: eq
// entries beyond the last row multiply zeros).
func inputTable[E field.Scalar, P field.Ptr[E]](x []int64, rows, in, paddedIn int) []E {
	out := make([]E, rows*paddedIn)
	parallel.Execute(rows, 1, func(start, end int) {
		for r := start; r < end; r++ {
			for i, v := range x[r*in : (r+1)*in] {
				P(&out[r*paddedIn+i]).SetInt64(v)
			}
		}
	})
	return out
}

// foldInputRows returns Σ_r eq[r]·X[r, ·] over the rows of the table x
// (rows × paddedIn): X with its row variables bound.
func foldInputRows[E field.Scalar](x []E, rows, paddedIn int, eq []E) []E {
	out := make([]E, paddedIn)
	tmp := make([]E, paddedIn)
	for r := range rows {
		field.ScalarMul(tmp, x[r*paddedIn:(r+1)*paddedIn], &eq[r])
		field.Add(out, out, tmp)
	}
	return out
}

// foldInputCols returns X[r, ·]·eq for every row, zero up to paddedRows:
// X with its column variables bound.
func foldInputCols[E field.Scalar](x []E, rows, paddedRows int, eq []E) []E {
	out := make([]E, paddedRows)
	cols := len(eq)
	for r := range rows {
		out[r] = field.InnerProduct(x[r*cols:(r+1)*cols], eq)
	}
	return out
}
