package recursion

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/backend/solidity"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
)

// Statement is what a proof of the aggregated shape states: model id, input
// digest, output digest. Each value is below r(BLS12-377), hence the same
// integer in BLS12-377 Fr, BN254 Fr and BW6-761 Fr.
type Statement struct {
	ModelID, InputDigest, OutputDigest bls12377fr.Element
}

// SegmentPublic is the public input of one segment proof, in circuit order.
type SegmentPublic struct {
	ModelID, InputDigest, OutputDigest, ChainIn, ChainOut bls12377fr.Element
}

// Statement returns the statement part of a segment's public input.
func (p SegmentPublic) Statement() Statement {
	return Statement{ModelID: p.ModelID, InputDigest: p.InputDigest, OutputDigest: p.OutputDigest}
}

// Witness returns the public witness of a segment proof, for groth16.Verify.
func (p SegmentPublic) Witness() (witness.Witness, error) {
	return publicWitness(ecc.BLS12_377.ScalarField(), p.ModelID, p.InputDigest, p.OutputDigest, p.ChainIn, p.ChainOut)
}

// SegmentPublicOf reads a segment's public input from its (public or full)
// witness.
func SegmentPublicOf(w witness.Witness) (SegmentPublic, error) {
	public, err := w.Public()
	if err != nil {
		return SegmentPublic{}, fmt.Errorf("recursion: segment witness: %w", err)
	}
	vector, ok := public.Vector().(bls12377fr.Vector)
	if !ok {
		return SegmentPublic{}, fmt.Errorf("recursion: segment witness is a %T, not a BLS12-377 vector", public.Vector())
	}
	if len(vector) != SegmentPublicInputs {
		return SegmentPublic{}, fmt.Errorf("recursion: segment witness has %d public inputs, want %d", len(vector), SegmentPublicInputs)
	}
	return SegmentPublic{ModelID: vector[0], InputDigest: vector[1], OutputDigest: vector[2], ChainIn: vector[3], ChainOut: vector[4]}, nil
}

// Witness returns the public witness of an aggregator proof (field
// BW6-761 Fr) or of a wrapper proof (field BN254 Fr) for this statement.
func (s Statement) Witness(field *big.Int) (witness.Witness, error) {
	return publicWitness(field, s.ModelID, s.InputDigest, s.OutputDigest)
}

func publicWitness(field *big.Int, values ...bls12377fr.Element) (witness.Witness, error) {
	w, err := witness.New(field)
	if err != nil {
		return nil, fmt.Errorf("recursion: public witness: %w", err)
	}
	ch := make(chan any, len(values))
	for i := range values {
		ch <- values[i].BigInt(new(big.Int))
	}
	close(ch)
	if err := w.Fill(len(values), 0, ch); err != nil {
		return nil, fmt.Errorf("recursion: public witness: %w", err)
	}
	return w, nil
}

// Keys is a compiled outer circuit with its Groth16 keys.
type Keys struct {
	CCS constraint.ConstraintSystem
	PK  groth16.ProvingKey
	VK  groth16.VerifyingKey
}

// CompileAggregator compiles the aggregator of arity k for segments of the
// given shape.
func CompileAggregator(k int, shape SegmentShape) (constraint.ConstraintSystem, error) {
	c, err := NewAggregator(k, shape)
	if err != nil {
		return nil, err
	}
	ccs, err := frontend.Compile(ecc.BW6_761.ScalarField(), r1cs.NewBuilder, c)
	if err != nil {
		return nil, fmt.Errorf("recursion: compile aggregator of arity %d: %w", k, err)
	}
	return ccs, nil
}

// CompileWrapper compiles the wrapper for aggregators with nbCommitments
// commitments ([AggregatorCommitments]).
func CompileWrapper(nbCommitments int) (constraint.ConstraintSystem, error) {
	c, err := NewWrapper(nbCommitments)
	if err != nil {
		return nil, err
	}
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c)
	if err != nil {
		return nil, fmt.Errorf("recursion: compile wrapper: %w", err)
	}
	return ccs, nil
}

// AggregatorCommitments returns the number of Pedersen commitments of a
// compiled aggregator — the wrapper's shape parameter.
func AggregatorCommitments(ccs constraint.ConstraintSystem) int {
	return len(ccs.GetCommitments().CommitmentIndexes())
}

// LoadOrSetupKeys compiles nothing: it fetches or makes the keys of ccs in
// the cache directory dir ([LoadOrSetup]) and bundles them.
func LoadOrSetupKeys(ccs constraint.ConstraintSystem, dir string) (*Keys, error) {
	pk, vk, err := LoadOrSetup(ccs, dir)
	if err != nil {
		return nil, err
	}
	return &Keys{CCS: ccs, PK: pk, VK: vk}, nil
}

// CheckSegments checks natively what the aggregator checks in-circuit: every
// segment proof verifies under its key, all carry one statement, they
// chain, and the model id is ModelID(keys, graphDigest). It returns the
// statement.
func CheckSegments(proofs []groth16.Proof, keys []groth16.VerifyingKey, publics []SegmentPublic, graphDigest bls12377fr.Element) (Statement, error) {
	if len(proofs) == 0 || len(proofs) != len(keys) || len(proofs) != len(publics) {
		return Statement{}, fmt.Errorf("recursion: %d proofs, %d keys, %d public inputs: want as many, at least one", len(proofs), len(keys), len(publics))
	}
	statement := publics[0].Statement()
	for i := range proofs {
		if publics[i].Statement() != statement {
			return Statement{}, fmt.Errorf("recursion: segment %d states another (model id, input digest, output digest) than segment 0", i)
		}
		if i > 0 && publics[i].ChainIn != publics[i-1].ChainOut {
			return Statement{}, fmt.Errorf("recursion: segment %d does not chain: its ChainIn is not segment %d's ChainOut", i, i-1)
		}
		w, err := publics[i].Witness()
		if err != nil {
			return Statement{}, err
		}
		if err := groth16.Verify(proofs[i], keys[i], w, SegmentVerifierOption()); err != nil {
			return Statement{}, fmt.Errorf("recursion: segment %d proof: %w", i, err)
		}
	}
	id, err := ModelID(keys, graphDigest)
	if err != nil {
		return Statement{}, err
	}
	if id != statement.ModelID {
		return Statement{}, fmt.Errorf("recursion: the segments' model id is not ModelID(segment keys, graph digest)")
	}
	return statement, nil
}

// AggregatorAssignment returns the full assignment of the aggregator for the
// given segments; it does not check them ([CheckSegments] does).
func AggregatorAssignment(proofs []groth16.Proof, keys []groth16.VerifyingKey, publics []SegmentPublic, graphDigest bls12377fr.Element) (*Aggregator, error) {
	if len(proofs) == 0 || len(proofs) > MaxArity || len(proofs) != len(keys) || len(proofs) != len(publics) {
		return nil, fmt.Errorf("recursion: %d proofs, %d keys, %d public inputs: want as many, between 1 and %d", len(proofs), len(keys), len(publics), MaxArity)
	}
	statement := publics[0].Statement()
	a := &Aggregator{
		ModelID:      statement.ModelID.BigInt(new(big.Int)),
		InputDigest:  statement.InputDigest.BigInt(new(big.Int)),
		OutputDigest: statement.OutputDigest.BigInt(new(big.Int)),
		GraphDigest:  graphDigest.BigInt(new(big.Int)),
		Chain:        make([]frontend.Variable, len(proofs)+1),
		Segments:     make([]SegmentProof, len(proofs)),
	}
	for i := range proofs {
		s, err := ValueOfSegmentProof(proofs[i], keys[i])
		if err != nil {
			return nil, fmt.Errorf("recursion: segment %d: %w", i, err)
		}
		a.Segments[i] = s
		a.Chain[i] = publics[i].ChainIn.BigInt(new(big.Int))
	}
	a.Chain[len(proofs)] = publics[len(proofs)-1].ChainOut.BigInt(new(big.Int))
	return a, nil
}

// Aggregate proves, with the aggregator keys of arity len(proofs), that the
// segment proofs verify and chain; it returns the BW6-761 proof and its
// statement. The segments are checked natively first ([CheckSegments]) so a
// bad input fails with a precise error instead of an unsatisfied circuit.
func Aggregate(proofs []groth16.Proof, keys []groth16.VerifyingKey, publics []SegmentPublic, graphDigest bls12377fr.Element, aggregator *Keys) (groth16.Proof, Statement, error) {
	statement, err := CheckSegments(proofs, keys, publics, graphDigest)
	if err != nil {
		return nil, Statement{}, err
	}
	assignment, err := AggregatorAssignment(proofs, keys, publics, graphDigest)
	if err != nil {
		return nil, Statement{}, err
	}
	proof, err := prove(aggregator, assignment, ecc.BW6_761.ScalarField(), AggregatorProverOption())
	if err != nil {
		return nil, Statement{}, fmt.Errorf("recursion: aggregate: %w", err)
	}
	if err := VerifyAggregated(proof, aggregator.VK, statement); err != nil {
		return nil, Statement{}, fmt.Errorf("recursion: aggregate: fresh proof: %w", err)
	}
	return proof, statement, nil
}

// VerifyAggregated verifies an aggregator proof natively.
func VerifyAggregated(proof groth16.Proof, key groth16.VerifyingKey, statement Statement) error {
	w, err := statement.Witness(ecc.BW6_761.ScalarField())
	if err != nil {
		return err
	}
	if err := groth16.Verify(proof, key, w, AggregatorVerifierOption()); err != nil {
		return fmt.Errorf("recursion: aggregator proof: %w", err)
	}
	return nil
}

// WrapperAssignment returns the full wrapper assignment for an aggregator
// proof of the given statement, and the final statement it proves (the
// model id replaced by [FinalModelID]).
func WrapperAssignment(proof groth16.Proof, key groth16.VerifyingKey, statement Statement) (*Wrapper, Statement, error) {
	p, vk, err := ValueOfAggregatorProof(proof, key)
	if err != nil {
		return nil, Statement{}, err
	}
	final, err := FinalModelID(key, statement.ModelID)
	if err != nil {
		return nil, Statement{}, err
	}
	out := Statement{ModelID: final, InputDigest: statement.InputDigest, OutputDigest: statement.OutputDigest}
	return &Wrapper{
		ModelID:      final.BigInt(new(big.Int)),
		InputDigest:  statement.InputDigest.BigInt(new(big.Int)),
		OutputDigest: statement.OutputDigest.BigInt(new(big.Int)),
		InnerModelID: statement.ModelID.BigInt(new(big.Int)),
		Proof:        p,
		Key:          vk,
	}, out, nil
}

// Wrap proves, with the wrapper keys, that the aggregator proof verifies
// under the aggregator key; it returns the BN254 proof (made for gnark's
// Solidity verifier) and the final statement, the on-chain public inputs.
func Wrap(proof groth16.Proof, key groth16.VerifyingKey, statement Statement, wrapper *Keys) (groth16.Proof, Statement, error) {
	if err := VerifyAggregated(proof, key, statement); err != nil {
		return nil, Statement{}, err
	}
	assignment, final, err := WrapperAssignment(proof, key, statement)
	if err != nil {
		return nil, Statement{}, err
	}
	wrapped, err := prove(wrapper, assignment, ecc.BN254.ScalarField(), solidity.WithProverTargetSolidityVerifier(backend.GROTH16))
	if err != nil {
		return nil, Statement{}, fmt.Errorf("recursion: wrap: %w", err)
	}
	if err := VerifyWrapped(wrapped, wrapper.VK, final); err != nil {
		return nil, Statement{}, fmt.Errorf("recursion: wrap: fresh proof: %w", err)
	}
	return wrapped, final, nil
}

// VerifyWrapped verifies a wrapper proof natively, as the Solidity verifier
// does.
func VerifyWrapped(proof groth16.Proof, key groth16.VerifyingKey, final Statement) error {
	w, err := final.Witness(ecc.BN254.ScalarField())
	if err != nil {
		return err
	}
	if err := groth16.Verify(proof, key, w, solidity.WithVerifierTargetSolidityVerifier(backend.GROTH16)); err != nil {
		return fmt.Errorf("recursion: wrapper proof: %w", err)
	}
	return nil
}

func prove(keys *Keys, assignment frontend.Circuit, field *big.Int, opt backend.ProverOption) (groth16.Proof, error) {
	w, err := frontend.NewWitness(assignment, field)
	if err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	proof, err := groth16.Prove(keys.CCS, keys.PK, w, opt)
	if err != nil {
		return nil, fmt.Errorf("prove: %w", err)
	}
	return proof, nil
}
