package safetensors_test

import (
	"bytes"
	"fmt"

	"github.com/veriformer/veriformer/model/safetensors"
)

func Example() {
	var file bytes.Buffer
	tensors := []safetensors.Tensor{
		safetensors.FromFloat32("wte", []int{2, 2}, []float32{0.5, -1, 2, 0}),
		{Name: "scale", DType: safetensors.BF16, Shape: []int{}, Data: []byte{0x80, 0x3f}},
	}
	if err := safetensors.Write(&file, tensors, map[string]string{"format": "pt"}); err != nil {
		fmt.Println(err)
		return
	}
	f, err := safetensors.Parse(file.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range f.Tensors {
		values, err := t.Float64s()
		fmt.Println(t.Name, t.DType, t.Shape, values, err)
	}
	fmt.Println(f.Metadata)
	// Output:
	// scale BF16 [] [1] <nil>
	// wte F32 [2 2] [0.5 -1 2 0] <nil>
	// map[format:pt]
}
