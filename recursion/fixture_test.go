package recursion

import (
	"fmt"
	"math/big"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/setup"
)

// toySegment follows the segment contract: five public inputs in order, a
// secret step, and a compile-time salt that makes circuits (and so keys)
// differ the way different layers or models do:
//
//	ChainOut = (ChainIn + Step)·(ModelID + salt) + InputDigest·OutputDigest
//
// With commit set it also commits to Step (gnark's api.Commit), giving
// proofs with one Pedersen commitment.
type toySegment struct {
	ModelID      frontend.Variable `gnark:",public"`
	InputDigest  frontend.Variable `gnark:",public"`
	OutputDigest frontend.Variable `gnark:",public"`
	ChainIn      frontend.Variable `gnark:",public"`
	ChainOut     frontend.Variable `gnark:",public"`
	Step         frontend.Variable

	salt   int  `gnark:"-"`
	commit bool `gnark:"-"`
}

func (c *toySegment) Define(api frontend.API) error {
	out := api.Add(api.Mul(api.Add(c.ChainIn, c.Step), api.Add(c.ModelID, c.salt)), api.Mul(c.InputDigest, c.OutputDigest))
	api.AssertIsEqual(c.ChainOut, out)
	if c.commit {
		committer, ok := api.(frontend.Committer)
		if !ok {
			return fmt.Errorf("builder cannot commit")
		}
		r, err := committer.Commit(c.Step)
		if err != nil {
			return err
		}
		api.AssertIsDifferent(api.Add(r, c.Step), api.Add(r, c.Step, 1))
	}
	return nil
}

// toyNext is the native twin of the toy segment's relation.
func toyNext(salt int, public SegmentPublic, step uint64) bls12377fr.Element {
	var in, s, m, d, out bls12377fr.Element
	s.SetUint64(step)
	in.Add(&public.ChainIn, &s)
	m.SetInt64(int64(salt))
	m.Add(&m, &public.ModelID)
	out.Mul(&in, &m)
	d.Mul(&public.InputDigest, &public.OutputDigest)
	out.Add(&out, &d)
	return out
}

// toyCircuit is a compiled toy segment with its keys.
type toyCircuit struct {
	salt   int
	commit bool
	ccs    constraint.ConstraintSystem
	pk     groth16.ProvingKey
	vk     groth16.VerifyingKey
}

func newToyCircuit(salt int, commit bool) (*toyCircuit, error) {
	ccs, err := frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, &toySegment{salt: salt, commit: commit})
	if err != nil {
		return nil, err
	}
	pk, vk, err := setup.DevelopmentKeys(ccs)
	if err != nil {
		return nil, err
	}
	return &toyCircuit{salt: salt, commit: commit, ccs: ccs, pk: pk, vk: vk}, nil
}

// prove proves one step from public.ChainIn, filling public.ChainOut.
func (t *toyCircuit) prove(public SegmentPublic, step uint64) (groth16.Proof, SegmentPublic, error) {
	public.ChainOut = toyNext(t.salt, public, step)
	assignment := &toySegment{
		ModelID:      public.ModelID.BigInt(new(big.Int)),
		InputDigest:  public.InputDigest.BigInt(new(big.Int)),
		OutputDigest: public.OutputDigest.BigInt(new(big.Int)),
		ChainIn:      public.ChainIn.BigInt(new(big.Int)),
		ChainOut:     public.ChainOut.BigInt(new(big.Int)),
		Step:         step,
		salt:         t.salt,
		commit:       t.commit,
	}
	w, err := frontend.NewWitness(assignment, ecc.BLS12_377.ScalarField())
	if err != nil {
		return nil, public, err
	}
	proof, err := groth16.Prove(t.ccs, t.pk, w, SegmentProverOption())
	return proof, public, err
}

// chainFixture is one honest aggregated proof input: k segments of the
// given circuits, one statement, chained.
type chainFixture struct {
	proofs  []groth16.Proof
	keys    []groth16.VerifyingKey
	publics []SegmentPublic
	graph   bls12377fr.Element
}

func newChain(circuits []*toyCircuit, inputDigest, outputDigest, chain0, graph uint64) (*chainFixture, error) {
	f := &chainFixture{}
	f.graph.SetUint64(graph)
	for _, c := range circuits {
		f.keys = append(f.keys, c.vk)
	}
	id, err := ModelID(f.keys, f.graph)
	if err != nil {
		return nil, err
	}
	var public SegmentPublic
	public.ModelID.SetBigInt(id)
	public.InputDigest.SetUint64(inputDigest)
	public.OutputDigest.SetUint64(outputDigest)
	public.ChainIn.SetUint64(chain0)
	for i, c := range circuits {
		proof, p, err := c.prove(public, uint64(100+i))
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
		f.proofs = append(f.proofs, proof)
		f.publics = append(f.publics, p)
		public.ChainIn = p.ChainOut
	}
	return f, nil
}

// fixture holds what every test shares: toy circuits and the compiled
// aggregator of arity 2 with its (cached) keys.
type fixture struct {
	layer0, layer1, other, commit *toyCircuit
	aggregator2                   *Keys
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
	if f.layer0, err = newToyCircuit(3, false); err != nil {
		return nil, err
	}
	if f.layer1, err = newToyCircuit(5, false); err != nil {
		return nil, err
	}
	if f.other, err = newToyCircuit(7, false); err != nil {
		return nil, err
	}
	if f.commit, err = newToyCircuit(11, true); err != nil {
		return nil, err
	}
	ccs, err := CompileAggregator(2, SegmentShape{})
	if err != nil {
		return nil, err
	}
	dir, err := setup.DefaultCacheDir()
	if err != nil {
		return nil, err
	}
	if f.aggregator2, err = setup.LoadOrSetup(ccs, dir); err != nil {
		return nil, err
	}
	return f, nil
}
