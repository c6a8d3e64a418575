package table

import (
	"fmt"
	"math/bits"
	"sort"
)

// Set is the concatenation of several tables into one table of 2^NbVars
// rows with a table-id column, so that lookups into all of them form one
// LogUp instance. Row y of the combined table is
//
//	(id, c₀, c₁, …, c_{C−1})
//
// where C is the largest column count of the tables: a row of table t
// (id t+1, in the order the tables were given) followed by its columns and
// zeros for the columns it lacks. Tables are placed in blocks aligned to
// their size: sorted by size, largest first (ties in the given order), each
// block starting at the end of the previous one, so the block of a table
// of 2ᵏ rows starts at a multiple of 2ᵏ. Rows past the last block are
// padding: all zero, id 0. Id 0 is reserved for the padding and never
// names a table; the all-zero tuple is therefore a row of every set, and a
// caller must bind the lookups' id column (it is one of the claims the
// LogUp proof outputs) to values ≥ 1.
//
// The MLE of every column has a closed form in O(T·k) (T tables, k =
// NbVars) when the tables' columns are affine: the indicator of the block
// of table t at offset o with kₜ variables is eq(bits of o/2^kₜ,
// (X₁, …, X_{k−kₜ})), and within the block the table's own column MLE is
// evaluated at the last kₜ coordinates.
type Set struct {
	Name    string
	NbVars  int
	Tables  []Table
	Offsets []int // Offsets[t] is the first row of table t
}

// NewSet validates the tables and lays them out.
func NewSet(name string, tables ...Table) (*Set, error) {
	if len(tables) == 0 {
		return nil, fmt.Errorf("table: set %q has no table", name)
	}
	order := make([]int, len(tables))
	for i := range tables {
		if err := tables[i].Validate(); err != nil {
			return nil, fmt.Errorf("table: set %q: %w", name, err)
		}
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return tables[order[a]].NbVars > tables[order[b]].NbVars })
	s := &Set{Name: name, Tables: tables, Offsets: make([]int, len(tables))}
	off := 0
	for _, t := range order {
		s.Offsets[t] = off
		off += 1 << tables[t].NbVars
	}
	s.NbVars = max(bits.Len(uint(off-1)), 1)
	if s.NbVars > MaxTableVars {
		return nil, fmt.Errorf("table: set %q has %d rows, more than 2^%d", name, off, MaxTableVars)
	}
	return s, nil
}

// NbColumns is the number of columns of the combined table, the id column
// included.
func (s *Set) NbColumns() int {
	c := 0
	for i := range s.Tables {
		c = max(c, len(s.Tables[i].Columns))
	}
	return c + 1
}

// Block returns the table holding row y and the row's index in it, or
// ok = false for a padding row.
func (s *Set) Block(y int) (t, local int, ok bool) {
	for t := range s.Tables {
		if o := s.Offsets[t]; y >= o && y < o+1<<s.Tables[t].NbVars {
			return t, y - o, true
		}
	}
	return 0, 0, false
}

// Value returns entry c of row y of the combined table (c = 0 is the id).
func (s *Set) Value(c, y int) int64 {
	t, local, ok := s.Block(y)
	if !ok {
		return 0
	}
	if c == 0 {
		return int64(t) + 1
	}
	if c-1 >= len(s.Tables[t].Columns) {
		return 0
	}
	return s.Tables[t].Value(c-1, local)
}

// Row returns the row of the combined table holding the tuple (id, c₀, …),
// of NbColumns entries, or an error if the id names no table or the tuple
// is not a row of that table (missing columns must be zero).
func (s *Set) Row(tuple []int64) (int, error) {
	if len(tuple) != s.NbColumns() {
		return 0, fmt.Errorf("table: set %q: tuple of %d entries, want %d", s.Name, len(tuple), s.NbColumns())
	}
	id := tuple[0]
	if id < 1 || id > int64(len(s.Tables)) {
		return 0, fmt.Errorf("table: set %q: table id %d outside [1, %d]", s.Name, id, len(s.Tables))
	}
	t := &s.Tables[id-1]
	n := len(t.Columns)
	for c := 1 + n; c < len(tuple); c++ {
		if tuple[c] != 0 {
			return 0, fmt.Errorf("table: set %q: table %q has %d columns, entry %d is %d", s.Name, t.Name, n, c, tuple[c])
		}
	}
	local, err := t.Row(tuple[1 : 1+n])
	if err != nil {
		return 0, err
	}
	return s.Offsets[id-1] + local, nil
}

// Validate checks a set's layout: valid tables, one offset per table,
// blocks aligned to their size, disjoint and inside the 2^NbVars rows.
// Sets made by [NewSet] are valid.
func (s *Set) Validate() error {
	if len(s.Tables) == 0 || len(s.Offsets) != len(s.Tables) {
		return fmt.Errorf("table: set %q: %d tables and %d offsets", s.Name, len(s.Tables), len(s.Offsets))
	}
	if s.NbVars < 1 || s.NbVars > MaxTableVars {
		return fmt.Errorf("table: set %q: %d variables, want 1…%d", s.Name, s.NbVars, MaxTableVars)
	}
	for t := range s.Tables {
		if err := s.Tables[t].Validate(); err != nil {
			return fmt.Errorf("table: set %q: %w", s.Name, err)
		}
		size, o := 1<<s.Tables[t].NbVars, s.Offsets[t]
		if o < 0 || o%size != 0 || o+size > 1<<s.NbVars {
			return fmt.Errorf("table: set %q: table %d at row %d is not an aligned block of the %d rows", s.Name, t, o, 1<<s.NbVars)
		}
		for u := range t {
			if ou := s.Offsets[u]; o < ou+1<<s.Tables[u].NbVars && ou < o+size {
				return fmt.Errorf("table: set %q: tables %d and %d overlap", s.Name, u, t)
			}
		}
	}
	return nil
}
