package inference

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"

	"github.com/veriformer/veriformer/field"
)

// FormatVersion names the binary proof format; decoders refuse any other.
const FormatVersion = "veriformer/inference-proof/v1"

// MaxProofBytes bounds a proof a decoder accepts (1 GiB).
const MaxProofBytes = 1 << 30

// MarshalBinary encodes the proof:
//
//	header   FormatVersion, then the field name ("bn254" or "bls12-377"),
//	         each as a uvarint length and bytes
//	body     the Proof struct, field by field in declaration order:
//	         a field element as 32 big-endian bytes (canonical),
//	         an int64 as a zig-zag varint,
//	         a slice as a uvarint length then its items,
//	         a pointer as one byte (0 nil, 1 present) then the value,
//	         a struct as its exported fields in order.
//
// The layout is that of the Go types, so it changes only with them; a
// change of the types comes with a new FormatVersion.
func (p *Proof[E]) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	writeString(&buf, FormatVersion)
	writeString(&buf, field.Name[E]())
	if err := encodeValue[E](&buf, reflect.ValueOf(p).Elem()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// UnmarshalProof decodes a proof written by MarshalBinary. It never
// panics, and the memory it allocates is bounded by the input: every
// length is checked against the bytes that remain divided by the smallest
// encoding of one item ([minEncodedSize]), and the decoder stops once it
// has allocated [AllocationRatio] bytes per input byte (plus
// [AllocationSlack]), a bound no proof MarshalBinary writes comes near.
func UnmarshalProof[E field.Scalar, P field.Ptr[E]](data []byte) (*Proof[E], error) {
	if len(data) > MaxProofBytes {
		return nil, fmt.Errorf("inference: proof of %d bytes exceeds %d", len(data), MaxProofBytes)
	}
	d := &decoder{data: data, budget: AllocationRatio*int64(len(data)) + AllocationSlack, sizes: map[reflect.Type]int{}}
	version, err := d.string()
	if err != nil || version != FormatVersion {
		return nil, fmt.Errorf("inference: not a %s proof", FormatVersion)
	}
	name, err := d.string()
	if err != nil || name != field.Name[E]() {
		return nil, fmt.Errorf("inference: proof over field %q, want %s", name, field.Name[E]())
	}
	p := new(Proof[E])
	if err := decodeValue[E, P](d, reflect.ValueOf(p).Elem()); err != nil {
		return nil, fmt.Errorf("inference: decode proof: %w", err)
	}
	if d.pos != len(d.data) {
		return nil, fmt.Errorf("inference: %d bytes after the proof", len(d.data)-d.pos)
	}
	return p, nil
}

// AllocationRatio and AllocationSlack bound what [UnmarshalProof] allocates
// for the values it decodes: AllocationRatio bytes per input byte plus
// AllocationSlack. An int64 encoded in one byte takes 8 in memory, the
// largest ratio of any single item, so honest proofs stay below the
// bound; crafted ones (many empty slices, absent pointers) are refused.
const (
	AllocationRatio = 8
	AllocationSlack = 1 << 16
)

func writeString(buf *bytes.Buffer, s string) {
	buf.Write(binary.AppendUvarint(nil, uint64(len(s))))
	buf.WriteString(s)
}

func encodeValue[E field.Scalar](buf *bytes.Buffer, v reflect.Value) error {
	if v.Type() == reflect.TypeFor[E]() {
		e := v.Interface().(E)
		b := any(&e).(interface{ Bytes() [32]byte }).Bytes()
		buf.Write(b[:])
		return nil
	}
	switch v.Kind() {
	case reflect.Int64, reflect.Int:
		buf.Write(binary.AppendVarint(nil, v.Int()))
	case reflect.Slice:
		buf.Write(binary.AppendUvarint(nil, uint64(v.Len())))
		for i := range v.Len() {
			if err := encodeValue[E](buf, v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			if err := encodeValue[E](buf, v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Pointer:
		if v.IsNil() {
			buf.WriteByte(0)
			return nil
		}
		buf.WriteByte(1)
		return encodeValue[E](buf, v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			if err := encodeValue[E](buf, v.Field(i)); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("inference: cannot encode a %s", v.Type())
	}
	return nil
}

type decoder struct {
	data []byte
	pos  int
	// budget is what the decoder may still allocate, in bytes.
	budget int64
	// sizes memoizes minEncodedSize.
	sizes map[reflect.Type]int
}

var errShort = errors.New("unexpected end of proof")

// allocate charges n bytes to the budget.
func (d *decoder) allocate(n int64) error {
	if n > d.budget {
		return fmt.Errorf("proof needs more than %d bytes of memory per input byte", AllocationRatio)
	}
	d.budget -= n
	return nil
}

// minEncodedSize returns the fewest bytes MarshalBinary writes for a value
// of type t (at least 1 for a slice item, so that lengths stay bounded):
// 32 for a field element, 1 for an integer, a slice or a pointer, the sum
// over the fields of a struct, n times the item's for an array.
func minEncodedSize[E field.Scalar](d *decoder, t reflect.Type) (int, error) {
	if n, ok := d.sizes[t]; ok {
		return n, nil
	}
	var n int
	switch {
	case t == reflect.TypeFor[E]():
		n = 32
	case t.Kind() == reflect.Int64, t.Kind() == reflect.Int, t.Kind() == reflect.Slice, t.Kind() == reflect.Pointer:
		n = 1
	case t.Kind() == reflect.Array:
		item, err := minEncodedSize[E](d, t.Elem())
		if err != nil {
			return 0, err
		}
		n = t.Len() * item
	case t.Kind() == reflect.Struct:
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				continue
			}
			f, err := minEncodedSize[E](d, t.Field(i).Type)
			if err != nil {
				return 0, err
			}
			n += f
		}
	default:
		return 0, fmt.Errorf("cannot decode a %s", t)
	}
	d.sizes[t] = n
	return n, nil
}

func (d *decoder) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.data[d.pos:])
	if n <= 0 {
		return 0, errShort
	}
	d.pos += n
	return v, nil
}

func (d *decoder) string() (string, error) {
	n, err := d.uvarint()
	if err != nil || n > uint64(len(d.data)-d.pos) {
		return "", errShort
	}
	s := string(d.data[d.pos : d.pos+int(n)])
	d.pos += int(n)
	return s, nil
}

func decodeValue[E field.Scalar, P field.Ptr[E]](d *decoder, v reflect.Value) error {
	if v.Type() == reflect.TypeFor[E]() {
		if len(d.data)-d.pos < 32 {
			return errShort
		}
		// v is addressable (a struct field, slice item or pointee):
		// decode in place, without boxing the element.
		e := v.Addr().Interface().(*E)
		if err := P(e).SetBytesCanonical(d.data[d.pos : d.pos+32]); err != nil {
			return fmt.Errorf("field element at byte %d: %w", d.pos, err)
		}
		d.pos += 32
		return nil
	}
	switch v.Kind() {
	case reflect.Int64, reflect.Int:
		x, n := binary.Varint(d.data[d.pos:])
		if n <= 0 {
			return errShort
		}
		d.pos += n
		v.SetInt(x)
	case reflect.Slice:
		n, err := d.uvarint()
		if err != nil {
			return err
		}
		item, err := minEncodedSize[E](d, v.Type().Elem())
		if err != nil {
			return err
		}
		if n > uint64(len(d.data)-d.pos)/uint64(max(item, 1)) {
			return fmt.Errorf("slice of %d items of at least %d bytes in %d bytes", n, max(item, 1), len(d.data)-d.pos)
		}
		if err := d.allocate(int64(n) * int64(v.Type().Elem().Size())); err != nil {
			return err
		}
		s := reflect.MakeSlice(v.Type(), int(n), int(n))
		for i := range int(n) {
			if err := decodeValue[E, P](d, s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			if err := decodeValue[E, P](d, v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Pointer:
		if d.pos >= len(d.data) {
			return errShort
		}
		flag := d.data[d.pos]
		d.pos++
		switch flag {
		case 0:
			v.SetZero()
			return nil
		case 1:
			if err := d.allocate(int64(v.Type().Elem().Size())); err != nil {
				return err
			}
			p := reflect.New(v.Type().Elem())
			if err := decodeValue[E, P](d, p.Elem()); err != nil {
				return err
			}
			v.Set(p)
		default:
			return fmt.Errorf("pointer flag %d at byte %d", flag, d.pos-1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			if err := decodeValue[E, P](d, v.Field(i)); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("cannot decode a %s", v.Type())
	}
	return nil
}
