package embedding

import (
	"fmt"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/lookup/logderivlookup"

	"github.com/veriformer/veriformer/gadgets/poly"
)

// CheckRows asserts x[r] = E[tokens[r]] + pos[r] for every row r, where E
// is a constant vocab × dim table (row-major) and pos a constant rows × dim
// offset (nil for none), by one random linear combination per row and one
// lookup in a table of vocab entries:
//
//	t_v = Σ_j E[v][j]·γ^j        s_r = Σ_j (x[r][j] − pos[r][j])·γ^j
//	s_r = t_{tokens[r]}
//
// γ must be a challenge drawn after x and the tokens are fixed (bound into
// the transcript); then a wrong row passes with probability at most
// (dim − 1)/|F|, the degree of s_r − t_{tokens[r]} in γ. A token outside
// [0, vocab) fails the lookup. Cost: dim − 2 multiplications for the
// powers, vocab constant combinations (one constraint each once gnark
// compresses them), rows·dim products and the log-derivative lookup
// (about vocab + rows constraints and one commitment) — instead of a lookup
// table of vocab·dim entries.
func CheckRows(api frontend.API, table []int64, vocab, dim int, pos []int64, tokens, x []frontend.Variable, gamma frontend.Variable) error {
	rows := len(tokens)
	if vocab < 1 || dim < 1 || len(table) != vocab*dim {
		return fmt.Errorf("embedding: %d table entries for %d × %d", len(table), vocab, dim)
	}
	if len(x) != rows*dim {
		return fmt.Errorf("embedding: %d values for %d rows of width %d", len(x), rows, dim)
	}
	if pos != nil && len(pos) != rows*dim {
		return fmt.Errorf("embedding: %d offsets for %d rows of width %d", len(pos), rows, dim)
	}
	powers := make([]frontend.Variable, dim)
	powers[0] = 1
	for j := 1; j < dim; j++ {
		powers[j] = api.Mul(powers[j-1], gamma) // free for j = 1: powers[0] is the constant 1
	}
	lookup := logderivlookup.New(api)
	terms := make([]frontend.Variable, 0, dim)
	for v := range vocab {
		terms = terms[:0]
		for j, e := range table[v*dim : (v+1)*dim] {
			if e != 0 {
				terms = append(terms, api.Mul(e, powers[j]))
			}
		}
		lookup.Insert(poly.Sum(api, terms))
	}
	got := lookup.Lookup(tokens...)
	for r := range rows {
		terms = terms[:0]
		for j := range dim {
			v := x[r*dim+j]
			if pos != nil && pos[r*dim+j] != 0 {
				v = api.Sub(v, pos[r*dim+j])
			}
			terms = append(terms, api.Mul(v, powers[j]))
		}
		api.AssertIsEqual(poly.Sum(api, terms), got[r])
	}
	return nil
}
