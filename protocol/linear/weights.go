package linear

import (
	"fmt"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/poly"
)

// columnBlock is the number of columns whose buckets a worker keeps at
// once: 32 columns of 257 buckets of 32 bytes (257 KiB) stay in L2.
const columnBlock = 32

// maxSide mirrors the gadget's bound on a dimension.
const maxSide = 1 << 24

// EvaluateWeight returns the MLE of the zero-padded out × in int8 matrix w
// (row-major) at point = (r_row ‖ r_col), ⌈log₂ out⌉ + ⌈log₂ in⌉
// coordinates: the native check of a weight claim. It costs one field
// addition per weight (see [foldWeight]) plus two eq tables and an inner
// product.
func EvaluateWeight[E field.Scalar, P field.Ptr[E]](w []int8, out, in int, point []E) (E, error) {
	var res E
	if out < 1 || in < 1 || out > maxSide || in > maxSide || len(w) != out*in {
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
	if len(b) < 1 || len(b) > maxSide || len(point) != poly.Log2Ceil(len(b)) {
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
// The weights are int8, so eq entries are summed by weight value: per
// column, bucket[v] = Σ_{j: W[j,i]=v} eq[j] with one addition per weight,
// then Σ_v v·bucket[v] = Σ_{t=1}^{B} Σ_{v≥t} (bucket[v] − bucket[−v]) in
// 3·B additions for weights in [−B, B]: no multiplication at all.
func foldWeight[E field.Scalar, P field.Ptr[E]](w []int8, out, in int, eq []E, padded int) []E {
	res := make([]E, padded)
	bound := 0
	for _, v := range w {
		bound = max(bound, int(v), -int(v))
	}
	width := 2*bound + 1
	blocks := (in + columnBlock - 1) / columnBlock
	parallel.Execute(blocks, 1, func(start, end int) {
		buckets := make([]E, columnBlock*width)
		for blk := start; blk < end; blk++ {
			c0, c1 := blk*columnBlock, min((blk+1)*columnBlock, in)
			for j := range out {
				addToBuckets(buckets, &eq[j], w[j*in+c0:j*in+c1], width, bound)
			}
			for k := range c1 - c0 {
				bk := buckets[k*width : (k+1)*width]
				var acc, suffix, d E
				for v := bound; v >= 1; v-- {
					P(&d).Sub(&bk[bound+v], &bk[bound-v])
					P(&suffix).Add(&suffix, &d)
					P(&acc).Add(&acc, &suffix)
				}
				res[c0+k] = acc
				clear(bk)
			}
		}
	})
	return res
}

// addToBuckets adds e to buckets[k·width + row[k] + offset] for every k,
// in a loop over the concrete element type so that the additions are
// direct calls: this is the prover's hottest loop.
func addToBuckets[E field.Scalar](buckets []E, e *E, row []int8, width, offset int) {
	switch bk := any(buckets).(type) {
	case []bn254fr.Element:
		x := any(e).(*bn254fr.Element)
		for k, v := range row {
			i := k*width + int(v) + offset
			bk[i].Add(&bk[i], x)
		}
	case []bls12377fr.Element:
		x := any(e).(*bls12377fr.Element)
		for k, v := range row {
			i := k*width + int(v) + offset
			bk[i].Add(&bk[i], x)
		}
	}
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
