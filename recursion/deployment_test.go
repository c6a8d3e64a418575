package recursion

import (
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"
)

// deploymentCircuit checks deploymentID against the native final id.
type deploymentCircuit struct {
	Slot        frontend.Variable
	Path        [BucketDepth]frontend.Variable
	ModelDigest frontend.Variable
	KeyLimbs    []frontend.Variable
	Inner       frontend.Variable
	ID          frontend.Variable `gnark:",public"`
}

func (c *deploymentCircuit) Define(api frontend.API) error {
	id, err := deploymentID(api, c.Slot, c.Path, c.ModelDigest, 1, c.KeyLimbs, c.Inner)
	if err != nil {
		return err
	}
	api.AssertIsEqual(id, c.ID)
	return nil
}

// TestDeploymentID: the wrapper's final id in circuit is the native one
// for a key in slot 3 of a tree with another bucket in slot 12; and not
// for another slot with the same path, a sibling changed, another model
// digest, another inner id or a slot past the tree.
func TestDeploymentID(t *testing.T) {
	keyLimbs := []uint64{1, 2, 3, 1 << 63, 5, 6}
	inner := big.NewInt(424242)
	dep := &Deployment{ModelDigest: big.NewInt(777)}
	dep.Leaves[3] = bucketLeaf(3, 1, keyLimbs, inner)
	dep.Leaves[12] = big.NewInt(99)
	id, err := dep.FinalModelID()
	if err != nil {
		t.Fatal(err)
	}
	path, err := dep.Path(3)
	if err != nil {
		t.Fatal(err)
	}
	honest := func() *deploymentCircuit {
		c := &deploymentCircuit{Slot: 3, ModelDigest: dep.ModelDigest, Inner: inner, ID: id}
		for i, p := range path {
			c.Path[i] = p
		}
		for _, l := range keyLimbs {
			c.KeyLimbs = append(c.KeyLimbs, new(big.Int).SetUint64(l))
		}
		return c
	}
	placeholder := &deploymentCircuit{KeyLimbs: make([]frontend.Variable, len(keyLimbs))}
	field := ecc.BN254.ScalarField()
	if err := test.IsSolved(placeholder, honest(), field); err != nil {
		t.Fatal(err)
	}
	for name, tamper := range map[string]func(c *deploymentCircuit){
		"another slot":     func(c *deploymentCircuit) { c.Slot = 2 },
		"a slot past":      func(c *deploymentCircuit) { c.Slot = 3 + BucketSlots },
		"a sibling":        func(c *deploymentCircuit) { c.Path[2] = big.NewInt(1) },
		"the model digest": func(c *deploymentCircuit) { c.ModelDigest = 778 },
		"the inner id":     func(c *deploymentCircuit) { c.Inner = 424243 },
		"a key limb":       func(c *deploymentCircuit) { c.KeyLimbs[0] = 2 },
	} {
		c := honest()
		tamper(c)
		if err := test.IsSolved(placeholder, c, field); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
