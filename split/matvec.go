package split

import (
	"fmt"
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
}

// diagonal writes into v the k-th generalized diagonal of b, pre-rotated
// by −shift for the giant step: with the input piece packed periodically
// (slot s holds x[In.Start + s mod In.Len]),
//
//	diag_k[j] = W[Out.Start+j][In.Start + (j+k) mod In.Len]   for j < Out.Len, else 0,
//
// and v[s] = diag_k[(s − shift) mod Slots].
func (b *block) diagonal(v []float64, k, shift int) {
	slots := len(v)
	in := b.W.Shape[1]
	for s := range v {
		j := (s - shift + slots) % slots
		if j >= b.Out.Len {
			v[s] = 0
			continue
		}
		col := b.In.Start + (j+k)%b.In.Len
		v[s] = float64(b.W.Data[(b.Out.Start+j)*in+col])
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

// babySteps returns rot_j(ct) for j < Baby (index 0 is ct itself).
func (p *projector) babySteps(ct *rlwe.Ciphertext) ([]*rlwe.Ciphertext, error) {
	l := p.layout
	rots := make([]*rlwe.Ciphertext, l.Baby)
	rots[0] = ct
	for j := 1; j < l.Baby; j++ {
		r := l.newCiphertext(inLevel, ct.Scale)
		if err := p.eval.Rotate(ct, j, r); err != nil {
			return nil, fmt.Errorf("split: rotate by %d: %w", j, err)
		}
		rots[j] = r
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

// apply computes, for every group r of rows and every block b of t, the
// product of b with the group's input piece (baby-step rotations
// rots[r][piece]) by the
// baby-step/giant-step diagonal method:
//
//	y = Σ_g rot_{g·B}( Σ_{j<B} rot_{−g·B}(diag_{g·B+j}) ⊙ rot_j(x) )
//
// then rescales once. Each diagonal is encoded once and used for all groups.
func (p *projector) apply(eval *ckks.Evaluator, enc *ckks.Encoder, t *task, rots [][][]*rlwe.Ciphertext, pieceOf func(span) int) error {
	l := p.layout
	params := l.Params
	rows := len(rots)
	q1 := rlwe.NewScale(params.Q()[inLevel])
	inScale := nominalScale(params)
	prodScale := inScale.Mul(q1)
	acc := make([]*rlwe.Ciphertext, rows)
	inner := make([]*rlwe.Ciphertext, rows)
	rotated := l.newCiphertext(inLevel, prodScale)
	for r := range rows {
		acc[r] = l.newCiphertext(inLevel, prodScale)
		inner[r] = l.newCiphertext(inLevel, prodScale)
	}
	v := make([]float64, l.Slots)
	pt := ckks.NewPlaintext(params, inLevel)
	pt.LogDimensions = l.dims()
	pt.Scale = q1
	for _, b := range t.blocks {
		piece := pieceOf(b.In)
		for g := 0; g < b.In.Len; g += l.Baby {
			for r := range rows {
				zero(inner[r])
			}
			for j := 0; j < l.Baby && g+j < b.In.Len; j++ {
				b.diagonal(v, g+j, g)
				if err := enc.Encode(v, pt); err != nil {
					return fmt.Errorf("split: encode diagonal: %w", err)
				}
				for r := range rows {
					if err := eval.MulThenAdd(rots[r][piece][j], pt, inner[r]); err != nil {
						return fmt.Errorf("split: multiply diagonal: %w", err)
					}
				}
			}
			for r := range rows {
				src := inner[r]
				if g > 0 {
					if err := eval.Rotate(inner[r], g, rotated); err != nil {
						return fmt.Errorf("split: rotate by %d: %w", g, err)
					}
					src = rotated
				}
				if err := eval.Add(acc[r], src, acc[r]); err != nil {
					return fmt.Errorf("split: add: %w", err)
				}
			}
		}
	}
	for r := range rows {
		out := l.newCiphertext(outLevel, inScale)
		if err := eval.Rescale(acc[r], out); err != nil {
			return fmt.Errorf("split: rescale: %w", err)
		}
		t.out[r] = out
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
		for _, out := range l.pieces(pr.Q.Weight.Shape[0]) {
			t := &task{out: make([]*rlwe.Ciphertext, groups)}
			for _, s := range inPieces {
				t.blocks = append(t.blocks, block{W: &pr.Q.Weight, In: s, Out: out})
			}
			tasks = append(tasks, t)
		}
	}
	errs := make([]error, len(tasks))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(p.workers, len(tasks)) {
		wg.Add(1)
		eval, enc := p.eval.ShallowCopy(), p.enc.ShallowCopy()
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = p.apply(eval, enc, tasks[i], rots, pieceOf)
			}
		}()
	}
	for i := range tasks {
		next <- i
	}
	close(next)
	wg.Wait()
	out := make([]*rlwe.Ciphertext, 0, groups*len(tasks))
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("split: task %d: %w", i, err)
		}
	}
	for r := range groups {
		for _, t := range tasks {
			out = append(out, t.out[r])
		}
	}
	return out, nil
}
