package committed

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"

	glookup "github.com/veriformer/veriformer/gadgets/lookup"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	gsumcheck "github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/inference/committed"
	nlookup "github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/lookup/table"
)

// LookupProof is the part of a native committed proof that
// [VerifyLookups] reads: the LogUp instance, the slots' values and the
// decomposition zero-check.
type LookupProof struct {
	Lookup        glookup.CommittedProof
	LimbEvals     []frontend.Variable
	Functions     [][2]frontend.Variable
	Decomposition gsumcheck.ZeroCheckProof
}

// PlaceholderLookupProof sizes a LookupProof for a layout and its table
// set, to compile a circuit.
func PlaceholderLookupProof(l *native.Layout, set *table.Set) (LookupProof, error) {
	lk, err := glookup.PlaceholderCommittedProof(set, []int{1 << l.LookupVars}, nlookup.WithTableClaims())
	if err != nil {
		return LookupProof{}, err
	}
	limbs := 0
	for _, s := range l.Slots {
		if s.Function < 0 {
			limbs++
		}
	}
	return LookupProof{
		Lookup:        lk,
		LimbEvals:     make([]frontend.Variable, limbs),
		Functions:     make([][2]frontend.Variable, len(l.Functions)),
		Decomposition: gsumcheck.PlaceholderZeroCheckProof(l.NbVars, native.NbDecompositionTables, 2),
	}, nil
}

// ValueOfLookupProof returns the assignment of a native proof's part.
func ValueOfLookupProof(p *native.Proof) LookupProof {
	out := LookupProof{
		Lookup:        glookup.ValueOfCommittedProof(p.Lookup),
		LimbEvals:     gpoly.ValuesOf(p.LimbEvals),
		Functions:     make([][2]frontend.Variable, len(p.Functions)),
		Decomposition: gsumcheck.ValueOfZeroCheckProof(p.Decomposition),
	}
	for f := range p.Functions {
		v := gpoly.ValuesOf([]fr.Element{p.Functions[f].In, p.Functions[f].Out})
		out.Functions[f] = [2]frontend.Variable{v[0], v[1]}
	}
	return out
}

// LookupClaims are the claims VerifyLookups leaves, as native.LookupClaims.
type LookupClaims struct {
	Lookup        glookup.CommittedClaims
	Decomposition []gpoly.Claim
}

// VerifyLookups is native.VerifyLookups in circuit, on a transcript that
// has absorbed the statement, the segment and the commitments' digest:
// the LogUp instance with the function tables left as claims (mDigest the
// multiplicities' digest, a public input the aggregator computes), the id
// column against the layout's slots, columns a and b against the slots'
// values, their absorption, and the decomposition zero-check with its
// public tables evaluated from the layout.
func VerifyLookups(api frontend.API, t *transcript.Transcript, l *native.Layout, set *table.Set, ids *native.TableIDs, mDigest frontend.Variable, p LookupProof) (*LookupClaims, error) {
	limbs := 0
	for _, s := range l.Slots {
		if s.Function < 0 {
			limbs++
		}
	}
	if len(p.LimbEvals) != limbs || len(p.Functions) != len(l.Functions) {
		return nil, fmt.Errorf("committed: designd for another layout")
	}
	lc, err := glookup.VerifyCommitted(api, t, []frontend.Variable{mDigest}, set, []int{1 << l.LookupVars}, p.Lookup, nlookup.WithTableClaims())
	if err != nil {
		return nil, err
	}
	point := lc.Columns[0].Point
	api.AssertIsEqual(idEval(api, l, ids, point), lc.Columns[0].Value)
	a, b := columnEvals(api, l, point, p.LimbEvals, p.Functions)
	api.AssertIsEqual(a, lc.Columns[1].Value)
	api.AssertIsEqual(b, lc.Columns[2].Value)
	t.Absorb(p.LimbEvals...)
	for f := range p.Functions {
		t.Absorb(p.Functions[f][0], p.Functions[f][1])
	}

	t.Label("committed/decomposition")
	gamma := t.Challenge()
	var terms []gsumcheck.Term
	for _, rt := range native.DecompositionRelation() {
		var c frontend.Variable = 1
		if rt.Gamma {
			c = gamma
		}
		if rt.Negative {
			c = api.Neg(c)
		}
		terms = append(terms, gsumcheck.Term{Coefficient: c, Factors: rt.Factors})
	}
	zc, err := gsumcheck.VerifyZero(api, t, terms, p.Decomposition)
	if err != nil {
		return nil, err
	}
	if len(zc) != native.NbDecompositionTables {
		return nil, fmt.Errorf("committed: %d decomposition claims", len(zc))
	}
	// Every claim of the zero-check is at its end point: each block's
	// valid-entry indicator there, once.
	end := zc[0].Point
	valid := make([]frontend.Variable, len(l.Blocks))
	for b := range l.Blocks {
		valid[b] = validEval(api, l, b, end)
	}
	for k, consts := range l.DecompositionTables() {
		var v frontend.Variable = 0
		for b, c := range consts {
			if c.Sign() != 0 {
				v = api.Add(v, api.Mul(valid[b], c))
			}
		}
		api.AssertIsEqual(v, zc[1+k].Value)
	}
	return &LookupClaims{Lookup: lc, Decomposition: zc}, nil
}

// regionIndicator is eq(bits of offset / 2^k, point[:n−k]) over a point of
// n coordinates: the MLE of the aligned region of 2^k entries at offset.
func regionIndicator(api frontend.API, offset, k int, point []frontend.Variable) frontend.Variable {
	return gpoly.EqIndex(api, point[:len(point)-k], offset>>k)
}

// validEval is the MLE at point (NbVars coordinates) of block b's valid
// entries in the stacked cube.
func validEval(api frontend.API, l *native.Layout, b int, point []frontend.Variable) frontend.Variable {
	blk := &l.Blocks[b]
	ind := regionIndicator(api, blk.Offset, blk.NbVars, point)
	if blk.NbVars == 0 {
		return ind
	}
	return api.Mul(ind, gpoly.ShapeSelector(api, blk.Tensor.Shape, point[len(point)-blk.NbVars:]))
}

// idEval is the lookups' id column at point: pad + Σₖ (idₖ − pad)·slotₖ·
// valid_b(local), as native.
func idEval(api frontend.API, l *native.Layout, ids *native.TableIDs, point []frontend.Variable) frontend.Variable {
	pad := ids.Ranges[l.LimbBits]
	var res frontend.Variable = pad
	for k, s := range l.Slots {
		v := regionIndicator(api, s.Offset, s.NbVars, point)
		if s.NbVars > 0 {
			v = api.Mul(v, gpoly.ShapeSelector(api, l.Blocks[s.Block].Tensor.Shape, point[len(point)-s.NbVars:]))
		}
		res = api.Add(res, api.Mul(v, l.SlotID(ids, k)-pad))
	}
	return res
}

// columnEvals recombines the lookups' columns a and b at point from the
// slots' values, as native.
func columnEvals(api frontend.API, l *native.Layout, point []frontend.Variable, limbEvals []frontend.Variable, fns [][2]frontend.Variable) (a, b frontend.Variable) {
	a, b = 0, 0
	m := 0
	for _, s := range l.Slots {
		ind := regionIndicator(api, s.Offset, s.NbVars, point)
		if s.Function < 0 {
			a = api.Add(a, api.Mul(ind, limbEvals[m]))
			m++
			continue
		}
		a = api.Add(a, api.Mul(ind, fns[s.Function][0]))
		b = api.Add(b, api.Mul(ind, fns[s.Function][1]))
	}
	return a, b
}
