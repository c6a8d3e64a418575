package safetensors

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzParse checks that Parse never panics and that whatever it accepts
// re-encodes with Write into a file that parses to the same content.
func FuzzParse(f *testing.F) {
	var b bytes.Buffer
	if err := Write(&b, sampleTensors(), map[string]string{"format": "pt"}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add(build(`{}`, nil))
	f.Add(build(`{"a":{"dtype":"BF16","shape":[2,1],"data_offsets":[0,4]}}`, []byte{0x80, 0x3f, 0, 0}))
	f.Add(build(`{"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},"b":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, []byte{9}))
	f.Add(build(`{"__metadata__":{"a":"b"},"x":{"dtype":"BOOL","shape":[],"data_offsets":[0,1]}}`, []byte{1}))
	f.Add(build(`{"a":{"dtype":"F16","shape":[1],"data_offsets":[0,3]}}`, []byte{1, 2, 3}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			return
		}
		for i := range file.Tensors {
			tensor := &file.Tensors[i]
			if tensor.NumElements() < 0 {
				t.Fatalf("tensor %q: invalid shape %v accepted", tensor.Name, tensor.Shape)
			}
			// Conversion may reject values (inexact integers, non-boolean
			// bytes) but must not panic.
			_, _ = tensor.Float64s()
		}
		var out bytes.Buffer
		if err := Write(&out, file.Tensors, file.Metadata); err != nil {
			t.Fatalf("Write of a parsed file: %v", err)
		}
		again, err := Parse(out.Bytes())
		if err != nil {
			t.Fatalf("Parse of a re-encoded file: %v", err)
		}
		if len(again.Metadata) != len(file.Metadata) || (len(file.Metadata) > 0 && !reflect.DeepEqual(again.Metadata, file.Metadata)) {
			t.Fatalf("metadata %v became %v", file.Metadata, again.Metadata)
		}
		if len(again.Tensors) != len(file.Tensors) {
			t.Fatalf("%d tensors became %d", len(file.Tensors), len(again.Tensors))
		}
		for i, want := range file.Tensors {
			got := again.Tensors[i]
			if got.Name != want.Name || got.DType != want.DType || !reflect.DeepEqual(got.Shape, want.Shape) || !bytes.Equal(got.Data, want.Data) {
				t.Fatalf("tensor %d: %+v became %+v", i, want, got)
			}
		}
	})
}
