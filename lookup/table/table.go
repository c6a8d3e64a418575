package table

import (
	"fmt"
	"math/bits"
)

// MaxTableVars bounds the size of a table (2²⁰ rows).
const MaxTableVars = 20

// Column is one column of a table with 2ᵏ rows. A column with nil Values is
// the affine column Offset + i (row index i), whose MLE has a closed form
// evaluated in O(k); otherwise Values holds one value per row and the MLE
// is evaluated densely in O(2ᵏ).
type Column struct {
	Offset int64
	Values []int64
}

// Table is a lookup table: rows of integer tuples, 2^NbVars rows. The
// first column is the key: it must be affine (nil Values) so that a tuple's
// row is found from its first entry. Rows past the meaningful domain simply
// receive multiplicity 0.
type Table struct {
	Name    string
	NbVars  int
	Columns []Column
}

// Range is the one-column table 0, 1, …, 2^bits − 1 used for range
// checks.
func Range(nbBits int) Table {
	return Table{Name: fmt.Sprintf("range%d", nbBits), NbVars: nbBits, Columns: []Column{{}}}
}

// Function is the two-column table (x, f(x)) for x = lo, …, lo+len(outputs)−1,
// padded with rows that repeat the last output to the next power of two.
func Function(name string, lo int64, outputs []int64) (Table, error) {
	if len(outputs) == 0 || len(outputs) > 1<<MaxTableVars {
		return Table{}, fmt.Errorf("table: function table %q with %d outputs", name, len(outputs))
	}
	n := max(bits.Len(uint(len(outputs)-1)), 1)
	values := make([]int64, 1<<n)
	copy(values, outputs)
	for i := len(outputs); i < len(values); i++ {
		values[i] = outputs[len(outputs)-1]
	}
	return Table{Name: name, NbVars: n, Columns: []Column{{Offset: lo}, {Values: values}}}, nil
}

// Validate checks the table's shape.
func (t *Table) Validate() error {
	if t.NbVars < 1 || t.NbVars > MaxTableVars {
		return fmt.Errorf("table: table %q: %d variables, want 1…%d", t.Name, t.NbVars, MaxTableVars)
	}
	if len(t.Columns) == 0 {
		return fmt.Errorf("table: table %q has no column", t.Name)
	}
	if t.Columns[0].Values != nil {
		return fmt.Errorf("table: table %q: the key column must be affine", t.Name)
	}
	for i, c := range t.Columns {
		if c.Values != nil && len(c.Values) != 1<<t.NbVars {
			return fmt.Errorf("table: table %q column %d: %d values for %d rows", t.Name, i, len(c.Values), 1<<t.NbVars)
		}
	}
	return nil
}

// Value returns the entry of column c at row i.
func (t *Table) Value(c, i int) int64 {
	col := &t.Columns[c]
	if col.Values == nil {
		return col.Offset + int64(i)
	}
	return col.Values[i]
}

// Row returns the row holding the tuple, or an error if the tuple is not in
// the table.
func (t *Table) Row(tuple []int64) (int, error) {
	i := tuple[0] - t.Columns[0].Offset
	if i < 0 || i >= 1<<t.NbVars {
		return 0, fmt.Errorf("table: table %q: key %d out of range [%d, %d)", t.Name, tuple[0], t.Columns[0].Offset, t.Columns[0].Offset+1<<t.NbVars)
	}
	for c := 1; c < len(t.Columns); c++ {
		if v := t.Value(c, int(i)); v != tuple[c] {
			return 0, fmt.Errorf("table: table %q: row for key %d has column %d = %d, not %d", t.Name, tuple[0], c, v, tuple[c])
		}
	}
	return int(i), nil
}
