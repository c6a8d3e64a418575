package committed

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	native "github.com/veriformer/veriformer/inference/committed"
)

// A batch's pass (native "Batches") stacks its requests in the rows of
// one bucket. The circuit holds the layout as variables, starts[a] = 1
// when row a is its request's first row and 0 otherwise (starts[0] = 1),
// so that one circuit serves every layout of its bucket; the rest
// follows from it row by row:
//
//	pos[0] = 0,  pos[a] = (1 − starts[a])·(pos[a−1] + 1)        (the row's position in its request)
//	c[0] = 0,    c[a] = c[a−1] + starts[a]·(P[a−1] − c[a−1])    (P[begin(a) − 1], P prefix sums)
//
// one product per row each.

// checkStarts asserts that starts is a layout of rows rows: each a bit,
// the first 1.
func checkStarts(api frontend.API, starts []frontend.Variable, rows int) error {
	if len(starts) != rows {
		return fmt.Errorf("committed: a batch's layout of %d rows for a pass of %d", len(starts), rows)
	}
	api.AssertIsEqual(starts[0], 1)
	for _, b := range starts[1:] {
		api.AssertIsBoolean(b)
	}
	return nil
}

// stackedPositions returns each row's position in its request.
func stackedPositions(api frontend.API, starts []frontend.Variable) []frontend.Variable {
	pos := make([]frontend.Variable, len(starts))
	pos[0] = 0
	for a := 1; a < len(starts); a++ {
		pos[a] = api.Mul(api.Sub(1, starts[a]), api.Add(pos[a-1], 1))
	}
	return pos
}

// blockMaskSum is Σ_{a,b} x[a]·y[b] over the pairs of rows of one request
// with b ≤ a (native maskSum in a batch's pass, and BlockCausal with x
// and y eq tables): Σ_a x[a]·(P[a] − P[begin(a) − 1]), P the prefix sums
// of y, P[begin(a) − 1] carried row by row. Rows past the layout's
// contribute nothing.
func blockMaskSum(api frontend.API, starts, x, y []frontend.Variable) frontend.Variable {
	rows := min(len(starts), len(x), len(y))
	prefix := make([]frontend.Variable, rows)
	var run frontend.Variable = 0
	for b := range rows {
		run = api.Add(run, y[b])
		prefix[b] = run
	}
	var sum, carry frontend.Variable = 0, 0
	for a := range rows {
		if a > 0 {
			carry = api.Add(carry, api.Mul(starts[a], api.Sub(prefix[a-1], carry)))
		}
		sum = api.Add(sum, api.Mul(x[a], api.Sub(prefix[a], carry)))
	}
	return sum
}

// stacked reports whether the shape is a batch's pass (its view's layout
// set, native ForwardStacked): its circuit reads the layout from the
// request.
func stacked(s *native.Shape) bool { return s.Trace.Begins != nil }
