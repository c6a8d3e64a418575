package model

import (
	"strconv"
	"testing"
	"time"
)

// gpt2SmallConfig is GPT-2 small's shape (124M parameters).
func gpt2SmallConfig() *Config {
	return &Config{Family: GPT2, Vocab: 50257, Hidden: 768, Layers: 12, Heads: 12, KVHeads: 12,
		Intermediate: 3072, MaxPositions: 1024, NormEps: 1e-5, TiedEmbeddings: true}
}

// matmulShapes lists the (in, out) shapes of every projection of one pass,
// LM head included.
func matmulShapes(c *Config) [][2]int {
	var s [][2]int
	for range c.Layers {
		s = append(s, [2]int{c.Hidden, c.Hidden}, [2]int{c.Hidden, c.KVDim()}, [2]int{c.Hidden, c.KVDim()}, [2]int{c.Hidden, c.Hidden})
		if c.Family == Llama {
			s = append(s, [2]int{c.Hidden, c.Intermediate})
		}
		s = append(s, [2]int{c.Hidden, c.Intermediate}, [2]int{c.Intermediate, c.Hidden})
	}
	return append(s, [2]int{c.Hidden, c.Vocab})
}

// benchmarkTokens measures greedy decoding of newTokens after a prompt of
// promptLen tokens, then, in the same run, the matmuls of the same passes
// alone with the int8 kernel and with the float32 baseline kernel.
func benchmarkTokens(b *testing.B, m *Model, promptLen, newTokens int) {
	prompt := make([]int, promptLen)
	for i := range prompt {
		prompt[i] = (i*37 + 5) % m.Config.Vocab
	}
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if _, err := m.Generate(prompt, newTokens); err != nil {
			b.Fatal(err)
		}
	}
	total := time.Since(start)
	b.StopTimer()
	iterations := float64(b.N)
	tokens := iterations * float64(newTokens)
	b.ReportMetric(tokens/total.Seconds(), "tokens/s")

	shapes := matmulShapes(&m.Config)
	rowsPerPass := []int{promptLen}
	for range newTokens - 1 {
		rowsPerPass = append(rowsPerPass, 1)
	}
	weightsInt := make([][]int8, len(shapes))
	weightsFloat := make([][]float32, len(shapes))
	for i, s := range shapes {
		weightsInt[i] = make([]int8, s[0]*s[1])
		weightsFloat[i] = make([]float32, s[0]*s[1])
		for j := range weightsInt[i] {
			weightsInt[i][j] = int8(j%255 - 127)
			weightsFloat[i][j] = float32(j%255-127) / 127
		}
	}
	run := func(kernel func(rows, shape int)) time.Duration {
		t := time.Now()
		for range b.N {
			for _, rows := range rowsPerPass {
				for i := range shapes {
					kernel(rows, i)
				}
			}
		}
		return time.Since(t)
	}
	maxIn := 0
	for _, s := range shapes {
		maxIn = max(maxIn, s[0])
	}
	xInt := make([]int64, promptLen*maxIn)
	xFloat := make([]float32, promptLen*maxIn)
	for i := range xInt {
		xInt[i] = int64(i%60001 - 30000)
		xFloat[i] = float32(xInt[i]) / 30000
	}
	intMatmul := run(func(rows, i int) {
		MatMulInt(xInt[:rows*shapes[i][0]], rows, shapes[i][0], weightsInt[i], shapes[i][1], nil)
	})
	floatMatmul := run(func(rows, i int) {
		MatMulFloat32(xFloat[:rows*shapes[i][0]], rows, shapes[i][0], weightsFloat[i], shapes[i][1], nil)
	})
	b.ReportMetric(tokens/intMatmul.Seconds(), "int-matmul-tokens/s")
	b.ReportMetric(tokens/floatMatmul.Seconds(), "f32-matmul-tokens/s")
	b.ReportMetric(floatMatmul.Seconds()/total.Seconds(), "speed/f32-matmul")
	b.ReportMetric(floatMatmul.Seconds()/intMatmul.Seconds(), "int-matmul/f32-matmul")
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
	c := gpt2SmallConfig()
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
