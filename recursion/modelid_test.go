package recursion

import (
	"math/big"
	"testing"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark/backend/groth16"

	"github.com/veriformer/veriformer/pcs"
)

func TestModelID(t *testing.T) {
	f := getFixture(t)
	_, _, g1, _ := bls12377.Generators()
	var twice bls12377.G1Affine
	twice.Double(&g1)
	tables := [][]pcs.Commitment{{pcs.Commitment(g1)}, {}}
	others := [][]pcs.Commitment{{pcs.Commitment(twice)}, {}}
	keys := []groth16.VerifyingKey{f.layer0, f.layer1}
	id, err := ModelID(keys, tables)
	if err != nil {
		t.Fatal(err)
	}
	if id.BitLen() > ModelIDBits {
		t.Fatalf("model id has more than %d bits", ModelIDBits)
	}
	again, err := ModelID(keys, tables)
	if err != nil || again.Cmp(id) != 0 {
		t.Fatalf("model id not deterministic: %v", err)
	}
	for name, other := range map[string]func() (*big.Int, error){
		"table commitments": func() (*big.Int, error) { return ModelID(keys, others) },
		"key order":         func() (*big.Int, error) { return ModelID([]groth16.VerifyingKey{f.layer1, f.layer0}, tables) },
		"another key":       func() (*big.Int, error) { return ModelID([]groth16.VerifyingKey{f.layer0, f.layer0}, tables) },
		"number of keys":    func() (*big.Int, error) { return ModelID(keys[:1], tables) },
	} {
		v, err := other()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if v.Cmp(id) == 0 {
			t.Errorf("model id does not depend on the %s", name)
		}
	}
	if _, err := ModelID(nil, tables); err == nil {
		t.Error("model id of no keys")
	}
	if _, err := ModelID([]groth16.VerifyingKey{f.layer0, f.commit}, tables); err == nil {
		t.Error("model id of keys with different commitment counts")
	}
	if _, err := ModelID([]groth16.VerifyingKey{f.aggregator.VK}, tables); err == nil {
		t.Error("model id of a BW6-761 key")
	}

	final, err := FinalModelID(f.aggregator.VK, id)
	if err != nil {
		t.Fatal(err)
	}
	if final.BitLen() > ModelIDBits || final.Cmp(id) == 0 {
		t.Fatalf("final model id %v", final)
	}
	other, err := FinalModelID(f.aggregator.VK, big.NewInt(1))
	if err != nil || other.Cmp(final) == 0 {
		t.Fatalf("final model id does not depend on the inner id (%v)", err)
	}
	if _, err := FinalModelID(f.layer0, id); err == nil {
		t.Error("final model id of a BLS12-377 key")
	}
	if _, err := FinalModelID(f.aggregator.VK, new(big.Int).Lsh(big.NewInt(1), ModelIDBits)); err == nil {
		t.Error("final model id of a 251-bit inner id")
	}
}
