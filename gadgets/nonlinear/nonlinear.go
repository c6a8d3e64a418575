package nonlinear

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/lookup/logderivlookup"
	"github.com/consensys/gnark/std/rangecheck"

	"github.com/veriformer/veriformer/model"
)

// Checker asserts the element-wise relations of non-linear steps on opened
// tensors. One Checker serves a whole circuit: it shares one range checker
// and one lookup table per model table.
type Checker struct {
	api    frontend.API
	rc     frontend.Rangechecker
	tables map[*model.Table]logderivlookup.Table
	small  map[string]logderivlookup.Table
}

// New returns a Checker.
func New(api frontend.API) *Checker {
	return &Checker{api: api, rc: rangecheck.New(api), tables: map[*model.Table]logderivlookup.Table{}, small: map[string]logderivlookup.Table{}}
}

// Range constrains lo ≤ v ≤ hi exactly: v − lo and hi − v both fit in
// bitlen(hi − lo) bits (one check when hi − lo + 1 is a power of two).
func (c *Checker) Range(v frontend.Variable, lo, hi int64) {
	span := uint64(hi) - uint64(lo)
	n := max(bits.Len64(span), 1)
	c.rc.Check(c.api.Sub(v, lo), n)
	if span+1 != 1<<n {
		c.rc.Check(c.api.Sub(hi, v), n)
	}
}

// table returns the lookup table of t, indexed from 0 (index = x − t.Lo).
func (c *Checker) table(t *model.Table) logderivlookup.Table {
	if lt, ok := c.tables[t]; ok {
		return lt
	}
	lt := logderivlookup.New(c.api)
	_, outputs := t.Entries()
	for _, v := range outputs {
		lt.Insert(v)
	}
	c.tables[t] = lt
	return lt
}

// smallTable returns a lookup table of the given values under a name.
func (c *Checker) smallTable(name string, values []*big.Int) logderivlookup.Table {
	if lt, ok := c.small[name]; ok {
		return lt
	}
	lt := logderivlookup.New(c.api)
	for _, v := range values {
		lt.Insert(v)
	}
	c.small[name] = lt
	return lt
}

// Lookup constrains out[i] = T(in[i]) with in[i] in T's domain: a
// log-derivative lookup of in[i] − Lo (about 3.5 constraints per lookup,
// plus about one per table entry once per circuit).
func (c *Checker) Lookup(t *model.Table, in, out []frontend.Variable) error {
	if len(in) != len(out) {
		return fmt.Errorf("nonlinear: %s: %d inputs and %d outputs", t.Name, len(in), len(out))
	}
	if len(in) == 0 {
		return nil
	}
	got := c.lookupOut(t, in)
	for i := range got {
		c.api.AssertIsEqual(got[i], out[i])
	}
	return nil
}

// requant constrains out·2^k + rem = acc·M + 2^(k−1), rem ∈ [0, 2^k) and
// out ∈ [lo, hi].
func (c *Checker) requant(acc frontend.Variable, m int64, k uint, out, rem frontend.Variable, lo, hi int64) {
	pow := new(big.Int).Lsh(big.NewInt(1), k)
	half := new(big.Int).Lsh(big.NewInt(1), k-1)
	c.api.AssertIsEqual(c.api.Add(c.api.Mul(out, pow), rem), c.api.Add(c.api.Mul(acc, m), half))
	c.rc.Check(rem, int(k))
	c.Range(out, lo, hi)
}

// Sum constrains sum = a + b element-wise with sum ∈ [lo, hi].
func (c *Checker) Sum(a, b, sum []frontend.Variable, lo, hi int64) error {
	if len(a) != len(sum) || len(b) != len(sum) {
		return fmt.Errorf("nonlinear: sum of %d and %d entries into %d", len(a), len(b), len(sum))
	}
	for i := range sum {
		c.api.AssertIsEqual(sum[i], c.api.Add(a[i], b[i]))
		c.Range(sum[i], lo, hi)
	}
	return nil
}

// Argmax constrains next to be the first index of a largest logit: with
// the one-hot vector oⱼ = [next = j] (Σ oⱼ = 1), best = Σ oⱼ·lⱼ and
// best − lⱼ − [j < next] ≥ 0 for all j, checked in logitBits + 1 bits.
// Cost per vocabulary entry: an equality test, two multiplications and a
// range check.
func (c *Checker) Argmax(logits []frontend.Variable, next frontend.Variable, logitBits int) {
	api := c.api
	var best, count, before frontend.Variable = 0, 0, 0
	onehot := make([]frontend.Variable, len(logits))
	for j := range logits {
		onehot[j] = api.IsZero(api.Sub(next, j))
		best = api.Add(best, api.Mul(onehot[j], logits[j]))
		count = api.Add(count, onehot[j])
	}
	api.AssertIsEqual(count, 1)
	// before_j = [j < next] = 1 − Σ_{i ≤ j} oᵢ.
	for j := range logits {
		before = api.Add(before, onehot[j])
		strict := api.Sub(1, before)
		c.rc.Check(api.Sub(api.Sub(best, logits[j]), strict), logitBits+1)
	}
}

// Product constrains out·2^k + rem = a·b·M + 2^(k−1), rem ∈ [0, 2^k) and
// out ∈ [lo, hi] element-wise: the gated product of a Llama MLP. One
// multiplication, one product check and two range checks per element.
func (c *Checker) Product(a, b, out, rem []frontend.Variable, m int64, k uint, lo, hi int64) error {
	if len(a) != len(b) || len(out) != len(a) || len(rem) != len(a) {
		return fmt.Errorf("nonlinear: product of %d and %d entries into %d", len(a), len(b), len(out))
	}
	for i := range a {
		c.requant(c.api.Mul(a[i], b[i]), m, k, out[i], rem[i], lo, hi)
	}
	return nil
}
