package setup

import (
	"errors"
	"fmt"
	"io"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	mpcbls12377 "github.com/consensys/gnark/backend/groth16/bls12-377/mpcsetup"
	mpcbn254 "github.com/consensys/gnark/backend/groth16/bn254/mpcsetup"
	mpcbw6761 "github.com/consensys/gnark/backend/groth16/bw6-761/mpcsetup"
	"github.com/consensys/gnark/constraint"
	csbls12377 "github.com/consensys/gnark/constraint/bls12-377"
	csbn254 "github.com/consensys/gnark/constraint/bn254"
	csbw6761 "github.com/consensys/gnark/constraint/bw6-761"
)

// DomainSize returns the phase-1 domain size for ccs: the number of its
// constraints rounded up to a power of two, at least 2.
func DomainSize(ccs constraint.ConstraintSystem) uint64 {
	return max(2, ecc.NextPowerOfTwo(uint64(ccs.GetNbConstraints())))
}

// maxDomainLog bounds the phase-1 domain at 2²⁸ points.
const maxDomainLog = 28

// checkDomain accepts powers of two from 2 (gnark's phase-1 proofs read
// the first power of τ) to 2²⁸.
func checkDomain(n uint64) error {
	if n < 2 || n&(n-1) != 0 || n > 1<<maxDomainLog {
		return fmt.Errorf("setup: mpc: domain size %d is not a power of two in [2, 2^%d]", n, maxDomainLog)
	}
	return nil
}

// curveOf returns the curve whose scalar field ccs is defined over.
func curveOf(ccs constraint.ConstraintSystem) ecc.ID {
	for _, id := range []ecc.ID{ecc.BN254, ecc.BLS12_377, ecc.BW6_761} {
		if ccs.Field().Cmp(id.ScalarField()) == 0 {
			return id
		}
	}
	return ecc.UNKNOWN
}

var errMPCCurve = errors.New("setup: mpc: curve must be BN254, BLS12-377 or BW6-761")

// serialized is what every ceremony object is.
type serialized interface {
	io.WriterTo
	io.ReaderFrom
}

// Phase1Init writes the initial phase-1 object of domain size n.
func Phase1Init(curve ecc.ID, n uint64, w io.Writer) error {
	if err := checkDomain(n); err != nil {
		return err
	}
	var p io.WriterTo
	switch curve {
	case ecc.BN254:
		p = mpcbn254.NewPhase1(n)
	case ecc.BLS12_377:
		p = mpcbls12377.NewPhase1(n)
	case ecc.BW6_761:
		p = mpcbw6761.NewPhase1(n)
	default:
		return errMPCCurve
	}
	if _, err := p.WriteTo(w); err != nil {
		return fmt.Errorf("setup: mpc: write phase 1: %w", err)
	}
	return nil
}

// Phase1Contribute reads the latest phase-1 object of domain size n, adds
// fresh randomness (τ, α, β) with its proof of update and writes the
// result. The randomness comes from the operating system (crypto/rand),
// mixed with entropy when it is not empty ([withEntropy]).
func Phase1Contribute(curve ecc.ID, n uint64, r io.Reader, w io.Writer, entropy []byte) error {
	if err := checkDomain(n); err != nil {
		return err
	}
	r, err := guardPhase1(curve, n, r)
	if err != nil {
		return err
	}
	switch curve {
	case ecc.BN254:
		return contribute(new(mpcbn254.Phase1), (*mpcbn254.Phase1).Contribute, r, w, entropy)
	case ecc.BLS12_377:
		return contribute(new(mpcbls12377.Phase1), (*mpcbls12377.Phase1).Contribute, r, w, entropy)
	case ecc.BW6_761:
		return contribute(new(mpcbw6761.Phase1), (*mpcbw6761.Phase1).Contribute, r, w, entropy)
	default:
		return errMPCCurve
	}
}

// Phase2Shape is what a phase-2 contributor needs to know of the circuit
// to read the previous contribution safely ([ShapeOf]): no compilation.
type Phase2Shape struct {
	Curve ecc.ID
	// Commitments is the number of Pedersen commitments of the circuit;
	// MaxPoints bounds every slice of a phase-2 object (the circuit's
	// wires plus its domain size).
	Commitments int
	MaxPoints   uint64
}

// ShapeOf returns the phase-2 shape of ccs.
func ShapeOf(ccs constraint.ConstraintSystem) Phase2Shape {
	return Phase2Shape{
		Curve:       curveOf(ccs),
		Commitments: len(ccs.GetCommitments().CommitmentIndexes()),
		MaxPoints:   uint64(ccs.GetNbInternalVariables()+ccs.GetNbSecretVariables()+ccs.GetNbPublicVariables()) + DomainSize(ccs),
	}
}

// Phase2Contribute reads the latest phase-2 object of a circuit of the
// given shape, adds fresh randomness (δ and the commitment keys' σ) with
// its proof of update and writes the result; randomness as in
// [Phase1Contribute].
func Phase2Contribute(shape Phase2Shape, r io.Reader, w io.Writer, entropy []byte) error {
	r, err := guardPhase2(shape, r)
	if err != nil {
		return err
	}
	switch shape.Curve {
	case ecc.BN254:
		return contribute(new(mpcbn254.Phase2), (*mpcbn254.Phase2).Contribute, r, w, entropy)
	case ecc.BLS12_377:
		return contribute(new(mpcbls12377.Phase2), (*mpcbls12377.Phase2).Contribute, r, w, entropy)
	case ecc.BW6_761:
		return contribute(new(mpcbw6761.Phase2), (*mpcbw6761.Phase2).Contribute, r, w, entropy)
	default:
		return errMPCCurve
	}
}

func contribute[T serialized](p T, add func(T), r io.Reader, w io.Writer, entropy []byte) error {
	if _, err := p.ReadFrom(r); err != nil {
		return fmt.Errorf("setup: mpc: read previous contribution: %w", err)
	}
	withEntropy(entropy, func() { add(p) })
	if _, err := p.WriteTo(w); err != nil {
		return fmt.Errorf("setup: mpc: write contribution: %w", err)
	}
	return nil
}

// chained is a ceremony object that verifies the next contribution
// against itself (gnark's Phase1 and Phase2 of each curve).
type chained[T any] interface {
	serialized
	Verify(next T) error
}

// verifyChain decodes the contributions one at a time, each first checked
// by guard, and verifies each against the one before, starting from
// first; it returns the last. At most two contributions are in memory at
// once, so a ceremony of many contributions verifies in the memory of
// two (the wrapper's phase-1 objects are gigabytes each).
func verifyChain[T chained[T]](first T, fresh func() T, guard func(io.Reader) (io.Reader, error), contributions []io.Reader) (T, error) {
	prev := first
	if len(contributions) == 0 {
		return prev, errors.New("setup: mpc: no contributions")
	}
	for i, r := range contributions {
		r, err := guard(r)
		if err != nil {
			return prev, fmt.Errorf("contribution %d: %w", i, err)
		}
		next := fresh()
		if _, err := next.ReadFrom(r); err != nil {
			return prev, fmt.Errorf("read contribution %d: %w", i, err)
		}
		if err := prev.Verify(next); err != nil {
			return prev, fmt.Errorf("contribution %d: %w", i, err)
		}
		prev = next
	}
	return prev, nil
}

// Phase1Seal verifies the phase-1 contributions, in order, from the initial
// object of domain size n, applies the public beacon and writes the
// circuit-independent SRS commons. The contributions are read one at a
// time, as they are verified: the readers may be files not yet read.
func Phase1Seal(curve ecc.ID, n uint64, beacon []byte, contributions []io.Reader, w io.Writer) error {
	if err := checkDomain(n); err != nil {
		return err
	}
	guard := func(r io.Reader) (io.Reader, error) { return guardPhase1(curve, n, r) }
	var commons io.WriterTo
	switch curve {
	case ecc.BN254:
		last, err := verifyChain(mpcbn254.NewPhase1(n), func() *mpcbn254.Phase1 { return new(mpcbn254.Phase1) }, guard, contributions)
		if err != nil {
			return fmt.Errorf("setup: mpc: verify phase 1: %w", err)
		}
		s := last.Seal(beacon)
		commons = &s
	case ecc.BLS12_377:
		last, err := verifyChain(mpcbls12377.NewPhase1(n), func() *mpcbls12377.Phase1 { return new(mpcbls12377.Phase1) }, guard, contributions)
		if err != nil {
			return fmt.Errorf("setup: mpc: verify phase 1: %w", err)
		}
		s := last.Seal(beacon)
		commons = &s
	case ecc.BW6_761:
		last, err := verifyChain(mpcbw6761.NewPhase1(n), func() *mpcbw6761.Phase1 { return new(mpcbw6761.Phase1) }, guard, contributions)
		if err != nil {
			return fmt.Errorf("setup: mpc: verify phase 1: %w", err)
		}
		s := last.Seal(beacon)
		commons = &s
	default:
		return errMPCCurve
	}
	if _, err := commons.WriteTo(w); err != nil {
		return fmt.Errorf("setup: mpc: write commons: %w", err)
	}
	return nil
}

// Phase2Init writes the initial phase-2 object of ccs from the SRS commons.
func Phase2Init(ccs constraint.ConstraintSystem, commons io.Reader, w io.Writer) error {
	var p io.WriterTo
	switch r1cs := ccs.(type) {
	case *csbn254.R1CS:
		c, err := readCommons(new(mpcbn254.SrsCommons), commons, ccs)
		if err != nil {
			return err
		}
		var p2 mpcbn254.Phase2
		p2.Initialize(r1cs, c)
		p = &p2
	case *csbls12377.R1CS:
		c, err := readCommons(new(mpcbls12377.SrsCommons), commons, ccs)
		if err != nil {
			return err
		}
		var p2 mpcbls12377.Phase2
		p2.Initialize(r1cs, c)
		p = &p2
	case *csbw6761.R1CS:
		c, err := readCommons(new(mpcbw6761.SrsCommons), commons, ccs)
		if err != nil {
			return err
		}
		var p2 mpcbw6761.Phase2
		p2.Initialize(r1cs, c)
		p = &p2
	default:
		return fmt.Errorf("setup: mpc: constraint system %T is not an R1CS over BN254, BLS12-377 or BW6-761", ccs)
	}
	if _, err := p.WriteTo(w); err != nil {
		return fmt.Errorf("setup: mpc: write phase 2: %w", err)
	}
	return nil
}

// readCommons decodes SRS commons of the domain size of ccs.
func readCommons[T serialized](c T, r io.Reader, ccs constraint.ConstraintSystem) (T, error) {
	r, err := guardCommons(DomainSize(ccs), r)
	if err != nil {
		return c, err
	}
	if _, err := c.ReadFrom(r); err != nil {
		return c, fmt.Errorf("setup: mpc: read commons: %w", err)
	}
	return c, nil
}

// Phase2Seal verifies the phase-2 contributions of ccs, in order, applies
// the public beacon and returns the circuit's Groth16 keys. The
// contributions are read one at a time, as they are verified.
func Phase2Seal(ccs constraint.ConstraintSystem, commons io.Reader, beacon []byte, contributions []io.Reader) (groth16.ProvingKey, groth16.VerifyingKey, error) {
	var (
		pk  groth16.ProvingKey
		vk  groth16.VerifyingKey
		err error
	)
	shape := ShapeOf(ccs)
	guard := func(r io.Reader) (io.Reader, error) { return guardPhase2(shape, r) }
	switch r1cs := ccs.(type) {
	case *csbn254.R1CS:
		c, e := readCommons(new(mpcbn254.SrsCommons), commons, ccs)
		if e != nil {
			return nil, nil, e
		}
		first := new(mpcbn254.Phase2)
		evals := first.Initialize(r1cs, c)
		last, e := verifyChain(first, func() *mpcbn254.Phase2 { return new(mpcbn254.Phase2) }, guard, contributions)
		if err = e; err == nil {
			pk, vk = last.Seal(c, &evals, beacon)
		}
	case *csbls12377.R1CS:
		c, e := readCommons(new(mpcbls12377.SrsCommons), commons, ccs)
		if e != nil {
			return nil, nil, e
		}
		first := new(mpcbls12377.Phase2)
		evals := first.Initialize(r1cs, c)
		last, e := verifyChain(first, func() *mpcbls12377.Phase2 { return new(mpcbls12377.Phase2) }, guard, contributions)
		if err = e; err == nil {
			pk, vk = last.Seal(c, &evals, beacon)
		}
	case *csbw6761.R1CS:
		c, e := readCommons(new(mpcbw6761.SrsCommons), commons, ccs)
		if e != nil {
			return nil, nil, e
		}
		first := new(mpcbw6761.Phase2)
		evals := first.Initialize(r1cs, c)
		last, e := verifyChain(first, func() *mpcbw6761.Phase2 { return new(mpcbw6761.Phase2) }, guard, contributions)
		if err = e; err == nil {
			pk, vk = last.Seal(c, &evals, beacon)
		}
	default:
		return nil, nil, fmt.Errorf("setup: mpc: constraint system %T is not an R1CS over BN254, BLS12-377 or BW6-761", ccs)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("setup: mpc: verify phase 2: %w", err)
	}
	return pk, vk, nil
}
