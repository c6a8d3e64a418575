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

// Config is the shape of one decoding-pass append: the cache has Context
// rows (the model's context length l) of Width columns, rows 0…Position−1
// hold the previous tokens and the new row goes to row Position.
type Config struct {
	Context, Width, Position int
	// Claims is the number of claims on the new cache (at least 1: the
	// attention's, plus the next pass's claim on its previous cache).
	Claims int
}

// RowVars returns ⌈log₂ Context⌉ and ColVars ⌈log₂ Width⌉.
func (c Config) RowVars() int { return poly.Log2Ceil(c.Context) }

// ColVars returns ⌈log₂ Width⌉.
func (c Config) ColVars() int { return poly.Log2Ceil(c.Width) }

// Validate checks the shape.
func (c Config) Validate() error {
	if c.Context < 1 || c.Context > maxSide || c.Width < 1 || c.Width > maxSide {
		return fmt.Errorf("kvcache: context %d and width %d must lie in [1, 2^24]", c.Context, c.Width)
	}
	if c.Position < 0 || c.Position >= c.Context {
		return fmt.Errorf("kvcache: position %d outside the context [0, %d)", c.Position, c.Context)
	}
	if c.Claims < 1 || c.Claims > maxSide {
		return fmt.Errorf("kvcache: %d claims on the cache", c.Claims)
	}
	return nil
}

// Witness holds the cache before the pass, Position × Width row-major (the
// model's [Len, KVDim] cache), and the new row, Width entries.
type Witness struct {
	Prev []int64
	Row  []int64
}

// Proof is the prover's message for one append.
type Proof[E field.Scalar] struct {
	// Merge accumulates the claims on the new cache (nil for one claim).
	Merge *sumcheck.SamePolyProof[E]
	// Prev = K̃_prev(p) and Row = k̃(p_col) at the accumulated point p.
	Prev, Row E
}

// Claims are the claims an append leaves.
type Claims[E field.Scalar] struct {
	// Prev is on the previous cache, Context × Width padded: it binds to
	// the output of the previous pass.
	Prev poly.Claim[E]
	// Row is on the new row, Width padded: it goes to the layer that made
	// it (QKV, through rescaling and RoPE).
	Row poly.Claim[E]
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

// Prove proves that the new cache (the claims out, each on the Context ×
// Width padded matrix) is the previous cache with the new row written at
// row Position.
func Prove[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, w Witness, out []poly.Claim[E]) (*Proof[E], Claims[E], error) {
	var claims Claims[E]
	if err := cfg.Validate(); err != nil {
		return nil, claims, err
	}
	if len(w.Prev) != cfg.Position*cfg.Width || len(w.Row) != cfg.Width {
		return nil, claims, fmt.Errorf("kvcache: witness of %d cached and %d new entries, want %d and %d", len(w.Prev), len(w.Row), cfg.Position*cfg.Width, cfg.Width)
	}
	if err := checkOut(cfg.Claims, cfg.RowVars()+cfg.ColVars(), out, "new cache"); err != nil {
		return nil, claims, err
	}
	tr.Label("kvcache")
	prev := padCache[E, P](w.Prev, cfg.Position, cfg.Context, cfg.Width)
	row := padCache[E, P](w.Row, 1, 1, cfg.Width)
	proof := &Proof[E]{}
	claim := out[0]
	if len(out) > 1 {
		next := append([]E(nil), prev...)
		pc := len(row)
		field.Add(next[cfg.Position*pc:(cfg.Position+1)*pc], next[cfg.Position*pc:(cfg.Position+1)*pc], row)
		merge, c, err := sumcheck.ProveSamePoly(tr, next, out)
		if err != nil {
			return nil, claims, fmt.Errorf("kvcache: same-poly: %w", err)
		}
		proof.Merge, claim = &merge, c
	}
	rv := cfg.RowVars()
	proof.Prev = poly.Evaluate[E, P](prev, claim.Point)
	proof.Row = poly.Evaluate[E, P](row, claim.Point[rv:])
	tr.Absorb(proof.Prev, proof.Row)
	return proof, leftClaims(rv, claim.Point, proof), nil
}

func leftClaims[E field.Scalar](rowVars int, point []E, proof *Proof[E]) Claims[E] {
	return Claims[E]{
		Prev: poly.Claim[E]{Point: point, Value: proof.Prev},
		Row:  poly.Claim[E]{Point: point[rowVars:], Value: proof.Row},
	}
}

// Verify checks an append proof against the claims on the new cache and
// returns the claims on the previous cache and on the new row: at the
// accumulated point p = (p_row ‖ p_col),
//
//	K̃_new(p) = K̃_prev(p) + β(p_row, bits(Position))·k̃(p_col).
func Verify[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, proof *Proof[E], out []poly.Claim[E]) (Claims[E], error) {
	var claims Claims[E]
	if err := cfg.Validate(); err != nil {
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
	tr.Absorb(proof.Prev, proof.Row)
	rv := cfg.RowVars()
	pad := poly.EqIndex[E, P](claim.Point[:rv], cfg.Position)
	var want E
	P(&want).Mul(&pad, &proof.Row)
	P(&want).Add(&want, &proof.Prev)
	if !P(&want).Equal(&claim.Value) {
		return claims, fmt.Errorf("%w: kvcache: previous cache and new row do not add up to the new cache", sumcheck.ErrRejected)
	}
	return leftClaims(rv, claim.Point, proof), nil
}

// ExtendRows turns a claim on the first 2^k rows of the cache (a matrix of
// k row coordinates, such as the keys the attention of a decoding pass
// reads, t + 1 rows padded) into a claim on the whole cache of contextVars
// row coordinates: M̃(0…0 ‖ x) is the MLE of the first rows of M, so the
// point gains contextVars − k leading zeros and the value is unchanged.
func ExtendRows[E field.Scalar](c poly.Claim[E], k, contextVars int) (poly.Claim[E], error) {
	if k < 0 || k > contextVars || k > len(c.Point) {
		return poly.Claim[E]{}, fmt.Errorf("kvcache: cannot extend a claim of %d row coordinates to %d", k, contextVars)
	}
	point := make([]E, contextVars-k, contextVars-k+len(c.Point))
	return poly.Claim[E]{Point: append(point, c.Point...), Value: c.Value}, nil
}
