package linear

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// sums returns the instance sums h_k = y_k − Sel_rows(r_row_k)·b_k(r_col_k)
// (h_k = y_k without bias); biases holds the values of the projections
// with a bias, in order.
func sums[E field.Scalar, P field.Ptr[E]](cfg Config, out []poly.Claim[E], biases []E) []E {
	h := make([]E, len(out))
	rv, next := cfg.RowVars(), 0
	for k, p := range cfg.Projections {
		h[k] = out[k].Value
		if p.Bias {
			sel := poly.Prefix[E, P](out[k].Point[:rv], cfg.Rows)
			P(&sel).Mul(&sel, &biases[next])
			P(&h[k]).Sub(&h[k], &sel)
			next++
		}
	}
	return h
}

// instances returns the batch Σ_x X_k(x)·W_k(x) = h_k over the tables in
// the order of [Config.Factors].
func instances[E field.Scalar, P field.Ptr[E]](cfg Config, h []E) []sumcheck.Instance[E] {
	one := field.One[E, P]()
	inst := make([]sumcheck.Instance[E], len(h))
	for k := range h {
		inst[k] = sumcheck.Instance[E]{Terms: []sumcheck.Term[E]{{Coefficient: one, Factors: cfg.Factors(k)}}, Sum: h[k]}
	}
	return inst
}

// evaluationValues lays the claimed evaluations out in table order.
func evaluationValues[E field.Scalar](cfg Config, inputs, weights []E) []E {
	if cfg.SharesRow() {
		return append([]E{inputs[0]}, weights...)
	}
	values := make([]E, 0, 2*len(weights))
	for k := range weights {
		values = append(values, inputs[k], weights[k])
	}
	return values
}

// Prove proves Acc_k = X·W_kᵀ + 1·b_kᵀ (zero-padded) for every projection
// k from the claims out (one per projection, on Acc_k at (r_row_k ‖
// r_col_k)) and returns the claims on X, the weights and the biases. The
// claim points must be fixed by the transcript already; the values enter
// it through the sum-check's sums h_k = y_k − S̃el_Rows(r_row_k)·β_k.
func Prove[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, w Witness, out []poly.Claim[E]) (*Proof[E], Claims[E], error) {
	var claims Claims[E]
	if err := cfg.Validate(); err != nil {
		return nil, claims, err
	}
	if err := w.check(cfg); err != nil {
		return nil, claims, err
	}
	if err := checkClaims[E, P](cfg, out); err != nil {
		return nil, claims, err
	}
	tr.Label("linear")
	rv := cfg.RowVars()
	proof := &Proof[E]{}
	for k, p := range cfg.Projections {
		if p.Bias {
			v, err := EvaluateBias[E, P](w.Biases[k], out[k].Point[rv:])
			if err != nil {
				return nil, claims, fmt.Errorf("linear: bias %d: %w", k, err)
			}
			proof.Biases = append(proof.Biases, v)
		}
	}
	tr.Absorb(proof.Biases...)
	paddedIn := poly.NextPowerOfTwo(cfg.In)
	x := inputTable[E, P](w.X, cfg.Rows, cfg.In, paddedIn)
	var tables [][]E
	for k, p := range cfg.Projections {
		if k == 0 || !cfg.SharesRow() {
			tables = append(tables, foldInputRows(x, cfg.Rows, paddedIn, poly.EqTable[E, P](out[k].Point[:rv])))
		}
		eq := poly.EqTable[E, P](out[k].Point[rv:])
		tables = append(tables, foldWeight[E, P](w.Weights[k], p.Out, cfg.In, eq, paddedIn))
	}
	batch, opening, err := sumcheck.ProveBatch(tr, tables, instances[E, P](cfg, sums[E, P](cfg, out, proof.Biases)))
	if err != nil {
		return nil, claims, fmt.Errorf("linear: sum-check: %w", err)
	}
	proof.SumCheck = batch
	ev := opening.Evaluations
	for k := range cfg.Projections {
		f := cfg.Factors(k)
		if k < cfg.NbInputs() {
			proof.Inputs = append(proof.Inputs, ev[f[0]])
		}
		proof.Weights = append(proof.Weights, ev[f[1]])
	}
	tr.Absorb(proof.Weights...)
	tr.Absorb(proof.Inputs...)
	r := opening.Point
	claims.Input = poly.Claim[E]{Point: poly.Concat(out[0].Point[:rv], r), Value: proof.Inputs[0]}
	if !cfg.SharesRow() {
		merge, c, err := sumcheck.ProveSamePoly(tr, foldInputCols(x, cfg.Rows, 1<<rv, poly.EqTable[E, P](r)), rowClaims(cfg, out, proof.Inputs))
		if err != nil {
			return nil, claims, fmt.Errorf("linear: same-poly on X: %w", err)
		}
		proof.Merge = &merge
		claims.Input = poly.Claim[E]{Point: poly.Concat(c.Point, r), Value: c.Value}
	}
	claims.Weights, claims.Biases = parameterClaims(cfg, out, r, proof)
	return proof, claims, nil
}

// Verify checks a proof from the claims out (one per projection) and
// returns the claims on X, the weights and the biases; the caller checks
// the weight and bias claims against the fixed parameters (e.g. with
// [EvaluateWeight] and [EvaluateBias]) and the input claim against X.
func Verify[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, proof *Proof[E], out []poly.Claim[E]) (Claims[E], error) {
	var claims Claims[E]
	if err := cfg.Validate(); err != nil {
		return claims, err
	}
	if err := checkClaims[E, P](cfg, out); err != nil {
		return claims, err
	}
	if proof == nil || len(proof.Biases) != cfg.NbBiases() || len(proof.Inputs) != cfg.NbInputs() ||
		len(proof.Weights) != len(cfg.Projections) || (proof.Merge == nil) != cfg.SharesRow() {
		return claims, fmt.Errorf("%w: linear: malformed proof", sumcheck.ErrRejected)
	}
	tr.Label("linear")
	tr.Absorb(proof.Biases...)
	inst := instances[E, P](cfg, sums[E, P](cfg, out, proof.Biases))
	final, err := sumcheck.VerifyBatch(tr, inst, cfg.InVars(), proof.SumCheck)
	if err != nil {
		return claims, fmt.Errorf("linear: sum-check: %w", err)
	}
	tr.Absorb(proof.Weights...)
	tr.Absorb(proof.Inputs...)
	if err := sumcheck.CheckEvaluations[E, P](&final, inst, evaluationValues(cfg, proof.Inputs, proof.Weights)); err != nil {
		return claims, fmt.Errorf("linear: final check: %w", err)
	}
	r := final.Point
	rv := cfg.RowVars()
	claims.Input = poly.Claim[E]{Point: poly.Concat(out[0].Point[:rv], r), Value: proof.Inputs[0]}
	if !cfg.SharesRow() {
		c, err := sumcheck.VerifySamePoly(tr, rowClaims(cfg, out, proof.Inputs), *proof.Merge)
		if err != nil {
			return claims, fmt.Errorf("linear: same-poly on X: %w", err)
		}
		claims.Input = poly.Claim[E]{Point: poly.Concat(c.Point, r), Value: c.Value}
	}
	claims.Weights, claims.Biases = parameterClaims(cfg, out, r, proof)
	return claims, nil
}

// rowClaims returns the claims X(r_row_k, r*) = inputs[k] on X with its
// column variables bound to r*, for the same-poly merge.
func rowClaims[E field.Scalar](cfg Config, out []poly.Claim[E], inputs []E) []poly.Claim[E] {
	rc := make([]poly.Claim[E], len(out))
	for k := range out {
		rc[k] = poly.Claim[E]{Point: out[k].Point[:cfg.RowVars()], Value: inputs[k]}
	}
	return rc
}

// parameterClaims builds the weight and bias claims from the proof's
// values.
func parameterClaims[E field.Scalar](cfg Config, out []poly.Claim[E], r []E, proof *Proof[E]) (weights, biases []poly.Claim[E]) {
	rv, next := cfg.RowVars(), 0
	weights = make([]poly.Claim[E], len(out))
	biases = make([]poly.Claim[E], len(out))
	for k, p := range cfg.Projections {
		col := out[k].Point[rv:]
		weights[k] = poly.Claim[E]{Point: poly.Concat(col, r), Value: proof.Weights[k]}
		if p.Bias {
			biases[k] = poly.Claim[E]{Point: poly.Concat(col, nil), Value: proof.Biases[next]}
			next++
		}
	}
	return weights, biases
}
