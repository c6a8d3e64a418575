package committed

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	gsumcheck "github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/inference/committed"
)

// The sizes of a norm proof's parts, as native.
const (
	nbNormRows      = len(native.NormProof{}.Rows)
	nbVarianceEvals = len(native.NormProof{}.VarianceEvals)
	nbScaleEvals    = len(native.NormProof{}.ScaleEvals)
)

// NormProof is a native.NormProof in circuit: the row values at ρ₁
// (native.NormRowSum … native.NormRowNonZero), the variance sum-check and
// its end values (native.NormVarIn …), the scaling sum-check and its end
// values (native.NormScaleIn …).
type NormProof struct {
	Rows          [nbNormRows]frontend.Variable
	Variance      gsumcheck.Proof
	VarianceEvals [nbVarianceEvals]frontend.Variable
	Scale         gsumcheck.Proof
	ScaleEvals    [nbScaleEvals]frontend.Variable
}

// PlaceholderNorms sizes the norm proofs of a segment: per norm of
// s.Norms, both sum-checks over its RowVars + ColVars variables with the
// round degrees native NormStep.Degrees gives.
func PlaceholderNorms(s *native.Shape) []NormProof {
	out := make([]NormProof, len(s.Norms))
	for k, n := range s.Norms {
		vDeg, sDeg := n.Degrees()
		out[k].Variance = gsumcheck.PlaceholderProof(n.RowVars()+n.ColVars(), vDeg)
		out[k].Scale = gsumcheck.PlaceholderProof(n.RowVars()+n.ColVars(), sDeg)
	}
	return out
}

// ValueOfNorms returns the assignment of native norm proofs.
func ValueOfNorms(ps []native.NormProof) []NormProof {
	out := make([]NormProof, len(ps))
	for k := range ps {
		p := &ps[k]
		copy(out[k].Rows[:], gpoly.ValuesOf(p.Rows[:]))
		out[k].Variance = gsumcheck.ValueOfProof(&p.Variance)
		copy(out[k].VarianceEvals[:], gpoly.ValuesOf(p.VarianceEvals[:]))
		out[k].Scale = gsumcheck.ValueOfProof(&p.Scale)
		copy(out[k].ScaleEvals[:], gpoly.ValuesOf(p.ScaleEvals[:]))
	}
	return out
}

// verifyNorms is native Shape.VerifyNorms in circuit, on the accumulator
// points and values VerifyRequants leaves: under label "committed/norm",
// per norm of s.Norms ρ₁, the row checks
//
//	2^k_c·h(ρ₁, ½) = n·μ(ρ₁) + r_μ(ρ₁)   (LayerNorm; the three values zero for RMSNorm)
//	gap(ρ₁) = 4^e(ρ₁) − Sel_rows(ρ₁) − r_V(ρ₁),   floor(ρ₁) = v(ρ₁) − 2¹⁴·[e>0](ρ₁),
//
// the row values absorbed, ρ₂, the variance sum-check (claim 0) with its
// final value from its end values and the public eq(ρ₂, r), the valid
// columns and rows and ε, its end values absorbed, then the scaling
// sum-check of the norm's accumulator claim with its final value from
// its end values and eq(r_q, ·), the valid columns and rows and the
// model's γ and β (constant column tables), its end values absorbed. An
// RMSNorm's mean values are asserted zero. It returns per norm ρ₁ and
// the two sum-checks' end points.
func verifyNorms(api frontend.API, t *transcript.Transcript, s *native.Shape, points [][]frontend.Variable, acc []frontend.Variable, proofs []NormProof) ([][3][]frontend.Variable, error) {
	if len(proofs) != len(s.Norms) {
		return nil, fmt.Errorf("committed: %d norm proofs for %d norms", len(proofs), len(s.Norms))
	}
	if len(s.Norms) == 0 {
		return nil, nil
	}
	t.Label("committed/norm")
	ends := make([][3][]frontend.Variable, len(s.Norms))
	for k, n := range s.Norms {
		p := &proofs[k]
		name := n.Norm().Name
		rowVars, nbVars := n.RowVars(), n.RowVars()+n.ColVars()
		vDeg, sDeg := n.Degrees()
		rho1 := t.Challenges(rowVars)
		normRowChecks(api, n, rho1, &p.Rows)
		t.Absorb(p.Rows[:]...)

		rho2 := t.Challenges(rowVars)
		end, expected, err := gsumcheck.Verify(api, t, 0, vDeg, p.Variance)
		if err != nil {
			return nil, fmt.Errorf("committed: norm %s: variance: %w", name, err)
		}
		if len(end) != nbVars {
			return nil, fmt.Errorf("committed: norm %s: a variance sum-check of %d rounds over %d variables", name, len(end), nbVars)
		}
		api.AssertIsEqual(varianceValue(api, n, gpoly.Eq(api, rho2, end[:rowVars]), end, &p.VarianceEvals), expected)
		t.Absorb(p.VarianceEvals[:]...)

		q := n.Requant()
		end2, expected, err := gsumcheck.Verify(api, t, acc[q], sDeg, p.Scale)
		if err != nil {
			return nil, fmt.Errorf("committed: norm %s: scale: %w", name, err)
		}
		if len(end2) != nbVars || len(points[q]) != nbVars {
			return nil, fmt.Errorf("committed: norm %s: a scaling sum-check of %d rounds at a point of %d coordinates over %d variables", name, len(end2), len(points[q]), nbVars)
		}
		api.AssertIsEqual(scaleValue(api, n, gpoly.Eq(api, points[q], end2), end2, &p.ScaleEvals), expected)
		t.Absorb(p.ScaleEvals[:]...)
		ends[k] = [3][]frontend.Variable{rho1, end, end2}
	}
	return ends, nil
}

// normRowChecks asserts the row identities at ρ₁, as native.
func normRowChecks(api frontend.API, n *native.NormStep, rho []frontend.Variable, v *[nbNormRows]frontend.Variable) {
	if n.WithMean() {
		// 2^kc·In(ρ₁, ½) = n·Mean(ρ₁) + MeanRem(ρ₁).
		lhs := api.Mul(v[native.NormRowSum], new(big.Int).Lsh(big.NewInt(1), uint(n.ColVars())))
		rhs := api.Add(api.Mul(v[native.NormRowMean], n.Width()), v[native.NormRowMeanRem])
		api.AssertIsEqual(lhs, rhs)
	} else {
		for _, j := range []int{native.NormRowSum, native.NormRowMean, native.NormRowMeanRem} {
			api.AssertIsEqual(v[j], 0)
		}
	}
	// Gap = 4^e − 1 − r_V on the valid rows.
	vr := gpoly.Prefix(api, rho, n.Rows())
	api.AssertIsEqual(api.Sub(v[native.NormRowPow4], vr, v[native.NormRowRem]), v[native.NormRowGap])
	// Floor = v − 2¹⁴·[e > 0].
	api.AssertIsEqual(api.Sub(v[native.NormRowV], api.Mul(v[native.NormRowNonZero], n.RSqrtLow())), v[native.NormRowFloor])
}

// varianceValue is the variance sum-check's summand at its end point
// (r, i), as native's terms: eq·(In² − 2·In·Mean·VC + Mean²·VC −
// 2^(−k_c)·(v·4^e + r_V) + 2^(−k_c)·ε·VR), the mean's terms LayerNorm
// only; eq = eq(ρ₂, r) and VC, VR the valid columns and rows at i and r.
func varianceValue(api frontend.API, n *native.NormStep, eq frontend.Variable, end []frontend.Variable, e *[nbVarianceEvals]frontend.Variable) frontend.Variable {
	r, i := end[:n.RowVars()], end[n.RowVars():]
	c := pow2Inverse(n.ColVars())
	in := e[native.NormVarIn]
	sum := api.Mul(in, in)
	sum = api.Sub(sum, api.Mul(c, api.Add(api.Mul(e[native.NormVarV], e[native.NormVarPow4]), e[native.NormVarRem])))
	sum = api.Add(sum, api.Mul(api.Mul(c, fieldConstant(n.Norm().Epsilon)), gpoly.Prefix(api, r, n.Rows())))
	if n.WithMean() {
		// Mean·VC·(Mean − 2·In).
		mean := e[native.NormVarMean]
		vc := gpoly.Prefix(api, i, n.Width())
		sum = api.Add(sum, api.Mul(api.Mul(mean, vc), api.Sub(mean, api.Mul(in, 2))))
	} else {
		api.AssertIsEqual(e[native.NormVarMean], 0)
	}
	return api.Mul(eq, sum)
}

// scaleValue is the scaling sum-check's summand at its end point (r, i),
// as native's terms: eq·((In − Mean·VC)·T·2^(Eₘₐₓ−e)·γ(i) + β(i)·VR·VC),
// the mean's term LayerNorm only and β's for a norm with β; eq =
// eq(r_q, (r, i)), γ and β the MLEs of the model's columns (constants).
func scaleValue(api frontend.API, n *native.NormStep, eq frontend.Variable, end []frontend.Variable, e *[nbScaleEvals]frontend.Variable) frontend.Variable {
	r, i := end[:n.RowVars()], end[n.RowVars():]
	vc := gpoly.Prefix(api, i, n.Width())
	centered := e[native.NormScaleIn]
	if n.WithMean() {
		centered = api.Sub(centered, api.Mul(e[native.NormScaleMean], vc))
	} else {
		api.AssertIsEqual(e[native.NormScaleMean], 0)
	}
	gamma := columnEval(api, n, n.Gamma, i)
	sum := api.Mul(api.Mul(centered, api.Mul(e[native.NormScaleT], e[native.NormScalePow2])), gamma)
	if n.Norm().Beta != nil {
		beta := columnEval(api, n, n.Beta, i)
		sum = api.Add(sum, api.Mul(beta, api.Mul(gpoly.Prefix(api, r, n.Rows()), vc)))
	}
	return api.Mul(eq, sum)
}

// columnEval is the MLE at i of the norm's column table of values (zero
// past its width), the table a circuit constant.
func columnEval(api frontend.API, n *native.NormStep, values func(int) int64, i []frontend.Variable) frontend.Variable {
	table := make([]frontend.Variable, 1<<n.ColVars())
	for c := range table {
		table[c] = 0
		if c < n.Width() {
			table[c] = fieldConstant(values(c))
		}
	}
	return gpoly.EvaluateDense(api, table, i)
}

// fieldConstant is v as a field constant (reduced: negative v is p + v).
func fieldConstant(v int64) *big.Int {
	e := field.FromInt64[fr.Element](v)
	return field.BigInt(&e)
}

// pow2Inverse is 2^−k in the field.
func pow2Inverse(k int) *big.Int {
	var e fr.Element
	e.SetUint64(2)
	e.Exp(e, big.NewInt(int64(k)))
	e.Inverse(&e)
	return field.BigInt(&e)
}

// withHalves returns (point, ½, …, ½) with k halves, as native.
func withHalves(point []frontend.Variable, k int) []frontend.Variable {
	var half fr.Element
	half.SetUint64(2)
	half.Inverse(&half)
	out := append([]frontend.Variable(nil), point...)
	for range k {
		out = append(out, field.BigInt(&half))
	}
	return out
}

// normClaims is native Shape.NormClaims in circuit: the claims the norm
// steps leave (ends as verifyNorms returns them), in the native order —
// per norm the input's row sums at (ρ₁, ½, …, ½) (LayerNorm), the row
// blocks at ρ₁, the variance sum-check's end values, the scaling
// sum-check's — on the stacked MLE, or on commitment incoming for the
// input of a norm that reads the incoming stream.
func normClaims(s *native.Shape, ends [][3][]frontend.Variable, proofs []NormProof, incoming int) []gpcs.Claim {
	l := s.Layout
	var out []gpcs.Claim
	for k, n := range s.Norms {
		p := &proofs[k]
		rho1, v, sc := ends[k][0], ends[k][1], ends[k][2]
		input := func(point []frontend.Variable, value frontend.Variable) {
			if n.Input() == native.IncomingBlock {
				out = append(out, gpcs.Claim{Commitment: incoming, Point: point, Value: value})
				return
			}
			out = append(out, blockClaim(l, n.Input(), point, value))
		}
		row := func(b int, point []frontend.Variable, value frontend.Variable) {
			out = append(out, blockClaim(l, b, point, value))
		}
		if n.WithMean() {
			input(withHalves(rho1, n.ColVars()), p.Rows[native.NormRowSum])
		}
		for j := native.NormRowMean; j < nbNormRows; j++ {
			if b := n.RowBlock(j); b >= 0 {
				row(b, rho1, p.Rows[j])
			}
		}
		vr := v[:n.RowVars()]
		input(v, p.VarianceEvals[native.NormVarIn])
		if n.WithMean() {
			row(n.RowBlock(native.NormRowMean), vr, p.VarianceEvals[native.NormVarMean])
		}
		row(n.RowBlock(native.NormRowV), vr, p.VarianceEvals[native.NormVarV])
		row(n.RowBlock(native.NormRowPow4), vr, p.VarianceEvals[native.NormVarPow4])
		row(n.RowBlock(native.NormRowRem), vr, p.VarianceEvals[native.NormVarRem])
		sr := sc[:n.RowVars()]
		input(sc, p.ScaleEvals[native.NormScaleIn])
		if n.WithMean() {
			row(n.RowBlock(native.NormRowMean), sr, p.ScaleEvals[native.NormScaleMean])
		}
		row(n.RSqrtBlock(), sr, p.ScaleEvals[native.NormScaleT])
		row(n.Pow2Block(), sr, p.ScaleEvals[native.NormScalePow2])
	}
	return out
}
