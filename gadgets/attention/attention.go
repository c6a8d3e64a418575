package attention

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	npoly "github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/attention"
)

// OutputProof is the in-circuit proof of the output half.
type OutputProof struct {
	// SamePoly holds the same-poly proof merging the claims on O when there
	// are several, and nothing otherwise.
	SamePoly     []sumcheck.SamePolyProof
	Unpadding    sumcheck.Proof
	PaddedOutput frontend.Variable
	Mix          sumcheck.Proof
	Probs        frontend.Variable
	PaddedValues frontend.Variable
}

// ScoresProof is the in-circuit proof of the scores half.
type ScoresProof struct {
	// SamePoly holds the same-poly proof merging the claims on S_M when
	// there are several, and nothing otherwise.
	SamePoly                []sumcheck.SamePolyProof
	Zeroifier               sumcheck.Proof
	Scores                  frontend.Variable
	Product                 sumcheck.Proof
	PaddedQuery, PaddedKeys frontend.Variable
	Padding                 sumcheck.Proof
	Query, Keys, Values     frontend.Variable
}

// OutputClaims are the claims the output half produces: on the padded
// softmax output A and on the padded values V̂.
type OutputClaims struct {
	Probs, PaddedValues poly.Claim
}

// InputClaims are the claims on the inputs Q, K and V.
type InputClaims struct {
	Query, Keys, Values poly.Claim
}

func samePoly(claims, nbVars int) []sumcheck.SamePolyProof {
	if claims <= 1 {
		return nil
	}
	return []sumcheck.SamePolyProof{sumcheck.PlaceholderSamePolyProof(nbVars)}
}

// PlaceholderOutputProof sizes the output half's proof for a circuit (an
// invalid shape gives an empty proof, which [VerifyOutput] rejects).
func PlaceholderOutputProof(shape attention.Config) OutputProof {
	d, err := shape.Dims()
	if err != nil {
		return OutputProof{}
	}
	return OutputProof{
		SamePoly:  samePoly(shape.OutputClaims, d.RowVars+d.QueryColVars),
		Unpadding: sumcheck.PlaceholderProof(d.HeadVars()+d.WidthVars, 2),
		Mix:       sumcheck.PlaceholderProof(d.KVHeadVars+d.KeyVars, 3),
	}
}

// PlaceholderScoresProof sizes the scores half's proof for a circuit.
func PlaceholderScoresProof(shape attention.Config) ScoresProof {
	d, err := shape.Dims()
	if err != nil {
		return ScoresProof{}
	}
	return ScoresProof{
		SamePoly:  samePoly(shape.ScoreClaims, d.ScoreVars()),
		Zeroifier: sumcheck.PlaceholderProof(d.RowVars+d.KeyVars, 3),
		Product:   sumcheck.PlaceholderProof(d.KVHeadVars+d.WidthVars, 3),
		Padding:   sumcheck.PlaceholderProof(d.QueryColVars, 2),
	}
}

// ValueOfOutputProof returns the assignment of a native output-half proof.
func ValueOfOutputProof[E field.Scalar](p *attention.OutputProof[E]) OutputProof {
	return OutputProof{
		SamePoly:     sumcheck.ValueOfSamePolyProofs(p.SamePoly),
		Unpadding:    sumcheck.ValueOfProof(&p.Unpadding),
		PaddedOutput: field.BigInt(&p.PaddedOutput),
		Mix:          sumcheck.ValueOfProof(&p.Mix),
		Probs:        field.BigInt(&p.Probs),
		PaddedValues: field.BigInt(&p.PaddedValues),
	}
}

// ValueOfScoresProof returns the assignment of a native scores-half proof.
func ValueOfScoresProof[E field.Scalar](p *attention.ScoresProof[E]) ScoresProof {
	return ScoresProof{
		SamePoly:    sumcheck.ValueOfSamePolyProofs(p.SamePoly),
		Zeroifier:   sumcheck.ValueOfProof(&p.Zeroifier),
		Scores:      field.BigInt(&p.Scores),
		Product:     sumcheck.ValueOfProof(&p.Product),
		PaddedQuery: field.BigInt(&p.PaddedQuery),
		PaddedKeys:  field.BigInt(&p.PaddedKeys),
		Padding:     sumcheck.ValueOfProof(&p.Padding),
		Query:       field.BigInt(&p.Query),
		Keys:        field.BigInt(&p.Keys),
		Values:      field.BigInt(&p.Values),
	}
}

// checkClaims checks the number of claims and their point lengths.
func checkClaims(what string, want, nbVars int, claims []poly.Claim) error {
	if len(claims) != max(want, 1) {
		return fmt.Errorf("attention: %d claims on the %s, shape has %d", len(claims), what, max(want, 1))
	}
	for i, c := range claims {
		if len(c.Point) != nbVars {
			return fmt.Errorf("attention: claim %d on the %s has %d coordinates, want %d", i, what, len(c.Point), nbVars)
		}
	}
	return nil
}

// merge returns the single claim, or verifies the same-poly proof merging
// several.
func merge(api frontend.API, tr *transcript.Transcript, what string, claims []poly.Claim, proofs []sumcheck.SamePolyProof) (poly.Claim, error) {
	if len(proofs) != min(len(claims)-1, 1) {
		return poly.Claim{}, fmt.Errorf("attention: %d same-poly proofs for %d claims on the %s", len(proofs), len(claims), what)
	}
	if len(claims) == 1 {
		return claims[0], nil
	}
	c, err := sumcheck.VerifySamePoly(api, tr, claims, proofs[0])
	if err != nil {
		return poly.Claim{}, fmt.Errorf("attention: %s claims: %w", what, err)
	}
	return c, nil
}

// checkRounds checks the number of rounds of a sum-check proof.
func checkRounds(step string, proof sumcheck.Proof, nbVars int) error {
	if len(proof.Rounds) != nbVars {
		return fmt.Errorf("attention: %s: %d rounds, want %d", step, len(proof.Rounds), nbVars)
	}
	return nil
}

// VerifyOutput verifies the output half: claims on O (QueryRows ×
// Heads·HeadDim padded to ŝ_q × D_q) become claims on A and V̂. The steps and
// the transcript order are those of the native verifier.
func VerifyOutput(api frontend.API, tr *transcript.Transcript, shape attention.Config, proof OutputProof, out []poly.Claim) (OutputClaims, error) {
	d, err := shape.Dims()
	if err != nil {
		return OutputClaims{}, err
	}
	if err := checkClaims("output", shape.OutputClaims, d.RowVars+d.QueryColVars, out); err != nil {
		return OutputClaims{}, err
	}
	if err := checkRounds("unpadding", proof.Unpadding, d.HeadVars()+d.WidthVars); err != nil {
		return OutputClaims{}, err
	}
	if err := checkRounds("probabilities·values", proof.Mix, d.KVHeadVars+d.KeyVars); err != nil {
		return OutputClaims{}, err
	}
	tr.Label("attention/output")
	claim, err := merge(api, tr, "output", out, proof.SamePoly)
	if err != nil {
		return OutputClaims{}, err
	}
	rs, rd := claim.Point[:d.RowVars], claim.Point[d.RowVars:]

	rho, value, err := sumcheck.Verify(api, tr, claim.Value, 2, proof.Unpadding)
	if err != nil {
		return OutputClaims{}, fmt.Errorf("attention: unpadding: %w", err)
	}
	u, err := queryPadding(api, &d, rd, rho)
	if err != nil {
		return OutputClaims{}, err
	}
	api.AssertIsEqual(value, api.Mul(proof.PaddedOutput, u))
	tr.Absorb(proof.PaddedOutput)
	rb, rt := rho[d.KVHeadVars:d.HeadVars()], rho[d.HeadVars():]

	point, value, err := sumcheck.Verify(api, tr, proof.PaddedOutput, 3, proof.Mix)
	if err != nil {
		return OutputClaims{}, fmt.Errorf("attention: probabilities·values: %w", err)
	}
	pa, pk := point[:d.KVHeadVars], point[d.KVHeadVars:]
	heads := poly.Eq(api, pa, rho[:d.KVHeadVars])
	api.AssertIsEqual(value, api.Mul(heads, api.Mul(proof.Probs, proof.PaddedValues)))
	tr.Absorb(proof.Probs, proof.PaddedValues)
	return OutputClaims{
		Probs:        poly.Claim{Point: npoly.Concat(pa, rb, rs, pk), Value: proof.Probs},
		PaddedValues: poly.Claim{Point: npoly.Concat(pk, pa, rt), Value: proof.PaddedValues},
	}, nil
}

// VerifyScores verifies the scores half: claims on the masked scores S_M and
// the claim on V̂ from [VerifyOutput] become claims on Q, K and V.
func VerifyScores(api frontend.API, tr *transcript.Transcript, shape attention.Config, proof ScoresProof, masked []poly.Claim, paddedValues poly.Claim) (InputClaims, error) {
	d, err := shape.Dims()
	if err != nil {
		return InputClaims{}, err
	}
	if err := checkClaims("masked scores", shape.ScoreClaims, d.ScoreVars(), masked); err != nil {
		return InputClaims{}, err
	}
	if err := checkClaims("padded values", 1, d.KeyVars+d.KVHeadVars+d.WidthVars, []poly.Claim{paddedValues}); err != nil {
		return InputClaims{}, err
	}
	for _, c := range []struct {
		step   string
		proof  sumcheck.Proof
		nbVars int
	}{
		{"zeroifier", proof.Zeroifier, d.RowVars + d.KeyVars},
		{"query·keys", proof.Product, d.KVHeadVars + d.WidthVars},
		{"padding", proof.Padding, d.QueryColVars},
	} {
		if err := checkRounds(c.step, c.proof, c.nbVars); err != nil {
			return InputClaims{}, err
		}
	}
	tr.Label("attention/scores")
	claim, err := merge(api, tr, "masked scores", masked, proof.SamePoly)
	if err != nil {
		return InputClaims{}, err
	}
	h, r := d.HeadVars(), d.HeadVars()+d.RowVars
	rh, rj, rk := claim.Point[:h], claim.Point[h:r], claim.Point[r:]
	z, err := zeroifier(api, &d, rj, rk)
	if err != nil {
		return InputClaims{}, err
	}
	// S_M − c·(1 − z): the constant c costs nothing.
	zeroified := api.Sub(claim.Value, api.Mul(shape.MaskValue, api.Sub(1, z)))

	point, value, err := sumcheck.Verify(api, tr, zeroified, 3, proof.Zeroifier)
	if err != nil {
		return InputClaims{}, fmt.Errorf("attention: zeroifier: %w", err)
	}
	qj, qk := point[:d.RowVars], point[d.RowVars:]
	eq := poly.Eq(api, point, npoly.Concat(rj, rk))
	zq, err := zeroifier(api, &d, qj, qk)
	if err != nil {
		return InputClaims{}, err
	}
	api.AssertIsEqual(value, api.Mul(eq, api.Mul(zq, proof.Scores)))
	tr.Absorb(proof.Scores)

	ra, rb := rh[:d.KVHeadVars], rh[d.KVHeadVars:]
	point, value, err = sumcheck.Verify(api, tr, proof.Scores, 3, proof.Product)
	if err != nil {
		return InputClaims{}, fmt.Errorf("attention: query·keys: %w", err)
	}
	pa, pt := point[:d.KVHeadVars], point[d.KVHeadVars:]
	heads := poly.Eq(api, pa, ra)
	api.AssertIsEqual(value, api.Mul(heads, api.Mul(proof.PaddedQuery, proof.PaddedKeys)))
	tr.Absorb(proof.PaddedQuery, proof.PaddedKeys)
	queryCol, keysCol := npoly.Concat(pa, rb, pt), npoly.Concat(pa, pt)
	rv, valuesCol := paddedValues.Point[:d.KeyVars], paddedValues.Point[d.KeyVars:]

	instances := []sumcheck.Instance{
		{Terms: []sumcheck.Term{{Coefficient: 1, Factors: []int{0, 1}}}, Sum: proof.PaddedQuery},
		{Terms: []sumcheck.Term{{Coefficient: 1, Factors: []int{2, 3}}}, Sum: proof.PaddedKeys},
		{Terms: []sumcheck.Term{{Coefficient: 1, Factors: []int{4, 5}}}, Sum: paddedValues.Value},
	}
	final, err := sumcheck.VerifyBatch(api, tr, instances, proof.Padding)
	if err != nil {
		return InputClaims{}, fmt.Errorf("attention: padding: %w", err)
	}
	rc := final.Point
	extra := d.QueryColVars - d.KVColVars
	rcKV := rc[extra:]
	var sel frontend.Variable = 1
	for _, x := range rc[:extra] {
		sel = api.Mul(sel, api.Sub(1, x))
	}
	pq, err := queryPadding(api, &d, rc, queryCol)
	if err != nil {
		return InputClaims{}, err
	}
	pk, err := kvPadding(api, &d, rcKV, keysCol)
	if err != nil {
		return InputClaims{}, err
	}
	pv, err := kvPadding(api, &d, rcKV, valuesCol)
	if err != nil {
		return InputClaims{}, err
	}
	// Σ_k λᵏ·(value_k · padding_k) with the K and V factors scaled by the
	// zero-extension factor once: sel²·(K·P_K) = sel·K·(sel·P_K).
	values := []frontend.Variable{
		proof.Query, pq,
		api.Mul(sel, proof.Keys), api.Mul(sel, pk),
		api.Mul(sel, proof.Values), api.Mul(sel, pv),
	}
	if err := sumcheck.AssertEvaluations(api, final, instances, values); err != nil {
		return InputClaims{}, fmt.Errorf("attention: padding: %w", err)
	}
	tr.Absorb(proof.Query, proof.Keys, proof.Values)
	return InputClaims{
		Query:  poly.Claim{Point: npoly.Concat(qj, rc), Value: proof.Query},
		Keys:   poly.Claim{Point: npoly.Concat(qk, rcKV), Value: proof.Keys},
		Values: poly.Claim{Point: npoly.Concat(rv, rcKV), Value: proof.Values},
	}, nil
}

// queryPadding is the closed form P̃_Q(r_c, r_a, r_b, r_t) (see the package
// documentation).
func queryPadding(api frontend.API, d *attention.Dims, rc, rCol []frontend.Variable) (frontend.Variable, error) {
	if npoly.IsPowerOfTwo(d.Group) {
		v, err := poly.Padding(api, npoly.Concat(rc, rCol), d.Heads, d.Width)
		if err != nil {
			return nil, fmt.Errorf("attention: query padding: %w", err)
		}
		return v, nil
	}
	hv := len(rc) - d.WidthVars
	v, err := poly.Padding(api, npoly.Concat(rc[:hv], rCol[:d.HeadVars()]), d.KVHeads, d.Group)
	if err != nil {
		return nil, fmt.Errorf("attention: query padding: %w", err)
	}
	return api.Mul(v, poly.Eq(api, rc[hv:], rCol[d.HeadVars():])), nil
}

// kvPadding is the closed form P̃_kv(r_c, r_a, r_t).
func kvPadding(api frontend.API, d *attention.Dims, rc, rCol []frontend.Variable) (frontend.Variable, error) {
	v, err := poly.Padding(api, npoly.Concat(rc, rCol), d.KVHeads, d.Width)
	if err != nil {
		return nil, fmt.Errorf("attention: key/value padding: %w", err)
	}
	return v, nil
}

// Zeroifier returns the MLE of the zeroifier z[j, k] = [j < s_q ∧ k ≤
// Start + j] over ŝ_q × l̂ at point = (r_row ‖ r_key), the closed form
// [VerifyScores] evaluates. Used by the tests of package
// protocol/attention, which compare it with the native closed form.
func Zeroifier(api frontend.API, shape attention.Config, point []frontend.Variable) (frontend.Variable, error) {
	d, err := shape.Dims()
	if err != nil {
		return nil, err
	}
	if len(point) != d.RowVars+d.KeyVars {
		return nil, fmt.Errorf("attention: zeroifier: point has %d coordinates, want %d", len(point), d.RowVars+d.KeyVars)
	}
	return zeroifier(api, &d, point[:d.RowVars], point[d.RowVars:])
}

// zeroifier is the closed form z̃(r_row, r_key) of z[j, k] = [j < s_q ∧
// k ≤ Start + j]: causal for a prefill pass, the selector of the first
// Start + 1 keys for one query row, the shifted causal automaton otherwise.
func zeroifier(api frontend.API, d *attention.Dims, rRow, rKey []frontend.Variable) (frontend.Variable, error) {
	switch {
	case d.QueryRows == 1:
		return poly.Prefix(api, rKey, d.Start+1), nil
	case d.Start == 0 && d.QueryRows == d.KeyRows:
		z, err := poly.CausalZeroifier(api, npoly.Concat(rRow, rKey), d.QueryRows)
		if err != nil {
			return nil, fmt.Errorf("attention: zeroifier: %w", err)
		}
		return z, nil
	default:
		return poly.ShiftedCausal(api, rRow, rKey, d.QueryRows, d.Start, bits.Len(uint(d.Start))), nil
	}
}
