package recursion

import (
	"fmt"
	"math/big"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/setup"
	stmt "github.com/veriformer/veriformer/statement"
)

// toySegment is a BLS12-377 circuit with a compile-time salt that makes
// circuits (and so keys) differ the way different segments do; with
// commit set it commits to X (gnark's api.Commit), giving keys with one
// Pedersen commitment. Only its keys are used: they feed ModelID.
type toySegment struct {
	X, Y frontend.Variable `gnark:",public"`

	salt   int  `gnark:"-"`
	commit bool `gnark:"-"`
}

func (c *toySegment) Define(api frontend.API) error {
	api.AssertIsEqual(c.Y, api.Mul(c.X, c.salt))
	if c.commit {
		committer, ok := api.(frontend.Committer)
		if !ok {
			return fmt.Errorf("builder cannot commit")
		}
		r, err := committer.Commit(c.X)
		if err != nil {
			return err
		}
		api.AssertIsDifferent(api.Add(r, c.X), api.Add(r, c.X, 1))
	}
	return nil
}

// toyKey compiles a toy segment and returns its development verifying key.
func toyKey(salt int, commit bool) (groth16.VerifyingKey, error) {
	ccs, err := frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, &toySegment{salt: salt, commit: commit})
	if err != nil {
		return nil, err
	}
	_, vk, err := setup.DevelopmentKeys(ccs)
	return vk, err
}

// toyAggregator is a BW6-761 circuit with the aggregator's public inputs
// (ModelID, ListDigest): the wrapper verifies any proof of that layout,
// so its tests run on this one rather than on a committed aggregator of
// real segments (package test and TestCommittedAggregator do that).
//
//	Secret = ModelID·ListDigest
type toyAggregator struct {
	ModelID    frontend.Variable `gnark:",public"`
	ListDigest frontend.Variable `gnark:",public"`
	Secret     frontend.Variable
}

func (c *toyAggregator) Define(api frontend.API) error {
	api.AssertIsEqual(c.Secret, api.Mul(c.ModelID, c.ListDigest))
	return nil
}

// fixture holds what the tests share: the keys of three toy segments (two
// without a commitment, one with) and the toy aggregator's keys with one
// honest proof.
type fixture struct {
	layer0, layer1, commit groth16.VerifyingKey
	aggregator             *Keys
	proof                  groth16.Proof
	list                   stmt.List
}

var (
	fixtureOnce  sync.Once
	fixtureValue *fixture
	fixtureErr   error
)

func getFixture(t testing.TB) *fixture {
	t.Helper()
	fixtureOnce.Do(func() {
		fixtureValue, fixtureErr = buildFixture()
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixtureValue
}

func buildFixture() (*fixture, error) {
	f := &fixture{}
	var err error
	if f.layer0, err = toyKey(3, false); err != nil {
		return nil, err
	}
	if f.layer1, err = toyKey(5, false); err != nil {
		return nil, err
	}
	if f.commit, err = toyKey(11, true); err != nil {
		return nil, err
	}
	var ccs constraint.ConstraintSystem
	if ccs, err = frontend.Compile(ecc.BW6_761.ScalarField(), r1cs.NewBuilder, &toyAggregator{}); err != nil {
		return nil, err
	}
	pk, vk, err := setup.DevelopmentKeys(ccs)
	if err != nil {
		return nil, err
	}
	f.aggregator = &Keys{CCS: ccs, PK: pk, VK: vk}
	// A request and a turn: the wrapper does not tell kinds apart.
	f.list = stmt.List{ModelID: big.NewInt(51*52 + 53), Leaves: []stmt.Leaf{
		stmt.RequestLeaf(big.NewInt(51), big.NewInt(52)),
		stmt.TurnLeaf(stmt.EmptyState, big.NewInt(53), big.NewInt(54), big.NewInt(55)),
	}}
	list, err := f.list.ListDigest()
	if err != nil {
		return nil, err
	}
	assignment := &toyAggregator{ModelID: f.list.ModelID, ListDigest: list, Secret: new(big.Int).Mul(f.list.ModelID, list)}
	if f.proof, err = prove(f.aggregator, assignment, ecc.BW6_761.ScalarField(), AggregatorProverOption()); err != nil {
		return nil, err
	}
	if err := VerifyAggregated(f.proof, f.aggregator.VK, f.list); err != nil {
		return nil, err
	}
	return f, nil
}
