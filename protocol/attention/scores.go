package attention

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// ScoresProof is the proof of the scores half: claims on the masked scores
// S_M (and the claim on V̂ of the output half) become claims on Q, K and V.
type ScoresProof[E field.Scalar] struct {
	// SamePoly merges several claims on S_M into one (nil for one claim).
	SamePoly *sumcheck.SamePolyProof[E]
	// Zeroifier proves S_M(r_h, r_j, r_k) − m̃(r_j, r_k) =
	// Σ_{j,k} β((j, k), (r_j, r_k))·z(j, k)·S(r_h, j, k).
	Zeroifier sumcheck.Proof[E]
	// Scores is the claimed S(r_h, ρ_j, ρ_k).
	Scores E
	// Product proves S(r_a, r_b, ρ_j, ρ_k) =
	// Σ_{a,t} β(a, r_a)·Q̂(ρ_j, a, r_b, t)·K̂(ρ_k, a, t).
	Product sumcheck.Proof[E]
	// PaddedQuery and PaddedKeys are the claimed Q̂(ρ_j, ρ'_a, r_b, ρ'_t)
	// and K̂(ρ_k, ρ'_a, ρ'_t).
	PaddedQuery, PaddedKeys E
	// Padding proves, batched, Q̂ = Q·P_Q, K̂ = K·P_kv and V̂ = V·P_kv at the
	// claimed points.
	Padding sumcheck.Proof[E]
	// Query, Keys and Values are the claimed Q(ρ_j, ρ″), K(ρ_k, ρ″_kv),
	// V(ρ_v, ρ″_kv).
	Query, Keys, Values E
}

// InputClaims are the claims on the inputs of the layer.
type InputClaims[E field.Scalar] struct {
	Query, Keys, Values poly.Claim[E]
}

// ProveScores proves the scores half of the layer from the claims masked
// on S_M (the padded table of [MaskedScores]) and the claim on V̂ returned
// by [ProveOutput]. It needs w.Query, w.Keys and w.Values.
func ProveScores[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, w *Witness, masked []poly.Claim[E], paddedValues poly.Claim[E]) (*ScoresProof[E], InputClaims[E], error) {
	d, err := cfg.Dims()
	if err != nil {
		return nil, InputClaims[E]{}, err
	}
	if err := d.checkScores(w); err != nil {
		return nil, InputClaims[E]{}, err
	}
	if _, err := checkMatrix("values", w.Values, d.KeyRows, d.KVHeads*d.Width); err != nil {
		return nil, InputClaims[E]{}, err
	}
	p := padded{query: d.padQuery(w.Query), keys: d.padKV(w.Keys), values: d.padKV(w.Values)}
	return proveScores(tr, &d, cfg.MaskValue, cfg.scoreClaims(), w, &p, masked, paddedValues)
}

func proveScores[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], d *Dims, maskValue int64, nbClaims int, w *Witness, p *padded, masked []poly.Claim[E], paddedValues poly.Claim[E]) (*ScoresProof[E], InputClaims[E], error) {
	if err := checkClaims("masked scores", nbClaims, d.ScoreVars(), masked); err != nil {
		return nil, InputClaims[E]{}, err
	}
	if err := checkClaims("padded values", 1, d.KeyVars+d.KVHeadVars+d.WidthVars, []poly.Claim[E]{paddedValues}); err != nil {
		return nil, InputClaims[E]{}, err
	}
	proof := new(ScoresProof[E])
	tr.Label("attention/scores")
	scores := d.scoresOf(p.query, p.keys)
	claim := masked[0]
	if len(masked) > 1 {
		table := toField[E](d.maskedOf(scores, maskValue))
		sp, c, err := sumcheck.ProveSamePoly(tr, table, masked)
		if err != nil {
			return nil, InputClaims[E]{}, fmt.Errorf("attention: masked score claims: %w", err)
		}
		proof.SamePoly, claim = &sp, c
	}
	rh, rj, rk := splitScorePoint(d, claim.Point)
	zeroified, err := unmask[E, P](d, maskValue, rj, rk, &claim.Value)
	if err != nil {
		return nil, InputClaims[E]{}, err
	}

	// Zeroifier: S_M(r) − m̃(r_j, r_k) = Σ_{j,k} β·z·S(r_h, j, k).
	one := field.One[E, P]()
	cells := d.paddedRows() * d.paddedKeys()
	folded := combineRows[E, P](scores, cells, poly.EqTable[E, P](rh))
	sc, opening, err := sumcheck.Prove(tr, [][]E{poly.EqTable[E, P](poly.Concat(rj, rk)), zeroifierTable[E, P](d), folded},
		[]sumcheck.Term[E]{{Coefficient: one, Factors: []int{0, 1, 2}}}, zeroified)
	if err != nil {
		return nil, InputClaims[E]{}, fmt.Errorf("attention: zeroifier: %w", err)
	}
	proof.Zeroifier, proof.Scores = sc, opening.Evaluations[2]
	tr.Absorb(proof.Scores)
	qj, qk := opening.Point[:d.RowVars], opening.Point[d.RowVars:]

	// Head-batched Q̂·K̂ᵀ: S(r_a, r_b, ρ_j, ρ_k) = Σ_{a,t} β(a, r_a)·Q̂(ρ_j, a, r_b, t)·K̂(ρ_k, a, t).
	ra, rb := rh[:d.KVHeadVars], rh[d.KVHeadVars:]
	queryRow := combineRows[E, P](p.query, d.paddedQueryCols(), poly.EqTable[E, P](qj))
	query := foldGroup[E, P](d, queryRow, poly.EqTable[E, P](rb))
	keys := combineRows[E, P](p.keys, d.paddedKVCols(), poly.EqTable[E, P](qk))
	heads := expand(poly.EqTable[E, P](ra), d.paddedWidth())
	sc, opening, err = sumcheck.Prove(tr, [][]E{heads, query, keys}, []sumcheck.Term[E]{{Coefficient: one, Factors: []int{0, 1, 2}}}, proof.Scores)
	if err != nil {
		return nil, InputClaims[E]{}, fmt.Errorf("attention: query·keys: %w", err)
	}
	proof.Product, proof.PaddedQuery, proof.PaddedKeys = sc, opening.Evaluations[1], opening.Evaluations[2]
	tr.Absorb(proof.PaddedQuery, proof.PaddedKeys)
	pa, pt := opening.Point[:d.KVHeadVars], opening.Point[d.KVHeadVars:]
	queryCol, keysCol := poly.Concat(pa, rb, pt), poly.Concat(pa, pt)
	rv, valuesCol := paddedValues.Point[:d.KeyVars], paddedValues.Point[d.KeyVars:]

	// Padding, batched: Q̂(ρ_j, ·) = Σ_c Q(ρ_j, c)·P_Q(c, ·), and K̂, V̂ with P_kv.
	// Q(ρ_j, ·) and K(ρ_k, ·) are the real columns of the rows of Q̂ and K̂
	// already folded.
	queryRows := gatherQuery(d, queryRow)
	keyRows := gatherKV(d, keys)
	valueRows := gatherKV(d, combineRows[E, P](p.values, d.paddedKVCols(), poly.EqTable[E, P](rv)))
	n := d.queryCols()
	tables := [][]E{
		queryRows, gatherQuery(d, poly.EqTable[E, P](queryCol)),
		extend(keyRows, n), extend(gatherKV(d, poly.EqTable[E, P](keysCol)), n),
		extend(valueRows, n), extend(gatherKV(d, poly.EqTable[E, P](valuesCol)), n),
	}
	sc, opening, err = sumcheck.ProveBatch(tr, tables, paddingInstances(one, proof.PaddedQuery, proof.PaddedKeys, paddedValues.Value))
	if err != nil {
		return nil, InputClaims[E]{}, fmt.Errorf("attention: padding: %w", err)
	}
	rc := opening.Point
	rcKV := rc[d.QueryColVars-d.KVColVars:]
	proof.Padding, proof.Query = sc, opening.Evaluations[0]
	proof.Keys = poly.Evaluate[E, P](keyRows, rcKV)
	proof.Values = poly.Evaluate[E, P](valueRows, rcKV)
	tr.Absorb(proof.Query, proof.Keys, proof.Values)
	return proof, inputClaims(qj, qk, rv, rc, rcKV, proof), nil
}

// VerifyScores is the verifier of [ProveScores]; paddedValues is the claim
// [VerifyOutput] returned.
func VerifyScores[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, proof *ScoresProof[E], masked []poly.Claim[E], paddedValues poly.Claim[E]) (InputClaims[E], error) {
	d, err := cfg.Dims()
	if err != nil {
		return InputClaims[E]{}, err
	}
	if err := checkClaims("masked scores", cfg.scoreClaims(), d.ScoreVars(), masked); err != nil {
		return InputClaims[E]{}, err
	}
	if err := checkClaims("padded values", 1, d.KeyVars+d.KVHeadVars+d.WidthVars, []poly.Claim[E]{paddedValues}); err != nil {
		return InputClaims[E]{}, err
	}
	if proof == nil || (proof.SamePoly != nil) != (len(masked) > 1) {
		return InputClaims[E]{}, fmt.Errorf("%w: scores design does not match %d claims", ErrRejected, len(masked))
	}
	tr.Label("attention/scores")
	claim := masked[0]
	if len(masked) > 1 {
		if claim, err = sumcheck.VerifySamePoly(tr, masked, *proof.SamePoly); err != nil {
			return InputClaims[E]{}, fmt.Errorf("attention: masked score claims: %w", err)
		}
	}
	rh, rj, rk := splitScorePoint(&d, claim.Point)
	zeroified, err := unmask[E, P](&d, cfg.MaskValue, rj, rk, &claim.Value)
	if err != nil {
		return InputClaims[E]{}, err
	}

	point, value, err := sumcheck.Verify(tr, zeroified, 3, d.RowVars+d.KeyVars, proof.Zeroifier)
	if err != nil {
		return InputClaims[E]{}, fmt.Errorf("attention: zeroifier: %w", err)
	}
	qj, qk := point[:d.RowVars], point[d.RowVars:]
	eq := poly.Eq[E, P](point, poly.Concat(rj, rk))
	z, err := zeroifier[E, P](&d, qj, qk)
	if err != nil {
		return InputClaims[E]{}, err
	}
	if err := expect[E, P]("zeroifier", &value, &eq, &z, &proof.Scores); err != nil {
		return InputClaims[E]{}, err
	}
	tr.Absorb(proof.Scores)

	ra, rb := rh[:d.KVHeadVars], rh[d.KVHeadVars:]
	point, value, err = sumcheck.Verify(tr, proof.Scores, 3, d.KVHeadVars+d.WidthVars, proof.Product)
	if err != nil {
		return InputClaims[E]{}, fmt.Errorf("attention: query·keys: %w", err)
	}
	pa, pt := point[:d.KVHeadVars], point[d.KVHeadVars:]
	heads := poly.Eq[E, P](pa, ra)
	if err := expect[E, P]("query·keys", &value, &heads, &proof.PaddedQuery, &proof.PaddedKeys); err != nil {
		return InputClaims[E]{}, err
	}
	tr.Absorb(proof.PaddedQuery, proof.PaddedKeys)
	queryCol, keysCol := poly.Concat(pa, rb, pt), poly.Concat(pa, pt)
	rv, valuesCol := paddedValues.Point[:d.KeyVars], paddedValues.Point[d.KeyVars:]

	one := field.One[E, P]()
	instances := paddingInstances(one, proof.PaddedQuery, proof.PaddedKeys, paddedValues.Value)
	final, err := sumcheck.VerifyBatch(tr, instances, d.QueryColVars, proof.Padding)
	if err != nil {
		return InputClaims[E]{}, fmt.Errorf("attention: padding: %w", err)
	}
	rc := final.Point
	rcKV := rc[d.QueryColVars-d.KVColVars:]
	sel := prefixZero[E, P](rc[:d.QueryColVars-d.KVColVars])
	pq, err := queryPadding[E, P](&d, rc, queryCol)
	if err != nil {
		return InputClaims[E]{}, err
	}
	pk, err := kvPadding[E, P](&d, rcKV, keysCol)
	if err != nil {
		return InputClaims[E]{}, err
	}
	pv, err := kvPadding[E, P](&d, rcKV, valuesCol)
	if err != nil {
		return InputClaims[E]{}, err
	}
	values := []E{proof.Query, pq, proof.Keys, pk, proof.Values, pv}
	for i := 2; i < len(values); i++ {
		P(&values[i]).Mul(&values[i], &sel)
	}
	if err := sumcheck.CheckEvaluations[E, P](&final, instances, values); err != nil {
		return InputClaims[E]{}, fmt.Errorf("%w: padding: %w", ErrRejected, err)
	}
	tr.Absorb(proof.Query, proof.Keys, proof.Values)
	return inputClaims(qj, qk, rv, rc, rcKV, proof), nil
}

// paddingInstances are the three instances of the batched padding
// sum-check over the tables (Q row, P_Q, K row, P_kv, V row, P_kv).
func paddingInstances[E field.Scalar](one, query, keys, values E) []sumcheck.Instance[E] {
	return []sumcheck.Instance[E]{
		{Terms: []sumcheck.Term[E]{{Coefficient: one, Factors: []int{0, 1}}}, Sum: query},
		{Terms: []sumcheck.Term[E]{{Coefficient: one, Factors: []int{2, 3}}}, Sum: keys},
		{Terms: []sumcheck.Term[E]{{Coefficient: one, Factors: []int{4, 5}}}, Sum: values},
	}
}

func inputClaims[E field.Scalar](qj, qk, rv, rc, rcKV []E, proof *ScoresProof[E]) InputClaims[E] {
	return InputClaims[E]{
		Query:  poly.Claim[E]{Point: poly.Concat(qj, rc), Value: proof.Query},
		Keys:   poly.Claim[E]{Point: poly.Concat(qk, rcKV), Value: proof.Keys},
		Values: poly.Claim[E]{Point: poly.Concat(rv, rcKV), Value: proof.Values},
	}
}

// splitScorePoint splits a point of the score tensor into its head, row and
// key coordinates.
func splitScorePoint[E any](d *Dims, point []E) (head, row, key []E) {
	h, r := d.HeadVars(), d.HeadVars()+d.RowVars
	return point[:h], point[h:r], point[r:]
}

// unmask returns y − m̃(r_j, r_k), m̃ = c·(1 − z̃): the claim on S ⊙ ẑ.
func unmask[E field.Scalar, P field.Ptr[E]](d *Dims, maskValue int64, rj, rk []E, y *E) (E, error) {
	z, err := zeroifier[E, P](d, rj, rk)
	if err != nil {
		return z, err
	}
	c := field.FromInt64[E, P](maskValue)
	one := field.One[E, P]()
	var mask, res E
	P(&mask).Sub(&one, &z)
	P(&mask).Mul(&mask, &c)
	P(&res).Sub(y, &mask)
	return res, nil
}

// foldGroup returns Q̂(ρ_j, a, r_b, t) over (a, t) ∈ ĥ_kv × m̂ from the row
// Q̂(ρ_j, ·) over (a, b, t) and eqGroup = β(r_b, ·).
func foldGroup[E field.Scalar, P field.Ptr[E]](d *Dims, row, eqGroup []E) []E {
	mw, hg := d.paddedWidth(), d.paddedGroup()
	out := make([]E, d.paddedKVHeads()*mw)
	tmp := make([]E, mw)
	for a := range d.paddedKVHeads() {
		dst := out[a*mw : (a+1)*mw]
		for b := range hg {
			src := row[(a*hg+b)*mw : (a*hg+b+1)*mw]
			field.ScalarMul(tmp, src, &eqGroup[b])
			field.Add(dst, dst, tmp)
		}
	}
	return out
}

// extend returns t followed by zeros up to n entries: the table of t with
// new leading variables that must be 0.
func extend[E field.Scalar](t []E, n int) []E {
	out := make([]E, n)
	copy(out, t)
	return out
}
