package lookup

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/rangecheck"

	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/lookup/table"
)

// multiplicityBits and the packing factor follow the native protocol.
const (
	multiplicityBits = 32
	packingFactor    = 7
)

// FractionLayer is one GKR step of a fraction tree.
type FractionLayer struct {
	SumCheck sumcheck.Proof
	Evals    [4]frontend.Variable
}

// FractionProof proves the sum of fractions over the leaves of a tree.
type FractionProof struct {
	Root   [4]frontend.Variable
	Layers []FractionLayer
}

// Proof is the in-circuit form of a LogUp proof.
type Proof struct {
	Multiplicities []frontend.Variable
	Witness        FractionProof
	Table          FractionProof
	ColumnEvals    []frontend.Variable
}

// PlaceholderProof sizes a proof of lookups into tbl from a tensor of the
// given shape.
func PlaceholderProof(tbl *table.Table, shape []int) (Proof, error) {
	_, total, err := native.ShapeVars(shape)
	if err != nil {
		return Proof{}, err
	}
	return Proof{
		Multiplicities: make([]frontend.Variable, 1<<tbl.NbVars),
		Witness:        placeholderFraction(max(total, 1)),
		Table:          placeholderFraction(tbl.NbVars),
		ColumnEvals:    make([]frontend.Variable, len(tbl.Columns)),
	}, nil
}

func placeholderFraction(n int) FractionProof {
	var fp FractionProof
	for j := 1; j < n; j++ {
		fp.Layers = append(fp.Layers, FractionLayer{SumCheck: sumcheck.PlaceholderProof(j, 3)})
	}
	return fp
}

// Verify checks a LogUp proof that the tuples of a tensor of the given
// shape are rows of tbl, in the native verifier's transcript order, and
// returns one claim per column on the zero-padded column MLEs.
//
// Cost (R1CS): for a witness of 2ⁿ entries and a table of 2ᵏ rows, the two
// trees take Σ_{j<n} (3j + 1) + Σ_{j<k} (3j + 1) multiplications plus
// transcript work ((3j + 6) absorbs/challenges per layer); the
// multiplicities cost a 32-bit range check each, 2ᵏ/7 absorbs and 2ᵏ − 1
// multiplications for their MLE; affine table columns are free, dense
// constant columns about 2ᵏ⁻¹ multiplications.
func Verify(api frontend.API, tr *transcript.Transcript, tbl *table.Table, shape []int, proof Proof) ([]poly.Claim, error) {
	if err := tbl.Validate(); err != nil {
		return nil, err
	}
	_, total, err := native.ShapeVars(shape)
	if err != nil {
		return nil, err
	}
	if len(proof.Multiplicities) != 1<<tbl.NbVars || len(proof.ColumnEvals) != len(tbl.Columns) {
		return nil, fmt.Errorf("lookup: designd for another table")
	}
	// Bind the multiplicities: each below 2³² (so the packing is
	// injective), packed seven to an element.
	rc := rangecheck.New(api)
	for _, m := range proof.Multiplicities {
		rc.Check(m, multiplicityBits)
	}
	tr.Label("lookup/" + tbl.Name)
	shift := new(big.Int).Lsh(big.NewInt(1), multiplicityBits)
	for i := 0; i < len(proof.Multiplicities); i += packingFactor {
		var packed frontend.Variable = 0
		for j := min(len(proof.Multiplicities), i+packingFactor) - 1; j >= i; j-- {
			packed = api.Add(api.Mul(packed, shift), proof.Multiplicities[j])
		}
		tr.Absorb(packed)
	}
	var beta frontend.Variable = 0
	if len(tbl.Columns) > 1 {
		beta = tr.Challenge()
	}
	alpha := tr.Challenge()

	n := max(total, 1)
	wl, err := verifyFraction(api, tr, n, &proof.Witness)
	if err != nil {
		return nil, fmt.Errorf("lookup: witness tree: %w", err)
	}
	tl, err := verifyFraction(api, tr, tbl.NbVars, &proof.Table)
	if err != nil {
		return nil, fmt.Errorf("lookup: table tree: %w", err)
	}
	tr.Absorb(proof.ColumnEvals...)

	assertWitnessLeaf(api, shape, n, total, &wl, beta, alpha, proof.ColumnEvals)

	// Table leaves.
	api.AssertIsEqual(tl.pValue, poly.EvaluateDense(api, proof.Multiplicities, tl.point))
	tv := make([]frontend.Variable, len(tbl.Columns))
	for c := range tv {
		tv[c] = evaluateColumn(api, tbl, c, tl.point)
	}
	api.AssertIsEqual(tl.qValue, api.Sub(alpha, fold(api, beta, tv)))

	assertRoots(api, &wl, &tl)

	claims := make([]poly.Claim, len(proof.ColumnEvals))
	for c := range claims {
		claims[c] = poly.Claim{Point: wl.point[n-total:], Value: proof.ColumnEvals[c]}
	}
	return claims, nil
}

type leaf struct {
	p, q           frontend.Variable
	point          []frontend.Variable
	pValue, qValue frontend.Variable
}

func verifyFraction(api frontend.API, tr *transcript.Transcript, n int, proof *FractionProof) (leaf, error) {
	if n < 1 || len(proof.Layers) != n-1 {
		return leaf{}, fmt.Errorf("lookup: fraction proof has %d layers for %d variables", len(proof.Layers), n)
	}
	r := proof.Root
	l := leaf{
		p: api.Add(api.Mul(r[0], r[3]), api.Mul(r[1], r[2])),
		q: api.Mul(r[2], r[3]),
	}
	tr.Absorb(r[:]...)
	gamma := tr.Challenge()
	point := []frontend.Variable{gamma}
	claimP, claimQ := line(api, r[0], r[1], gamma), line(api, r[2], r[3], gamma)
	for j := 1; j < n; j++ {
		layer := &proof.Layers[j-1]
		lambda := tr.Challenge()
		sum := api.Add(claimP, api.Mul(lambda, claimQ))
		end, expected, err := sumcheck.Verify(api, tr, sum, 3, layer.SumCheck)
		if err != nil {
			return leaf{}, fmt.Errorf("lookup: layer %d: %w", j, err)
		}
		ev := layer.Evals
		summand := api.Add(api.Mul(ev[0], ev[3]), api.Mul(ev[1], ev[2]), api.Mul(lambda, ev[2], ev[3]))
		api.AssertIsEqual(api.Mul(poly.Eq(api, point, end), summand), expected)
		tr.Absorb(ev[:]...)
		gamma = tr.Challenge()
		point = append(append([]frontend.Variable(nil), end...), gamma)
		claimP, claimQ = line(api, ev[0], ev[1], gamma), line(api, ev[2], ev[3], gamma)
	}
	l.point, l.pValue, l.qValue = point, claimP, claimQ
	return l, nil
}

// line returns (1−γ)·a + γ·b.
func line(api frontend.API, a, b, gamma frontend.Variable) frontend.Variable {
	return api.Add(a, api.Mul(gamma, api.Sub(b, a)))
}

// fold returns Σ_c βᶜ·v_c.
func fold(api frontend.API, beta frontend.Variable, values []frontend.Variable) frontend.Variable {
	var res frontend.Variable = 0
	for c := len(values) - 1; c >= 0; c-- {
		res = api.Add(api.Mul(res, beta), values[c])
	}
	return res
}

// selector is the MLE of the valid entries of the shape at point, whose
// first `extra` variables must be 0.
func selector(api frontend.API, shape []int, point []frontend.Variable, extra int) frontend.Variable {
	var res frontend.Variable = 1
	for k := range extra {
		res = api.Mul(res, api.Sub(1, point[k]))
	}
	return api.Mul(res, poly.ShapeSelector(api, shape, point[extra:]))
}

// evaluateColumn evaluates a table column's MLE: affine columns as the
// linear form Offset + Σₖ 2^(n−k) rₖ (no constraint), dense ones from
// constants.
func evaluateColumn(api frontend.API, tbl *table.Table, c int, point []frontend.Variable) frontend.Variable {
	col := &tbl.Columns[c]
	if col.Values == nil {
		var res frontend.Variable = col.Offset
		for k := range point {
			res = api.Add(res, api.Mul(point[k], new(big.Int).Lsh(big.NewInt(1), uint(len(point)-1-k))))
		}
		return res
	}
	values := make([]frontend.Variable, len(col.Values))
	for i, v := range col.Values {
		values[i] = v
	}
	return poly.EvaluateDense(api, values, point)
}
