package kvcache

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// maxSide bounds the context length and the width so that their product
// fits an int.
const maxSide = 1 << 24

// Config is the shape of one append: the cache has Context rows (the
// model's context length l) of Width columns, rows 0…Position−1 hold the
// previous tokens, and a pass that computed Rows new rows (a decoding
// pass's one, or a turn's bucket) writes its first live ones, a count
// the verifier is given, at rows Position, Position + 1, ….
type Config struct {
	Context, Width, Position int
	// Rows is the number of rows the pass computed (0 means 1).
	Rows int
	// Claims is the number of claims on the new cache (at least 1; a
	// turn makes one, its attention's), merged by a same-poly sum-check
	// when there are several.
	Claims int
}

// RowVars returns ⌈log₂ Context⌉ and ColVars ⌈log₂ Width⌉.
func (c Config) RowVars() int { return poly.Log2Ceil(c.Context) }

// ColVars returns ⌈log₂ Width⌉.
func (c Config) ColVars() int { return poly.Log2Ceil(c.Width) }

// NewRows returns the number of rows the pass computed, at least 1.
func (c Config) NewRows() int { return max(c.Rows, 1) }

// NewVars returns ⌈log₂ NewRows⌉, the rounds of the shift sum-check.
func (c Config) NewVars() int { return poly.Log2Ceil(c.NewRows()) }

// Validate checks the shape.
func (c Config) Validate() error {
	if c.Context < 1 || c.Context > maxSide || c.Width < 1 || c.Width > maxSide {
		return fmt.Errorf("kvcache: context %d and width %d must lie in [1, 2^24]", c.Context, c.Width)
	}
	if c.Position < 0 || c.Position >= c.Context {
		return fmt.Errorf("kvcache: position %d outside the context [0, %d)", c.Position, c.Context)
	}
	if c.Rows < 0 || c.Rows > maxSide {
		return fmt.Errorf("kvcache: %d new rows", c.Rows)
	}
	if c.Claims < 1 || c.Claims > maxSide {
		return fmt.Errorf("kvcache: %d claims on the cache", c.Claims)
	}
	return nil
}

// checkLive checks the number of new rows written to the cache.
func (c Config) checkLive(live int) error {
	if live < 0 || live > c.NewRows() || c.Position+live > c.Context {
		return fmt.Errorf("kvcache: %d of %d new rows written from position %d of a context of %d", live, c.NewRows(), c.Position, c.Context)
	}
	return nil
}

// Witness holds the cache before the pass, Position × Width row-major (the
// model's [Len, KVDim] cache), the pass's new rows, NewRows × Width, and
// how many of them the cache keeps.
type Witness struct {
	Prev []int64
	New  []int64
	Live int
}

// Proof is the prover's message for one append.
type Proof[E field.Scalar] struct {
	// Merge accumulates the claims on the new cache (nil for one claim).
	Merge *sumcheck.SamePolyProof[E]
	// Prev = K̃_prev(p) at the accumulated point p = (p_row ‖ p_col).
	Prev E
	// Shift proves the written rows' part of K̃_new(p) (NewVars rounds of
	// degree 2), and New = X̃(ρ, p_col) at its point ρ.
	Shift sumcheck.Proof[E]
	New   E
}

// Claims are the claims an append leaves.
type Claims[E field.Scalar] struct {
	// Prev is on the previous cache, Context × Width padded: it binds to
	// the output of the previous pass.
	Prev poly.Claim[E]
	// New is on the pass's new rows, NewRows × Width padded: it goes to
	// the layer that made them (QKV, through rescaling and RoPE).
	New poly.Claim[E]
}

func checkOut[E field.Scalar](n, vars int, out []poly.Claim[E], what string) error {
	if len(out) != n {
		return fmt.Errorf("kvcache: %d claims on the %s, want %d", len(out), what, n)
	}
	for i, c := range out {
		if len(c.Point) != vars {
			return fmt.Errorf("kvcache: claim %d on the %s has %d coordinates, want %d", i, what, len(c.Point), vars)
		}
	}
	return nil
}

// padCache returns the rows×width matrix zero-padded to the context.
func padCache[E field.Scalar, P field.Ptr[E]](values []int64, rows, context, width int) []E {
	pc := poly.NextPowerOfTwo(width)
	out := make([]E, poly.NextPowerOfTwo(context)*pc)
	for i := range rows {
		for j, v := range values[i*width : (i+1)*width] {
			P(&out[i*pc+j]).SetInt64(v)
		}
	}
	return out
}

// Table returns the MLE table of a cache's rows (row-major, cfg.Width
// wide; at most cfg.Context of them), zero-padded to the context's and
// the width's powers of two: the matrix whose claims [Prove] and
// [ProveWrites] take, as its commitment commits to it.
func Table[E field.Scalar, P field.Ptr[E]](cfg Config, rows []int64) []E {
	return padCache[E, P](rows, len(rows)/cfg.Width, cfg.Context, cfg.Width)
}

// shiftWeights returns w(a) = β(p_row, bits(Position + a))·[a < live] for
// a < 2^NewVars: the written rows' weights in K̃_new(p_row ‖ ·).
func shiftWeights[E field.Scalar, P field.Ptr[E]](cfg Config, live int, pRow []E) []E {
	w := make([]E, 1<<cfg.NewVars())
	for a := range live {
		w[a] = poly.EqIndex[E, P](pRow, cfg.Position+a)
	}
	return w
}

// Prove proves that the new cache (the claims out, each on the Context ×
// Width padded matrix) is the previous cache with the first w.Live new
// rows written from row Position.
func Prove[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, w Witness, out []poly.Claim[E]) (*Proof[E], Claims[E], error) {
	var claims Claims[E]
	if err := cfg.Validate(); err != nil {
		return nil, claims, err
	}
	if err := cfg.checkLive(w.Live); err != nil {
		return nil, claims, err
	}
	if len(w.Prev) != cfg.Position*cfg.Width || len(w.New) != cfg.NewRows()*cfg.Width {
		return nil, claims, fmt.Errorf("kvcache: witness of %d cached and %d new entries, want %d and %d", len(w.Prev), len(w.New), cfg.Position*cfg.Width, cfg.NewRows()*cfg.Width)
	}
	if err := checkOut(cfg.Claims, cfg.RowVars()+cfg.ColVars(), out, "new cache"); err != nil {
		return nil, claims, err
	}
	tr.Label("kvcache")
	prev := padCache[E, P](w.Prev, cfg.Position, cfg.Context, cfg.Width)
	rows := padCache[E, P](w.New, cfg.NewRows(), cfg.NewRows(), cfg.Width)
	pc := poly.NextPowerOfTwo(cfg.Width)
	proof := &Proof[E]{}
	claim := out[0]
	if len(out) > 1 {
		next := append([]E(nil), prev...)
		for a := range w.Live {
			r := (cfg.Position + a) * pc
			field.Add(next[r:r+pc], next[r:r+pc], rows[a*pc:(a+1)*pc])
		}
		merge, c, err := sumcheck.ProveSamePoly(tr, next, out)
		if err != nil {
			return nil, claims, fmt.Errorf("kvcache: same-poly: %w", err)
		}
		proof.Merge, claim = &merge, c
	}
	proof.Prev = poly.Evaluate[E, P](prev, claim.Point)
	tr.Absorb(proof.Prev)
	var written E
	P(&written).Sub(&claim.Value, &proof.Prev)
	rho, err := proveShift(tr, cfg, rows, w.Live, claim.Point, written, &proof.Shift, &proof.New)
	if err != nil {
		return nil, claims, err
	}
	return proof, leftClaims(cfg.RowVars(), claim.Point, rho, proof), nil
}

// proveShift proves Σ_{a<live} β(p_row, bits(Position + a))·X̃(a, p_col)
// = value at point = (p_row ‖ p_col) by the shift sum-check over a,
// with rows the new rows padded (NewRows × ŵ), and absorbs X̃(ρ, p_col).
// It returns ρ.
func proveShift[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, rows []E, live int, point []E, value E, shift *sumcheck.Proof[E], yX *E) ([]E, error) {
	rv := cfg.RowVars()
	pc := poly.NextPowerOfTwo(cfg.Width)
	// x(a) = X̃(a, p_col): the new rows folded at p_col.
	x := make([]E, 1<<cfg.NewVars())
	eqCol := poly.EqTable[E, P](point[rv:])
	for a := range cfg.NewRows() {
		x[a] = field.InnerProduct(rows[a*pc:(a+1)*pc], eqCol)
	}
	sc, opening, err := sumcheck.Prove(tr, [][]E{shiftWeights[E, P](cfg, live, point[:rv]), x},
		[]sumcheck.Term[E]{{Coefficient: field.One[E, P](), Factors: []int{0, 1}}}, value)
	if err != nil {
		return nil, fmt.Errorf("kvcache: shift: %w", err)
	}
	*shift, *yX = sc, opening.Evaluations[1]
	tr.Absorb(*yX)
	return opening.Point, nil
}

// verifyShift replays the shift sum-check of value at point, absorbs
// y_X and checks the final value W(ρ)·y_X. It returns ρ.
func verifyShift[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, live int, point []E, value E, shift sumcheck.Proof[E], yX E) ([]E, error) {
	rho, final, err := sumcheck.Verify(tr, value, 2, cfg.NewVars(), shift)
	if err != nil {
		return nil, fmt.Errorf("kvcache: shift: %w", err)
	}
	tr.Absorb(yX)
	rv := cfg.RowVars()
	var weight, t E
	for a := range live {
		eqRow := poly.EqIndex[E, P](point[:rv], cfg.Position+a)
		eqNew := poly.EqIndex[E, P](rho, a)
		P(&t).Mul(&eqRow, &eqNew)
		P(&weight).Add(&weight, &t)
	}
	P(&t).Mul(&weight, &yX)
	if !P(&t).Equal(&final) {
		return nil, fmt.Errorf("%w: kvcache: the written rows do not give the claimed value", sumcheck.ErrRejected)
	}
	return rho, nil
}

func leftClaims[E field.Scalar](rowVars int, point, rho []E, proof *Proof[E]) Claims[E] {
	return Claims[E]{
		Prev: poly.Claim[E]{Point: point, Value: proof.Prev},
		New:  poly.Claim[E]{Point: append(append([]E(nil), rho...), point[rowVars:]...), Value: proof.New},
	}
}

// Verify checks an append proof of live written rows against the claims
// on the new cache and returns the claims on the previous cache and on the
// new rows: at the accumulated point p = (p_row ‖ p_col),
//
//	K̃_new(p) = K̃_prev(p) + Σ_{a < live} β(p_row, bits(Position + a))·X̃(a, p_col),
//
// the sum by a sum-check over a that ends at ρ, where the verifier checks
// its value against W(ρ)·X̃(ρ, p_col), W(ρ) = Σ_{a<live} β(ρ, a)·β(p_row,
// bits(Position + a)).
func Verify[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, live int, proof *Proof[E], out []poly.Claim[E]) (Claims[E], error) {
	var claims Claims[E]
	if err := cfg.Validate(); err != nil {
		return claims, err
	}
	if err := cfg.checkLive(live); err != nil {
		return claims, err
	}
	if err := checkOut(cfg.Claims, cfg.RowVars()+cfg.ColVars(), out, "new cache"); err != nil {
		return claims, err
	}
	if proof == nil || (proof.Merge == nil) != (cfg.Claims == 1) {
		return claims, fmt.Errorf("%w: kvcache: malformed proof", sumcheck.ErrRejected)
	}
	tr.Label("kvcache")
	claim := out[0]
	if cfg.Claims > 1 {
		c, err := sumcheck.VerifySamePoly(tr, out, *proof.Merge)
		if err != nil {
			return claims, fmt.Errorf("kvcache: same-poly: %w", err)
		}
		claim = c
	}
	tr.Absorb(proof.Prev)
	var written E
	P(&written).Sub(&claim.Value, &proof.Prev)
	rho, err := verifyShift(tr, cfg, live, claim.Point, written, proof.Shift, proof.New)
	if err != nil {
		return claims, err
	}
	return leftClaims(cfg.RowVars(), claim.Point, rho, proof), nil
}

// WritesProof proves a claim on the written rows alone, the Context ×
// Width matrix W = Σ_{a<n} e_{Position+a} ⊗ X_a (zero outside the rows
// Position…Position+n−1): a conversation's turn commits W, so that the
// next state's commitment to the cache is the previous one plus W's.
type WritesProof[E field.Scalar] struct {
	// Shift proves W̃(p) from the new rows, New = X̃(ρ, p_col) at its
	// end point ρ.
	Shift sumcheck.Proof[E]
	New   E
}

// Writes returns W for the first live of the new rows (NewRows × Width,
// row-major), padded to the context's and the width's powers of two.
func Writes[E field.Scalar, P field.Ptr[E]](cfg Config, rows []int64, live int) ([]E, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.checkLive(live); err != nil {
		return nil, err
	}
	if len(rows) != cfg.NewRows()*cfg.Width {
		return nil, fmt.Errorf("kvcache: %d new entries, want %d", len(rows), cfg.NewRows()*cfg.Width)
	}
	pc := poly.NextPowerOfTwo(cfg.Width)
	out := make([]E, poly.NextPowerOfTwo(cfg.Context)*pc)
	for a := range live {
		for j, v := range rows[a*cfg.Width : (a+1)*cfg.Width] {
			P(&out[(cfg.Position+a)*pc+j]).SetInt64(v)
		}
	}
	return out, nil
}

// ProveWrites proves the claim on W (the written rows of [Writes], at a
// point of RowVars + ColVars coordinates) from the new rows, under label
// "kvcache/writes", and returns the claim left on the new rows
// (NewRows × Width padded) at (ρ ‖ p_col).
func ProveWrites[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, rows []int64, live int, claim poly.Claim[E]) (*WritesProof[E], poly.Claim[E], error) {
	if err := cfg.Validate(); err != nil {
		return nil, poly.Claim[E]{}, err
	}
	if err := cfg.checkLive(live); err != nil {
		return nil, poly.Claim[E]{}, err
	}
	if len(rows) != cfg.NewRows()*cfg.Width {
		return nil, poly.Claim[E]{}, fmt.Errorf("kvcache: %d new entries, want %d", len(rows), cfg.NewRows()*cfg.Width)
	}
	if err := checkOut(1, cfg.RowVars()+cfg.ColVars(), []poly.Claim[E]{claim}, "written rows"); err != nil {
		return nil, poly.Claim[E]{}, err
	}
	tr.Label("kvcache/writes")
	proof := &WritesProof[E]{}
	padded := padCache[E, P](rows, cfg.NewRows(), cfg.NewRows(), cfg.Width)
	rho, err := proveShift(tr, cfg, padded, live, claim.Point, claim.Value, &proof.Shift, &proof.New)
	if err != nil {
		return nil, poly.Claim[E]{}, err
	}
	return proof, writtenClaim(cfg, claim.Point, rho, proof.New), nil
}

// VerifyWrites checks a [WritesProof] of live written rows against the
// claim on W,
//
//	W̃(p) = Σ_{a < live} β(p_row, bits(Position + a))·X̃(a, p_col),
//
// by the shift sum-check of [Verify], and returns the claim on the new
// rows at (ρ ‖ p_col).
func VerifyWrites[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, live int, proof *WritesProof[E], claim poly.Claim[E]) (poly.Claim[E], error) {
	if err := cfg.Validate(); err != nil {
		return poly.Claim[E]{}, err
	}
	if err := cfg.checkLive(live); err != nil {
		return poly.Claim[E]{}, err
	}
	if err := checkOut(1, cfg.RowVars()+cfg.ColVars(), []poly.Claim[E]{claim}, "written rows"); err != nil {
		return poly.Claim[E]{}, err
	}
	if proof == nil {
		return poly.Claim[E]{}, fmt.Errorf("%w: kvcache: no proof of the written rows", sumcheck.ErrRejected)
	}
	tr.Label("kvcache/writes")
	rho, err := verifyShift(tr, cfg, live, claim.Point, claim.Value, proof.Shift, proof.New)
	if err != nil {
		return poly.Claim[E]{}, err
	}
	return writtenClaim(cfg, claim.Point, rho, proof.New), nil
}

func writtenClaim[E field.Scalar](cfg Config, point, rho []E, v E) poly.Claim[E] {
	return poly.Claim[E]{Point: append(append([]E(nil), rho...), point[cfg.RowVars():]...), Value: v}
}
