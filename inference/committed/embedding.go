package committed

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
)

// embeddingPoint draws, in the first segment, the point at which the
// embedding block is checked against the model's embedding of the public
// tokens (nil in the other segments).
func embeddingPoint(t *pcs.Transcript, tr *model.Trace, l *Layout, first bool) []fr.Element {
	if !first {
		return nil
	}
	t.Label("committed/embedding")
	return t.Challenges(l.Blocks[l.Index[&tr.Embedding]].NbVars)
}

// embeddingValue is the MLE of the model's embedding of tokens (at
// positions start, start + 1, …, or in a stacked pass row r's position
// in its request, r − begins[r]: E[token] plus P[position] for GPT-2,
// exactly as the forward pass computes it) over its padded shape, at
// point: O(rows·d), from the public tokens and the model alone.
func embeddingValue(m *model.Model, tokens []int, start int, begins []int, point []fr.Element) (fr.Element, error) {
	emb, err := m.Embed(tokens, start)
	if begins != nil {
		emb, err = m.EmbedStacked(tokens, begins)
	}
	if err != nil {
		return fr.Element{}, err
	}
	v, err := poly.EvaluateTensor[fr.Element](emb.Data, emb.Shape, point)
	if err != nil {
		return fr.Element{}, fmt.Errorf("committed: embedding: %w", err)
	}
	return v, nil
}

// embeddingClaim is the claim that the embedding block of s is the
// model's embedding of the tokens at point (none when point is nil).
func embeddingClaim(tr *model.Trace, l *Layout, point []fr.Element, value fr.Element) []pcs.Claim {
	if point == nil {
		return nil
	}
	return []pcs.Claim{{Commitment: TensorsCommitment, Point: l.Point(l.Index[&tr.Embedding], point), Value: value}}
}
