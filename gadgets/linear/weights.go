package linear

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/gadgets/poly"
	npoly "github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/linear"
)

// EvaluateWeight returns the MLE of the zero-padded out × in matrix w
// (row-major, circuit constants) at point = (r_row ‖ r_col), ⌈log₂ out⌉ +
// ⌈log₂ in⌉ coordinates:
//
//	W̃(r_row, r_col) = Σ_{j<out} β(r_row, j) · Σ_{i<in} W[j, i]·β(r_col, i).
//
// The eq tables cost 2^a − 2 and 2^b − 2 multiplications; the inner sums
// have constant coefficients (free in R1CS); then one multiplication per
// row. When out > in the roles swap (one multiplication per column), so
// the total is (2^a − 2) + (2^b − 2) + min(out, in). An inner sum of at
// least gnark's compress threshold of terms (300 by default) is turned into
// a variable by the compiler: one more constraint for that row. Matrices
// evaluated at the same column point (the weights of one layer, all at
// (r_col_k ‖ r*)) share the column table through [Columns].
func EvaluateWeight(api frontend.API, w []int8, out, in int, point []frontend.Variable) (frontend.Variable, error) {
	b := npoly.Log2Ceil(in)
	if len(point) < b {
		return nil, fmt.Errorf("linear: %d×%d matrix evaluated at a point of %d coordinates", out, in, len(point))
	}
	cols, err := NewColumns(api, in, point[len(point)-b:])
	if err != nil {
		return nil, err
	}
	return cols.EvaluateWeight(api, w, out, point[:len(point)-b])
}

// Columns is the eq table β(r_col, ·) of a column point for matrices of in
// columns: 2^⌈log₂ in⌉ − 2 multiplications, paid once for every matrix
// evaluated at that column point.
type Columns struct {
	in int
	eq []frontend.Variable
}

// NewColumns builds the column table of point, ⌈log₂ in⌉ coordinates.
func NewColumns(api frontend.API, in int, point []frontend.Variable) (*Columns, error) {
	if in < 1 || in > linear.MaxSide || len(point) != npoly.Log2Ceil(in) {
		return nil, fmt.Errorf("linear: %d columns with a column point of %d coordinates", in, len(point))
	}
	return &Columns{in: in, eq: poly.EqTable(api, point)}, nil
}

// EvaluateWeight returns W̃(rowPoint, r_col) for the out × in matrix w
// (row-major, constants) and the column point of c: the row eq table
// (2^a − 2 multiplications) and min(out, in) products, as the package
// function [EvaluateWeight].
func (c *Columns) EvaluateWeight(api frontend.API, w []int8, out int, rowPoint []frontend.Variable) (frontend.Variable, error) {
	in := c.in
	if out < 1 || out > linear.MaxSide || len(w) != out*in {
		return nil, fmt.Errorf("linear: %d weights for a %d×%d matrix", len(w), out, in)
	}
	if len(rowPoint) != npoly.Log2Ceil(out) {
		return nil, fmt.Errorf("linear: %d×%d matrix with a row point of %d coordinates, want %d", out, in, len(rowPoint), npoly.Log2Ceil(out))
	}
	eqRow := poly.EqTable(api, rowPoint)
	// outer indexes the multiplied side (rows unless there are more rows
	// than columns), inner the side summed with constant coefficients.
	outerN, innerN := out, in
	outerEq, innerEq := eqRow, c.eq
	at := func(o, i int) int8 { return w[o*in+i] }
	if out > in {
		outerN, innerN = in, out
		outerEq, innerEq = c.eq, eqRow
		at = func(o, i int) int8 { return w[i*in+o] }
	}
	products := make([]frontend.Variable, 0, outerN)
	terms := make([]frontend.Variable, 0, innerN)
	for o := range outerN {
		terms = terms[:0]
		for i := range innerN {
			if v := at(o, i); v != 0 {
				terms = append(terms, api.Mul(int(v), innerEq[i]))
			}
		}
		if len(terms) == 0 {
			continue
		}
		products = append(products, api.Mul(outerEq[o], poly.Sum(api, terms)))
	}
	return poly.Sum(api, products), nil
}

// EvaluateBias returns the MLE of the zero-padded vector b (circuit
// constants) at point, ⌈log₂ len(b)⌉ coordinates: the eq table (2ⁿ − 2
// multiplications) and a linear combination with constant coefficients.
func EvaluateBias(api frontend.API, b []int64, point []frontend.Variable) (frontend.Variable, error) {
	if len(b) < 1 || len(b) > linear.MaxSide || len(point) != npoly.Log2Ceil(len(b)) {
		return nil, fmt.Errorf("linear: bias of %d entries evaluated at a point of %d coordinates", len(b), len(point))
	}
	eq := poly.EqTable(api, point)
	terms := make([]frontend.Variable, 0, len(b))
	for j, v := range b {
		if v != 0 {
			terms = append(terms, api.Mul(v, eq[j]))
		}
	}
	return poly.Sum(api, terms), nil
}
