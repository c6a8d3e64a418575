package setup

import (
	"fmt"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bls12377fft "github.com/consensys/gnark-crypto/ecc/bls12-377/fr/fft"
	bls12377pedersen "github.com/consensys/gnark-crypto/ecc/bls12-377/fr/pedersen"
	bn254 "github.com/consensys/gnark-crypto/ecc/bn254"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	bn254fft "github.com/consensys/gnark-crypto/ecc/bn254/fr/fft"
	bn254pedersen "github.com/consensys/gnark-crypto/ecc/bn254/fr/pedersen"
	bw6761 "github.com/consensys/gnark-crypto/ecc/bw6-761"
	bw6761fr "github.com/consensys/gnark-crypto/ecc/bw6-761/fr"
	bw6761fft "github.com/consensys/gnark-crypto/ecc/bw6-761/fr/fft"
	bw6761pedersen "github.com/consensys/gnark-crypto/ecc/bw6-761/fr/pedersen"
	"github.com/consensys/gnark/backend/groth16"
	groth16bls12377 "github.com/consensys/gnark/backend/groth16/bls12-377"
	groth16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
	groth16bw6761 "github.com/consensys/gnark/backend/groth16/bw6-761"
	"github.com/consensys/gnark/constraint"
	csbls12377 "github.com/consensys/gnark/constraint/bls12-377"
	csbn254 "github.com/consensys/gnark/constraint/bn254"
	csbw6761 "github.com/consensys/gnark/constraint/bw6-761"

	"github.com/veriformer/veriformer/internal/comb"
)

// The three functions below are the same steps over each curve's types
// (gnark's keys are one type per curve): the exponents, the G1 and G2
// points by the comb, then the keys' fields.

func setupBN254(r *csbn254.R1CS) (groth16.ProvingKey, groth16.VerifyingKey, error) {
	domain := bn254fft.NewDomain(uint64(r.GetNbConstraints()))
	k, p, g2s, err := devPoints[bn254fr.Element, bn254.G1Affine, bn254.G1Jac, bn254.G2Affine, bn254.G2Jac](&r.System, domain.Cardinality, domain.Generator, domain.CardinalityInv, r.Coefficients,
		bn254.Generators, bn254fr.Bits, func(x *bn254fr.Element) []uint64 { b := x.Bits(); return b[:] },
		bn254.BatchJacobianToAffineG1, comb.ToAffine[bn254.G2Jac, bn254.G2Affine])
	if err != nil {
		return nil, nil, err
	}
	nb := len(k.B)

	pk, vk := &groth16bn254.ProvingKey{}, &groth16bn254.VerifyingKey{}
	pk.Domain = *domain
	pk.G1.Alpha, pk.G1.Beta, pk.G1.Delta = p.Alpha, p.Beta, p.Delta
	pk.G1.A, pk.G1.B, pk.G1.Z, pk.G1.K = p.A, p.B, p.Z, p.PK
	pk.G2.B, pk.G2.Beta, pk.G2.Delta = g2s[:nb], g2s[nb], g2s[nb+1]
	pk.InfinityA, pk.InfinityB = k.InfinityA, k.InfinityB
	pk.NbInfinityA, pk.NbInfinityB = count(k.InfinityA), count(k.InfinityB)
	vk.G1.Alpha, vk.G1.Beta, vk.G1.Delta, vk.G1.K = p.Alpha, p.Beta, p.Delta, p.VK
	vk.G2.Beta, vk.G2.Delta, vk.G2.Gamma = g2s[nb], g2s[nb+1], g2s[nb+2]
	for i, basis := range p.Commitments {
		cpk, cvk, err := bn254pedersen.Setup([][]bn254.G1Affine{basis}, bn254pedersen.WithG2Point(vk.G2.Gamma))
		if err != nil {
			return nil, nil, fmt.Errorf("setup: commitment key %d: %w", i, err)
		}
		pk.CommitmentKeys = append(pk.CommitmentKeys, cpk[0])
		vk.CommitmentKeys = append(vk.CommitmentKeys, cvk)
	}
	vk.PublicAndCommitmentCommitted = publicAndCommitmentCommitted(&r.System)
	if err := vk.Precompute(); err != nil {
		return nil, nil, err
	}
	return pk, vk, nil
}

func setupBLS12377(r *csbls12377.R1CS) (groth16.ProvingKey, groth16.VerifyingKey, error) {
	domain := bls12377fft.NewDomain(uint64(r.GetNbConstraints()))
	k, p, g2s, err := devPoints[bls12377fr.Element, bls12377.G1Affine, bls12377.G1Jac, bls12377.G2Affine, bls12377.G2Jac](&r.System, domain.Cardinality, domain.Generator, domain.CardinalityInv, r.Coefficients,
		bls12377.Generators, bls12377fr.Bits, func(x *bls12377fr.Element) []uint64 { b := x.Bits(); return b[:] },
		bls12377.BatchJacobianToAffineG1, comb.ToAffine[bls12377.G2Jac, bls12377.G2Affine])
	if err != nil {
		return nil, nil, err
	}
	nb := len(k.B)

	pk, vk := &groth16bls12377.ProvingKey{}, &groth16bls12377.VerifyingKey{}
	pk.Domain = *domain
	pk.G1.Alpha, pk.G1.Beta, pk.G1.Delta = p.Alpha, p.Beta, p.Delta
	pk.G1.A, pk.G1.B, pk.G1.Z, pk.G1.K = p.A, p.B, p.Z, p.PK
	pk.G2.B, pk.G2.Beta, pk.G2.Delta = g2s[:nb], g2s[nb], g2s[nb+1]
	pk.InfinityA, pk.InfinityB = k.InfinityA, k.InfinityB
	pk.NbInfinityA, pk.NbInfinityB = count(k.InfinityA), count(k.InfinityB)
	vk.G1.Alpha, vk.G1.Beta, vk.G1.Delta, vk.G1.K = p.Alpha, p.Beta, p.Delta, p.VK
	vk.G2.Beta, vk.G2.Delta, vk.G2.Gamma = g2s[nb], g2s[nb+1], g2s[nb+2]
	for i, basis := range p.Commitments {
		cpk, cvk, err := bls12377pedersen.Setup([][]bls12377.G1Affine{basis}, bls12377pedersen.WithG2Point(vk.G2.Gamma))
		if err != nil {
			return nil, nil, fmt.Errorf("setup: commitment key %d: %w", i, err)
		}
		pk.CommitmentKeys = append(pk.CommitmentKeys, cpk[0])
		vk.CommitmentKeys = append(vk.CommitmentKeys, cvk)
	}
	vk.PublicAndCommitmentCommitted = publicAndCommitmentCommitted(&r.System)
	if err := vk.Precompute(); err != nil {
		return nil, nil, err
	}
	return pk, vk, nil
}

func setupBW6761(r *csbw6761.R1CS) (groth16.ProvingKey, groth16.VerifyingKey, error) {
	domain := bw6761fft.NewDomain(uint64(r.GetNbConstraints()))
	k, p, g2s, err := devPoints[bw6761fr.Element, bw6761.G1Affine, bw6761.G1Jac, bw6761.G2Affine, bw6761.G2Jac](&r.System, domain.Cardinality, domain.Generator, domain.CardinalityInv, r.Coefficients,
		bw6761.Generators, bw6761fr.Bits, func(x *bw6761fr.Element) []uint64 { b := x.Bits(); return b[:] },
		bw6761.BatchJacobianToAffineG1, comb.ToAffine[bw6761.G2Jac, bw6761.G2Affine])
	if err != nil {
		return nil, nil, err
	}
	nb := len(k.B)

	pk, vk := &groth16bw6761.ProvingKey{}, &groth16bw6761.VerifyingKey{}
	pk.Domain = *domain
	pk.G1.Alpha, pk.G1.Beta, pk.G1.Delta = p.Alpha, p.Beta, p.Delta
	pk.G1.A, pk.G1.B, pk.G1.Z, pk.G1.K = p.A, p.B, p.Z, p.PK
	pk.G2.B, pk.G2.Beta, pk.G2.Delta = g2s[:nb], g2s[nb], g2s[nb+1]
	pk.InfinityA, pk.InfinityB = k.InfinityA, k.InfinityB
	pk.NbInfinityA, pk.NbInfinityB = count(k.InfinityA), count(k.InfinityB)
	vk.G1.Alpha, vk.G1.Beta, vk.G1.Delta, vk.G1.K = p.Alpha, p.Beta, p.Delta, p.VK
	vk.G2.Beta, vk.G2.Delta, vk.G2.Gamma = g2s[nb], g2s[nb+1], g2s[nb+2]
	for i, basis := range p.Commitments {
		cpk, cvk, err := bw6761pedersen.Setup([][]bw6761.G1Affine{basis}, bw6761pedersen.WithG2Point(vk.G2.Gamma))
		if err != nil {
			return nil, nil, fmt.Errorf("setup: commitment key %d: %w", i, err)
		}
		pk.CommitmentKeys = append(pk.CommitmentKeys, cpk[0])
		vk.CommitmentKeys = append(vk.CommitmentKeys, cvk)
	}
	vk.PublicAndCommitmentCommitted = publicAndCommitmentCommitted(&r.System)
	if err := vk.Precompute(); err != nil {
		return nil, nil, err
	}
	return pk, vk, nil
}

// publicAndCommitmentCommitted is the verifying key's list of the public
// inputs and commitments each commitment holds.
func publicAndCommitmentCommitted(r *constraint.System) [][]int {
	info := r.CommitmentInfo.(constraint.Groth16Commitments)
	return info.GetPublicAndCommitmentCommitted(info.CommitmentIndexes(), r.GetNbPublicVariables())
}
