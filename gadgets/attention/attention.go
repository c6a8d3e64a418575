package attention

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
)

// Shape is the shape of one attention layer; the fields mean what they mean
// in the native configuration (KVHeads 0 means Heads, claim counts 0 mean
// one claim; query row j sees keys 0…Start+j).
type Shape struct {
	Heads, KVHeads, HeadDim int
	QueryRows, KeyRows      int
	Start                   int
	MaskValue               int64
	OutputClaims            int
	ScoreClaims             int
}

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

// dims are the derived sizes of a valid shape (vars are logarithms of the
// padded sizes).
type dims struct {
	heads, kvHeads, group, width     int
	queryRows, keyRows, start        int
	kvHeadVars, groupVars, widthVars int
	rowVars, keyVars                 int
	queryColVars, kvColVars          int
}

func (d *dims) headVars() int  { return d.kvHeadVars + d.groupVars }
func (d *dims) scoreVars() int { return d.headVars() + d.rowVars + d.keyVars }

const (
	maxHeads    = 1 << 12
	maxRows     = 1 << 16
	maxMaskBits = 62
)

func isPowerOfTwo(v int) bool { return v > 0 && v&(v-1) == 0 }

// log2Ceil returns ⌈log₂ v⌉ (0 for v ≤ 1).
func log2Ceil(v int) int {
	n := 0
	for 1<<n < v {
		n++
	}
	return n
}

// dims validates the shape with the rules of the native configuration.
func (s Shape) dims() (dims, error) {
	kv := s.KVHeads
	if kv == 0 {
		kv = s.Heads
	}
	switch {
	case s.Heads < 1 || s.Heads > maxHeads:
		return dims{}, fmt.Errorf("attention: heads %d outside [1, %d]", s.Heads, maxHeads)
	case kv < 1 || kv > s.Heads || s.Heads%kv != 0:
		return dims{}, fmt.Errorf("attention: key/value heads %d do not divide heads %d", kv, s.Heads)
	case s.HeadDim < 1 || s.HeadDim > maxHeads:
		return dims{}, fmt.Errorf("attention: head dimension %d outside [1, %d]", s.HeadDim, maxHeads)
	case s.QueryRows < 1 || s.QueryRows > maxRows || s.KeyRows < 1 || s.KeyRows > maxRows:
		return dims{}, fmt.Errorf("attention: rows %d, %d outside [1, %d]", s.QueryRows, s.KeyRows, maxRows)
	case s.Start < 0 || s.Start > s.KeyRows-s.QueryRows:
		return dims{}, fmt.Errorf("attention: %d query rows from position %d against %d keys", s.QueryRows, s.Start, s.KeyRows)
	case s.MaskValue <= -(1<<maxMaskBits) || s.MaskValue >= 1<<maxMaskBits:
		return dims{}, fmt.Errorf("attention: mask value %d outside (−2^%d, 2^%d)", s.MaskValue, maxMaskBits, maxMaskBits)
	case s.OutputClaims < 0 || s.ScoreClaims < 0:
		return dims{}, fmt.Errorf("attention: negative claim counts %d, %d", s.OutputClaims, s.ScoreClaims)
	}
	group := s.Heads / kv
	if !isPowerOfTwo(group) && !isPowerOfTwo(s.HeadDim) {
		return dims{}, fmt.Errorf("attention: group size %d and head dimension %d: one of them must be a power of two", group, s.HeadDim)
	}
	return dims{
		heads: s.Heads, kvHeads: kv, group: group, width: s.HeadDim,
		queryRows: s.QueryRows, keyRows: s.KeyRows, start: s.Start,
		kvHeadVars: log2Ceil(kv), groupVars: log2Ceil(group), widthVars: log2Ceil(s.HeadDim),
		rowVars: log2Ceil(s.QueryRows), keyVars: log2Ceil(s.KeyRows),
		queryColVars: log2Ceil(s.Heads * s.HeadDim), kvColVars: log2Ceil(kv * s.HeadDim),
	}, nil
}

func samePoly(claims, nbVars int) []sumcheck.SamePolyProof {
	if claims <= 1 {
		return nil
	}
	return []sumcheck.SamePolyProof{sumcheck.PlaceholderSamePolyProof(nbVars)}
}

// PlaceholderOutputProof sizes the output half's proof for a circuit (an
// invalid shape gives an empty proof, which [VerifyOutput] rejects).
func PlaceholderOutputProof(shape Shape) OutputProof {
	d, err := shape.dims()
	if err != nil {
		return OutputProof{}
	}
	return OutputProof{
		SamePoly:  samePoly(shape.OutputClaims, d.rowVars+d.queryColVars),
		Unpadding: sumcheck.PlaceholderProof(d.headVars()+d.widthVars, 2),
		Mix:       sumcheck.PlaceholderProof(d.kvHeadVars+d.keyVars, 3),
	}
}

// PlaceholderScoresProof sizes the scores half's proof for a circuit.
func PlaceholderScoresProof(shape Shape) ScoresProof {
	d, err := shape.dims()
	if err != nil {
		return ScoresProof{}
	}
	return ScoresProof{
		SamePoly:  samePoly(shape.ScoreClaims, d.scoreVars()),
		Zeroifier: sumcheck.PlaceholderProof(d.rowVars+d.keyVars, 3),
		Product:   sumcheck.PlaceholderProof(d.kvHeadVars+d.widthVars, 3),
		Padding:   sumcheck.PlaceholderProof(d.queryColVars, 2),
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
func VerifyOutput(api frontend.API, tr *transcript.Transcript, shape Shape, proof OutputProof, out []poly.Claim) (OutputClaims, error) {
	d, err := shape.dims()
	if err != nil {
		return OutputClaims{}, err
	}
	if err := checkClaims("output", shape.OutputClaims, d.rowVars+d.queryColVars, out); err != nil {
		return OutputClaims{}, err
	}
	if err := checkRounds("unpadding", proof.Unpadding, d.headVars()+d.widthVars); err != nil {
		return OutputClaims{}, err
	}
	if err := checkRounds("probabilities·values", proof.Mix, d.kvHeadVars+d.keyVars); err != nil {
		return OutputClaims{}, err
	}
	tr.Label("attention/output")
	claim, err := merge(api, tr, "output", out, proof.SamePoly)
	if err != nil {
		return OutputClaims{}, err
	}
	rs, rd := claim.Point[:d.rowVars], claim.Point[d.rowVars:]

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
	rb, rt := rho[d.kvHeadVars:d.headVars()], rho[d.headVars():]

	point, value, err := sumcheck.Verify(api, tr, proof.PaddedOutput, 3, proof.Mix)
	if err != nil {
		return OutputClaims{}, fmt.Errorf("attention: probabilities·values: %w", err)
	}
	pa, pk := point[:d.kvHeadVars], point[d.kvHeadVars:]
	heads := poly.Eq(api, pa, rho[:d.kvHeadVars])
	api.AssertIsEqual(value, api.Mul(heads, api.Mul(proof.Probs, proof.PaddedValues)))
	tr.Absorb(proof.Probs, proof.PaddedValues)
	return OutputClaims{
		Probs:        poly.Claim{Point: concat(pa, rb, rs, pk), Value: proof.Probs},
		PaddedValues: poly.Claim{Point: concat(pk, pa, rt), Value: proof.PaddedValues},
	}, nil
}

// VerifyScores verifies the scores half: claims on the masked scores S_M and
// the claim on V̂ from [VerifyOutput] become claims on Q, K and V.
func VerifyScores(api frontend.API, tr *transcript.Transcript, shape Shape, proof ScoresProof, masked []poly.Claim, paddedValues poly.Claim) (InputClaims, error) {
	d, err := shape.dims()
	if err != nil {
		return InputClaims{}, err
	}
	if err := checkClaims("masked scores", shape.ScoreClaims, d.scoreVars(), masked); err != nil {
		return InputClaims{}, err
	}
	if err := checkClaims("padded values", 1, d.keyVars+d.kvHeadVars+d.widthVars, []poly.Claim{paddedValues}); err != nil {
		return InputClaims{}, err
	}
	for _, c := range []struct {
		step   string
		proof  sumcheck.Proof
		nbVars int
	}{
		{"zeroifier", proof.Zeroifier, d.rowVars + d.keyVars},
		{"query·keys", proof.Product, d.kvHeadVars + d.widthVars},
		{"padding", proof.Padding, d.queryColVars},
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
	h, r := d.headVars(), d.headVars()+d.rowVars
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
	qj, qk := point[:d.rowVars], point[d.rowVars:]
	eq := poly.Eq(api, point, concat(rj, rk))
	zq, err := zeroifier(api, &d, qj, qk)
	if err != nil {
		return InputClaims{}, err
	}
	api.AssertIsEqual(value, api.Mul(eq, api.Mul(zq, proof.Scores)))
	tr.Absorb(proof.Scores)

	ra, rb := rh[:d.kvHeadVars], rh[d.kvHeadVars:]
	point, value, err = sumcheck.Verify(api, tr, proof.Scores, 3, proof.Product)
	if err != nil {
		return InputClaims{}, fmt.Errorf("attention: query·keys: %w", err)
	}
	pa, pt := point[:d.kvHeadVars], point[d.kvHeadVars:]
	heads := poly.Eq(api, pa, ra)
	api.AssertIsEqual(value, api.Mul(heads, api.Mul(proof.PaddedQuery, proof.PaddedKeys)))
	tr.Absorb(proof.PaddedQuery, proof.PaddedKeys)
	queryCol, keysCol := concat(pa, rb, pt), concat(pa, pt)
	rv, valuesCol := paddedValues.Point[:d.keyVars], paddedValues.Point[d.keyVars:]

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
	extra := d.queryColVars - d.kvColVars
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
		Query:  poly.Claim{Point: concat(qj, rc), Value: proof.Query},
		Keys:   poly.Claim{Point: concat(qk, rcKV), Value: proof.Keys},
		Values: poly.Claim{Point: concat(rv, rcKV), Value: proof.Values},
	}, nil
}

// queryPadding is the closed form P̃_Q(r_c, r_a, r_b, r_t) (see the package
// documentation).
func queryPadding(api frontend.API, d *dims, rc, rCol []frontend.Variable) (frontend.Variable, error) {
	if isPowerOfTwo(d.group) {
		v, err := poly.Padding(api, concat(rc, rCol), d.heads, d.width)
		if err != nil {
			return nil, fmt.Errorf("attention: query padding: %w", err)
		}
		return v, nil
	}
	hv := len(rc) - d.widthVars
	v, err := poly.Padding(api, concat(rc[:hv], rCol[:d.headVars()]), d.kvHeads, d.group)
	if err != nil {
		return nil, fmt.Errorf("attention: query padding: %w", err)
	}
	return api.Mul(v, poly.Eq(api, rc[hv:], rCol[d.headVars():])), nil
}

// kvPadding is the closed form P̃_kv(r_c, r_a, r_t).
func kvPadding(api frontend.API, d *dims, rc, rCol []frontend.Variable) (frontend.Variable, error) {
	v, err := poly.Padding(api, concat(rc, rCol), d.kvHeads, d.width)
	if err != nil {
		return nil, fmt.Errorf("attention: key/value padding: %w", err)
	}
	return v, nil
}

// Zeroifier returns the MLE of the zeroifier z[j, k] = [j < s_q ∧ k ≤
// Start + j] over ŝ_q × l̂ at point = (r_row ‖ r_key), the twin of the
// native function.
func Zeroifier(api frontend.API, shape Shape, point []frontend.Variable) (frontend.Variable, error) {
	d, err := shape.dims()
	if err != nil {
		return nil, err
	}
	if len(point) != d.rowVars+d.keyVars {
		return nil, fmt.Errorf("attention: zeroifier: point has %d coordinates, want %d", len(point), d.rowVars+d.keyVars)
	}
	return zeroifier(api, &d, point[:d.rowVars], point[d.rowVars:])
}

// zeroifier is the closed form z̃(r_row, r_key) of z[j, k] = [j < s_q ∧
// k ≤ Start + j]: causal for a prefill pass, the selector of the first
// Start + 1 keys for one query row, the shifted causal automaton otherwise.
func zeroifier(api frontend.API, d *dims, rRow, rKey []frontend.Variable) (frontend.Variable, error) {
	switch {
	case d.queryRows == 1:
		return poly.Prefix(api, rKey, d.start+1), nil
	case d.start == 0 && d.queryRows == d.keyRows:
		z, err := poly.CausalZeroifier(api, concat(rRow, rKey), d.queryRows)
		if err != nil {
			return nil, fmt.Errorf("attention: zeroifier: %w", err)
		}
		return z, nil
	default:
		return shiftedCausal(api, rRow, rKey, d.queryRows, d.start), nil
	}
}

// shiftedCausal is the automaton of the native package (same states, same
// order): the MLE at (ρ, γ) of [j < rows ∧ k ≤ j + start], reading the bits
// from the least significant end. One constraint per bit for the pair
// weights and one per live (state, bit pair) transition whose state value is
// not a constant: at most 33 per bit.
func shiftedCausal(api frontend.API, rho, gamma []frontend.Variable, rows, start int) frontend.Variable {
	nr, nk := len(rho), len(gamma)
	n := max(nr, nk, bits.Len(uint(start))) + 1
	const states = 8 // carry·4 + greater·2 + less
	var v [states]frontend.Variable
	v[0] = 1
	for p := range n {
		var wj, wk [2]frontend.Variable
		nj, nkb := 1, 1
		wj[0], wk[0] = 1, 1
		if p < nr {
			nj = 2
			wj[1] = rho[nr-1-p]
			wj[0] = api.Sub(1, wj[1])
		}
		if p < nk {
			nkb = 2
			wk[1] = gamma[nk-1-p]
			wk[0] = api.Sub(1, wk[1])
		}
		var w [2][2]frontend.Variable
		if nj == 2 && nkb == 2 {
			// one product: the other three are linear in it
			w[1][1] = api.Mul(wj[1], wk[1])
			w[1][0] = api.Sub(wj[1], w[1][1])
			w[0][1] = api.Sub(wk[1], w[1][1])
			w[0][0] = api.Sub(wj[0], w[0][1])
		} else {
			for jb := range nj {
				for kb := range nkb {
					w[jb][kb] = api.Mul(wj[jb], wk[kb])
				}
			}
		}
		ob, rb := (start>>p)&1, (rows>>p)&1
		var next [states]frontend.Variable
		for st := range states {
			if v[st] == nil {
				continue
			}
			carry, greater, less := st>>2, (st>>1)&1, st&1
			for jb := range nj {
				for kb := range nkb {
					sum := jb + ob + carry
					g, l := greater, less
					if kb != sum&1 {
						g = kb
					}
					if jb != rb {
						l = rb
					}
					to := (sum>>1)<<2 | g<<1 | l
					t := api.Mul(v[st], w[jb][kb])
					if next[to] == nil {
						next[to] = t
					} else {
						next[to] = api.Add(next[to], t)
					}
				}
			}
		}
		v = next
	}
	if v[1] == nil {
		return 0
	}
	return v[1]
}

func concat(parts ...[]frontend.Variable) []frontend.Variable {
	var out []frontend.Variable
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
