package model

import (
	"strconv"
	"testing"
	"time"

	"github.com/veriformer/veriformer/internal/parallel"
)

// projections lists the quantized projections of one pass in order, LM
// head included.
func projections(m *Model) []*QLinear {
	var out []*QLinear
	for i := range m.Quant.Layers {
		l := &m.Quant.Layers[i]
		out = append(out, &l.Q, &l.K, &l.V, &l.O)
		if l.Gate != nil {
			out = append(out, l.Gate)
		}
		out = append(out, &l.Up, &l.Down)
	}
	return append(out, &m.Quant.LMHead)
}

// benchmarkTokens measures greedy decoding of newTokens after a prompt of
// promptLen tokens (full integer pass with traces) and, interleaved in the
// same iterations so that machine load affects all three alike, the
// matmuls of the same passes alone: with the int8 kernel on the model's
// weights and with the float32 baseline kernel on float32 copies of them.
// ns/op covers all three; the metrics separate them.
func benchmarkTokens(b *testing.B, m *Model, promptLen, newTokens int) {
	prompt := make([]int, promptLen)
	for i := range prompt {
		prompt[i] = (i*37 + 5) % m.Config.Vocab
	}
	projs := projections(m)
	floats := make([][]float32, len(projs))
	maxIn := 0
	for i, q := range projs {
		out, in := q.Weight.Shape[0], q.Weight.Shape[1]
		maxIn = max(maxIn, in)
		floats[i] = make([]float32, out*in)
		for j := range out {
			for k := range in {
				floats[i][j*in+k] = float32(q.Scales[j] * float64(q.Weight.Data[j*in+k]))
			}
		}
	}
	xInt := make([]int64, promptLen*maxIn)
	xFloat := make([]float32, promptLen*maxIn)
	for i := range xInt {
		xInt[i] = int64(i%20001 - 10000)
		xFloat[i] = float32(xInt[i]) / 10000
	}
	rowsPerPass := []int{promptLen}
	for range newTokens - 1 {
		rowsPerPass = append(rowsPerPass, 1)
	}
	var inference, intMatmul, floatMatmul time.Duration
	b.ResetTimer()
	for range b.N {
		t := time.Now()
		if _, err := m.Generate(prompt, newTokens); err != nil {
			b.Fatal(err)
		}
		inference += time.Since(t)
		t = time.Now()
		for _, rows := range rowsPerPass {
			for _, q := range projs {
				out, in := q.Weight.Shape[0], q.Weight.Shape[1]
				MatMulInt(xInt[:rows*in], rows, in, q.Weight.Data, out, q.Bias)
			}
		}
		intMatmul += time.Since(t)
		t = time.Now()
		for _, rows := range rowsPerPass {
			for i, q := range projs {
				out, in := q.Weight.Shape[0], q.Weight.Shape[1]
				MatMulFloat32(xFloat[:rows*in], rows, in, floats[i], out, nil)
			}
		}
		floatMatmul += time.Since(t)
	}
	tokens := float64(b.N * newTokens)
	b.ReportMetric(tokens/inference.Seconds(), "tokens/s")
	b.ReportMetric(tokens/intMatmul.Seconds(), "int8-matmul-tokens/s")
	b.ReportMetric(tokens/floatMatmul.Seconds(), "f32-matmul-tokens/s")
	b.ReportMetric(floatMatmul.Seconds()/inference.Seconds(), "tokens/s÷f32-matmul")
	b.ReportMetric(floatMatmul.Seconds()/intMatmul.Seconds(), "int8÷f32-matmul")
}

// BenchmarkDefaultTokensPerSecond decodes 16 tokens after an 8-token
// prompt with the default model.
func BenchmarkDefaultTokensPerSecond(b *testing.B) {
	benchmarkTokens(b, Default(), 8, 16)
}

// BenchmarkGPT2SmallTokensPerSecond decodes 8 tokens after an 8-token
// prompt with random weights of GPT-2 small's shape (12 layers, d = 768,
// 12 heads, vocabulary 50257); building the model is not timed.
func BenchmarkGPT2SmallTokensPerSecond(b *testing.B) {
	c := GPT2SmallConfig(1024)
	w, err := RandomWeights(c, 1, 0.1, 1)
	if err != nil {
		b.Fatal(err)
	}
	m, err := New(c, w, &QuantOptions{Calibration: [][]int{{1, 2, 3, 4, 5, 6, 7, 8}}})
	if err != nil {
		b.Fatal(err)
	}
	benchmarkTokens(b, m, 8, 8)
}

// BenchmarkMatMul compares the int8 kernel with the float32 baseline on a
// GPT-2 small MLP projection (768 → 3072) for one row (decoding) and 32
// rows (a prompt).
func BenchmarkMatMul(b *testing.B) {
	const in, out = 768, 3072
	wInt := make([]int8, in*out)
	wFloat := make([]float32, in*out)
	for i := range wInt {
		wInt[i] = int8(i%255 - 127)
		wFloat[i] = float32(wInt[i]) / 127
	}
	for _, rows := range []int{1, 32} {
		xInt := make([]int64, rows*in)
		xFloat := make([]float32, rows*in)
		for i := range xInt {
			xInt[i] = int64(i%60001 - 30000)
			xFloat[i] = float32(xInt[i]) / 30000
		}
		b.Run("int8/rows="+strconv.Itoa(rows), func(b *testing.B) {
			for b.Loop() {
				MatMulInt(xInt, rows, in, wInt, out, nil)
			}
		})
		b.Run("float32/rows="+strconv.Itoa(rows), func(b *testing.B) {
			for b.Loop() {
				MatMulFloat32(xFloat, rows, in, wFloat, out, nil)
			}
		})
	}
}

// MatMulFloat32 is the float32 twin of MatMulInt with the same
// parallelism and dot-product structure (four rows per pass over a weight
// row, four accumulators for one row): the baseline the benchmarks compare
// against.
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
				s0, s1, s2, s3 := dot4Float(x[r*in:(r+1)*in], x[(r+1)*in:(r+2)*in], x[(r+2)*in:(r+3)*in], x[(r+3)*in:(r+4)*in], wj)
				acc[r*out+j] = s0 + b
				acc[(r+1)*out+j] = s1 + b
				acc[(r+2)*out+j] = s2 + b
				acc[(r+3)*out+j] = s3 + b
			}
			for ; r < rows; r++ {
				acc[r*out+j] = dotFloat(x[r*in:(r+1)*in], wj) + b
			}
		}
	})
	return acc
}

func dot4Float(x0, x1, x2, x3, w []float32) (s0, s1, s2, s3 float32) {
	x0, x1, x2, x3 = x0[:len(w)], x1[:len(w)], x2[:len(w)], x3[:len(w)]
	for i, v := range w {
		s0 += x0[i] * v
		s1 += x1[i] * v
		s2 += x2[i] * v
		s3 += x3[i] * v
	}
	return s0, s1, s2, s3
}

func dotFloat(x, w []float32) float32 {
	x = x[:len(w)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(w); i += 4 {
		ww := w[i : i+4 : i+4]
		xx := x[i : i+4 : i+4]
		s0 += xx[0] * ww[0]
		s1 += xx[1] * ww[1]
		s2 += xx[2] * ww[2]
		s3 += xx[3] * ww[3]
	}
	for ; i < len(w); i++ {
		s0 += x[i] * w[i]
	}
	return s0 + s1 + s2 + s3
}
