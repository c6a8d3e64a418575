package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// build assembles a file from a literal header and buffer.
func build(header string, buffer []byte) []byte {
	out := make([]byte, 8, 8+len(header)+len(buffer))
	binary.LittleEndian.PutUint64(out, uint64(len(header)))
	out = append(out, header...)
	return append(out, buffer...)
}

func encode(t *testing.T, tensors []Tensor, metadata map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, tensors, metadata); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return b.Bytes()
}

func TestParseKnownFile(t *testing.T) {
	// Two tensors in the reference layout: "a" is F32[2] = {1, -2}, "b" is U8[] = 7.
	header := `{"__metadata__":{"format":"pt"},"b":{"dtype":"U8","shape":[],"data_offsets":[8,9]},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}   `
	buffer := []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0, 7}
	f, err := Parse(build(header, buffer))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Metadata, map[string]string{"format": "pt"}) {
		t.Errorf("metadata %v", f.Metadata)
	}
	if len(f.Tensors) != 2 || f.Tensors[0].Name != "a" || f.Tensors[1].Name != "b" {
		t.Fatalf("tensors not sorted by name: %+v", f.Tensors)
	}
	a, ok := f.Tensor("a")
	if !ok {
		t.Fatal("tensor a missing")
	}
	got, err := a.Float64s()
	if err != nil || !reflect.DeepEqual(got, []float64{1, -2}) {
		t.Errorf("a = %v, %v", got, err)
	}
	b, _ := f.Tensor("b")
	if b.NumElements() != 1 || len(b.Shape) != 0 {
		t.Errorf("scalar b: shape %v, %d elements", b.Shape, b.NumElements())
	}
	if v, _ := b.Float64s(); !reflect.DeepEqual(v, []float64{7}) {
		t.Errorf("b = %v", v)
	}
	if _, ok := f.Tensor("c"); ok {
		t.Error("found a tensor that does not exist")
	}
	if cap(a.Data) != len(a.Data) {
		t.Error("tensor data capacity not capped")
	}
}

func TestWriteLayout(t *testing.T) {
	got := encode(t, []Tensor{FromFloat32("w", []int{1}, []float32{1})}, nil)
	header := `{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`
	header += strings.Repeat(" ", (8-len(header)%8)%8)
	want := build(header, []byte{0, 0, 0x80, 0x3f})
	if !bytes.Equal(got, want) {
		t.Errorf("Write produced\n%q\nwant\n%q", got, want)
	}
}

// sampleTensors returns one tensor of every dtype with awkward values.
func sampleTensors() []Tensor {
	var out []Tensor
	for _, d := range []DType{F64, F32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8, BOOL} {
		size, _ := d.Size()
		shape := []int{2, 3}
		data := make([]byte, 6*size)
		for i := range data {
			data[i] = byte(i*37 + len(d))
		}
		if d == BOOL {
			for i := range data {
				data[i] &= 1
			}
		}
		out = append(out, Tensor{Name: "t." + string(d), DType: d, Shape: shape, Data: data})
	}
	out = append(out,
		Tensor{Name: "empty", DType: F32, Shape: []int{0, 5}, Data: []byte{}},
		Tensor{Name: "scalar", DType: I8, Shape: []int{}, Data: []byte{0xff}},
		Tensor{Name: "also-empty", DType: F16, Shape: []int{3, 0}, Data: []byte{}},
	)
	return out
}

func TestRoundTripEveryDType(t *testing.T) {
	tensors := sampleTensors()
	meta := map[string]string{"format": "pt", "note": "<&> \"quoted\" ünïcode"}
	f, err := Parse(encode(t, tensors, meta))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Metadata, meta) {
		t.Errorf("metadata %v, want %v", f.Metadata, meta)
	}
	if len(f.Tensors) != len(tensors) {
		t.Fatalf("%d tensors, want %d", len(f.Tensors), len(tensors))
	}
	for _, want := range tensors {
		got, ok := f.Tensor(want.Name)
		if !ok {
			t.Fatalf("tensor %q missing", want.Name)
		}
		if got.DType != want.DType || !reflect.DeepEqual(got.Shape, want.Shape) || !bytes.Equal(got.Data, want.Data) {
			t.Errorf("tensor %q: got %+v, want %+v", want.Name, *got, want)
		}
		if _, err := got.Float64s(); err != nil && want.DType != I64 && want.DType != U64 {
			t.Errorf("tensor %q: Float64s: %v", want.Name, err)
		}
	}
	if f2, err := Parse(encode(t, tensors, nil)); err != nil || f2.Metadata != nil {
		t.Errorf("without metadata: %v, %v", f2.Metadata, err)
	}
}

func TestFromFloat(t *testing.T) {
	v32 := []float32{0, -1.5, float32(math.Inf(1)), math.SmallestNonzeroFloat32, 3.25}
	v64 := []float64{0, -1.5, math.Inf(-1), math.SmallestNonzeroFloat64, 1e300, 1.0 / 3}
	shape := []int{5}
	a := FromFloat32("a", shape, v32)
	shape[0] = 99 // the tensor must own its shape
	f, err := Parse(encode(t, []Tensor{a, FromFloat64("b", []int{2, 3}, v64)}, nil))
	if err != nil {
		t.Fatal(err)
	}
	ta, _ := f.Tensor("a")
	got32, err := ta.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range v32 {
		if got32[i] != float64(v) {
			t.Errorf("a[%d] = %v, want %v", i, got32[i], v)
		}
	}
	tb, _ := f.Tensor("b")
	got64, err := tb.Float64s()
	if err != nil || !reflect.DeepEqual(got64, v64) {
		t.Errorf("b = %v, %v", got64, err)
	}
}

func TestHalfAndBFloat16(t *testing.T) {
	half := []struct {
		bits uint16
		want float64
	}{
		{0x0000, 0},
		{0x3c00, 1},
		{0xc000, -2},
		{0x3555, 0x1.554p-2}, // nearest half to 1/3
		{0x7bff, 65504},      // largest finite
		{0x0400, 0x1p-14},    // smallest normal
		{0x0001, 0x1p-24},    // smallest subnormal
		{0x03ff, 0x3ffp-24},  // largest subnormal
		{0x7c00, math.Inf(1)},
		{0xfc00, math.Inf(-1)},
		{0x3e00, 1.5},
	}
	for _, c := range half {
		if got := HalfToFloat64(c.bits); got != c.want {
			t.Errorf("half %#04x = %v, want %v", c.bits, got, c.want)
		}
	}
	if got := HalfToFloat64(0x8000); got != 0 || !math.Signbit(got) {
		t.Errorf("half 0x8000 = %v, want -0", got)
	}
	if !math.IsNaN(HalfToFloat64(0x7e00)) || !math.IsNaN(HalfToFloat64(0xfc01)) {
		t.Error("half NaN patterns not NaN")
	}
	bf := []struct {
		bits uint16
		want float64
	}{
		{0x0000, 0},
		{0x3f80, 1},
		{0xc040, -3},
		{0x3eab, 0x1.56p-2},
		{0x7f7f, 0x1.fep127}, // largest finite
		{0x0001, 0x1p-133},   // smallest subnormal
		{0x7f80, math.Inf(1)},
		{0xff80, math.Inf(-1)},
	}
	for _, c := range bf {
		if got := BFloat16ToFloat64(c.bits); got != c.want {
			t.Errorf("bf16 %#04x = %v, want %v", c.bits, got, c.want)
		}
	}
	if !math.IsNaN(BFloat16ToFloat64(0x7fc0)) {
		t.Error("bf16 NaN not NaN")
	}
	// Every pattern against the definition: (−1)ˢ · 2^(e−15) · (1 + m/2¹⁰)
	// for 0 < e < 31, (−1)ˢ · 2⁻¹⁴ · m/2¹⁰ for e = 0.
	for h := 0; h < 1<<16; h++ {
		s, e, m := h>>15, h>>10&0x1f, h&0x3ff
		got := HalfToFloat64(uint16(h))
		if e == 0x1f {
			if m == 0 && !math.IsInf(got, 1-2*s) || m != 0 && !math.IsNaN(got) {
				t.Fatalf("half %#04x = %v", h, got)
			}
			continue
		}
		want := math.Ldexp(float64(m), -24)
		if e > 0 {
			want = math.Ldexp(1+float64(m)/1024, e-15)
		}
		if s == 1 {
			want = -want
		}
		if got != want || math.Signbit(got) != (s == 1) {
			t.Fatalf("half %#04x = %v, want %v", h, got, want)
		}
	}
	// Through a tensor, little-endian.
	tensor := Tensor{Name: "h", DType: F16, Shape: []int{2}, Data: []byte{0x00, 0x3c, 0x00, 0xc0}}
	if got, err := tensor.Float64s(); err != nil || !reflect.DeepEqual(got, []float64{1, -2}) {
		t.Errorf("F16 tensor = %v, %v", got, err)
	}
	tensor = Tensor{Name: "b", DType: BF16, Shape: []int{2}, Data: []byte{0x80, 0x3f, 0x40, 0xc0}}
	if got, err := tensor.Float64s(); err != nil || !reflect.DeepEqual(got, []float64{1, -3}) {
		t.Errorf("BF16 tensor = %v, %v", got, err)
	}
}

func TestIntegerConversion(t *testing.T) {
	le := binary.LittleEndian
	cases := []struct {
		dtype DType
		data  []byte
		want  []float64
	}{
		{I8, []byte{0x80, 0x7f, 0xff}, []float64{-128, 127, -1}},
		{U8, []byte{0, 255}, []float64{0, 255}},
		{BOOL, []byte{0, 1}, []float64{0, 1}},
		{I16, le.AppendUint16(le.AppendUint16(nil, 0x8000), 0x7fff), []float64{-32768, 32767}},
		{U16, le.AppendUint16(nil, 0xffff), []float64{65535}},
		{I32, le.AppendUint32(le.AppendUint32(nil, 0x80000000), 5), []float64{math.MinInt32, 5}},
		{U32, le.AppendUint32(nil, 0xffffffff), []float64{math.MaxUint32}},
		{I64, le.AppendUint64(le.AppendUint64(nil, 1<<53), uint64(1<<63)), []float64{1 << 53, -(1 << 63)}},
		{U64, le.AppendUint64(nil, 1<<63), []float64{1 << 63}},
	}
	for _, c := range cases {
		size, _ := c.dtype.Size()
		tensor := Tensor{Name: "x", DType: c.dtype, Shape: []int{len(c.data) / size}, Data: c.data}
		got, err := tensor.Float64s()
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, %v; want %v", c.dtype, got, err, c.want)
		}
	}
	inexact := []Tensor{
		{Name: "i64", DType: I64, Shape: []int{1}, Data: le.AppendUint64(nil, 1<<53+1)},
		{Name: "i64max", DType: I64, Shape: []int{1}, Data: le.AppendUint64(nil, math.MaxInt64)},
		{Name: "u64", DType: U64, Shape: []int{1}, Data: le.AppendUint64(nil, math.MaxUint64)},
		{Name: "bool", DType: BOOL, Shape: []int{1}, Data: []byte{2}},
	}
	for _, tensor := range inexact {
		if _, err := tensor.Float64s(); err == nil {
			t.Errorf("%s: conversion accepted", tensor.Name)
		}
	}
}

func TestParseErrors(t *testing.T) {
	f32 := func(offsets string) string {
		return `{"a":{"dtype":"F32","shape":[1],"data_offsets":` + offsets + `}}`
	}
	four := []byte{1, 2, 3, 4}
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"short", []byte{1, 2, 3}, "fewer than the 8-byte"},
		{"huge header length", binary.LittleEndian.AppendUint64(nil, MaxHeaderSize+1), "exceeds the limit"},
		{"max uint64 header length", binary.LittleEndian.AppendUint64(nil, math.MaxUint64), "exceeds the limit"},
		{"header past end", append(binary.LittleEndian.AppendUint64(nil, 10), "{}"...), "exceeds the 2 bytes"},
		{"not JSON", build("nope", nil), "header"},
		{"not an object", build("[]", nil), "not a JSON object"},
		{"truncated JSON", build(`{"a":{"dtype":"F32"`, nil), "header"},
		{"invalid UTF-8", build("{\"\xff\":1}", nil), "not valid UTF-8"},
		{"trailing content", build(`{}x`, nil), "content after"},
		{"second object", build(`{}{}`, nil), "content after"},
		{"duplicate tensor", build(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, []byte{1, 2}), "duplicate key"},
		{"duplicate field", build(`{"a":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, []byte{1}), "duplicate key"},
		{"duplicate metadata", build(`{"__metadata__":{},"__metadata__":{}}`, nil), "duplicate key"},
		{"metadata not object", build(`{"__metadata__":[]}`, nil), "__metadata__"},
		{"metadata non-string", build(`{"__metadata__":{"k":1}}`, nil), "not a string"},
		{"metadata null value", build(`{"__metadata__":{"k":null}}`, nil), "not a string"},
		{"unknown dtype", build(`{"a":{"dtype":"F8","shape":[1],"data_offsets":[0,1]}}`, []byte{1}), "unsupported dtype"},
		{"missing dtype", build(`{"a":{"shape":[1],"data_offsets":[0,1]}}`, []byte{1}), "missing dtype"},
		{"missing shape", build(`{"a":{"dtype":"U8","data_offsets":[0,1]}}`, []byte{1}), "missing shape"},
		{"missing offsets", build(`{"a":{"dtype":"U8","shape":[1]}}`, []byte{1}), "missing data_offsets"},
		{"null field", build(`{"a":{"dtype":"U8","shape":null,"data_offsets":[0,1]}}`, []byte{1}), "null"},
		{"unknown field", build(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":0}}`, []byte{1}), "unknown field"},
		{"entry not object", build(`{"a":[1]}`, nil), "not a JSON object"},
		{"negative dim", build(`{"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}}`, nil), "dimension 0 is -1"},
		{"fractional dim", build(`{"a":{"dtype":"U8","shape":[1.5],"data_offsets":[0,0]}}`, nil), "shape"},
		{"dim overflow", build(`{"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`, make([]byte, 8)), "overflows"},
		{"dim beyond int64", build(`{"a":{"dtype":"U8","shape":[18446744073709551616],"data_offsets":[0,1]}}`, []byte{1}), "shape"},
		{"offsets length", build(f32(`[0]`), four), "has 1 entries"},
		{"negative offset", build(f32(`[-1,4]`), four), "data_offsets"},
		{"reversed offsets", build(f32(`[4,0]`), four), "reversed"},
		{"offset past buffer", build(f32(`[4,8]`), four), "past the buffer"},
		{"size mismatch", build(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, four), "needs 8 bytes"},
		{"gap at start", build(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, []byte{0, 1}), "leave a gap"},
		{"gap between", build(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"U8","shape":[1],"data_offsets":[2,3]}}`, []byte{0, 1, 2}), "leave a gap"},
		{"overlap", build(`{"a":{"dtype":"U16","shape":[1],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, []byte{0, 1}), "overlap"},
		{"same range", build(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, []byte{0}), "overlap"},
		{"trailing bytes", build(f32(`[0,4]`), []byte{1, 2, 3, 4, 5}), "cover 4 bytes of a 5-byte buffer"},
		{"no tensors but bytes", build(`{}`, []byte{1}), "cover 0 bytes of a 1-byte buffer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse(c.file)
			if err == nil {
				t.Fatalf("accepted: %+v", f)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "safetensors: ") {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	cases := map[string][]byte{
		"empty":           build(`{}`, nil),
		"padded":          build("{} \t\r\n", nil),
		"null metadata":   build(`{"__metadata__":null}`, nil),
		"zero-size pair":  build(`{"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},"b":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}}`, nil),
		"zero-size after": build(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"F64","shape":[0,9],"data_offsets":[1,1]}}`, []byte{1}),
		"escaped names":   build(`{"\u00e9\n\"":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, []byte{1}),
	}
	for name, file := range cases {
		if _, err := Parse(file); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestWriteErrors(t *testing.T) {
	ok := FromFloat32("a", []int{1}, []float32{1})
	cases := []struct {
		name    string
		tensors []Tensor
		meta    map[string]string
		want    string
	}{
		{"duplicate", []Tensor{ok, ok}, nil, "duplicate tensor"},
		{"reserved name", []Tensor{FromFloat32(metadataKey, []int{1}, []float32{1})}, nil, "reserved"},
		{"invalid name", []Tensor{FromFloat32("\xff", []int{1}, []float32{1})}, nil, "UTF-8"},
		{"invalid metadata", []Tensor{ok}, map[string]string{"k": "\xff"}, "UTF-8"},
		{"shape mismatch", []Tensor{FromFloat32("b", []int{2}, []float32{1})}, nil, "needs 8 bytes"},
		{"negative dim", []Tensor{{Name: "c", DType: U8, Shape: []int{-1}, Data: nil}}, nil, "invalid shape"},
		{"overflow", []Tensor{{Name: "c", DType: F64, Shape: []int{math.MaxInt / 4, 8}}}, nil, "invalid shape"},
		{"unknown dtype", []Tensor{{Name: "d", DType: "X", Shape: []int{}, Data: []byte{1}}}, nil, "unsupported dtype"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		err := Write(&b, c.tensors, c.meta)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if b.Len() != 0 {
			t.Errorf("%s: wrote %d bytes before failing", c.name, b.Len())
		}
	}
	failing := errWriter{}
	if err := Write(failing, []Tensor{ok}, nil); !errors.Is(err, errWrite) {
		t.Errorf("writer error not propagated: %v", err)
	}
}

var errWrite = errors.New("disk full")

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestNumElements(t *testing.T) {
	cases := []struct {
		shape []int
		want  int
	}{
		{nil, 1}, {[]int{}, 1}, {[]int{3, 4}, 12}, {[]int{3, 0, 7}, 0},
		{[]int{-1}, -1}, {[]int{math.MaxInt, 2}, -1},
	}
	for _, c := range cases {
		tensor := Tensor{Shape: c.shape}
		if got := tensor.NumElements(); got != c.want {
			t.Errorf("NumElements(%v) = %d, want %d", c.shape, got, c.want)
		}
	}
}

func TestFloat64sChecksTensor(t *testing.T) {
	bad := []Tensor{
		{Name: "short", DType: F32, Shape: []int{2}, Data: make([]byte, 7)},
		{Name: "dtype", DType: "Q4", Shape: []int{1}, Data: make([]byte, 1)},
		{Name: "shape", DType: U8, Shape: []int{-2}, Data: nil},
	}
	for _, tensor := range bad {
		if _, err := tensor.Float64s(); err == nil {
			t.Errorf("%s: accepted", tensor.Name)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.safetensors")
	if err := os.WriteFile(path, encode(t, sampleTensors(), map[string]string{"k": "v"}), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Tensors) != len(sampleTensors()) || f.Metadata["k"] != "v" {
		t.Errorf("read %d tensors, metadata %v", len(f.Tensors), f.Metadata)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file accepted")
	}
	if err := os.WriteFile(path, []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad file: %v", err)
	}
}

// FromFloat64 builds an F64 tensor as FromFloat32 builds an F32 one: the
// tests' writer of F64 files.
func FromFloat64(name string, shape []int, values []float64) Tensor {
	data := make([]byte, 8*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(v))
	}
	return Tensor{Name: name, DType: F64, Shape: append([]int{}, shape...), Data: data}
}
