package split

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/veriformer/veriformer/model"
)

// ErrCheck marks a product that failed the client's check: the server
// did not return X·Wᵀ for the weights of the model id.
var ErrCheck = errors.New("split: server product rejected")

// checkPrime is the Mersenne prime 2⁶¹ − 1: the check runs modulo it.
const checkPrime = 1<<61 - 1

// checker is the Freivalds check of one weight matrix W ([out, in]): a
// secret uniform r ∈ F_p^out and s = rᵀW ∈ F_p^in, so that for a row x
// and a claimed row y = x·Wᵀ the check ⟨r, y⟩ = ⟨s, x⟩ costs O(in + out).
// If y ≠ x·Wᵀ over the integers then, since every |y_j − (xWᵀ)_j| < p,
// y − xWᵀ is a non-zero vector mod p, and ⟨r, y − xWᵀ⟩ = 0 for at most a
// 1/p fraction of the r: the check passes with probability ≤ 2⁻⁶¹.
type checker struct {
	r, s []uint64
	in   int
}

// reduce maps an integer to [0, p).
func reduce(v int64) uint64 {
	m := v % checkPrime
	if m < 0 {
		m += checkPrime
	}
	return uint64(m)
}

// mulAdd returns acc + a·b mod p for a, b, acc < p.
func mulAdd(acc, a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	// a·b < 2¹²², so hi < 2⁵⁸ and the sum below fits.
	r := (hi<<3 | lo>>61) + (lo & checkPrime) + acc
	r = (r >> 61) + (r & checkPrime)
	if r >= checkPrime {
		r -= checkPrime
	}
	return r
}

// randomBelowPrime draws uniform values in [0, p) from crypto/rand.
func randomBelowPrime(n int) ([]uint64, error) {
	out := make([]uint64, n)
	buf := make([]byte, 8)
	for i := range out {
		for {
			if _, err := rand.Read(buf); err != nil {
				return nil, fmt.Errorf("split: random: %w", err)
			}
			v := binary.LittleEndian.Uint64(buf) >> 3
			if v < checkPrime {
				out[i] = v
				break
			}
		}
	}
	return out, nil
}

// newChecker precomputes the check of w with a fresh secret r.
func newChecker(w *model.Weight) (*checker, error) {
	out, in := w.Shape[0], w.Shape[1]
	r, err := randomBelowPrime(out)
	if err != nil {
		return nil, err
	}
	s := make([]uint64, in)
	for j := range out {
		row := w.Data[j*in : (j+1)*in]
		rj := r[j]
		for i, v := range row {
			s[i] = mulAdd(s[i], rj, reduce(int64(v)))
		}
	}
	return &checker{r: r, s: s, in: in}, nil
}

// verify checks y = x·Wᵀ row by row (x is [rows, in], y [rows, out]).
func (c *checker) verify(x, y []int64, rows int) error {
	out := len(c.r)
	if len(x) != rows*c.in || len(y) != rows*out {
		return fmt.Errorf("%w: shapes", ErrCheck)
	}
	for row := range rows {
		var left, right uint64
		for j, v := range y[row*out : (row+1)*out] {
			left = mulAdd(left, c.r[j], reduce(v))
		}
		for i, v := range x[row*c.in : (row+1)*c.in] {
			right = mulAdd(right, c.s[i], reduce(v))
		}
		if left != right {
			return fmt.Errorf("%w: row %d", ErrCheck, row)
		}
	}
	return nil
}
