package pcs

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/internal/hugepage"
)

// Parts returns the number of parts of a commitment to an MLE of n
// variables in grouped openings of at most m variables ([CommitParts]):
// 2^(n−m) when n > m, else 1.
func Parts(n, m int) int {
	if n > m {
		return 1 << (n - m)
	}
	return 1
}

// CommitParts commits to the MLE whose table is table (2ⁿ entries) in
// [Parts](n, m) parts, for grouped openings of at most m variables
// ([OpenGroupParts]): when n > m, part i is the MLE of m variables
// table[i·2^m : (i+1)·2^m], f at leading coordinates the bits of i (most
// significant first), committed with [Commit] (a part of zeros is the
// identity); when n ≤ m, the one commitment [Commit](table).
func CommitParts(srs *SRS, table []fr.Element, m int) ([]Commitment, error) {
	n, err := tableVars(table)
	if err != nil {
		return nil, err
	}
	if m < 1 {
		return nil, fmt.Errorf("pcs: commit: parts of %d variables", m)
	}
	parts := Parts(n, m)
	size := len(table) / parts
	if parts == 1 {
		c, err := Commit(srs, table)
		if err != nil {
			return nil, err
		}
		return []Commitment{c}, nil
	}
	tables := make([][]fr.Element, parts)
	for i := range tables {
		tables[i] = table[i*size : (i+1)*size]
	}
	return CommitEach(srs, tables)
}

// CommitEach returns [Commit] of each of tables, the tables shared
// between the cores and each committed on one, where Commit shares one
// table's entries between them: each multi-scalar multiplication sums
// its buckets once, not once per core, and the cores do not wait for
// each other at every table. A GPT-2 block's parts at 64 rows are
// committed in a fifth less time this way. The commitments are
// Commit's.
func CommitEach(srs *SRS, tables [][]fr.Element) ([]Commitment, error) {
	return commitEach(srs, len(tables), func(i int, _ *[]fr.Element) ([]fr.Element, error) {
		if _, err := tableVars(tables[i]); err != nil {
			return nil, err
		}
		return tables[i], nil
	})
}

// CommitEachFilled is [CommitEach] of n tables of size entries (2ᵏ,
// 1 ≤ k ≤ MaxNbVars, as for [Commit]) that fill writes: fill(i, dst)
// writes every entry of table i into dst, a buffer of the calling
// goroutine's. Tables held in a smaller type (integers) are never in the
// field but a table per core at a time. A size the SRS cannot commit is
// refused before any table is filled.
func CommitEachFilled(srs *SRS, n, size int, fill func(i int, dst []fr.Element)) ([]Commitment, error) {
	if _, err := sizeVars(size); err != nil {
		return nil, err
	}
	if size > srs.Size() {
		return nil, fmt.Errorf("pcs: commit: tables of %d entries, the srs has %d powers", size, srs.Size())
	}
	return commitEach(srs, n, func(i int, buf *[]fr.Element) ([]fr.Element, error) {
		if *buf == nil {
			*buf = hugepage.Make[fr.Element](size)
		}
		fill(i, *buf)
		return *buf, nil
	})
}

// commitEach commits to the n tables get returns (buf: the calling
// goroutine's buffer, allocated by get if it needs one) on every core,
// a table on each.
func commitEach(srs *SRS, n int, get func(i int, buf *[]fr.Element) ([]fr.Element, error)) ([]Commitment, error) {
	out := make([]Commitment, n)
	one := func(i int, buf *[]fr.Element, cores int) error {
		t, err := get(i, buf)
		if err != nil {
			return err
		}
		if len(t) > srs.Size() {
			return fmt.Errorf("pcs: commit: table of %d entries, the srs has %d powers", len(t), srs.Size())
		}
		out[i], err = commit(srs, t, cores)
		return err
	}
	cores := min(runtime.GOMAXPROCS(0), n)
	if cores <= 1 {
		var buf []fr.Element
		for i := range n {
			if err := one(i, &buf, 0); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var next atomic.Int64
	var failed atomic.Bool
	errs := make([]error, cores)
	var wg sync.WaitGroup
	for w := range cores {
		wg.Go(func() {
			var buf []fr.Element
			for i := int(next.Add(1) - 1); i < n && !failed.Load(); i = int(next.Add(1) - 1) {
				if errs[w] = one(i, &buf, 1); errs[w] != nil {
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
