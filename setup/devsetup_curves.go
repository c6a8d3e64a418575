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
	k, err := newScalarKeys[bn254fr.Element](&r.System, r.GetR1CIterator(), r.Coefficients,
		domainOf[bn254fr.Element]{N: int(domain.Cardinality), generator: domain.Generator, inv: domain.CardinalityInv})
	if err != nil {
		return nil, nil, err
	}
	const words = len(bn254fr.Element{})
	wordsOf := func(x *bn254fr.Element, out []uint64) { b := x.Bits(); copy(out, b[:]) }
	_, _, g1, g2 := bn254.Generators()
	p := cutG1(k, comb.Multiply[bn254.G1Jac](&g1, canonical(k.g1Exponents(), words, wordsOf), words, bn254fr.Bits, bn254.BatchJacobianToAffineG1))
	g2s := comb.Multiply[bn254.G2Jac](&g2, canonical(k.g2Exponents(), words, wordsOf), words, bn254fr.Bits, comb.ToAffine[bn254.G2Jac, bn254.G2Affine])
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
	k, err := newScalarKeys[bls12377fr.Element](&r.System, r.GetR1CIterator(), r.Coefficients,
		domainOf[bls12377fr.Element]{N: int(domain.Cardinality), generator: domain.Generator, inv: domain.CardinalityInv})
	if err != nil {
		return nil, nil, err
	}
	const words = len(bls12377fr.Element{})
	wordsOf := func(x *bls12377fr.Element, out []uint64) { b := x.Bits(); copy(out, b[:]) }
	_, _, g1, g2 := bls12377.Generators()
	p := cutG1(k, comb.Multiply[bls12377.G1Jac](&g1, canonical(k.g1Exponents(), words, wordsOf), words, bls12377fr.Bits, bls12377.BatchJacobianToAffineG1))
	g2s := comb.Multiply[bls12377.G2Jac](&g2, canonical(k.g2Exponents(), words, wordsOf), words, bls12377fr.Bits, comb.ToAffine[bls12377.G2Jac, bls12377.G2Affine])
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
	k, err := newScalarKeys[bw6761fr.Element](&r.System, r.GetR1CIterator(), r.Coefficients,
		domainOf[bw6761fr.Element]{N: int(domain.Cardinality), generator: domain.Generator, inv: domain.CardinalityInv})
	if err != nil {
		return nil, nil, err
	}
	const words = len(bw6761fr.Element{})
	wordsOf := func(x *bw6761fr.Element, out []uint64) { b := x.Bits(); copy(out, b[:]) }
	_, _, g1, g2 := bw6761.Generators()
	p := cutG1(k, comb.Multiply[bw6761.G1Jac](&g1, canonical(k.g1Exponents(), words, wordsOf), words, bw6761fr.Bits, bw6761.BatchJacobianToAffineG1))
	g2s := comb.Multiply[bw6761.G2Jac](&g2, canonical(k.g2Exponents(), words, wordsOf), words, bw6761fr.Bits, comb.ToAffine[bw6761.G2Jac, bw6761.G2Affine])
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
