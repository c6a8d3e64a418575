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
// panics and never allocates more than the input can fill: every length
// is checked against the bytes that remain.
func UnmarshalProof[E field.Scalar, P field.Ptr[E]](data []byte) (*Proof[E], error) {
	if len(data) > MaxProofBytes {
		return nil, fmt.Errorf("inference: proof of %d bytes exceeds %d", len(data), MaxProofBytes)
	}
	d := &decoder{data: data}
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
}

var errShort = errors.New("unexpected end of proof")

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
		var e E
		if err := P(&e).SetBytesCanonical(d.data[d.pos : d.pos+32]); err != nil {
			return fmt.Errorf("field element at byte %d: %w", d.pos, err)
		}
		d.pos += 32
		v.Set(reflect.ValueOf(e))
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
		// Every item takes at least one byte.
		if n > uint64(len(d.data)-d.pos) {
			return fmt.Errorf("slice of %d items in %d bytes", n, len(d.data)-d.pos)
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
