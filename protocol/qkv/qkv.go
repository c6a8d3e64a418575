package qkv

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	gadget "github.com/veriformer/veriformer/gadgets/qkv"
	gsumcheck "github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// maxSide bounds every dimension so that products of two of them fit an int.
const maxSide = 1 << 24

// Config is the shape of one QKV layer.
type Config struct {
	// Rows is the number of tokens of the pass, s (1 for a decoding pass).
	Rows int
	// Hidden is the input width d.
	Hidden int
	// Heads and KVHeads are the numbers of query and key/value heads
	// (KVHeads < Heads with grouped-query attention); HeadDim is m.
	Heads, KVHeads, HeadDim int
	// Bias is true when the projections have biases (GPT-2), false for
	// Llama.
	Bias bool
}

// QCols returns the width of Q, Heads·HeadDim.
func (c Config) QCols() int { return c.Heads * c.HeadDim }

// KVCols returns the width of K and V, KVHeads·HeadDim.
func (c Config) KVCols() int { return c.KVHeads * c.HeadDim }

// RowVars returns ⌈log₂ Rows⌉, the row coordinates of every claim.
func (c Config) RowVars() int { return poly.Log2Ceil(c.Rows) }

// HiddenVars returns ⌈log₂ Hidden⌉, the number of sum-check rounds.
func (c Config) HiddenVars() int { return poly.Log2Ceil(c.Hidden) }

// ColVars returns the column coordinates of the claims on Q, K and V.
func (c Config) ColVars() [3]int {
	q, kv := poly.Log2Ceil(c.QCols()), poly.Log2Ceil(c.KVCols())
	return [3]int{q, kv, kv}
}

// Validate checks the shape.
func (c Config) Validate() error {
	for _, d := range []struct {
		name string
		v    int
	}{{"rows", c.Rows}, {"hidden", c.Hidden}, {"heads", c.Heads}, {"key/value heads", c.KVHeads}, {"head dimension", c.HeadDim}} {
		if d.v < 1 || d.v > maxSide {
			return fmt.Errorf("qkv: %s %d outside [1, 2^24]", d.name, d.v)
		}
	}
	if c.Heads%c.KVHeads != 0 {
		return fmt.Errorf("qkv: %d query heads are not a multiple of %d key/value heads", c.Heads, c.KVHeads)
	}
	if c.QCols() > maxSide {
		return fmt.Errorf("qkv: query width %d exceeds 2^24", c.QCols())
	}
	return nil
}

// Shape returns the gadget's shape.
func (c Config) Shape() gadget.Shape {
	return gadget.Shape{Rows: c.Rows, Hidden: c.Hidden, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim, Bias: c.Bias}
}

// Witness holds the layer's integer tensors, row-major. Weights use the
// [out, in] layout of the model package: W_Q is QCols × Hidden, W_K and W_V
// are KVCols × Hidden, so Q[i, j] = Σ_c X[i, c]·W_Q[j, c] + b_Q[j].
type Witness struct {
	X          []int64
	WQ, WK, WV []int64
	// BQ (QCols), BK and BV (KVCols) are nil without bias.
	BQ, BK, BV []int64
}

// Proof is the prover's message for one QKV layer.
type Proof[E field.Scalar] struct {
	// Biases holds b_Q(r_Q^c), b_K(r_K^c), b_V(r_V^c) (empty without bias).
	Biases []E
	// SumCheck is the batched sum-check over the Hidden coordinates.
	SumCheck sumcheck.Proof[E]
	// Inputs holds X(r_o^row, r) for o = Q, K, V, or the single X(r) when
	// Rows = 1.
	Inputs []E
	// Weights holds W_o(r_o^col, r) for o = Q, K, V.
	Weights []E
	// Merge accumulates the three claims on X (nil when Rows = 1).
	Merge *sumcheck.SamePolyProof[E]
}

// Claims are the claims the layer leaves: one on its input and one on each
// weight matrix and bias vector.
type Claims[E field.Scalar] struct {
	// Input is on X̂ (⌈Rows⌉ × ⌈Hidden⌉ padded), point (r_row ‖ r).
	Input poly.Claim[E]
	// WeightQ, WeightK, WeightV are on the padded [out, in] matrices, point
	// (r_o^col ‖ r).
	WeightQ, WeightK, WeightV poly.Claim[E]
	// BiasQ, BiasK, BiasV are on the padded bias vectors, point r_o^col;
	// zero claims (nil points) without bias.
	BiasQ, BiasK, BiasV poly.Claim[E]
}

func (c *Claims[E]) set(weights, biases [3]poly.Claim[E]) {
	c.WeightQ, c.WeightK, c.WeightV = weights[0], weights[1], weights[2]
	c.BiasQ, c.BiasK, c.BiasV = biases[0], biases[1], biases[2]
}

// checkClaims validates the three output claims against the shape.
func checkClaims[E field.Scalar](cfg Config, out []poly.Claim[E]) error {
	if len(out) != 3 {
		return fmt.Errorf("qkv: %d output claims, want 3 (Q, K, V)", len(out))
	}
	cols := cfg.ColVars()
	for o, c := range out {
		if want := cfg.RowVars() + cols[o]; len(c.Point) != want {
			return fmt.Errorf("qkv: output claim %d has %d coordinates, want %d", o, len(c.Point), want)
		}
	}
	return nil
}

func (w *Witness) check(cfg Config) error {
	d, q, kv := cfg.Hidden, cfg.QCols(), cfg.KVCols()
	sizes := []struct {
		name      string
		got, want int
	}{{"X", len(w.X), cfg.Rows * d}, {"W_Q", len(w.WQ), q * d}, {"W_K", len(w.WK), kv * d}, {"W_V", len(w.WV), kv * d}}
	if cfg.Bias {
		sizes = append(sizes, []struct {
			name      string
			got, want int
		}{{"b_Q", len(w.BQ), q}, {"b_K", len(w.BK), kv}, {"b_V", len(w.BV), kv}}...)
	} else if w.BQ != nil || w.BK != nil || w.BV != nil {
		return fmt.Errorf("qkv: biases given for a layer without bias")
	}
	for _, s := range sizes {
		if s.got != s.want {
			return fmt.Errorf("qkv: %s has %d entries, want %d", s.name, s.got, s.want)
		}
	}
	return nil
}

// sums returns the three instance sums y_o − Sel_s(r_o^row)·b_o(r_o^col).
func sums[E field.Scalar, P field.Ptr[E]](cfg Config, out []poly.Claim[E], biases []E) [3]E {
	var h [3]E
	rv := cfg.RowVars()
	for o := range 3 {
		h[o] = out[o].Value
		if len(biases) == 3 {
			sel := poly.Prefix[E, P](out[o].Point[:rv], cfg.Rows)
			P(&sel).Mul(&sel, &biases[o])
			P(&h[o]).Sub(&h[o], &sel)
		}
	}
	return h
}

// instances returns the batch Σ_x X_o(x)·W_o(x) = h_o over the tables
// (X_Q, W_Q, X_K, W_K, X_V, W_V), or (X, W_Q, W_K, W_V) when Rows = 1.
func instances[E field.Scalar, P field.Ptr[E]](cfg Config, h [3]E) []sumcheck.Instance[E] {
	one := field.One[E, P]()
	inst := make([]sumcheck.Instance[E], 3)
	for o := range 3 {
		factors := []int{2 * o, 2*o + 1}
		if cfg.RowVars() == 0 {
			factors = []int{0, o + 1}
		}
		inst[o] = sumcheck.Instance[E]{Terms: []sumcheck.Term[E]{{Coefficient: one, Factors: factors}}, Sum: h[o]}
	}
	return inst
}

// evaluationValues lays the claimed evaluations out in table order.
func evaluationValues[E field.Scalar](cfg Config, inputs, weights []E) []E {
	if cfg.RowVars() == 0 {
		return []E{inputs[0], weights[0], weights[1], weights[2]}
	}
	return []E{inputs[0], weights[0], inputs[1], weights[1], inputs[2], weights[2]}
}

// Prove proves Q = X·W_Qᵀ + 1·b_Qᵀ, K = X·W_Kᵀ + 1·b_Kᵀ, V = X·W_Vᵀ + 1·b_Vᵀ
// (all zero-padded) from the claims out = [on Q, on K, on V] and returns the
// claims on X, the weights and the biases.
func Prove[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, w Witness, out []poly.Claim[E]) (*Proof[E], Claims[E], error) {
	var claims Claims[E]
	if err := cfg.Validate(); err != nil {
		return nil, claims, err
	}
	if err := w.check(cfg); err != nil {
		return nil, claims, err
	}
	if err := checkClaims(cfg, out); err != nil {
		return nil, claims, err
	}
	tr.Label("qkv")
	rv, cols := cfg.RowVars(), cfg.ColVars()
	proof := &Proof[E]{}
	weightsIn := [3][]int64{w.WQ, w.WK, w.WV}
	outCols := [3]int{cfg.QCols(), cfg.KVCols(), cfg.KVCols()}
	if cfg.Bias {
		for o, b := range [3][]int64{w.BQ, w.BK, w.BV} {
			proof.Biases = append(proof.Biases, EvaluateMatrix[E, P](b, 1, outCols[o], out[o].Point[rv:]))
		}
		tr.Absorb(proof.Biases...)
	}
	x := PadMatrix[E, P](w.X, cfg.Rows, cfg.Hidden)
	dHat := poly.NextPowerOfTwo(cfg.Hidden)
	var tables [][]E
	if rv == 0 {
		tables = append(tables, x)
	}
	for o := range 3 {
		if rv > 0 {
			tables = append(tables, foldMatrixRows(x, poly.EqTable[E, P](out[o].Point[:rv])))
		}
		eq := poly.EqTable[E, P](out[o].Point[rv : rv+cols[o]])
		tables = append(tables, foldRows[E, P](weightsIn[o], outCols[o], cfg.Hidden, eq, dHat))
	}
	batch, opening, err := sumcheck.ProveBatch(tr, tables, instances[E, P](cfg, sums[E, P](cfg, out, proof.Biases)))
	if err != nil {
		return nil, claims, fmt.Errorf("qkv: sum-check: %w", err)
	}
	proof.SumCheck = batch
	r := opening.Point
	ev := opening.Evaluations
	if rv == 0 {
		proof.Inputs = []E{ev[0]}
		proof.Weights = []E{ev[1], ev[2], ev[3]}
	} else {
		proof.Inputs = []E{ev[0], ev[2], ev[4]}
		proof.Weights = []E{ev[1], ev[3], ev[5]}
	}
	tr.Absorb(proof.Weights...)
	claims.Input = poly.Claim[E]{Point: r, Value: proof.Inputs[0]}
	if rv == 0 {
		tr.Absorb(proof.Inputs...)
	} else {
		rowClaims := make([]poly.Claim[E], 3)
		for o := range 3 {
			rowClaims[o] = poly.Claim[E]{Point: out[o].Point[:rv], Value: proof.Inputs[o]}
		}
		merge, c, err := sumcheck.ProveSamePoly(tr, foldMatrixCols(x, poly.EqTable[E, P](r)), rowClaims)
		if err != nil {
			return nil, claims, fmt.Errorf("qkv: same-poly on X: %w", err)
		}
		proof.Merge = &merge
		claims.Input = poly.Claim[E]{Point: append(c.Point, r...), Value: c.Value}
	}
	weights, biases := outputClaims(cfg, out, r, proof)
	claims.set(weights, biases)
	return proof, claims, nil
}

// outputClaims builds the weight and bias claims from the proof's values.
func outputClaims[E field.Scalar](cfg Config, out []poly.Claim[E], r []E, proof *Proof[E]) (weights, biases [3]poly.Claim[E]) {
	rv := cfg.RowVars()
	for o := range 3 {
		col := out[o].Point[rv:]
		point := append(append(make([]E, 0, len(col)+len(r)), col...), r...)
		weights[o] = poly.Claim[E]{Point: point, Value: proof.Weights[o]}
		if len(proof.Biases) == 3 {
			biases[o] = poly.Claim[E]{Point: append([]E(nil), col...), Value: proof.Biases[o]}
		}
	}
	return weights, biases
}

// Verify checks a proof from the claims out = [on Q, on K, on V] and
// returns the claims on X, the weights and the biases; the caller checks the
// weight and bias claims against the fixed weights.
func Verify[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, proof *Proof[E], out []poly.Claim[E]) (Claims[E], error) {
	var claims Claims[E]
	if err := cfg.Validate(); err != nil {
		return claims, err
	}
	if err := checkClaims(cfg, out); err != nil {
		return claims, err
	}
	rv := cfg.RowVars()
	wantBiases, wantInputs := 0, 3
	if cfg.Bias {
		wantBiases = 3
	}
	if rv == 0 {
		wantInputs = 1
	}
	if proof == nil || len(proof.Biases) != wantBiases || len(proof.Inputs) != wantInputs || len(proof.Weights) != 3 || (proof.Merge == nil) != (rv == 0) {
		return claims, fmt.Errorf("%w: qkv: malformed proof", sumcheck.ErrRejected)
	}
	tr.Label("qkv")
	tr.Absorb(proof.Biases...)
	inst := instances[E, P](cfg, sums[E, P](cfg, out, proof.Biases))
	final, err := sumcheck.VerifyBatch(tr, inst, cfg.HiddenVars(), proof.SumCheck)
	if err != nil {
		return claims, fmt.Errorf("qkv: sum-check: %w", err)
	}
	tr.Absorb(proof.Weights...)
	if rv == 0 {
		tr.Absorb(proof.Inputs...)
	}
	if err := sumcheck.CheckEvaluations[E, P](&final, inst, evaluationValues(cfg, proof.Inputs, proof.Weights)); err != nil {
		return claims, fmt.Errorf("qkv: final check: %w", err)
	}
	r := final.Point
	claims.Input = poly.Claim[E]{Point: r, Value: proof.Inputs[0]}
	if rv > 0 {
		rowClaims := make([]poly.Claim[E], 3)
		for o := range 3 {
			rowClaims[o] = poly.Claim[E]{Point: out[o].Point[:rv], Value: proof.Inputs[o]}
		}
		c, err := sumcheck.VerifySamePoly(tr, rowClaims, *proof.Merge)
		if err != nil {
			return claims, fmt.Errorf("qkv: same-poly on X: %w", err)
		}
		claims.Input = poly.Claim[E]{Point: append(c.Point, r...), Value: c.Value}
	}
	weights, biases := outputClaims(cfg, out, r, proof)
	claims.set(weights, biases)
	return claims, nil
}

// Assignment returns the proof as a gadget witness.
func (p *Proof[E]) Assignment() gadget.Proof {
	a := gadget.Proof{
		Biases:   bigs(p.Biases),
		SumCheck: gsumcheck.Proof{Rounds: make([][]frontend.Variable, len(p.SumCheck.Rounds))},
		Inputs:   bigs(p.Inputs),
		Weights:  bigs(p.Weights),
	}
	for i, round := range p.SumCheck.Rounds {
		a.SumCheck.Rounds[i] = bigs(round)
	}
	if p.Merge != nil {
		rounds := make([][]frontend.Variable, len(p.Merge.SumCheck.Rounds))
		for i, round := range p.Merge.SumCheck.Rounds {
			rounds[i] = bigs(round)
		}
		a.Merge = []gsumcheck.SamePolyProof{{SumCheck: gsumcheck.Proof{Rounds: rounds}, Evaluation: bigs([]E{p.Merge.Evaluation})[0]}}
	}
	return a
}

// bigs converts field elements to witness values.
func bigs[E field.Scalar](xs []E) []frontend.Variable {
	out := make([]frontend.Variable, len(xs))
	for i := range xs {
		out[i] = toBig(&xs[i])
	}
	return out
}

// toBig returns x as an integer; every Scalar's pointer has BigInt.
func toBig[E field.Scalar](x *E) *big.Int {
	return any(x).(interface{ BigInt(*big.Int) *big.Int }).BigInt(new(big.Int))
}
