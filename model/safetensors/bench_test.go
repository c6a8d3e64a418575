package safetensors

import (
	"bytes"
	"testing"
)

// BenchmarkParseAndConvert parses a file holding one F16 tensor of 2²⁰
// elements and converts it to float64.
func BenchmarkParseAndConvert(b *testing.B) {
	const n = 1 << 20
	data := make([]byte, 2*n)
	for i := range data {
		data[i] = byte(i * 7)
	}
	var file bytes.Buffer
	if err := Write(&file, []Tensor{{Name: "w", DType: F16, Shape: []int{1024, n / 1024}, Data: data}}, nil); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(file.Len()))
	for b.Loop() {
		f, err := Parse(file.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Tensors[0].Float64s(); err != nil {
			b.Fatal(err)
		}
	}
}
