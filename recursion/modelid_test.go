package recursion

import (
	"math/big"
	"testing"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
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

	leaf, err := BucketLeaf(3, f.aggregator.VK, id)
	if err != nil {
		t.Fatal(err)
	}
	for name, other := range map[string]func() (*big.Int, error){
		"slot":     func() (*big.Int, error) { return BucketLeaf(4, f.aggregator.VK, id) },
		"inner id": func() (*big.Int, error) { return BucketLeaf(3, f.aggregator.VK, big.NewInt(1)) },
	} {
		v, err := other()
		if err != nil || v.Cmp(leaf) == 0 {
			t.Errorf("the bucket leaf does not depend on the %s (%v)", name, err)
		}
	}
	if _, err := BucketLeaf(3, f.layer0, id); err == nil {
		t.Error("bucket leaf of a BLS12-377 key")
	}
	if _, err := BucketLeaf(3, f.aggregator.VK, new(big.Int).Lsh(big.NewInt(1), ModelIDBits)); err == nil {
		t.Error("bucket leaf of a 251-bit inner id")
	}
	if _, err := BucketLeaf(BucketSlots, f.aggregator.VK, id); err == nil {
		t.Error("bucket leaf of a slot past the tree")
	}
}

// TestDeployment: the final id depends on the model digest and on every
// leaf of the bucket tree; each leaf's path leads to the root.
func TestDeployment(t *testing.T) {
	dep := &Deployment{ModelDigest: big.NewInt(12345)}
	dep.Leaves[3] = big.NewInt(7)
	dep.Leaves[5] = big.NewInt(9)
	id, err := dep.FinalModelID()
	if err != nil {
		t.Fatal(err)
	}
	if id.BitLen() > ModelIDBits {
		t.Fatalf("final id of %d bits", id.BitLen())
	}
	for slot := range BucketSlots {
		path, err := dep.Path(slot)
		if err != nil {
			t.Fatal(err)
		}
		var node bn254fr.Element
		if dep.Leaves[slot] != nil {
			node.SetBigInt(dep.Leaves[slot])
		}
		for i, sib := range path {
			var s bn254fr.Element
			s.SetBigInt(sib)
			if slot>>i&1 == 1 {
				node = hashBN254(s, node)
			} else {
				node = hashBN254(node, s)
			}
		}
		if node.BigInt(new(big.Int)).Cmp(dep.Root()) != 0 {
			t.Fatalf("slot %d: the path does not lead to the root", slot)
		}
	}
	for name, change := range map[string]func(d *Deployment){
		"model digest":  func(d *Deployment) { d.ModelDigest = big.NewInt(12346) },
		"a leaf":        func(d *Deployment) { d.Leaves[5] = big.NewInt(10) },
		"another leaf":  func(d *Deployment) { d.Leaves[6] = big.NewInt(9) },
		"a leaf moved":  func(d *Deployment) { d.Leaves[4], d.Leaves[5] = d.Leaves[5], nil },
		"a leaf absent": func(d *Deployment) { d.Leaves[3] = nil },
	} {
		other := *dep
		change(&other)
		v, err := other.FinalModelID()
		if err != nil || v.Cmp(id) == 0 {
			t.Errorf("the final id does not depend on %s (%v)", name, err)
		}
	}
	if _, err := (&Deployment{}).FinalModelID(); err == nil {
		t.Error("final id without a model digest")
	}
	for _, c := range []struct{ rows, slot int }{{1, 0}, {2, 1}, {3, 2}, {16, 4}, {17, 5}, {24, 5}, {1024, 10}} {
		if got, err := BucketSlot(c.rows); err != nil || got != c.slot {
			t.Errorf("BucketSlot(%d) = %d, %v; want %d", c.rows, got, err, c.slot)
		}
	}
	if _, err := BucketSlot(0); err == nil {
		t.Error("slot of a bucket of 0 rows")
	}

}
