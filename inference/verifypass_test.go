package inference

import (
	"errors"
	"math/big"
	"testing"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
)

// TestVerifyPass checks the entry point that takes the model id and a pass
// from the caller: the prover's own pass and a shape pass both verify an
// honest proof; a tampered proof, a pass of another length and another id
// are rejected.
func TestVerifyPass(t *testing.T) {
	prompt := []int{'a', 'b', 'c'}
	m, st, req, proof := proveDefault[bn254fr.Element](t, prompt, 2, 0)
	id := m.ID()
	_, tr, err := Generate(m, prompt, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyPass[bn254fr.Element](m, id, tr, st, req, proof); err != nil {
		t.Fatalf("prover's pass: %v", err)
	}
	rows := req.Rows
	view, err := ShapePass(m, rows)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyPass[bn254fr.Element](m, id, view, st, req, proof); err != nil {
		t.Fatalf("shape pass: %v", err)
	}
	rejected := map[string]func() error{
		"shorter pass": func() error {
			v, _ := ShapePass(m, rows-1)
			return VerifyPass[bn254fr.Element](m, id, v, st, req, proof)
		},
		"no pass": func() error {
			return VerifyPass[bn254fr.Element](m, id, nil, st, req, proof)
		},
		"another id": func() error {
			v, _ := ShapePass(m, rows)
			return VerifyPass[bn254fr.Element](m, new(big.Int).Add(id, big.NewInt(1)), v, st, req, proof)
		},
		"tampered tensor": func() error {
			v, _ := ShapePass(m, rows)
			tensors := append([][]int64(nil), proof.Tensors...)
			tensors[3] = append([]int64(nil), tensors[3]...)
			tensors[3][0]++
			bad := *proof
			bad.Tensors = tensors
			return VerifyPass[bn254fr.Element](m, id, v, st, req, &bad)
		},
	}
	for name, f := range rejected {
		if err := f(); !errors.Is(err, ErrRejected) {
			t.Errorf("%s: %v, want a rejection", name, err)
		}
	}
}
