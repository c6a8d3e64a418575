package setup

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark/backend/groth16"
	groth16bls12377 "github.com/consensys/gnark/backend/groth16/bls12-377"
	groth16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
	groth16bw6761 "github.com/consensys/gnark/backend/groth16/bw6-761"
	"github.com/consensys/gnark/constraint"
)

var errPair = errors.New("the proving key does not belong to the verifying key")

// CheckPair checks that pk and vk come from one setup: both keys carry
// the same [α]₁, [β]₁, [δ]₁, [β]₂ and [δ]₂ and as many commitment keys.
// A proving key from another setup (of this or any circuit) differs in
// [δ] at least, except with negligible probability.
func CheckPair(pk groth16.ProvingKey, vk groth16.VerifyingKey) error {
	switch pk := pk.(type) {
	case *groth16bn254.ProvingKey:
		vk, ok := vk.(*groth16bn254.VerifyingKey)
		if !ok {
			return fmt.Errorf("%w: a BN254 proving key with a %T", errPair, vk)
		}
		if !pk.G1.Alpha.Equal(&vk.G1.Alpha) || !pk.G1.Beta.Equal(&vk.G1.Beta) || !pk.G1.Delta.Equal(&vk.G1.Delta) ||
			!pk.G2.Beta.Equal(&vk.G2.Beta) || !pk.G2.Delta.Equal(&vk.G2.Delta) || len(pk.CommitmentKeys) != len(vk.CommitmentKeys) {
			return errPair
		}
	case *groth16bls12377.ProvingKey:
		vk, ok := vk.(*groth16bls12377.VerifyingKey)
		if !ok {
			return fmt.Errorf("%w: a BLS12-377 proving key with a %T", errPair, vk)
		}
		if !pk.G1.Alpha.Equal(&vk.G1.Alpha) || !pk.G1.Beta.Equal(&vk.G1.Beta) || !pk.G1.Delta.Equal(&vk.G1.Delta) ||
			!pk.G2.Beta.Equal(&vk.G2.Beta) || !pk.G2.Delta.Equal(&vk.G2.Delta) || len(pk.CommitmentKeys) != len(vk.CommitmentKeys) {
			return errPair
		}
	case *groth16bw6761.ProvingKey:
		vk, ok := vk.(*groth16bw6761.VerifyingKey)
		if !ok {
			return fmt.Errorf("%w: a BW6-761 proving key with a %T", errPair, vk)
		}
		if !pk.G1.Alpha.Equal(&vk.G1.Alpha) || !pk.G1.Beta.Equal(&vk.G1.Beta) || !pk.G1.Delta.Equal(&vk.G1.Delta) ||
			!pk.G2.Beta.Equal(&vk.G2.Beta) || !pk.G2.Delta.Equal(&vk.G2.Delta) || len(pk.CommitmentKeys) != len(vk.CommitmentKeys) {
			return errPair
		}
	default:
		return fmt.Errorf("setup: proving key %T: want BN254, BLS12-377 or BW6-761", pk)
	}
	return nil
}

// checkCircuit checks that vk has the shape of a key of ccs: its curve,
// its number of public inputs and of commitments.
func checkCircuit(ccs constraint.ConstraintSystem, vk groth16.VerifyingKey) error {
	var commitments int
	switch vk := vk.(type) {
	case *groth16bn254.VerifyingKey:
		commitments = len(vk.CommitmentKeys)
	case *groth16bls12377.VerifyingKey:
		commitments = len(vk.CommitmentKeys)
	case *groth16bw6761.VerifyingKey:
		commitments = len(vk.CommitmentKeys)
	default:
		return fmt.Errorf("setup: verifying key %T: want BN254, BLS12-377 or BW6-761", vk)
	}
	if vk.CurveID() != curveOf(ccs) {
		return fmt.Errorf("setup: a %s verifying key for a circuit over %s", vk.CurveID(), curveOf(ccs))
	}
	nbCommitments := len(ccs.GetCommitments().CommitmentIndexes())
	if commitments != nbCommitments {
		return fmt.Errorf("setup: the verifying key has %d commitment keys, the circuit %d commitments", commitments, nbCommitments)
	}
	// gnark's verifying key has a point per public input and per
	// commitment (the commitment's hash joins the public inputs).
	if got, want := vk.NbPublicWitness()-commitments, ccs.GetNbPublicVariables()-1; got != want {
		return fmt.Errorf("setup: the verifying key takes %d public inputs, the circuit has %d", got, want)
	}
	return nil
}
