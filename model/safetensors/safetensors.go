package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"sort"
	"strings"
	"unicode/utf8"
)

// MaxHeaderSize bounds the JSON header accepted by [Parse]: 100 MB, the limit
// the reference implementation also applies.
const MaxHeaderSize = 100_000_000

// metadataKey is the reserved header entry that holds free-form metadata.
const metadataKey = "__metadata__"

// DType names the element type of a tensor as the header spells it.
type DType string

// The element types this package reads and writes.
const (
	F64  DType = "F64"
	F32  DType = "F32"
	F16  DType = "F16"
	BF16 DType = "BF16"
	I64  DType = "I64"
	I32  DType = "I32"
	I16  DType = "I16"
	I8   DType = "I8"
	U64  DType = "U64"
	U32  DType = "U32"
	U16  DType = "U16"
	U8   DType = "U8"
	BOOL DType = "BOOL"
)

// Size returns the number of bytes of one element, and false for a dtype this
// package does not know.
func (d DType) Size() (int, bool) {
	switch d {
	case F64, I64, U64:
		return 8, true
	case F32, I32, U32:
		return 4, true
	case F16, BF16, I16, U16:
		return 2, true
	case I8, U8, BOOL:
		return 1, true
	}
	return 0, false
}

// Tensor is one named array. Data holds the elements in little-endian order,
// row-major (the last dimension varies fastest). An empty Shape is a scalar.
type Tensor struct {
	Name  string
	DType DType
	Shape []int
	Data  []byte
}

// File is a parsed safetensors file. Tensors are sorted by name; Metadata is
// nil when the header has no "__metadata__" entry.
type File struct {
	Metadata map[string]string
	Tensors  []Tensor
}

// headerEntry is one tensor's description in the JSON header.
type headerEntry struct {
	DType       DType    `json:"dtype"`
	Shape       []int64  `json:"shape"`
	DataOffsets []uint64 `json:"data_offsets"`
}

// located is a validated header entry with its byte range in the buffer.
type located struct {
	name       string
	dtype      DType
	shape      []int
	begin, end uint64
}

// ReadFile reads and parses the safetensors file at path.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Parse decodes a safetensors file held in memory. The Data of every returned
// tensor aliases data (with its capacity capped at its length), so data must
// not be modified while the tensors are in use.
func Parse(data []byte) (*File, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("safetensors: file has %d bytes, fewer than the 8-byte header length", len(data))
	}
	headerLen := binary.LittleEndian.Uint64(data[:8])
	if headerLen > MaxHeaderSize {
		return nil, fmt.Errorf("safetensors: header length %d exceeds the limit %d", headerLen, MaxHeaderSize)
	}
	if headerLen > uint64(len(data)-8) {
		return nil, fmt.Errorf("safetensors: header length %d exceeds the %d bytes after the length prefix", headerLen, len(data)-8)
	}
	header := data[8 : 8+headerLen]
	buffer := data[8+headerLen:]

	metadata, entries, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	tensors, err := locate(entries, uint64(len(buffer)))
	if err != nil {
		return nil, err
	}
	f := &File{Metadata: metadata, Tensors: make([]Tensor, len(tensors))}
	for i, t := range tensors {
		f.Tensors[i] = Tensor{
			Name:  t.name,
			DType: t.dtype,
			Shape: t.shape,
			Data:  buffer[t.begin:t.end:t.end],
		}
	}
	sort.Slice(f.Tensors, func(i, j int) bool { return f.Tensors[i].Name < f.Tensors[j].Name })
	return f, nil
}

// parseHeader decodes the JSON header. Objects are read key by key so that
// duplicate keys, unknown fields and trailing content are errors rather than
// silently merged or ignored.
func parseHeader(header []byte) (map[string]string, map[string]headerEntry, error) {
	if !utf8.Valid(header) {
		return nil, nil, errors.New("safetensors: header is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(header))
	fields, err := decodeObject(dec)
	if err != nil {
		return nil, nil, fmt.Errorf("safetensors: header: %w", err)
	}
	// The reference writer pads the header with spaces to an 8-byte boundary.
	if len(bytes.Trim(header[dec.InputOffset():], " \t\r\n")) != 0 {
		return nil, nil, errors.New("safetensors: header: content after the JSON object")
	}
	var metadata map[string]string
	entries := make(map[string]headerEntry, len(fields))
	for _, f := range fields {
		if f.key == metadataKey {
			if string(f.value) == "null" {
				continue
			}
			values, err := decodeObject(json.NewDecoder(bytes.NewReader(f.value)))
			if err != nil {
				return nil, nil, fmt.Errorf("safetensors: header: %s: %w", metadataKey, err)
			}
			metadata = make(map[string]string, len(values))
			for _, v := range values {
				var s string
				if err := json.Unmarshal(v.value, &s); err != nil || string(v.value) == "null" {
					return nil, nil, fmt.Errorf("safetensors: header: %s: value of %q is not a string", metadataKey, v.key)
				}
				metadata[v.key] = s
			}
			continue
		}
		e, err := decodeEntry(f.value)
		if err != nil {
			return nil, nil, fmt.Errorf("safetensors: header: tensor %q: %w", f.key, err)
		}
		entries[f.key] = e
	}
	return metadata, entries, nil
}

// field is one key of a JSON object with its undecoded value.
type field struct {
	key   string
	value json.RawMessage
}

// decodeObject reads one JSON object from dec and returns its fields in
// order; a repeated key is an error.
func decodeObject(dec *json.Decoder) ([]field, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var fields []field
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("unexpected token %v", tok)
		}
		if seen[key] {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("key %q: %w", key, err)
		}
		fields = append(fields, field{key, value})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return fields, nil
}

// decodeEntry decodes one tensor description, requiring exactly the fields
// dtype, shape and data_offsets.
func decodeEntry(raw json.RawMessage) (headerEntry, error) {
	var e headerEntry
	fields, err := decodeObject(json.NewDecoder(bytes.NewReader(raw)))
	if err != nil {
		return e, err
	}
	for _, f := range fields {
		var target any
		switch f.key {
		case "dtype":
			target = &e.DType
		case "shape":
			target = &e.Shape
		case "data_offsets":
			target = &e.DataOffsets
		default:
			return e, fmt.Errorf("unknown field %q", f.key)
		}
		if string(f.value) == "null" {
			return e, fmt.Errorf("field %q is null", f.key)
		}
		if err := json.Unmarshal(f.value, target); err != nil {
			return e, fmt.Errorf("field %q: %w", f.key, err)
		}
	}
	if e.DType == "" {
		return e, errors.New("missing dtype")
	}
	if e.Shape == nil {
		return e, errors.New("missing shape")
	}
	if e.DataOffsets == nil {
		return e, errors.New("missing data_offsets")
	}
	return e, nil
}

// locate validates each entry against the buffer of bufferLen bytes: known
// dtype, non-negative shape whose byte size matches its offsets without
// overflow, and offsets that tile the buffer exactly, in order, with no gap or
// overlap.
func locate(entries map[string]headerEntry, bufferLen uint64) ([]located, error) {
	out := make([]located, 0, len(entries))
	for name, e := range entries {
		size, ok := e.DType.Size()
		if !ok {
			return nil, fmt.Errorf("safetensors: tensor %q: unsupported dtype %q", name, e.DType)
		}
		if len(e.DataOffsets) != 2 {
			return nil, fmt.Errorf("safetensors: tensor %q: data_offsets has %d entries, want 2", name, len(e.DataOffsets))
		}
		shape := make([]int, len(e.Shape))
		for i, d := range e.Shape {
			if d < 0 || uint64(d) > math.MaxInt {
				return nil, fmt.Errorf("safetensors: tensor %q: dimension %d is %d", name, i, d)
			}
			shape[i] = int(d)
		}
		nbytes, ok := byteSize(shape, size)
		if !ok {
			return nil, fmt.Errorf("safetensors: tensor %q: shape %v overflows", name, shape)
		}
		begin, end := e.DataOffsets[0], e.DataOffsets[1]
		if begin > end {
			return nil, fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] are reversed", name, begin, end)
		}
		if end > bufferLen {
			return nil, fmt.Errorf("safetensors: tensor %q: data_offsets end %d is past the buffer of %d bytes", name, end, bufferLen)
		}
		if end-begin != nbytes {
			return nil, fmt.Errorf("safetensors: tensor %q: shape %v of %s needs %d bytes, data_offsets give %d", name, shape, e.DType, nbytes, end-begin)
		}
		out = append(out, located{name: name, dtype: e.DType, shape: shape, begin: begin, end: end})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].begin != out[j].begin {
			return out[i].begin < out[j].begin
		}
		if out[i].end != out[j].end {
			return out[i].end < out[j].end
		}
		return out[i].name < out[j].name
	})
	var next uint64
	for _, t := range out {
		if t.begin != next {
			if t.begin < next {
				return nil, fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] overlap the previous tensor ending at %d", t.name, t.begin, t.end, next)
			}
			return nil, fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] leave a gap after byte %d", t.name, t.begin, t.end, next)
		}
		next = t.end
	}
	if next != bufferLen {
		return nil, fmt.Errorf("safetensors: tensors cover %d bytes of a %d-byte buffer", next, bufferLen)
	}
	return out, nil
}

// byteSize returns Π shape · elemSize, and false if it overflows an int.
func byteSize(shape []int, elemSize int) (uint64, bool) {
	n := uint64(elemSize)
	for _, d := range shape {
		if d < 0 {
			return 0, false
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt {
			return 0, false
		}
		n = lo
	}
	return n, true
}

// Tensor returns the tensor called name.
func (f *File) Tensor(name string) (*Tensor, bool) {
	i := sort.Search(len(f.Tensors), func(i int) bool { return f.Tensors[i].Name >= name })
	if i < len(f.Tensors) && f.Tensors[i].Name == name {
		return &f.Tensors[i], true
	}
	return nil, false
}

// NumElements returns the product of the dimensions (1 for a scalar), or −1 if
// a dimension is negative or the product overflows an int.
func (t *Tensor) NumElements() int {
	n, ok := byteSize(t.Shape, 1)
	if !ok {
		return -1
	}
	return int(n)
}

// check verifies that the tensor's dtype is known and that Data holds exactly
// the bytes its shape needs; it returns the element size.
func (t *Tensor) check() (int, error) {
	size, ok := t.DType.Size()
	if !ok {
		return 0, fmt.Errorf("safetensors: tensor %q: unsupported dtype %q", t.Name, t.DType)
	}
	nbytes, ok := byteSize(t.Shape, size)
	if !ok {
		return 0, fmt.Errorf("safetensors: tensor %q: invalid shape %v", t.Name, t.Shape)
	}
	if uint64(len(t.Data)) != nbytes {
		return 0, fmt.Errorf("safetensors: tensor %q: shape %v of %s needs %d bytes, data has %d", t.Name, t.Shape, t.DType, nbytes, len(t.Data))
	}
	return size, nil
}

// Float64s converts every element to float64. Floating-point dtypes (F16,
// BF16, F32, F64) convert exactly, including infinities, NaNs and subnormals.
// Integer dtypes convert exactly; a 64-bit integer of magnitude beyond 2⁵³
// that float64 cannot represent is an error rather than a silent rounding.
// BOOL elements must be 0 or 1.
func (t *Tensor) Float64s() ([]float64, error) {
	size, err := t.check()
	if err != nil {
		return nil, err
	}
	n := len(t.Data) / size
	out := make([]float64, n)
	le := binary.LittleEndian
	d := t.Data
	switch t.DType {
	case F64:
		for i := range out {
			out[i] = math.Float64frombits(le.Uint64(d[8*i:]))
		}
	case F32:
		for i := range out {
			out[i] = float64(math.Float32frombits(le.Uint32(d[4*i:])))
		}
	case F16:
		for i := range out {
			out[i] = HalfToFloat64(le.Uint16(d[2*i:]))
		}
	case BF16:
		for i := range out {
			out[i] = BFloat16ToFloat64(le.Uint16(d[2*i:]))
		}
	case I64:
		for i := range out {
			v := int64(le.Uint64(d[8*i:]))
			f := float64(v)
			// float64(MaxInt64) rounds up to 2⁶³, which has no int64 value.
			if f >= 0x1p63 || int64(f) != v {
				return nil, fmt.Errorf("safetensors: tensor %q: element %d = %d is not exactly representable as float64", t.Name, i, v)
			}
			out[i] = f
		}
	case U64:
		for i := range out {
			v := le.Uint64(d[8*i:])
			f := float64(v)
			if f >= 0x1p64 || uint64(f) != v {
				return nil, fmt.Errorf("safetensors: tensor %q: element %d = %d is not exactly representable as float64", t.Name, i, v)
			}
			out[i] = f
		}
	case I32:
		for i := range out {
			out[i] = float64(int32(le.Uint32(d[4*i:])))
		}
	case U32:
		for i := range out {
			out[i] = float64(le.Uint32(d[4*i:]))
		}
	case I16:
		for i := range out {
			out[i] = float64(int16(le.Uint16(d[2*i:])))
		}
	case U16:
		for i := range out {
			out[i] = float64(le.Uint16(d[2*i:]))
		}
	case I8:
		for i := range out {
			out[i] = float64(int8(d[i]))
		}
	case U8:
		for i := range out {
			out[i] = float64(d[i])
		}
	case BOOL:
		for i := range out {
			if d[i] > 1 {
				return nil, fmt.Errorf("safetensors: tensor %q: element %d = %d is not a boolean", t.Name, i, d[i])
			}
			out[i] = float64(d[i])
		}
	}
	return out, nil
}

// HalfToFloat64 converts an IEEE 754 binary16 bit pattern (1 sign bit, 5
// exponent bits with bias 15, 10 mantissa bits) to float64 exactly.
func HalfToFloat64(h uint16) float64 {
	sign := uint64(h>>15) << 63
	exp := uint64(h>>10) & 0x1f
	mant := uint64(h & 0x3ff)
	switch exp {
	case 0:
		// Subnormal or zero: mant · 2⁻²⁴, exact since mant < 2¹⁰.
		return math.Float64frombits(sign | math.Float64bits(float64(mant)*0x1p-24))
	case 0x1f:
		// Infinity, or NaN with the payload kept in the top mantissa bits.
		return math.Float64frombits(sign | 0x7ff<<52 | mant<<42)
	}
	// Normal: rebias the exponent from 15 to 1023 and widen the mantissa.
	return math.Float64frombits(sign | (exp+1023-15)<<52 | mant<<42)
}

// BFloat16ToFloat64 converts a bfloat16 bit pattern (the upper half of a
// float32) to float64 exactly.
func BFloat16ToFloat64(b uint16) float64 {
	return float64(math.Float32frombits(uint32(b) << 16))
}

// FromFloat32 builds an F32 tensor. The caller keeps shape and values; the
// tensor owns copies. A shape whose product differs from len(values) is
// reported by [Write].
func FromFloat32(name string, shape []int, values []float32) Tensor {
	data := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	return Tensor{Name: name, DType: F32, Shape: append([]int{}, shape...), Data: data}
}

// Write encodes tensors and metadata (nil for none) as a safetensors file.
// Tensors are laid out in name order; the header is padded with spaces to a
// multiple of 8 bytes so that the buffer starts aligned. Every tensor is
// validated first, so nothing is written for invalid input.
func Write(w io.Writer, tensors []Tensor, metadata map[string]string) error {
	order := make([]int, len(tensors))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return tensors[order[a]].Name < tensors[order[b]].Name })

	var header strings.Builder
	header.WriteByte('{')
	first := true
	comma := func() {
		if !first {
			header.WriteByte(',')
		}
		first = false
	}
	if metadata != nil {
		for k, v := range metadata {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return fmt.Errorf("safetensors: metadata %q: not valid UTF-8", k)
			}
		}
		comma()
		if err := writeJSONString(&header, metadataKey); err != nil {
			return err
		}
		header.WriteByte(':')
		enc, err := marshal(metadata)
		if err != nil {
			return fmt.Errorf("safetensors: metadata: %w", err)
		}
		header.Write(enc)
	}
	var offset uint64
	for k, i := range order {
		t := &tensors[i]
		if t.Name == metadataKey {
			return fmt.Errorf("safetensors: tensor name %q is reserved", metadataKey)
		}
		if !utf8.ValidString(t.Name) {
			return fmt.Errorf("safetensors: tensor name %q is not valid UTF-8", t.Name)
		}
		if k > 0 && tensors[order[k-1]].Name == t.Name {
			return fmt.Errorf("safetensors: duplicate tensor %q", t.Name)
		}
		if _, err := t.check(); err != nil {
			return err
		}
		comma()
		if err := writeJSONString(&header, t.Name); err != nil {
			return err
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		entry, err := marshal(struct {
			DType       DType     `json:"dtype"`
			Shape       []int     `json:"shape"`
			DataOffsets [2]uint64 `json:"data_offsets"`
		}{t.DType, shape, [2]uint64{offset, offset + uint64(len(t.Data))}})
		if err != nil {
			return fmt.Errorf("safetensors: tensor %q: %w", t.Name, err)
		}
		header.WriteByte(':')
		header.Write(entry)
		offset += uint64(len(t.Data))
	}
	header.WriteByte('}')
	for header.Len()%8 != 0 {
		header.WriteByte(' ')
	}
	if header.Len() > MaxHeaderSize {
		return fmt.Errorf("safetensors: header of %d bytes exceeds the limit %d", header.Len(), MaxHeaderSize)
	}
	var prefix [8]byte
	binary.LittleEndian.PutUint64(prefix[:], uint64(header.Len()))
	if _, err := w.Write(prefix[:]); err != nil {
		return fmt.Errorf("safetensors: write: %w", err)
	}
	if _, err := io.WriteString(w, header.String()); err != nil {
		return fmt.Errorf("safetensors: write: %w", err)
	}
	for _, i := range order {
		if _, err := w.Write(tensors[i].Data); err != nil {
			return fmt.Errorf("safetensors: write tensor %q: %w", tensors[i].Name, err)
		}
	}
	return nil
}

// marshal encodes v as JSON without escaping <, > and &.
func marshal(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

func writeJSONString(b *strings.Builder, s string) error {
	enc, err := marshal(s)
	if err != nil {
		return fmt.Errorf("safetensors: name %q: %w", s, err)
	}
	b.Write(enc)
	return nil
}
