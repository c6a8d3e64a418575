package setup

import (
	"fmt"

	bn254 "github.com/consensys/gnark-crypto/ecc/bn254"
	"github.com/consensys/gnark-crypto/ecc/bn254/fr/pedersen"
	"github.com/consensys/gnark/backend/groth16"
	groth16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
)

// commitOnGamma gives a BN254 development key pair the commitment keys a
// ceremony gives: gnark's groth16.Setup draws the commitment key's G2 point
// G at random, while a key sealed by the MPC ceremony has G = [γ]₂ (both
// the G2 generator there). The Pedersen keys are drawn again, with a fresh
// σ, on the same bases and with G = [γ]₂, so that the on-chain verifier
// folds the proof of knowledge into the Groth16 pairing of the public
// inputs (five pairs instead of six, solidity.Template Merged). The check
// the proof of knowledge makes, PoK = σ·D, does not depend on G, and
// [σγ]₂ is public in either case; development keys are forgeable by
// whoever ran the setup anyway. Keys of other curves are left as they are:
// only BN254 keys are verified on chain.
func commitOnGamma(pk groth16.ProvingKey, vk groth16.VerifyingKey) error {
	bpk, ok := pk.(*groth16bn254.ProvingKey)
	if !ok {
		return nil
	}
	bvk, ok := vk.(*groth16bn254.VerifyingKey)
	if !ok {
		return fmt.Errorf("setup: a BN254 proving key with a %T", vk)
	}
	if len(bpk.CommitmentKeys) != len(bvk.CommitmentKeys) {
		return fmt.Errorf("setup: %d commitment proving keys, %d verifying keys", len(bpk.CommitmentKeys), len(bvk.CommitmentKeys))
	}
	for i := range bpk.CommitmentKeys {
		cpk, cvk, err := pedersen.Setup([][]bn254.G1Affine{bpk.CommitmentKeys[i].Basis}, pedersen.WithG2Point(bvk.G2.Gamma))
		if err != nil {
			return fmt.Errorf("setup: commitment key %d: %w", i, err)
		}
		bpk.CommitmentKeys[i] = cpk[0]
		bvk.CommitmentKeys[i] = cvk
	}
	return nil
}
