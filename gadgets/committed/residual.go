package committed

import (
	"fmt"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/lookup/logderivlookup"

	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	npoly "github.com/veriformer/veriformer/poly"
)

// verifyResiduals is native Shape.VerifyResiduals in circuit: the
// residual point, the values absorbed, every add asserted on them.
func verifyResiduals(api frontend.API, t *transcript.Transcript, s *native.Shape, evals []frontend.Variable) ([]frontend.Variable, error) {
	res := s.Residuals
	if len(evals) != len(res.Blocks) {
		return nil, fmt.Errorf("committed: %d residual values for %d residual tensors", len(evals), len(res.Blocks))
	}
	if len(res.Adds) == 0 {
		return nil, nil
	}
	t.Label("committed/residual")
	point := t.Challenges(res.Vars)
	t.Absorb(evals...)
	for _, a := range res.Adds {
		api.AssertIsEqual(api.Add(evals[res.Pos[a.A]], evals[res.Pos[a.B]]), evals[res.Pos[a.Sum]])
	}
	return point, nil
}

// residualClaims are the residual values' claims (native
// residualClaims): on the stacked MLE, or on the incoming stream's
// commitment.
func residualClaims(s *native.Shape, point, evals []frontend.Variable) []gpcs.Claim {
	if point == nil {
		return nil
	}
	out := make([]gpcs.Claim, len(s.Residuals.Blocks))
	for k, b := range s.Residuals.Blocks {
		if b == native.IncomingBlock {
			out[k] = gpcs.Claim{Commitment: s.IncomingCommitment(), Point: point, Value: evals[k]}
			continue
		}
		out[k] = blockClaim(s.Layout, b, point, evals[k])
	}
	return out
}

// embeddingPoint draws the embedding's point in the first segment
// (native Shape.EmbeddingPoint; nil in the others).
func embeddingPoint(t *transcript.Transcript, s *native.Shape) []frontend.Variable {
	if s.Segment.From != 0 {
		return nil
	}
	t.Label("committed/embedding")
	return t.Challenges(s.Layout.Blocks[s.Layout.Index[&s.Layout.View.Embedding]].NbVars)
}

// embeddingValue is native embeddingValue in circuit, with the pass's
// tokens as variables: the MLE at point = (r_row ‖ r_col) of the model's
// embedding of the tokens over its padded shape [rows, d],
//
//	Σᵢ eq(r_row, i)·(F(tokᵢ) + Σ_c eq(r_col, c)·P[i][c]),  F(v) = Σ_c eq(r_col, c)·E[v][c],
//
// P the position embedding (GPT-2; none for Llama). F(v) is a linear
// combination of the column table with the model's constants for every
// row v of the vocabulary, looked up at each token (gnark's
// log-derivative lookup: a token outside the vocabulary has no entry):
// about V + 2^⌈log₂ d⌉ + rows·(3 + ⌈log₂ rows⌉) constraints, and V·d
// constant coefficients. In a turn (turn not nil) the position rows are
// those from the variable Start: the folded rows of P's first Capacity
// positions, looked up at Start + i (Start + rows ≤ Capacity is the cache
// step's assertion), Capacity + rows constraints more.
func embeddingValue(api frontend.API, m *model.Model, s *native.Shape, turn *Turn, starts []frontend.Variable, tokens []frontend.Variable, point []frontend.Variable) (frontend.Variable, error) {
	c := &m.Config
	d, rows := c.Hidden, len(tokens)
	rv, cv := npoly.Log2Ceil(rows), npoly.Log2Ceil(d)
	if len(point) != rv+cv {
		return nil, fmt.Errorf("committed: embedding of %d×%d at a point of %d coordinates", rows, d, len(point))
	}
	q := m.Quant
	if len(q.TokenEmbedding) != c.Vocab*d || (c.Family == model.GPT2 && len(q.PositionEmbedding) < min(rows, c.MaxPositions)*d) {
		return nil, fmt.Errorf("committed: the model's embeddings do not have its shape")
	}
	eqRow, eqCol := gpoly.EqTable(api, point[:rv]), gpoly.EqTable(api, point[rv:])
	fold := func(row []int64) frontend.Variable {
		var sum frontend.Variable = 0
		for k, w := range row {
			if w != 0 {
				sum = api.Add(sum, api.Mul(eqCol[k], w))
			}
		}
		return sum
	}
	table := logderivlookup.New(api)
	for v := range c.Vocab {
		table.Insert(fold(q.TokenEmbedding[v*d : (v+1)*d]))
	}
	folded := table.Lookup(tokens...)
	var positions []frontend.Variable
	if c.Family == model.GPT2 && starts != nil {
		// A batch's pass: row i at its position in its request, below
		// rows and the context (a position past the table has no row).
		pt := logderivlookup.New(api)
		for p := range min(rows, c.MaxPositions) {
			pt.Insert(fold(q.PositionEmbedding[p*d : (p+1)*d]))
		}
		positions = pt.Lookup(stackedPositions(api, starts)...)
	} else if c.Family == model.GPT2 && turn != nil {
		capacity := s.Turn().Capacity
		if len(q.PositionEmbedding) < capacity*d {
			return nil, fmt.Errorf("committed: a cache of %d rows beyond the %d positions", capacity, len(q.PositionEmbedding)/d)
		}
		pt := logderivlookup.New(api)
		for p := range capacity {
			pt.Insert(fold(q.PositionEmbedding[p*d : (p+1)*d]))
		}
		at := make([]frontend.Variable, rows)
		for i := range at {
			at[i] = api.Add(turn.Start, i)
		}
		positions = pt.Lookup(at...)
	}
	var sum frontend.Variable = 0
	for i := range rows {
		x := folded[i]
		switch {
		case positions != nil:
			x = api.Add(x, positions[i])
		case c.Family == model.GPT2:
			x = api.Add(x, fold(q.PositionEmbedding[i*d:(i+1)*d]))
		}
		sum = api.Add(sum, api.Mul(eqRow[i], x))
	}
	return sum, nil
}

// embeddingClaim is the claim that the embedding block is the model's
// embedding of the tokens at point (none when point is nil).
func embeddingClaim(s *native.Shape, point []frontend.Variable, value frontend.Variable) []gpcs.Claim {
	if point == nil {
		return nil
	}
	return []gpcs.Claim{blockClaim(s.Layout, s.Layout.Index[&s.Layout.View.Embedding], point, value)}
}

// boundaryPoint draws the boundary's point and absorbs its value (native
// Shape.BoundaryPoint); nil in the last segment.
func boundaryPoint(t *transcript.Transcript, s *native.Shape, eval []frontend.Variable) ([]frontend.Variable, error) {
	l := s.Layout
	if (l.Boundary >= 0) != (len(eval) == 1) || len(eval) > 1 {
		return nil, fmt.Errorf("committed: %d boundary values, a boundary block %d", len(eval), l.Boundary)
	}
	if l.Boundary < 0 {
		return nil, nil
	}
	t.Label("committed/boundary")
	p := t.Challenges(max(l.Blocks[l.Boundary].NbVars, 1))
	t.Absorb(eval[0])
	return p, nil
}
