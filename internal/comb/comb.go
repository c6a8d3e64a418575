// Package comb multiplies one fixed base point by many scalars with a
// fixed-base comb, for any of gnark-crypto's curve groups.
//
// A scalar of b bits is cut into ⌈b/w⌉ windows of w bits. For window j
// the table holds d·2^{wj}·G for every digit d in [1, 2^w); the product
// s·G is the sum, over the windows, of the table entry of s's digit
// there: at most ⌈b/w⌉ mixed additions a point and no doubling, where a
// scalar multiplication of its own costs b doublings and b/w additions.
// The tables cost ⌈b/w⌉·(2^w − 1) additions once, so w grows with the
// number of scalars.
//
// The package is on the proving path: package setup makes development
// Groth16 keys with it.
package comb

import (
	"github.com/veriformer/veriformer/internal/parallel"
)

// Jacobian is a pointer to a group element in Jacobian coordinates J
// whose affine form is A (gnark-crypto's G1Jac and G1Affine, G2Jac and
// G2Affine of every curve). The zero value of J is the identity.
type Jacobian[J, A any] interface {
	*J
	AddMixed(*A) *J
	AddAssign(*J) *J
	DoubleAssign() *J
	FromAffine(*A) *J
}

// batch is the number of points accumulated in Jacobian coordinates
// before they are converted to affine with one inversion.
const batch = 1 << 12

// maxTable bounds the number of table entries (all windows together).
const maxTable = 1 << 20

// Window returns the window width in bits that minimizes the additions
// of n products of scalars of nbBits bits, tables included, with at most
// maxTable table entries.
func Window(n, nbBits int) int {
	best, bestCost := 2, -1
	for w := 2; w <= 16; w++ {
		windows := (nbBits + w - 1) / w
		table := windows * (1<<w - 1)
		if table > maxTable {
			break
		}
		cost := table + n*windows
		if bestCost < 0 || cost < bestCost {
			best, bestCost = w, cost
		}
	}
	return best
}

// Multiply returns s·base for every scalar s of scalars, in order. The
// scalars are canonical (not Montgomery) integers below 2^nbBits, given
// as words 64-bit little-endian words each: scalar i is
// scalars[i·words : (i+1)·words]. toAffine is the curve's batch
// conversion (gnark-crypto's BatchJacobianToAffineG1 or G2).
func Multiply[J, A any, PJ Jacobian[J, A]](base *A, scalars []uint64, words, nbBits int, toAffine func([]J) []A) []A {
	n := len(scalars) / words
	out := make([]A, n)
	if n == 0 {
		return out
	}
	w := Window(n, nbBits)
	windows := (nbBits + w - 1) / w
	digits := 1<<w - 1

	// table[j·digits + d − 1] = d·2^{wj}·base.
	table := make([]A, 0, windows*digits)
	var step J
	PJ(&step).FromAffine(base)
	row := make([]J, digits)
	for range windows {
		row[0] = step
		for d := 1; d < digits; d++ {
			row[d] = row[d-1]
			PJ(&row[d]).AddAssign(&step)
		}
		table = append(table, toAffine(row)...)
		for range w {
			PJ(&step).DoubleAssign()
		}
	}

	mask := uint64(digits)
	parallel.Execute(n, batch, func(start, end int) {
		acc := make([]J, batch)
		for lo := start; lo < end; lo += batch {
			part := acc[:min(batch, end-lo)]
			for k := range part {
				var zero J
				part[k] = zero
				s := scalars[(lo+k)*words:][:words]
				for j := range windows {
					bit := j * w
					word, shift := bit/64, bit%64
					d := s[word] >> shift
					if shift+w > 64 && word+1 < words {
						d |= s[word+1] << (64 - shift)
					}
					if d &= mask; d != 0 {
						PJ(&part[k]).AddMixed(&table[j*digits+int(d)-1])
					}
				}
			}
			copy(out[lo:], toAffine(part))
		}
	})
	return out
}

// Affine is a pointer to a group element in affine coordinates A that
// converts from Jacobian coordinates J (gnark-crypto's G2Affine, which
// has no batch conversion).
type Affine[J, A any] interface {
	*A
	FromJacobian(*J) *A
}

// ToAffine converts points one at a time, spread over the processors:
// the conversion for groups without a batch one.
func ToAffine[J, A any, PA Affine[J, A]](points []J) []A {
	out := make([]A, len(points))
	parallel.Execute(len(points), 256, func(start, end int) {
		for i := start; i < end; i++ {
			PA(&out[i]).FromJacobian(&points[i])
		}
	})
	return out
}
