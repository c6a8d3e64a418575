package committed

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/pcs"
)

// PartVars is the number of variables of a part of a committed MLE
// (pcs.CommitParts): the stacked MLE, the limb rows, the multiplicities
// and the key's function tables of more than 2^PartVars entries are
// committed in parts of 2^PartVars entries, so that the grouped opening's
// multi-scalar multiplications run over 2^PartVars points whatever the
// segment's size ("Parts" in the package documentation). The boundary
// and the incoming stream are committed whole: a segment's parts take
// max(PartVars, their variables) ([Shape.PartVars]). It is the default
// of [NewVerifyingKey]'s and [Prove]'s [WithPartVars].
const PartVars = 18

// Option sets a parameter of the committed proof system. [Prove],
// [NewVerifyingKey] and [NewShape] (the segment circuit's) must be given
// the same options; [Verify] takes them from the key.
type Option func(*config)

type config struct {
	partVars int
	limbBits int
	turn     *Turn
	// forgeWrites (tests only) changes the rows a turn writes.
	forgeWrites func(layer int, keys, values []int64)
}

// WithTurn makes the proofs those of a turn of a conversation (package
// documentation, "Turns"): the pass reads t.Start cached rows of a cache
// of t.Capacity rows and commits the rows it keeps.
func WithTurn(t Turn) Option {
	return func(c *config) { c.turn = &t }
}

// WithPartVars commits the stacked MLE, the limb rows, the
// multiplicities and the key's function tables in parts of m variables
// (1 ≤ m ≤ pcs.MaxNbVars) in place of [PartVars]: a smaller m makes the
// opening cheaper and the commitments more numerous (each a point of
// the aggregator's MSM). The tests use it to split small segments.
func WithPartVars(m int) Option {
	return func(c *config) { c.partVars = m }
}

// WithLimbBits fixes the width of the range-check limbs of every layout
// to w bits, one of 15 and 16, in place of the width each layout chooses
// ([Layout.LimbBits]); 0 keeps the choice. The tests use it to prove
// and verify the width the small models do not choose.
func WithLimbBits(w int) Option {
	return func(c *config) { c.limbBits = w }
}

func newConfig(opts []Option) (config, error) {
	c := config{partVars: PartVars}
	for _, o := range opts {
		o(&c)
	}
	if c.partVars < 1 || c.partVars > pcs.MaxNbVars {
		return c, fmt.Errorf("committed: parts of %d variables, want 1 to %d", c.partVars, pcs.MaxNbVars)
	}
	if c.limbBits != 0 && !slices.Contains(limbWidths, c.limbBits) {
		return c, fmt.Errorf("committed: limbs of %d bits, want one of %v", c.limbBits, limbWidths)
	}
	if t := c.turn; t != nil && (t.Start < 0 || t.Capacity < 1 || t.Start >= t.Capacity) {
		return c, fmt.Errorf("committed: a turn from row %d of a cache of %d rows", t.Start, t.Capacity)
	}
	return c, nil
}

// segmentPartVars is the parts' variables of a segment with layout l, a
// boundary (l.Boundary ≥ 0) and an incoming stream of incomingVars
// variables (0 without one), for parts of base variables: the boundary
// and the incoming stream are committed whole.
func segmentPartVars(l *Layout, incomingVars, base int) int {
	// incomingVars is also the cache's variables in a turn: both are
	// committed whole.
	m := max(base, incomingVars)
	if l.Boundary >= 0 {
		m = max(m, boundaryVars(l))
	}
	return m
}

// layoutParts returns, for the stacked MLE then each limb row, the parts
// of m variables that the layout fills: all of them (the one part) when
// the MLE has m variables or fewer; otherwise the parts that meet a
// block (of the stacked MLE), or a block using the row (of a limb row).
// The other parts are zero whatever the tensors' values, so a proof
// does not commit them: the verifier takes them as the identity, the
// commitment to zero.
func layoutParts(l *Layout, m int) [1 + limbRows][]int {
	var out [1 + limbRows][]int
	if l.NbVars <= m {
		for i := range out {
			out[i] = []int{0}
		}
		return out
	}
	used := make([][]bool, len(out))
	for i := range used {
		used[i] = make([]bool, 1<<(l.NbVars-m))
	}
	for b, blk := range l.Blocks {
		first, last := blk.Offset>>m, (blk.Offset+1<<blk.NbVars-1)>>m
		for p := first; p <= last; p++ {
			used[0][p] = true
			for j := range limbRows {
				if l.limbWidth(b, j) != 0 {
					used[1+j][p] = true
				}
			}
		}
	}
	for i := range out {
		for p, u := range used[i] {
			if u {
				out[i] = append(out[i], p)
			}
		}
	}
	return out
}

// commitLayoutParts commits to the given parts of m variables of table
// (the whole table when it has m variables or fewer), the parts shared
// between the cores (pcs.CommitEach).
func commitLayoutParts(srs *pcs.SRS, table []fr.Element, m int, parts []int) ([]pcs.Commitment, error) {
	size := min(len(table), 1<<m)
	tables := make([][]fr.Element, len(parts))
	for i, p := range parts {
		tables[i] = table[p*size : (p+1)*size]
	}
	return pcs.CommitEach(srs, tables)
}

// commitLimbRows commits to the given parts of m variables of the limb
// rows (parts[j] those of row j), every row's parts in one
// pcs.CommitEach: from the rows in the field (rows[j]), or, when rows
// is nil, from their integers (limbs, size entries a row), each part
// written into a table of 2^m entries of the committing core, so that
// the rows are never in the field.
func commitLimbRows(srs *pcs.SRS, limbs []uint16, rows [][]fr.Element, size, m int, parts [][]int) ([limbRows][]pcs.Commitment, error) {
	var out [limbRows][]pcs.Commitment
	partSize := min(size, 1<<m)
	type part struct{ row, p int }
	var all []part
	for j := range limbRows {
		for _, p := range parts[j] {
			all = append(all, part{j, p})
		}
	}
	var cs []pcs.Commitment
	var err error
	if rows != nil {
		tables := make([][]fr.Element, len(all))
		for i, a := range all {
			tables[i] = rows[a.row][a.p*partSize : (a.p+1)*partSize]
		}
		cs, err = pcs.CommitEach(srs, tables)
	} else {
		cs, err = pcs.CommitEachFilled(srs, len(all), partSize, func(i int, dst []fr.Element) {
			start := all[i].row*size + all[i].p*partSize
			limbsToField(dst, limbs[start:start+partSize])
		})
	}
	if err != nil {
		return out, err
	}
	for j := range limbRows {
		out[j], cs = cs[:len(parts[j])], cs[len(parts[j]):]
	}
	return out, nil
}

// ownParts lists, per own commitment of the grouped opening (tensors,
// multiplicities over a table set of setVars variables, limb rows,
// boundary, incoming), the parts a proof commits: every part of the
// multiplicities.
func ownParts(l *Layout, m, setVars int, boundary, incoming bool, cached int) [][]int {
	lp := layoutParts(l, m)
	mult := make([]int, pcs.Parts(setVars, m))
	for i := range mult {
		mult[i] = i
	}
	out := [][]int{lp[0], mult}
	out = append(out, lp[1:]...)
	if boundary {
		out = append(out, []int{0})
	}
	if incoming {
		out = append(out, []int{0})
	}
	for range cached * cacheCommitments {
		out = append(out, []int{0})
	}
	return out
}

// SelectParts keeps, of the scalars of every part of the grouped opening
// (pcs.VerifyGroupFieldParts: commitment by commitment, nbParts[j] for
// commitment j, [Shape.OpeningParts]), those of the committed parts
// (own[j] for the own commitments, [Shape.Parts]; every part of the
// others, the function tables). The segment circuit selects its
// variables with it.
func SelectParts[T any](scalars []T, nbParts []int, own [][]int) ([]T, error) {
	var out []T
	k := 0
	for j, n := range nbParts {
		if k+n > len(scalars) {
			return nil, fmt.Errorf("committed: %d scalars for the opening's parts", len(scalars))
		}
		if j < len(own) {
			for _, p := range own[j] {
				out = append(out, scalars[k+p])
			}
		} else {
			out = append(out, scalars[k:k+n]...)
		}
		k += n
	}
	if k != len(scalars) {
		return nil, fmt.Errorf("committed: %d scalars for %d parts", len(scalars), k)
	}
	return out, nil
}
