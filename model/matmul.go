package model

import "github.com/veriformer/veriformer/internal/parallel"

// matmulMinWork is the number of multiply-adds below which a matmul runs
// on the calling goroutine.
const matmulMinWork = 1 << 15

// MatMulInt computes acc[r·out+j] = Σᵢ x[r·in+i]·w[j·in+i] + bias[j] for
// rows×in activations x and out×in int8 weights w (bias may be nil). Output
// columns are split across cores; within a worker four rows share each
// pass over a weight row, so a weight row is read once per four rows.
// The caller guarantees the accumulator bound (see doc.go, "Bounds").
func MatMulInt(x []int64, rows, in int, w []int8, out int, bias []int64) []int64 {
	acc := make([]int64, rows*out)
	minChunk := max(1, matmulMinWork/max(1, rows*in))
	parallel.Execute(out, minChunk, func(start, end int) {
		for j := start; j < end; j++ {
			wj := w[j*in : (j+1)*in]
			var b int64
			if bias != nil {
				b = bias[j]
			}
			r := 0
			for ; r+4 <= rows; r += 4 {
				x0 := x[r*in : (r+1)*in]
				x1 := x[(r+1)*in : (r+2)*in]
				x2 := x[(r+2)*in : (r+3)*in]
				x3 := x[(r+3)*in : (r+4)*in]
				var s0, s1, s2, s3 int64
				for i, wv := range wj {
					v := int64(wv)
					s0 += x0[i] * v
					s1 += x1[i] * v
					s2 += x2[i] * v
					s3 += x3[i] * v
				}
				acc[r*out+j] = s0 + b
				acc[(r+1)*out+j] = s1 + b
				acc[(r+2)*out+j] = s2 + b
				acc[(r+3)*out+j] = s3 + b
			}
			for ; r < rows; r++ {
				xr := x[r*in : (r+1)*in]
				var s0, s1 int64
				i := 0
				for ; i+2 <= in; i += 2 {
					s0 += xr[i] * int64(wj[i])
					s1 += xr[i+1] * int64(wj[i+1])
				}
				if i < in {
					s0 += xr[i] * int64(wj[i])
				}
				acc[r*out+j] = s0 + s1 + b
			}
		}
	})
	return acc
}

// MatMulFloat32 is the float32 twin of [MatMulInt] with the same blocking
// and parallelism: the baseline the benchmarks compare against.
func MatMulFloat32(x []float32, rows, in int, w []float32, out int, bias []float32) []float32 {
	acc := make([]float32, rows*out)
	minChunk := max(1, matmulMinWork/max(1, rows*in))
	parallel.Execute(out, minChunk, func(start, end int) {
		for j := start; j < end; j++ {
			wj := w[j*in : (j+1)*in]
			var b float32
			if bias != nil {
				b = bias[j]
			}
			r := 0
			for ; r+4 <= rows; r += 4 {
				x0 := x[r*in : (r+1)*in]
				x1 := x[(r+1)*in : (r+2)*in]
				x2 := x[(r+2)*in : (r+3)*in]
				x3 := x[(r+3)*in : (r+4)*in]
				var s0, s1, s2, s3 float32
				for i, v := range wj {
					s0 += x0[i] * v
					s1 += x1[i] * v
					s2 += x2[i] * v
					s3 += x3[i] * v
				}
				acc[r*out+j] = s0 + b
				acc[(r+1)*out+j] = s1 + b
				acc[(r+2)*out+j] = s2 + b
				acc[(r+3)*out+j] = s3 + b
			}
			for ; r < rows; r++ {
				xr := x[r*in : (r+1)*in]
				var s0, s1 float32
				i := 0
				for ; i+2 <= in; i += 2 {
					s0 += xr[i] * wj[i]
					s1 += xr[i+1] * wj[i+1]
				}
				if i < in {
					s0 += xr[i] * wj[i]
				}
				acc[r*out+j] = s0 + s1 + b
			}
		}
	})
	return acc
}
