package embedding

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// maxSide bounds every dimension so that products of two fit an int.
const maxSide = 1 << 24

// Config is the shape of one embedding lookup: Rows tokens of a Vocab ×
// Width table.
type Config struct {
	Rows, Vocab, Width int
}

// RowVars returns ⌈log₂ Rows⌉.
func (c Config) RowVars() int { return poly.Log2Ceil(c.Rows) }

// ColVars returns ⌈log₂ Width⌉.
func (c Config) ColVars() int { return poly.Log2Ceil(c.Width) }

// VocabVars returns ⌈log₂ Vocab⌉, the number of sum-check rounds.
func (c Config) VocabVars() int { return poly.Log2Ceil(c.Vocab) }

// Validate checks the shape.
func (c Config) Validate() error {
	if c.Rows < 1 || c.Vocab < 1 || c.Width < 1 || c.Rows > maxSide || c.Vocab > maxSide || c.Width > maxSide {
		return fmt.Errorf("embedding: rows %d, vocabulary %d, width %d: each must lie in [1, 2^24]", c.Rows, c.Vocab, c.Width)
	}
	return nil
}

func (c Config) checkTokens(tokens []int) error {
	if len(tokens) != c.Rows {
		return fmt.Errorf("embedding: %d tokens for %d rows", len(tokens), c.Rows)
	}
	for i, t := range tokens {
		if t < 0 || t >= c.Vocab {
			return fmt.Errorf("embedding: token %d = %d outside the vocabulary [0, %d)", i, t, c.Vocab)
		}
	}
	return nil
}

// Witness holds the token ids and the embedding table (Vocab × Width,
// row-major).
type Witness struct {
	Tokens []int
	Table  []int64
}

// Proof is the prover's message: the sum-check over the vocabulary and the
// table's value at its end point.
type Proof[E field.Scalar] struct {
	SumCheck sumcheck.Proof[E]
	Table    E
}

// Claims holds the claim the layer leaves on the padded table Ê
// (V̂ × ŵ) at (ρ ‖ r_col). The tokens are public, so there is no input
// claim.
type Claims[E field.Scalar] struct {
	Table poly.Claim[E]
}

// Compute returns the plain lookup X[i] = Table[tokens[i]], Rows × Width.
func Compute(cfg Config, w Witness) ([]int64, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.checkTokens(w.Tokens); err != nil {
		return nil, err
	}
	if len(w.Table) != cfg.Vocab*cfg.Width {
		return nil, fmt.Errorf("embedding: table of %d entries, want %d", len(w.Table), cfg.Vocab*cfg.Width)
	}
	x := make([]int64, 0, cfg.Rows*cfg.Width)
	for _, t := range w.Tokens {
		x = append(x, w.Table[t*cfg.Width:(t+1)*cfg.Width]...)
	}
	return x, nil
}

// EvaluateTable returns the MLE of the zero-padded rows × cols matrix at
// point: the native check of the table claim.
// Like poly.Evaluate it panics when the point has the wrong number of
// coordinates, a programming error.
func EvaluateTable[E field.Scalar, P field.Ptr[E]](values []int64, rows, cols int, point []E) E {
	eq := poly.EqTable[E, P](point[poly.Log2Ceil(rows):])
	column := poly.FoldColumns[E, P](values, rows, cols, eq)
	return poly.Evaluate[E, P](column, point[:poly.Log2Ceil(rows)])
}

func checkOut[E field.Scalar](cfg Config, out []poly.Claim[E]) error {
	if len(out) != 1 {
		return fmt.Errorf("embedding: %d output claims, want 1", len(out))
	}
	if want := cfg.RowVars() + cfg.ColVars(); len(out[0].Point) != want {
		return fmt.Errorf("embedding: output claim has %d coordinates, want %d", len(out[0].Point), want)
	}
	return nil
}

// Prove proves X = onehot(tokens)·E from one claim on X̂ (ŝ × ŵ) and
// returns the claim on the table.
func Prove[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, w Witness, out []poly.Claim[E]) (*Proof[E], Claims[E], error) {
	var claims Claims[E]
	if err := cfg.Validate(); err != nil {
		return nil, claims, err
	}
	if err := cfg.checkTokens(w.Tokens); err != nil {
		return nil, claims, err
	}
	if len(w.Table) != cfg.Vocab*cfg.Width {
		return nil, claims, fmt.Errorf("embedding: table of %d entries, want %d", len(w.Table), cfg.Vocab*cfg.Width)
	}
	if err := checkOut(cfg, out); err != nil {
		return nil, claims, err
	}
	tr.Label("embedding")
	rv := cfg.RowVars()
	r := out[0].Point
	// selector[v] = Σ_{i : tokens[i] = v} β(r_row, i): the one-hot matrix
	// with its row coordinates bound.
	eqRow := poly.EqTable[E, P](r[:rv])
	selector := make([]E, poly.NextPowerOfTwo(cfg.Vocab))
	for i, t := range w.Tokens {
		P(&selector[t]).Add(&selector[t], &eqRow[i])
	}
	column := poly.FoldColumns[E, P](w.Table, cfg.Vocab, cfg.Width, poly.EqTable[E, P](r[rv:]))
	terms := []sumcheck.Term[E]{{Coefficient: field.One[E, P](), Factors: []int{0, 1}}}
	sc, opening, err := sumcheck.Prove(tr, [][]E{selector, column}, terms, out[0].Value)
	if err != nil {
		return nil, claims, fmt.Errorf("embedding: sum-check: %w", err)
	}
	proof := &Proof[E]{SumCheck: sc, Table: opening.Evaluations[1]}
	tr.Absorb(proof.Table)
	claims.Table = poly.Claim[E]{Point: append(opening.Point, r[rv:]...), Value: proof.Table}
	return proof, claims, nil
}

// Selector returns the MLE of the one-hot matrix with its row coordinates
// bound to rRow, at rho: Σ_i β(rRow, i)·β(rho, bits(tokens[i])), in
// s·(⌈log₂ s⌉ + ⌈log₂ V⌉) multiplications.
func Selector[E field.Scalar, P field.Ptr[E]](rRow, rho []E, tokens []int) E {
	var sum E
	for i, t := range tokens {
		a := poly.EqIndex[E, P](rRow, i)
		b := poly.EqIndex[E, P](rho, t)
		P(&a).Mul(&a, &b)
		P(&sum).Add(&sum, &a)
	}
	return sum
}

// Verify checks a proof for the public tokens from one claim on X̂ and
// returns the claim on the table; the caller checks it against the fixed
// table.
func Verify[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, tokens []int, proof *Proof[E], out []poly.Claim[E]) (Claims[E], error) {
	var claims Claims[E]
	if err := cfg.Validate(); err != nil {
		return claims, err
	}
	if err := cfg.checkTokens(tokens); err != nil {
		return claims, err
	}
	if err := checkOut(cfg, out); err != nil {
		return claims, err
	}
	if proof == nil {
		return claims, fmt.Errorf("%w: embedding: no proof", sumcheck.ErrRejected)
	}
	tr.Label("embedding")
	rv := cfg.RowVars()
	r := out[0].Point
	rho, final, err := sumcheck.Verify(tr, out[0].Value, 2, cfg.VocabVars(), proof.SumCheck)
	if err != nil {
		return claims, fmt.Errorf("embedding: sum-check: %w", err)
	}
	tr.Absorb(proof.Table)
	want := Selector[E, P](r[:rv], rho, tokens)
	P(&want).Mul(&want, &proof.Table)
	if !P(&want).Equal(&final) {
		return claims, fmt.Errorf("%w: embedding: final value", sumcheck.ErrRejected)
	}
	claims.Table = poly.Claim[E]{Point: append(rho, r[rv:]...), Value: proof.Table}
	return claims, nil
}
