package qkv

import (
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/poly"
)

// maxBucketWeight is the largest |w| for which [foldRows] sorts the eq
// entries into buckets by weight value instead of multiplying: 3·B
// additions per column against one multiplication per weight.
const maxBucketWeight = 1 << 8

// columnBlock is the number of columns whose bucket indices a worker
// gathers at once from the row-major weights: 1 KiB of each row read
// sequentially, 2·128·rows bytes of indices kept in the L2 cache.
const columnBlock = 128

// PadMatrix returns the rows×cols row-major integer matrix as field
// elements in a 2^a × 2^b table, a = ⌈log₂ rows⌉, b = ⌈log₂ cols⌉, zeros in
// the padding (entry (i, j) at index i·2^b + j).
func PadMatrix[E field.Scalar, P field.Ptr[E]](values []int64, rows, cols int) []E {
	pc := poly.NextPowerOfTwo(cols)
	out := make([]E, poly.NextPowerOfTwo(rows)*pc)
	for i := range rows {
		for j, v := range values[i*cols : (i+1)*cols] {
			P(&out[i*pc+j]).SetInt64(v)
		}
	}
	return out
}

// EvaluateMatrix returns the MLE of the zero-padded rows×cols matrix at
// point = (r_row ‖ r_col) with ⌈log₂ rows⌉ + ⌈log₂ cols⌉ coordinates: the
// native check of a weight claim. A vector is a 1×n matrix. Like
// poly.Evaluate it panics when the point has the wrong number of
// coordinates, a programming error (claims returned by the verifiers have
// the documented lengths).
func EvaluateMatrix[E field.Scalar, P field.Ptr[E]](values []int64, rows, cols int, point []E) E {
	return poly.Evaluate[E, P](PadMatrix[E, P](values, rows, cols), point)
}

// foldRows returns t[c] = Σ_{j<rows} eq[j]·W[j, c] for c < cols, zero up to
// paddedCols: the matrix W (rows×cols, row-major) with its row variables
// bound to the point of eq. Small weights (|w| ≤ 256, every quantized
// model) are summed by value: per column, bucket[v] = Σ_{j: W[j,c]=v} eq[j]
// with one addition per weight, then Σ_v v·bucket[v] as Σ_{t≥1} Σ_{v≥t}
// (bucket[v] − bucket[−v]), 3·B additions for weights in [−B, B]. Larger
// weights take one multiplication each.
func foldRows[E field.Scalar, P field.Ptr[E]](w []int64, rows, cols int, eq []E, paddedCols int) []E {
	out := make([]E, paddedCols)
	bound := int64(0)
	for _, v := range w {
		bound = max(bound, v, -v)
	}
	if bound > maxBucketWeight {
		parallel.Execute(cols, columnBlock, func(start, end int) {
			var x, t E
			for j := range rows {
				row := w[j*cols : (j+1)*cols]
				for c := start; c < end; c++ {
					P(&x).SetInt64(row[c])
					P(&t).Mul(&x, &eq[j])
					P(&out[c]).Add(&out[c], &t)
				}
			}
		})
		return out
	}
	b := int(bound)
	width := 2*b + 1
	blocks := (cols + columnBlock - 1) / columnBlock
	parallel.Execute(blocks, 1, func(start, end int) {
		buckets := make([]E, width)
		// index[k·rows + j] = W[j, c0+k] + B: a block of columns gathered
		// once, so that each column's pass touches only its buckets, eq and
		// these indices (all in L1 for real widths).
		index := make([]uint16, columnBlock*rows)
		for blk := start; blk < end; blk++ {
			c0, c1 := blk*columnBlock, min((blk+1)*columnBlock, cols)
			for j := range rows {
				for k, v := range w[j*cols+c0 : j*cols+c1] {
					index[k*rows+j] = uint16(int(v) + b)
				}
			}
			for k := range c1 - c0 {
				out[c0+k] = bucketColumn(buckets, eq[:rows], index[k*rows:(k+1)*rows], b)
			}
		}
	})
	return out
}

// bucketColumn returns Σ_j eq[j]·(index[j] − B) for one column: it adds
// eq[j] to buckets[index[j]], then computes Σ_v v·bucket[v] =
// Σ_{v>0} v·(bucket[B+v] − bucket[B−v]) = Σ_{t>0} Σ_{v≥t} (bucket[B+v] −
// bucket[B−v]) with 3·B additions, and clears the buckets. It dispatches
// once to loops over the concrete element type, whose additions the
// compiler calls directly: this is the prover's hottest loop.
func bucketColumn[E field.Scalar](buckets, eq []E, index []uint16, b int) E {
	var res E
	switch bk := any(buckets).(type) {
	case []bn254fr.Element:
		e := any(eq).([]bn254fr.Element)
		for j, i := range index {
			bk[i].Add(&bk[i], &e[j])
		}
		var acc, suffix, d bn254fr.Element
		for v := b; v >= 1; v-- {
			d.Sub(&bk[b+v], &bk[b-v])
			suffix.Add(&suffix, &d)
			acc.Add(&acc, &suffix)
		}
		*any(&res).(*bn254fr.Element) = acc
	case []bls12377fr.Element:
		e := any(eq).([]bls12377fr.Element)
		for j, i := range index {
			bk[i].Add(&bk[i], &e[j])
		}
		var acc, suffix, d bls12377fr.Element
		for v := b; v >= 1; v-- {
			d.Sub(&bk[b+v], &bk[b-v])
			suffix.Add(&suffix, &d)
			acc.Add(&acc, &suffix)
		}
		*any(&res).(*bls12377fr.Element) = acc
	}
	clear(buckets)
	return res
}

// foldMatrixRows returns Σ_row eq[row]·M[row, ·] for a padded field table M
// of len(eq) rows: the MLE of M with its row variables bound.
func foldMatrixRows[E field.Scalar](m []E, eq []E) []E {
	cols := len(m) / len(eq)
	out := make([]E, cols)
	tmp := make([]E, cols)
	for row := range eq {
		field.ScalarMul(tmp, m[row*cols:(row+1)*cols], &eq[row])
		field.Add(out, out, tmp)
	}
	return out
}

// foldMatrixCols returns M[row, ·]·eq for every row of a padded field table
// M of len(eq) columns: the MLE of M with its column variables bound.
func foldMatrixCols[E field.Scalar](m []E, eq []E) []E {
	cols := len(eq)
	out := make([]E, len(m)/cols)
	for row := range out {
		out[row] = field.InnerProduct(m[row*cols:(row+1)*cols], eq)
	}
	return out
}

// Compute returns the layer's outputs in plain integers: Q = X·W_Qᵀ + b_Q,
// K = X·W_Kᵀ + b_K, V = X·W_Vᵀ + b_V, row-major Rows × QCols and Rows ×
// KVCols. The caller keeps the products within int64 (the model package
// checks its accumulator bound).
func Compute(cfg Config, w Witness) (q, k, v []int64, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, nil, err
	}
	if err := w.check(cfg); err != nil {
		return nil, nil, nil, err
	}
	project := func(weight, bias []int64, out int) []int64 {
		res := make([]int64, cfg.Rows*out)
		for i := range cfg.Rows {
			x := w.X[i*cfg.Hidden : (i+1)*cfg.Hidden]
			for j := range out {
				var acc int64
				if bias != nil {
					acc = bias[j]
				}
				for c, wv := range weight[j*cfg.Hidden : (j+1)*cfg.Hidden] {
					acc += x[c] * wv
				}
				res[i*out+j] = acc
			}
		}
		return res
	}
	return project(w.WQ, w.BQ, cfg.QCols()), project(w.WK, w.BK, cfg.KVCols()), project(w.WV, w.BV, cfg.KVCols()), nil
}
