package model

import "github.com/veriformer/veriformer/internal/parallel"

// matmulMinWork is the number of multiply-adds below which a matmul runs
// on the calling goroutine.
const matmulMinWork = 1 << 15

// MatMulInt computes acc[r·out+j] = Σᵢ x[r·in+i]·w[j·in+i] + bias[j] for
// rows×in activations x and out×in int8 weights w (bias may be nil). The
// caller guarantees that the int64 accumulators cannot wrap (see doc.go,
// "Bounds").
//
// Output columns are split across cores. With two or more rows the kernel
// multiplies two rows at once: it packs x[2p][i] + x[2p+1][i]·2^32 into one
// int64, so each multiplication by a weight yields two products, and sums
// blocks of inputs short enough that each half stays inside an int32
// (block·127·max|x| < 2^31); every block sum is split exactly into its two
// halves before it is added to the int64 totals. A single row (decoding)
// uses a plain dot product: packing two weight rows instead measured no
// faster here.
func MatMulInt(x []int64, rows, in int, w []int8, out int, bias []int64) []int64 {
	acc := make([]int64, rows*out)
	minChunk := max(1, matmulMinWork/max(1, rows*in))
	if rows == 1 {
		parallel.Execute(out, minChunk, func(start, end int) {
			for j := start; j < end; j++ {
				acc[j] = dotInt(x, w[j*in:(j+1)*in]) + biasAt(bias, j)
			}
		})
		return acc
	}
	var maxX int64
	for _, v := range x[:rows*in] {
		maxX = max(maxX, v, -v)
	}
	block := in
	if maxX > 0 {
		block = min(in, int((1<<31-1)/(WeightMax*maxX)))
	}
	if block < 16 {
		parallel.Execute(out, minChunk, func(start, end int) {
			for j := start; j < end; j++ {
				for r := range rows {
					acc[r*out+j] = dotInt(x[r*in:(r+1)*in], w[j*in:(j+1)*in]) + biasAt(bias, j)
				}
			}
		})
		return acc
	}
	pairs := rows / 2
	packed := make([]int64, pairs*in)
	for p := range pairs {
		x0, x1 := x[2*p*in:(2*p+1)*in], x[(2*p+1)*in:(2*p+2)*in]
		for i := range in {
			packed[p*in+i] = x0[i] + x1[i]<<32
		}
	}
	parallel.Execute(out, minChunk, func(start, end int) {
		var totals [8]int64
		for j := start; j < end; j++ {
			wj := w[j*in : (j+1)*in]
			b := biasAt(bias, j)
			for p := 0; p < pairs; p += 4 {
				n := min(4, pairs-p)
				totals = [8]int64{}
				for b0 := 0; b0 < in; b0 += block {
					b1 := min(b0+block, in)
					ww := wj[b0:b1]
					var sums [4]int64
					if n == 4 {
						sums[0], sums[1], sums[2], sums[3] = dot4Int(
							packed[p*in+b0:p*in+b1], packed[(p+1)*in+b0:(p+1)*in+b1],
							packed[(p+2)*in+b0:(p+2)*in+b1], packed[(p+3)*in+b0:(p+3)*in+b1], ww)
					} else {
						for k := range n {
							sums[k] = dotInt(packed[(p+k)*in+b0:(p+k)*in+b1], ww)
						}
					}
					for k := range n {
						lo := int64(int32(sums[k]))
						totals[2*k] += lo
						totals[2*k+1] += (sums[k] - lo) >> 32
					}
				}
				for k := range 2 * n {
					acc[(2*p+k)*out+j] = totals[k] + b
				}
			}
			if rows%2 == 1 {
				acc[(rows-1)*out+j] = dotInt(x[(rows-1)*in:rows*in], wj) + b
			}
		}
	})
	return acc
}

func biasAt(bias []int64, j int) int64 {
	if bias == nil {
		return 0
	}
	return bias[j]
}

// dot4Int returns the dot products of four vectors with w. It is a leaf
// function so that its accumulators stay in registers.
func dot4Int(y0, y1, y2, y3 []int64, w []int8) (s0, s1, s2, s3 int64) {
	y0, y1, y2, y3 = y0[:len(w)], y1[:len(w)], y2[:len(w)], y3[:len(w)]
	for i, wv := range w {
		v := int64(wv)
		s0 += y0[i] * v
		s1 += y1[i] * v
		s2 += y2[i] * v
		s3 += y3[i] * v
	}
	return s0, s1, s2, s3
}

// dotInt returns Σᵢ x[i]·w[i] over len(w) terms.
func dotInt(x []int64, w []int8) int64 {
	x = x[:len(w)]
	var s0, s1, s2, s3 int64
	i := 0
	for ; i+4 <= len(w); i += 4 {
		ww := w[i : i+4 : i+4]
		xx := x[i : i+4 : i+4]
		s0 += xx[0] * int64(ww[0])
		s1 += xx[1] * int64(ww[1])
		s2 += xx[2] * int64(ww[2])
		s3 += xx[3] * int64(ww[3])
	}
	for ; i < len(w); i++ {
		s0 += x[i] * int64(w[i])
	}
	return s0 + s1 + s2 + s3
}
