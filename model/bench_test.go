package model

import (
	"strconv"
	"testing"
	"time"
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
