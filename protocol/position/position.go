package position

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// maxSide bounds every dimension so that products of two fit an int.
const maxSide = 1 << 24

// Config is the shape of one positional-encoding layer: Rows tokens at
// positions Start…Start+Rows−1 of a Context × Width position table. A
// prompt pass has Start = 0; a pass of several rows must start at 0, a
// decoding pass (Rows = 1) may start anywhere.
type Config struct {
	Rows, Width, Context, Start int
}

// RowVars returns ⌈log₂ Rows⌉, ColVars ⌈log₂ Width⌉, ContextVars
// ⌈log₂ Context⌉.
func (c Config) RowVars() int { return poly.Log2Ceil(c.Rows) }

// ColVars returns ⌈log₂ Width⌉.
func (c Config) ColVars() int { return poly.Log2Ceil(c.Width) }

// ContextVars returns ⌈log₂ Context⌉.
func (c Config) ContextVars() int { return poly.Log2Ceil(c.Context) }

// Masked reports whether the prompt's rows do not fill their padding, so
// that a sum-check restricts the table to the first Rows rows.
func (c Config) Masked() bool { return c.Rows > 1 && c.Rows != poly.NextPowerOfTwo(c.Rows) }

// Halvings returns the number of halving steps from the prompt's rows to
// the whole table: ContextVars − RowVars for a pass of several rows, 0
// for a decoding pass (its row is a point of the table).
func (c Config) Halvings() int {
	if c.Rows == 1 {
		return 0
	}
	return c.ContextVars() - c.RowVars()
}

// Validate checks the shape.
func (c Config) Validate() error {
	if c.Rows < 1 || c.Width < 1 || c.Context < 1 || c.Width > maxSide || c.Context > maxSide {
		return fmt.Errorf("position: rows %d, width %d, context %d: each must lie in [1, 2^24]", c.Rows, c.Width, c.Context)
	}
	if c.Start < 0 || c.Start+c.Rows > c.Context {
		return fmt.Errorf("position: positions [%d, %d) outside the context [0, %d)", c.Start, c.Start+c.Rows, c.Context)
	}
	if c.Rows > 1 && c.Start != 0 {
		return fmt.Errorf("position: a pass of %d rows must start at position 0, not %d", c.Rows, c.Start)
	}
	return nil
}

// Witness holds the token embeddings X (Rows × Width) and the position
// table (Context × Width), row-major.
type Witness struct {
	X, Table []int64
}

// Masked is the sum-check that restricts the first ŝ rows of the table to
// the first s: Σ_i β(r_row, i)·Sel_s(i)·P̂(i, r_col), and P̂(ρ, r_col) at
// its end point ρ.
type Masked[E field.Scalar] struct {
	SumCheck sumcheck.Proof[E]
	Prefix   E
}

// Proof is the prover's message for one positional-encoding layer.
type Proof[E field.Scalar] struct {
	// Input is X̂(r).
	Input E
	// Masked is present for a prompt whose Rows is not a power of two.
	Masked *Masked[E]
	// Siblings[j] is the MLE of rows [b, 2b) of P̂, b = ŝ·2ʲ, at the
	// current point: the log₂(ĉ/ŝ) intermediate claims of the halving.
	Siblings []E
}

// Claims are the claims the layer leaves.
type Claims[E field.Scalar] struct {
	// Input is on X̂ (ŝ × ŵ) at the output claim's point.
	Input poly.Claim[E]
	// Table is on the padded position table P̂ (ĉ × ŵ).
	Table poly.Claim[E]
}

// padMatrix returns the rows×cols matrix zero-padded to padRows ×
// 2^⌈log₂ cols⌉ field elements.
func padMatrix[E field.Scalar, P field.Ptr[E]](values []int64, rows, cols, padRows int) []E {
	pc := poly.NextPowerOfTwo(cols)
	out := make([]E, padRows*pc)
	for i := range rows {
		for j, v := range values[i*cols : (i+1)*cols] {
			P(&out[i*pc+j]).SetInt64(v)
		}
	}
	return out
}

// EvaluateTable returns the MLE of the zero-padded rows × cols matrix at
// point (⌈log₂ rows⌉ + ⌈log₂ cols⌉ coordinates): the native check of the
// table claim (and of the input claim).
// Like poly.Evaluate it panics when the point has the wrong number of
// coordinates, a programming error.
func EvaluateTable[E field.Scalar, P field.Ptr[E]](values []int64, rows, cols int, point []E) E {
	return poly.Evaluate[E, P](padMatrix[E, P](values, rows, cols, poly.NextPowerOfTwo(rows)), point)
}

func checkOut[E field.Scalar](cfg Config, out []poly.Claim[E]) error {
	if len(out) != 1 {
		return fmt.Errorf("position: %d output claims, want 1", len(out))
	}
	if want := cfg.RowVars() + cfg.ColVars(); len(out[0].Point) != want {
		return fmt.Errorf("position: output claim has %d coordinates, want %d", len(out[0].Point), want)
	}
	return nil
}

// Prove proves O = X + P[Start : Start+Rows] (zero-padded) from one claim
// on O and returns the claims on X and on the position table.
func Prove[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, w Witness, out []poly.Claim[E]) (*Proof[E], Claims[E], error) {
	var claims Claims[E]
	if err := cfg.Validate(); err != nil {
		return nil, claims, err
	}
	if len(w.X) != cfg.Rows*cfg.Width || len(w.Table) != cfg.Context*cfg.Width {
		return nil, claims, fmt.Errorf("position: X of %d and table of %d entries, want %d and %d", len(w.X), len(w.Table), cfg.Rows*cfg.Width, cfg.Context*cfg.Width)
	}
	if err := checkOut(cfg, out); err != nil {
		return nil, claims, err
	}
	tr.Label("position")
	r := out[0].Point
	rv := cfg.RowVars()
	proof := &Proof[E]{Input: EvaluateTable[E, P](w.X, cfg.Rows, cfg.Width, r)}
	tr.Absorb(proof.Input)
	claims.Input = poly.Claim[E]{Point: r, Value: proof.Input}
	var value E
	P(&value).Sub(&out[0].Value, &proof.Input)
	if cfg.Rows == 1 {
		claims.Table = poly.Claim[E]{Point: rowPoint[E, P](cfg, r), Value: value}
		return proof, claims, nil
	}
	// column[i] = P̂(i, r_col) for every padded row i.
	cHat := poly.NextPowerOfTwo(cfg.Context)
	column := poly.FoldColumns[E, P](w.Table, cfg.Context, cfg.Width, poly.EqTable[E, P](r[rv:]))
	sHat := 1 << rv
	point := append([]E(nil), r[:rv]...)
	if cfg.Masked() {
		selector := make([]E, sHat)
		for i := range cfg.Rows {
			selector[i] = field.One[E, P]()
		}
		terms := []sumcheck.Term[E]{{Coefficient: field.One[E, P](), Factors: []int{0, 1, 2}}}
		sc, opening, err := sumcheck.Prove(tr, [][]E{poly.EqTable[E, P](point), selector, column[:sHat]}, terms, value)
		if err != nil {
			return nil, claims, fmt.Errorf("position: masked sum-check: %w", err)
		}
		proof.Masked = &Masked[E]{SumCheck: sc, Prefix: opening.Evaluations[2]}
		tr.Absorb(proof.Masked.Prefix)
		point, value = opening.Point, proof.Masked.Prefix
	}
	for b := sHat; b < cHat; b *= 2 {
		sibling := poly.Evaluate[E, P](column[b:2*b], point)
		proof.Siblings = append(proof.Siblings, sibling)
		tr.Absorb(sibling)
		point, value = halve[E, P](tr, point, value, sibling)
	}
	claims.Table = poly.Claim[E]{Point: append(point, r[rv:]...), Value: value}
	return proof, claims, nil
}

// halve draws τ and returns the claim on the first 2b rows from the claims
// on the first b rows (value) and on the next b rows (sibling), both at
// point: (τ ‖ point), (1 − τ)·value + τ·sibling.
func halve[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], point []E, value, sibling E) ([]E, E) {
	tau := tr.Challenge()
	var diff E
	P(&diff).Sub(&sibling, &value)
	P(&diff).Mul(&diff, &tau)
	P(&value).Add(&value, &diff)
	return append([]E{tau}, point...), value
}

// rowPoint returns (bits(Start) ‖ r) with the bits as 0/1 field elements:
// the point of the table row of a decoding pass.
func rowPoint[E field.Scalar, P field.Ptr[E]](cfg Config, r []E) []E {
	n := cfg.ContextVars()
	point := make([]E, n, n+len(r))
	for k := range n {
		if cfg.Start>>(n-1-k)&1 == 1 {
			point[k] = field.One[E, P]()
		}
	}
	return append(point, r...)
}

// Verify checks a proof from one claim on O and returns the claims on X
// and on the position table; the caller checks the table claim against
// the fixed table.
func Verify[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, proof *Proof[E], out []poly.Claim[E]) (Claims[E], error) {
	var claims Claims[E]
	if err := cfg.Validate(); err != nil {
		return claims, err
	}
	if err := checkOut(cfg, out); err != nil {
		return claims, err
	}
	rv := cfg.RowVars()
	if proof == nil || (proof.Masked != nil) != cfg.Masked() || len(proof.Siblings) != cfg.Halvings() {
		return claims, fmt.Errorf("%w: position: malformed proof", sumcheck.ErrRejected)
	}
	tr.Label("position")
	r := out[0].Point
	tr.Absorb(proof.Input)
	claims.Input = poly.Claim[E]{Point: r, Value: proof.Input}
	var value E
	P(&value).Sub(&out[0].Value, &proof.Input)
	if cfg.Rows == 1 {
		claims.Table = poly.Claim[E]{Point: rowPoint[E, P](cfg, r), Value: value}
		return claims, nil
	}
	point := append([]E(nil), r[:rv]...)
	if cfg.Masked() {
		rho, final, err := sumcheck.Verify(tr, value, 3, rv, proof.Masked.SumCheck)
		if err != nil {
			return claims, fmt.Errorf("position: masked sum-check: %w", err)
		}
		tr.Absorb(proof.Masked.Prefix)
		want := poly.Eq[E, P](point, rho)
		sel := poly.Prefix[E, P](rho, cfg.Rows)
		P(&want).Mul(&want, &sel)
		P(&want).Mul(&want, &proof.Masked.Prefix)
		if !P(&want).Equal(&final) {
			return claims, fmt.Errorf("%w: position: masked sum-check final value", sumcheck.ErrRejected)
		}
		point, value = rho, proof.Masked.Prefix
	}
	for _, sibling := range proof.Siblings {
		tr.Absorb(sibling)
		point, value = halve[E, P](tr, point, value, sibling)
	}
	claims.Table = poly.Claim[E]{Point: append(point, r[rv:]...), Value: value}
	return claims, nil
}
