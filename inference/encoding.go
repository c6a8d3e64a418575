package inference

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"

	"github.com/veriformer/veriformer/field"
)

// FormatVersion names the binary proof format.
const FormatVersion = "veriformer/inference-proof/v1"

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
