package split

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/tuneinsight/lattigo/v5/core/rlwe"
	"github.com/tuneinsight/lattigo/v5/schemes/ckks"

	"github.com/veriformer/veriformer/model"
)

// block is one piece of a projection: output rows [Out.Start, +Out.Len)
// of the weight matrix against input columns [In.Start, +In.Len).
type block struct {
	W       *model.Weight
	In, Out span
	// Folds is 0 for the plain diagonal method and log₂(In.Len/Out.Len)
	// for the hybrid one (see doc.go, "Packing and products").
	Folds int
}

// newBlock picks the method: the hybrid one when Out.Len divides In.Len
// with a power-of-two ratio of at least 2 and the fold rotations (by
// multiples of Out.Len) have keys, which needs fewer diagonals.
func (l *Layout) newBlock(w *model.Weight, in, out span) block {
	b := block{W: w, In: in, Out: out}
	m, n := out.Len, in.Len
	if m < n && n%m == 0 && m%l.Baby == 0 {
		if r := n / m; r&(r-1) == 0 {
			for ; r > 1; r /= 2 {
				b.Folds++
			}
		}
	}
	return b
}

// width is the number of slots of a row the diagonals fill (T), and
// diagonals their number (K): T = Out.Len and K = In.Len for the plain
// method, T = In.Len and K = Out.Len for the hybrid one.
func (b *block) width() int {
	if b.Folds > 0 {
		return b.In.Len
	}
	return b.Out.Len
}

func (b *block) diagonals() int {
	if b.Folds > 0 {
		return b.Out.Len
	}
	return b.In.Len
}

// diagonal writes into v the k-th generalized diagonal of b, pre-rotated
// by −shift for the giant step: with the input piece packed periodically
// (slot s holds x[In.Start + s mod In.Len]),
//
//	diag_k[t] = W[Out.Start + t mod Out.Len][In.Start + (t+k) mod In.Len]   for t < T, else 0,
//
// and v[s] = diag_k[(s − shift) mod Slots].
func (b *block) diagonal(v []float64, k, shift int) {
	slots := len(v)
	in := b.W.Shape[1]
	width := b.width()
	for s := range v {
		t := (s - shift + slots) % slots
		if t >= width {
			v[s] = 0
			continue
		}
		row := b.Out.Start + t%b.Out.Len
		col := b.In.Start + (t+k)%b.In.Len
		v[s] = float64(b.W.Data[row*in+col])
	}
}

// projector evaluates the encrypted projections of one session. It is
// not safe for concurrent use; its evaluator holds the session's keys.
type projector struct {
	layout *Layout
	eval   *ckks.Evaluator
	enc    *ckks.Encoder
	// workers is the number of goroutines of one product.
	workers int
}

func newProjector(l *Layout, keys rlwe.EvaluationKeySet, workers int) *projector {
	return &projector{layout: l, eval: ckks.NewEvaluator(l.Params, keys), enc: ckks.NewEncoder(l.Params), workers: max(1, workers)}
}

// babySteps returns rot_j(ct) for j < Baby (index 0 is ct itself), with
// one hoisted key-switching decomposition for all of them.
func (p *projector) babySteps(ct *rlwe.Ciphertext) ([]*rlwe.Ciphertext, error) {
	l := p.layout
	steps := make([]int, l.Baby-1)
	for j := range steps {
		steps[j] = j + 1
	}
	rots := make([]*rlwe.Ciphertext, l.Baby)
	rots[0] = ct
	if len(steps) == 0 {
		return rots, nil
	}
	out, err := p.eval.RotateHoistedNew(ct, steps)
	if err != nil {
		return nil, fmt.Errorf("split: baby-step rotations: %w", err)
	}
	for _, j := range steps {
		rots[j] = out[j]
	}
	return rots, nil
}

// task is one output piece of one projection for all ciphertexts: the sum
// over the input pieces of the blocks' products.
type task struct {
	blocks []block
	// out[g] receives the result ciphertext of group g.
	out []*rlwe.Ciphertext
}

// part is a range of giant steps [From, To) (multiples of Baby) of one
// block: the unit of work shared among the goroutines of a product.
type part struct {
	b        *block
	piece    int
	From, To int
	// sum[r] is the part's partial sum for group r.
	sum []*rlwe.Ciphertext
}

// partial computes, for every group r of rows, the giant steps of pt of
// the baby-step/giant-step diagonal method
//
//	z = Σ_g rot_{g·B}( Σ_{j<B} rot_{−g·B}(diag_{g·B+j}) ⊙ rot_j(x) )
//
// on the group's input piece (baby-step rotations rots[r][piece]). Each
// diagonal is encoded once and used for all groups.
func (p *projector) partial(eval *ckks.Evaluator, enc *ckks.Encoder, pt *part, rots [][][]*rlwe.Ciphertext) error {
	l := p.layout
	params := l.Params
	rows := len(rots)
	q1 := rlwe.NewScale(params.Q()[inLevel])
	prodScale := nominalScale(params).Mul(q1)
	pt.sum = make([]*rlwe.Ciphertext, rows)
	inner := make([]*rlwe.Ciphertext, rows)
	rotated := l.newCiphertext(inLevel, prodScale)
	for r := range rows {
		pt.sum[r] = l.newCiphertext(inLevel, prodScale)
		inner[r] = l.newCiphertext(inLevel, prodScale)
	}
	v := make([]float64, l.Slots)
	buf := make([]complex128, l.Slots)
	diag := ckks.NewPlaintext(params, inLevel)
	diag.LogDimensions = l.dims()
	diag.Scale = q1
	b := pt.b
	k := b.diagonals()
	for g := pt.From; g < pt.To; g += l.Baby {
		for r := range rows {
			zero(inner[r])
		}
		for j := 0; j < l.Baby && g+j < k; j++ {
			b.diagonal(v, g+j, g)
			if err := l.encodeSmall(enc, buf, v, diag); err != nil {
				return fmt.Errorf("split: encode diagonal: %w", err)
			}
			for r := range rows {
				if err := eval.MulThenAdd(rots[r][pt.piece][j], diag, inner[r]); err != nil {
					return fmt.Errorf("split: multiply diagonal: %w", err)
				}
			}
		}
		for r := range rows {
			if err := addRotated(eval, pt.sum[r], inner[r], g, rotated); err != nil {
				return err
			}
		}
	}
	return nil
}

// finish sums the parts of each block of t, folds the hybrid blocks
// (y[j] = Σ_c z[j + c·Out.Len], by halving the width), adds the blocks
// and rescales once.
func (p *projector) finish(t *task, parts []*part) error {
	l := p.layout
	eval := p.eval
	prodScale := nominalScale(l.Params).Mul(rlwe.NewScale(l.Params.Q()[inLevel]))
	rotated := l.newCiphertext(inLevel, prodScale)
	for r := range t.out {
		acc := l.newCiphertext(inLevel, prodScale)
		for bi := range t.blocks {
			b := &t.blocks[bi]
			sum := l.newCiphertext(inLevel, prodScale)
			for _, pt := range parts {
				if pt.b == b {
					if err := eval.Add(sum, pt.sum[r], sum); err != nil {
						return fmt.Errorf("split: add: %w", err)
					}
				}
			}
			for f := b.In.Len / 2; b.Folds > 0 && f >= b.Out.Len; f /= 2 {
				if err := addRotated(eval, sum, sum, f, rotated); err != nil {
					return err
				}
			}
			if err := eval.Add(acc, sum, acc); err != nil {
				return fmt.Errorf("split: add: %w", err)
			}
		}
		out := l.newCiphertext(outLevel, nominalScale(l.Params))
		if err := eval.Rescale(acc, out); err != nil {
			return fmt.Errorf("split: rescale: %w", err)
		}
		t.out[r] = out
	}
	return nil
}

// encodeSmall encodes the real values v (len Slots, |v| ≤ 2⁷) into pt as
// [ckks.Encoder.Encode] does (inverse special FFT, coefficients rounded
// half away from zero at pt's scale, then NTT), without the encoder's
// per-coefficient reductions: every scaled coefficient is below 2⁶³, so
// one remainder per modulus suffices. buf is scratch of len Slots.
func (l *Layout) encodeSmall(enc *ckks.Encoder, buf []complex128, v []float64, pt *rlwe.Plaintext) error {
	for i, x := range v {
		buf[i] = complex(x, 0)
	}
	if err := enc.IFFT(buf, l.LogSlots); err != nil {
		return fmt.Errorf("split: encode: %w", err)
	}
	ringQ := l.Params.RingQ().AtLevel(pt.Level())
	moduli := ringQ.ModuliChain()[:pt.Level()+1]
	scale := pt.Scale.Float64()
	coeffs := pt.Value.Coeffs
	set := func(i int, f float64) {
		c := uint64(math.Abs(f)*scale + 0.5)
		for j, q := range moduli {
			r := c % q
			if f < 0 && r != 0 {
				r = q - r
			}
			coeffs[j][i] = r
		}
	}
	n := len(buf)
	for i, z := range buf {
		set(i, real(z))
		set(i+n, imag(z))
	}
	for j := range moduli {
		clear(coeffs[j][2*n:])
	}
	rlwe.NTTSparseAndMontgomery(ringQ, pt.MetaData, pt.Value)
	return nil
}

// addRotated sets dst += rot_k(src) (dst += src for k = 0), with tmp as
// scratch.
func addRotated(eval *ckks.Evaluator, dst, src *rlwe.Ciphertext, k int, tmp *rlwe.Ciphertext) error {
	if k > 0 {
		if err := eval.Rotate(src, k, tmp); err != nil {
			return fmt.Errorf("split: rotate by %d: %w", k, err)
		}
		src = tmp
	}
	if err := eval.Add(dst, src, dst); err != nil {
		return fmt.Errorf("split: add: %w", err)
	}
	return nil
}

func zero(ct *rlwe.Ciphertext) {
	for _, p := range ct.Value {
		for _, limb := range p.Coeffs {
			clear(limb)
		}
	}
}

// project computes a round for all rows. in holds, group after group of
// rows, the ciphertexts of the group's input pieces; the result holds,
// group after group, the output pieces of each projection in order. Row i
// of a group sits in slots [i·Slots, (i+1)·Slots) of every ciphertext:
// since each diagonal plaintext repeats with period Slots and no rotation
// of a block moves a used slot across a period (In.Len + Out.Len − 1 ≤
// Slots), one product serves every row of the group.
func (p *projector) project(ps []projection, rows int, in []*rlwe.Ciphertext) ([]*rlwe.Ciphertext, error) {
	l := p.layout
	inWidth := ps[0].Q.Weight.Shape[1]
	inPieces := l.pieces(inWidth)
	groups := l.groups(rows)
	if len(in) != groups*len(inPieces) {
		return nil, fmt.Errorf("split: %d input ciphertexts for %d rows of %d pieces", len(in), rows, len(inPieces))
	}
	rots := make([][][]*rlwe.Ciphertext, groups)
	for r := range groups {
		rots[r] = make([][]*rlwe.Ciphertext, len(inPieces))
		for k := range inPieces {
			var err error
			if rots[r][k], err = p.babySteps(in[r*len(inPieces)+k]); err != nil {
				return nil, err
			}
		}
	}
	pieceOf := func(s span) int { return s.Start / l.Chunk }
	var tasks []*task
	for _, pr := range ps {
		for _, out := range l.outPieces(inWidth, pr.Q.Weight.Shape[0]) {
			t := &task{out: make([]*rlwe.Ciphertext, groups)}
			for _, s := range inPieces {
				t.blocks = append(t.blocks, l.newBlock(&pr.Q.Weight, s, out))
			}
			tasks = append(tasks, t)
		}
	}
	// Each block's giant steps are split among the workers.
	var parts []*part
	for _, t := range tasks {
		for bi := range t.blocks {
			b := &t.blocks[bi]
			giant := (b.diagonals() + l.Baby - 1) / l.Baby
			n := min(giant, p.workers)
			for i := range n {
				parts = append(parts, &part{b: b, piece: pieceOf(b.In), From: i * giant / n * l.Baby, To: (i + 1) * giant / n * l.Baby})
			}
		}
	}
	errs := make([]error, len(parts))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(p.workers, len(parts)) {
		wg.Add(1)
		eval, enc := p.eval.ShallowCopy(), p.enc.ShallowCopy()
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = p.partial(eval, enc, parts[i], rots)
			}
		}()
	}
	for i := range parts {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, t := range tasks {
		if err := p.finish(t, parts); err != nil {
			return nil, err
		}
	}
	out := make([]*rlwe.Ciphertext, 0, groups*len(tasks))
	for r := range groups {
		for _, t := range tasks {
			out = append(out, t.out[r])
		}
	}
	return out, nil
}
