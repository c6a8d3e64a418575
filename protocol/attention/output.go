package attention

import (
	"errors"
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// ErrRejected is wrapped by every error a verifier returns on a proof that
// does not check (as opposed to a malformed configuration or claim).
var ErrRejected = errors.New("attention: proof rejected")

// OutputProof is the proof of the output half: claims on the output O
// become claims on the softmax output A and on the padded values V̂.
type OutputProof[E field.Scalar] struct {
	// SamePoly merges several claims on O into one (nil for one claim).
	SamePoly *sumcheck.SamePolyProof[E]
	// Unpadding proves O(r_s, r_d) = Σ_x Ô(r_s, x)·U(x, r_d).
	Unpadding sumcheck.Proof[E]
	// PaddedOutput is the claimed Ô(r_s, ρ).
	PaddedOutput E
	// Mix proves Ô(r_s, ρ_a, ρ_b, ρ_t) =
	// Σ_{a,k} β(a, ρ_a)·A(a, ρ_b, r_s, k)·V̂(k, a, ρ_t).
	Mix sumcheck.Proof[E]
	// Probs is the claimed A(ρ'_a, ρ_b, r_s, ρ'_k).
	Probs E
	// PaddedValues is the claimed V̂(ρ'_k, ρ'_a, ρ_t).
	PaddedValues E
}

// OutputClaims are the claims the output half produces.
type OutputClaims[E field.Scalar] struct {
	// Probs is a claim on the padded softmax output (see
	// [PadProbabilities]): the softmax layer continues from it.
	Probs poly.Claim[E]
	// PaddedValues is a claim on V̂ = V·P_kv (l̂ × ĥ_kv·m̂); pass it to
	// [ProveScores] / [VerifyScores], which reduce it to a claim on V
	// together with the padding of Q and K.
	PaddedValues poly.Claim[E]
}

// ProveOutput proves the output half of the layer from the claims out on
// O (QueryRows × Heads·HeadDim, padded to ŝ_q × D_q). It needs w.Probs and
// w.Values.
func ProveOutput[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, w *Witness, out []poly.Claim[E]) (*OutputProof[E], OutputClaims[E], error) {
	d, err := cfg.Dims()
	if err != nil {
		return nil, OutputClaims[E]{}, err
	}
	if err := d.checkOutput(w); err != nil {
		return nil, OutputClaims[E]{}, err
	}
	p := padded{values: d.padKV(w.Values), probs: d.padScores(w.Probs)}
	return proveOutput(tr, &d, cfg.outputClaims(), &p, out)
}

func proveOutput[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], d *Dims, nbClaims int, p *padded, out []poly.Claim[E]) (*OutputProof[E], OutputClaims[E], error) {
	if err := checkClaims("output", nbClaims, d.RowVars+d.QueryColVars, out); err != nil {
		return nil, OutputClaims[E]{}, err
	}
	proof := new(OutputProof[E])
	tr.Label("attention/output")
	paddedOut := d.outputOf(p.probs, p.values)
	claim := out[0]
	if len(out) > 1 {
		table := toField[E](d.unpadOutput(paddedOut))
		sp, c, err := sumcheck.ProveSamePoly(tr, table, out)
		if err != nil {
			return nil, OutputClaims[E]{}, fmt.Errorf("attention: output claims: %w", err)
		}
		proof.SamePoly, claim = &sp, c
	}
	rs, rd := claim.Point[:d.RowVars], claim.Point[d.RowVars:]

	// Unpadding: O(r_s, r_d) = Σ_x Ô(r_s, x)·U(x, r_d).
	outRow := combineRows[E, P](paddedOut, d.paddedQueryCols(), poly.EqTable[E, P](rs))
	unpad := scatterQuery(d, poly.EqTable[E, P](rd))
	one := field.One[E, P]()
	sc, opening, err := sumcheck.Prove(tr, [][]E{outRow, unpad}, []sumcheck.Term[E]{{Coefficient: one, Factors: []int{0, 1}}}, claim.Value)
	if err != nil {
		return nil, OutputClaims[E]{}, fmt.Errorf("attention: unpadding: %w", err)
	}
	proof.Unpadding, proof.PaddedOutput = sc, opening.Evaluations[0]
	tr.Absorb(proof.PaddedOutput)
	rho := opening.Point
	ra, rb, rt := rho[:d.KVHeadVars], rho[d.KVHeadVars:d.HeadVars()], rho[d.HeadVars():]

	// Head-batched A·V: Ô(r_s, ρ) = Σ_{a,k} β(a, ρ_a)·A(a, ρ_b, r_s, k)·V̂(k, a, ρ_t).
	keys := d.paddedKeys()
	block := d.paddedGroup() * d.paddedRows() * keys // one key/value head of A
	weights := poly.EqTable[E, P](poly.Concat(rb, rs))
	probs := make([]E, 0, d.paddedKVHeads()*keys)
	for a := range d.paddedKVHeads() {
		probs = append(probs, combineRows[E, P](p.probs[a*block:(a+1)*block], keys, weights)...)
	}
	values := permuteValues[E, P](d, p.values, poly.EqTable[E, P](rt))
	heads := expand(poly.EqTable[E, P](ra), keys)
	sc, opening, err = sumcheck.Prove(tr, [][]E{heads, probs, values}, []sumcheck.Term[E]{{Coefficient: one, Factors: []int{0, 1, 2}}}, proof.PaddedOutput)
	if err != nil {
		return nil, OutputClaims[E]{}, fmt.Errorf("attention: probabilities·values: %w", err)
	}
	proof.Mix, proof.Probs, proof.PaddedValues = sc, opening.Evaluations[1], opening.Evaluations[2]
	tr.Absorb(proof.Probs, proof.PaddedValues)
	return proof, outputClaims(d, rho, rs, opening.Point, proof), nil
}

// VerifyOutput is the verifier of [ProveOutput].
func VerifyOutput[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, proof *OutputProof[E], out []poly.Claim[E]) (OutputClaims[E], error) {
	d, err := cfg.Dims()
	if err != nil {
		return OutputClaims[E]{}, err
	}
	if err := checkClaims("output", cfg.outputClaims(), d.RowVars+d.QueryColVars, out); err != nil {
		return OutputClaims[E]{}, err
	}
	if proof == nil || (proof.SamePoly != nil) != (len(out) > 1) {
		return OutputClaims[E]{}, fmt.Errorf("%w: output design does not match %d claims", ErrRejected, len(out))
	}
	tr.Label("attention/output")
	claim := out[0]
	if len(out) > 1 {
		if claim, err = sumcheck.VerifySamePoly(tr, out, *proof.SamePoly); err != nil {
			return OutputClaims[E]{}, fmt.Errorf("attention: output claims: %w", err)
		}
	}
	rs, rd := claim.Point[:d.RowVars], claim.Point[d.RowVars:]

	rho, value, err := sumcheck.Verify(tr, claim.Value, 2, d.HeadVars()+d.WidthVars, proof.Unpadding)
	if err != nil {
		return OutputClaims[E]{}, fmt.Errorf("attention: unpadding: %w", err)
	}
	u, err := queryPadding[E, P](&d, rd, rho)
	if err != nil {
		return OutputClaims[E]{}, err
	}
	if err := expect[E, P]("unpadding", &value, &proof.PaddedOutput, &u); err != nil {
		return OutputClaims[E]{}, err
	}
	tr.Absorb(proof.PaddedOutput)
	ra := rho[:d.KVHeadVars]

	point, value, err := sumcheck.Verify(tr, proof.PaddedOutput, 3, d.KVHeadVars+d.KeyVars, proof.Mix)
	if err != nil {
		return OutputClaims[E]{}, fmt.Errorf("attention: probabilities·values: %w", err)
	}
	heads := poly.Eq[E, P](point[:d.KVHeadVars], ra)
	if err := expect[E, P]("probabilities·values", &value, &heads, &proof.Probs, &proof.PaddedValues); err != nil {
		return OutputClaims[E]{}, err
	}
	tr.Absorb(proof.Probs, proof.PaddedValues)
	return outputClaims(&d, rho, rs, point, proof), nil
}

// outputClaims assembles the claims on A and V̂ from the unpadding point ρ,
// the output row point r_s and the final point (ρ'_a ‖ ρ'_k) of the A·V
// sum-check.
func outputClaims[E field.Scalar](d *Dims, rho, rs, point []E, proof *OutputProof[E]) OutputClaims[E] {
	rb, rt := rho[d.KVHeadVars:d.HeadVars()], rho[d.HeadVars():]
	ra, rk := point[:d.KVHeadVars], point[d.KVHeadVars:]
	return OutputClaims[E]{
		Probs:        poly.Claim[E]{Point: poly.Concat(ra, rb, rs, rk), Value: proof.Probs},
		PaddedValues: poly.Claim[E]{Point: poly.Concat(rk, ra, rt), Value: proof.PaddedValues},
	}
}

// checkClaims checks that there are want claims, each on a point of nbVars
// coordinates.
func checkClaims[E field.Scalar](what string, want, nbVars int, claims []poly.Claim[E]) error {
	if len(claims) != want {
		return fmt.Errorf("attention: %d claims on the %s, configured for %d", len(claims), what, want)
	}
	for i, c := range claims {
		if len(c.Point) != nbVars {
			return fmt.Errorf("attention: claim %d on the %s has %d coordinates, want %d", i, what, len(c.Point), nbVars)
		}
	}
	return nil
}

// expect checks got = Π factors, or rejects naming the step.
func expect[E field.Scalar, P field.Ptr[E]](step string, got *E, factors ...*E) error {
	want := field.One[E, P]()
	for _, f := range factors {
		P(&want).Mul(&want, f)
	}
	if !P(&want).Equal(got) {
		return fmt.Errorf("%w: %s: final value does not match the claimed evaluations", ErrRejected, step)
	}
	return nil
}

// unpadOutput returns O = Ô·U (ŝ_q × D_q) from Ô.
func (d *Dims) unpadOutput(paddedOut []int64) []int64 {
	rows, cols, pw := d.paddedRows(), d.queryCols(), d.paddedQueryCols()
	out := make([]int64, rows*cols)
	for j := range rows {
		for c := range d.Heads * d.Width {
			out[j*cols+c] = paddedOut[j*pw+d.queryColumn(c)]
		}
	}
	return out
}

// permuteValues returns Ṽ(a, k, ρ_t) = Σ_t β(t, ρ_t)·V̂[k, a·m̂ + t] as a
// table over (a, k) ∈ ĥ_kv × l̂, from V̂ and eqWidth = β(ρ_t, ·).
func permuteValues[E field.Scalar, P field.Ptr[E]](d *Dims, values []int64, eqWidth []E) []E {
	keys, hkv, mw := d.paddedKeys(), d.paddedKVHeads(), d.paddedWidth()
	out := make([]E, hkv*keys)
	row := make([]E, hkv*mw)
	for k := range keys {
		field.SetMontgomeryLimbs(row, values[k*hkv*mw:(k+1)*hkv*mw])
		for a := range hkv {
			out[a*keys+k] = field.InnerProduct(eqWidth, row[a*mw:(a+1)*mw])
		}
	}
	scale := field.MontgomeryR[E, P]()
	field.ScalarMul(out, out, &scale)
	return out
}
