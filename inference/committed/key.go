package committed

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
)

// VerifyingKey is what a verifier of a model's committed segment proofs
// holds beside the statement: the PCS's verifying key, and per function
// table of the model ([FuncTable] by name) the commitment to its output
// column (padded as in its lookup table), fixed by the model. The batch
// opening opens each table a segment's lookups use where the lookup's
// table tree ends, so the verifier never evaluates a table. A circuit
// takes them as constants.
//
// PartVars is the parts' variables of the proofs it verifies ([PartVars]
// unless [WithPartVars] says otherwise), LimbBits their limbs' width (0:
// each layout's choice, unless [WithLimbBits] says otherwise), and
// Tables[name] holds the commitments to the parts of that table's column
// (pcs.CommitParts).
type VerifyingKey struct {
	PCS      *pcs.VerifyingKey
	PartVars int
	LimbBits int
	Tables   map[string][]pcs.Commitment
}

// NewVerifyingKey returns the verifying key of model m's committed
// proofs under srs, made with the options opts: the commitments to the
// parts of every function table of the model.
func NewVerifyingKey(srs *pcs.SRS, m *model.Model, opts ...Option) (*VerifyingKey, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	view, err := inference.ShapePass(m, 1)
	if err != nil {
		return nil, err
	}
	vk := &VerifyingKey{PCS: srs.VerifyingKey(), PartVars: cfg.partVars, LimbBits: cfg.limbBits, Tables: map[string][]pcs.Commitment{}}
	for _, f := range modelTables(view) {
		t, err := f.table()
		if err != nil {
			return nil, err
		}
		if vk.Tables[f.Name], err = pcs.CommitParts(srs, outputTable(&t), cfg.partVars); err != nil {
			return nil, fmt.Errorf("committed: table %s: %w", f.Name, err)
		}
	}
	return vk, nil
}

// outputTable is a function table's output column as an MLE table.
func outputTable(t *table.Table) []fr.Element {
	col := t.Columns[1].Values
	out := hugepage.Make[fr.Element](len(col))
	for y, v := range col {
		out[y].SetInt64(v)
	}
	return out
}

// tableClaims returns the claims on the function tables' output columns
// at the table point, the commitments from index first on in the
// lookup's dense columns' order (one per function table of the set).
func tableClaims(first int, lc *lookup.CommittedClaims[fr.Element]) []pcs.Claim {
	out := make([]pcs.Claim, len(lc.Tables))
	for k, c := range lc.Tables {
		out[k] = pcs.Claim{Commitment: first + k, Point: c.Point, Value: c.Value}
	}
	return out
}

// tableCommitments returns the key's commitments to the set's dense
// columns (function tables' outputs), in the lookup's order.
func tableCommitments(vk *VerifyingKey, set *table.Set) ([]pcs.Commitment, error) {
	var out []pcs.Commitment
	for _, d := range lookup.DenseColumns(set) {
		name := set.Tables[d.Table].Name
		c, ok := vk.Tables[name]
		if !ok || d.Column != 2 || len(c) != pcs.Parts(tableVars(&set.Tables[d.Table]), vk.PartVars) {
			return nil, fmt.Errorf("the verifying key has no commitment to table %s in parts of %d variables", name, vk.PartVars)
		}
		out = append(out, c...)
	}
	return out, nil
}

// tableVars is the number of variables of a function table's output
// column as an MLE.
func tableVars(t *table.Table) int {
	return poly.Log2Ceil(len(t.Columns[1].Values))
}

// boundaryVars is the number of variables of the boundary's own MLE.
func boundaryVars(l *Layout) int {
	return max(l.Blocks[l.Boundary].NbVars, 1)
}
