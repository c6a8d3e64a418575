package pcs

import (
	"math/bits"
	"runtime"
	"sync/atomic"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/internal/hugepage"
)

// Small scalars. The tables a segment commits hold integers far below
// |Fr|: limbs of at most 16 bits, multiplicities, activations of 16 to 31 bits.
// gnark-crypto's MultiExp sizes its windows for 253-bit scalars: it
// splits every scalar into about twenty windows and runs each (empty or
// not) on its own, the upper windows of a small scalar with the Jacobian
// formulas on one core. multiExpSmall instead runs only the windows the
// largest value needs, each over every core's share of the points, and
// adds a point to its bucket with affine formulas whose inversions are
// shared by a batch (a bucket already in the batch takes the point into
// another of its slots, so skewed digits batch as well as uniform ones).

// Cost model of multiExpSmall, in nanoseconds on one core (measured on
// BLS12-377 G1): an addition into a bucket (affine, batched) and one
// bucket's share of the reduction (a mixed and a Jacobian addition).
const (
	smallAddCost    = 350
	smallInvCost    = 6000
	smallReduceCost = 1200
	// batchSize additions share one inversion.
	batchSize = 512
	// minSmallPerWorker is the fewest points a core is given.
	minSmallPerWorker = 1 << 10
)

// smallValues returns the scalars as integers when each is below 2^64
// (ok false otherwise), converted on the given cores (commit's).
func smallValues(scalars []fr.Element, cores int) ([]uint64, bool) {
	values := hugepage.Make[uint64](len(scalars))
	var big atomic.Bool
	execute(cores, len(scalars), 1<<14, func(start, end int) {
		for i := start; i < end; i++ {
			if !scalars[i].IsUint64() {
				big.Store(true)
				return
			}
			values[i] = scalars[i].Uint64()
		}
	})
	return values, !big.Load()
}

// smallWindow returns the window width c (at most 16 bits) that
// minimizes the modelled cost of an MSM of n points per core with scalars
// of nbBits bits: w = ⌈nbBits/c⌉ windows of n additions and 2^c buckets
// each, the bits shared evenly between the windows.
func smallWindow(n, nbBits int) int {
	best, bestCost := nbBits, -1
	const add = smallAddCost + smallInvCost/batchSize
	for w := (nbBits + 15) / 16; w <= nbBits; w++ {
		c := (nbBits + w - 1) / w
		cost := w * (n*add + (1<<c)*smallReduceCost)
		if bestCost < 0 || cost < bestCost {
			best, bestCost = c, cost
		}
	}
	return best
}

// multiExpSmall returns Σᵢ values[i]·points[i] on the given cores
// (commit's). The points must not be the point at infinity (the SRS's and
// their negations are not).
func multiExpSmall(points []bls12377.G1Affine, values []uint64, cores int) bls12377.G1Jac {
	var nbBits int
	for _, v := range values {
		nbBits = max(nbBits, bits.Len64(v))
	}
	var total bls12377.G1Jac
	total.X.SetOne()
	total.Y.SetOne()
	if nbBits == 0 {
		return total
	}
	if cores <= 0 {
		cores = runtime.GOMAXPROCS(0)
	}
	workers := max(1, min(cores, len(points)/minSmallPerWorker))
	c := smallWindow((len(points)+workers-1)/workers, nbBits)
	results := make([]bls12377.G1Jac, workers)
	size := (len(points) + workers - 1) / workers
	execute(workers, workers, 1, func(start, end int) {
		for w := start; w < end; w++ {
			lo, hi := w*size, min((w+1)*size, len(points))
			results[w] = windowsSum(points[lo:hi], values[lo:hi], nbBits, c)
		}
	})
	for i := range results {
		total.AddAssign(&results[i])
	}
	return total
}

// windowsSum computes Σᵢ values[i]·points[i] on one core, window by
// window from the most significant (c bits each, nbBits in all).
func windowsSum(points []bls12377.G1Affine, values []uint64, nbBits, c int) bls12377.G1Jac {
	var acc bls12377.G1Jac
	acc.X.SetOne()
	acc.Y.SetOne()
	b := newBuckets(c)
	mask := uint64(1)<<c - 1
	for w := (nbBits+c-1)/c - 1; w >= 0; w-- {
		for range c {
			acc.DoubleAssign()
		}
		b.reset()
		shift := uint(w * c)
		for i := range values {
			if d := (values[i] >> shift) & mask; d != 0 {
				b.add(int32(d-1), &points[i])
			}
		}
		b.flush()
		sum := b.reduce()
		acc.AddAssign(&sum)
	}
	return acc
}

// buckets holds 2^c − 1 affine buckets (bucket k for digit k + 1) and the
// pending batch of additions. A bucket is a chain of slots: slot k, then
// extra slots appended when an addition finds every slot of its bucket
// already in the batch. So a batch fills up even when most digits are
// one value (the top limbs, the activations near zero), and every
// addition is affine; the slots of a bucket are summed in [buckets.reduce].
type buckets struct {
	nbBuckets int
	// Per slot: the point, whether it holds one, whether it is in the
	// batch, and the bucket's next slot (−1 at the end of the chain).
	points  []bls12377.G1Affine
	filled  []bool
	inBatch []bool
	next    []int32
	// Per bucket: its last slot, and the first of its extra slots that
	// may not be in the batch (−1: none), valid while epoch[k] is the
	// batch's number (slots are taken in chain order, so those before
	// the cursor are in the batch).
	last   []int32
	cursor []int32
	epoch  []uint32
	// The batch: its number (one more at each flush), slot and point to
	// add, and the denominators.
	batch uint32
	index []int32
	adds  []*bls12377.G1Affine
	den   []fp.Element
}

func newBuckets(c int) *buckets {
	n := 1<<c - 1
	return &buckets{
		nbBuckets: n,
		points:    make([]bls12377.G1Affine, n),
		filled:    make([]bool, n),
		inBatch:   make([]bool, n),
		next:      make([]int32, n),
		last:      make([]int32, n),
		cursor:    make([]int32, n),
		epoch:     make([]uint32, n),
		index:     make([]int32, 0, batchSize),
		adds:      make([]*bls12377.G1Affine, 0, batchSize),
		den:       make([]fp.Element, batchSize),
	}
}

// reset empties the buckets and drops the extra slots.
func (b *buckets) reset() {
	n := b.nbBuckets
	b.points, b.filled, b.inBatch, b.next = b.points[:n], b.filled[:n], b.inBatch[:n], b.next[:n]
	clear(b.filled)
	for k := range n {
		b.next[k] = -1
		b.last[k] = int32(k)
	}
	b.batch++ // every cursor is stale
}

// add adds p to bucket k: a copy into an empty slot, or a place in the
// batch for the first slot of the bucket not already in it (slot k, then
// its extra slots in order), a new extra slot when all are.
func (b *buckets) add(k int32, p *bls12377.G1Affine) {
	s := k
	if b.filled[k] && b.inBatch[k] {
		if s = b.extra(k, p); s < 0 {
			return
		}
	}
	if !b.filled[s] {
		b.points[s] = *p
		b.filled[s] = true
		return
	}
	b.inBatch[s] = true
	b.index = append(b.index, s)
	b.adds = append(b.adds, p)
	if len(b.index) == batchSize {
		b.flush()
	}
}

// extra returns the extra slot of bucket k that p goes to, empty or not
// in the batch, or −1 when p took a new slot at the end of the chain.
func (b *buckets) extra(k int32, p *bls12377.G1Affine) int32 {
	s := b.next[k]
	if b.epoch[k] == b.batch {
		s = b.cursor[k]
	}
	b.epoch[k] = b.batch
	for ; s >= 0; s = b.next[s] {
		switch {
		case !b.filled[s]:
			b.cursor[k] = s
			return s
		case !b.inBatch[s]:
			b.cursor[k] = b.next[s]
			return s
		}
	}
	n := int32(len(b.points))
	b.next[b.last[k]] = n
	b.last[k] = n
	b.points = append(b.points, *p)
	b.filled = append(b.filled, true)
	b.inBatch = append(b.inBatch, false)
	b.next = append(b.next, -1)
	b.cursor[k] = n
	return -1
}

// flush performs the batch's additions, B ← B + P, with one inversion:
// λ = (y_P − y_B)/(x_P − x_B), x = λ² − x_B − x_P, y = λ·(x_B − x) − y_B.
// Equal abscissas (P = ±B) are rare and take the Jacobian formulas.
func (b *buckets) flush() {
	n := len(b.index)
	if n == 0 {
		return
	}
	den := b.den[:n]
	var prod, one fp.Element
	one.SetOne()
	prod.SetOne()
	// den[j] holds the product of the denominators before j.
	for j, k := range b.index {
		var d fp.Element
		d.Sub(&b.adds[j].X, &b.points[k].X)
		if d.IsZero() {
			d = one
		}
		den[j] = prod
		prod.Mul(&prod, &d)
	}
	var inv fp.Element
	inv.Inverse(&prod)
	for j := n - 1; j >= 0; j-- {
		k := b.index[j]
		B, P := &b.points[k], b.adds[j]
		var d fp.Element
		d.Sub(&P.X, &B.X)
		if d.IsZero() {
			d = one
			b.addSpecial(k, P)
		} else {
			var lambda, x, y fp.Element
			lambda.Mul(&inv, &den[j]) // 1/(x_P − x_B)
			inv.Mul(&inv, &d)
			y.Sub(&P.Y, &B.Y)
			lambda.Mul(&lambda, &y)
			x.Square(&lambda)
			x.Sub(&x, &B.X)
			x.Sub(&x, &P.X)
			y.Sub(&B.X, &x)
			y.Mul(&y, &lambda)
			y.Sub(&y, &B.Y)
			B.X, B.Y = x, y
			continue
		}
		inv.Mul(&inv, &d)
	}
	for _, k := range b.index {
		b.inBatch[k] = false
	}
	b.index = b.index[:0]
	b.batch++
	b.adds = b.adds[:0]
}

// addSpecial adds P to bucket k when their abscissas are equal: a
// doubling, or the point at infinity (the bucket is emptied).
func (b *buckets) addSpecial(k int32, P *bls12377.G1Affine) {
	B := &b.points[k]
	if !B.Y.Equal(&P.Y) {
		b.filled[k] = false
		return
	}
	var j bls12377.G1Jac
	j.FromAffine(B)
	j.DoubleAssign()
	B.FromJacobian(&j)
}

// reduce returns Σₖ (k + 1)·bucket k (the sum of its slots) as running
// sums from the top bucket.
func (b *buckets) reduce() bls12377.G1Jac {
	var running, total bls12377.G1Jac
	running.X.SetOne()
	running.Y.SetOne()
	total.X.SetOne()
	total.Y.SetOne()
	for k := b.nbBuckets - 1; k >= 0; k-- {
		for s := int32(k); s >= 0; s = b.next[s] {
			if b.filled[s] {
				running.AddMixed(&b.points[s])
			}
		}
		if !running.Z.IsZero() {
			total.AddAssign(&running)
		}
	}
	return total
}
