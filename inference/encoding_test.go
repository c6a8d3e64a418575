package inference

import (
	"bytes"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
)

// header returns the encoding's header for the field E.
func header[E field.Scalar]() []byte {
	var buf bytes.Buffer
	writeString(&buf, FormatVersion)
	writeString(&buf, field.Name[E]())
	return buf.Bytes()
}

// TestEncoding: the encoding starts with the format and the field's name,
// and a proof encodes to the same bytes every time.
func TestEncoding(t *testing.T) {
	_, _, _, proof := proveDefault[bn254fr.Element](t, []int{'a', 'b'}, 2, 0)
	data, err := proof.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("proof: %d bytes", len(data))
	if !bytes.HasPrefix(data, header[bn254fr.Element]()) || bytes.HasPrefix(data, header[bls12377fr.Element]()) {
		t.Fatal("the encoding does not start with the format and the field's name")
	}
	again, err := proof.MarshalBinary()
	if err != nil || !bytes.Equal(again, data) {
		t.Fatal("re-encoding differs")
	}
}
