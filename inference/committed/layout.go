package committed

import (
	"fmt"
	"math/big"
	"sort"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// limbWidths are the widths a layout's range-check limbs may have
// ([Layout.LimbBits]): values are decomposed into limbs of that many bits
// (the top limb narrower), looked up in Range(LimbBits) and the narrower
// ranges; a limb is held in 2 bytes. With 16 bits the windows of the
// model's activations (16 bits) and of its scores and logits (31 bits)
// need no top limb of one bit, which made a fifth of GPT-2 small's
// lookups with 15-bit limbs and kept its lookup cubes twice as large; but
// Range(16) takes 2¹⁶ rows of the table set where Range(15) takes 2¹⁵,
// which doubles the set of a small model (docs/measurements.md, "The
// lookups' fill"). Each layout takes the width whose lookup instance is
// the smaller.
var limbWidths = []int{15, 16}

// MaxLimbs bounds the limbs of one value (a window of at most
// 4·[Layout.LimbBits] bits).
const MaxLimbs = 4

// limbRows is the number of limb rows of the limb MLE: MaxLimbs rows for
// the lower decomposition v − Min, MaxLimbs for the upper Max − v.
const limbRows = 2 * MaxLimbs

// Block is one tensor of the stacked MLE: its entries in the per-dimension
// zero-padded layout of its shape (poly.PaddedIndices) at rows
// [Offset, Offset + 2^NbVars) of the stacked table.
type Block struct {
	Tensor *model.Tensor
	NbVars int
	Offset int
	// Bits is the width of the window [Min, Min + 2^Bits) of the tensor
	// (transcript.Layout); Exact is set when the upper bound Max is
	// checked too (Max < Min + 2^Bits − 1).
	Bits  int
	Exact bool
}

// Layout is the stacking of a segment's committed tensors into one MLE of
// NbVars variables.
type Layout struct {
	NbVars int
	Blocks []Block
	// Index maps a tensor (by address) to its block.
	Index map[*model.Tensor]int
	// Boundary is the block of the residual stream handed to the next
	// segment (−1 in a segment with the LM head).
	Boundary int
	// Functions are the segment's table applications (applications
	// order).
	Functions []Function
	// View is the trace the layout stacks the tensors of: the pass's, or
	// a chunk's view of it (headChunk). The segment's steps are computed
	// on it.
	View *model.Trace
	// Vocab is the vocabulary size (the pass's logits' columns).
	Vocab int
	// Margins is the argmax margins tensor of a segment with the LM head
	// (nil in the others), see marginsTensor; Targets holds each row's
	// argmax U_i over the whole vocabulary and Chosen its logit L[i][U_i]
	// (of the pass's logits: meaningless on a shape pass).
	Margins *model.Tensor
	Targets []int
	Chosen  []int64
	// Norms are the segment's norms with their auxiliary tensors
	// (walkNorms order).
	Norms []*normAux
	// Softmax are the segment's attentions with their auxiliary tensors
	// (one per block).
	Softmax []*softmaxAux
	// Slots are the regions of the lookup cube (LookupVars variables):
	// every limb row a block uses, over the block's entries, and every
	// table application, over its input block's entries.
	Slots      []Slot
	LookupVars int
	// LimbBits is the width of the limbs, 15 or 16 bits: the one
	// whose lookup cube and table set have the fewest entries together
	// (the first on a tie), among those that decompose every window in
	// [MaxLimbs] limbs.
	LimbBits int
}

// Slot is a region of the lookup cube: 2^NbVars entries (those of block
// Block's MLE) at [Offset, Offset + 2^NbVars), holding limb row Row of
// the block (Function < 0) or the table application Function on it.
type Slot struct {
	Block, Row, Function int
	NbVars, Offset       int
}

// NewLayout stacks the opened tensors of segment seg of the pass tr
// (inference.WalkSegment order), then in a segment with the LM head the
// argmax margins of every row's target, into blocks aligned to
// their sizes, largest first (ties in that order).
//
// A chunk segment (inference.Segment.Chunk) stacks the tensors of its view
// of tr (headChunk): its columns of the LM head, and the margins over
// them against the chosen logits of the whole vocabulary.
func NewLayout(tr *model.Trace, seg inference.Segment, pass Pass, opts ...Option) (*Layout, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if err := checkSegment(seg, len(tr.Layers), tr.Logits().Shape[1]); err != nil {
		return nil, err
	}
	full := tr
	tr = headChunk(tr, seg)
	exact := map[*model.Tensor]bool{}
	inference.WalkExact(tr, seg, func(t *model.Tensor) { exact[t] = true })
	var tensors []*model.Tensor
	inference.WalkSegment(tr, seg, func(t *model.Tensor) { tensors = append(tensors, t) })
	var norms []*normAux
	walkNorms(tr, seg, func(n *model.Norm, in *model.Tensor) {
		a := newNormAux(n, in)
		norms = append(norms, a)
		tensors = append(tensors, a.tensors()...)
		if tr.Family == model.GPT2 {
			// Σ = n·Mean + MeanRem fixes the mean only with MeanRem < n.
			exact[&n.MeanRem] = true
		}
	})
	var softmax []*softmaxAux
	walkAttentions(tr, seg, func(a *model.Attention) {
		x := newSoftmaxAux(a)
		softmax = append(softmax, x)
		tensors = append(tensors, x.tensors()...)
	})
	apps := applications(tr, seg, norms, softmax)
	for _, a := range apps {
		// A function table's rows past its domain repeat its last output
		// with the next keys: its inputs are checked against their exact
		// range.
		exact[a.in] = true
	}
	var margins *model.Tensor
	var targets []int
	var chosen []int64
	if seg.HasHead(len(tr.Layers)) {
		if err := checkPass(pass, full.Logits().Shape[1]); err != nil {
			return nil, err
		}
		if rows := tr.Logits().Shape[0]; rows != pass.Rows {
			return nil, fmt.Errorf("committed: a pass of %d rows for a request of a bucket of %d", rows, pass.Rows)
		}
		lo, hi := vocabRange(seg, full)
		targets = rowTargets(full, pass)
		chosen = chosenLogits(full, targets)
		margins = marginsTensor(full, targets, lo, hi)
		tensors = append(tensors, margins)
	}
	var blocks []Block
	for _, t := range tensors {
		if err != nil {
			break
		}
		_, total, e := poly.TensorVars(t.Shape)
		if e != nil {
			err = fmt.Errorf("committed: tensor %s: %w", t.Name, e)
			continue
		}
		l, e := transcript.Layout(t.Min, t.Max, 254)
		if e != nil {
			err = fmt.Errorf("committed: tensor %s: %w", t.Name, e)
			continue
		}
		if l.Bits > MaxLimbs*limbWidths[len(limbWidths)-1] {
			err = fmt.Errorf("committed: tensor %s: a window of %d bits", t.Name, l.Bits)
			continue
		}
		ex := exact[t] && l.Bits > 0 && uint64(t.Max-t.Min) != uint64(1)<<l.Bits-1
		blocks = append(blocks, Block{Tensor: t, NbVars: total, Bits: int(l.Bits), Exact: ex})
	}
	if err != nil {
		return nil, err
	}
	if len(blocks) == 0 {
		return nil, fmt.Errorf("committed: segment [%d, %d) has no opened tensor", seg.From, seg.To)
	}
	sort.SliceStable(blocks, func(a, b int) bool { return blocks[a].NbVars > blocks[b].NbVars })
	l := &Layout{View: tr, Vocab: full.Logits().Shape[1], Blocks: blocks, Index: map[*model.Tensor]int{}, Boundary: -1, Margins: margins, Targets: targets, Chosen: chosen, Norms: norms, Softmax: softmax}
	off := 0
	for i := range l.Blocks {
		l.Blocks[i].Offset = off
		off += 1 << l.Blocks[i].NbVars
		l.Index[l.Blocks[i].Tensor] = i
	}
	l.NbVars = max(poly.Log2Ceil(off), 1)
	if !seg.HasHead(len(tr.Layers)) {
		l.Boundary = l.Index[&tr.Layers[seg.To-1].Output]
	}
	if l.Functions, err = functionsOf(apps, l); err != nil {
		return nil, err
	}
	if err := l.chooseLimbBits(cfg.limbBits); err != nil {
		return nil, err
	}
	return l, nil
}

// chooseLimbBits sets LimbBits (see [Layout.LimbBits]), to force when it
// is not 0, and places the lookup slots for it.
func (l *Layout) chooseLimbBits(force int) error {
	widest := 0
	for b := range l.Blocks {
		widest = max(widest, l.Blocks[b].Bits)
	}
	best, cost := 0, 0
	var slots []Slot
	vars := 0
	for _, w := range limbWidths {
		if force != 0 && w != force {
			continue
		}
		if widest > MaxLimbs*w {
			continue
		}
		l.LimbBits = w
		l.placeSlots()
		set, _, err := TableSet(l)
		if err != nil {
			return err
		}
		if c := 1<<l.LookupVars + 1<<set.NbVars; best == 0 || c < cost {
			best, cost, slots, vars = w, c, l.Slots, l.LookupVars
		}
	}
	if best == 0 {
		return fmt.Errorf("committed: no limb width of %v decomposes a window of %d bits in %d limbs", limbWidths, widest, MaxLimbs)
	}
	l.LimbBits, l.Slots, l.LookupVars = best, slots, vars
	return nil
}

// placeSlots lists the lookup slots — per block its used limb rows in
// order, then the table applications — and places them in the lookup
// cube aligned to their sizes, largest first (ties in that order).
func (l *Layout) placeSlots() {
	var slots []Slot
	for b := range l.Blocks {
		for j := range limbRows {
			if l.limbWidth(b, j) != 0 {
				slots = append(slots, Slot{Block: b, Row: j, Function: -1, NbVars: l.Blocks[b].NbVars})
			}
		}
	}
	for f, fn := range l.Functions {
		slots = append(slots, Slot{Block: fn.In, Row: -1, Function: f, NbVars: l.Blocks[fn.In].NbVars})
	}
	sort.SliceStable(slots, func(a, b int) bool { return slots[a].NbVars > slots[b].NbVars })
	off := 0
	for i := range slots {
		slots[i].Offset = off
		off += 1 << slots[i].NbVars
	}
	l.Slots = slots
	l.LookupVars = max(poly.Log2Ceil(off), 1)
}

// slotIndicator returns the MLE at point (LookupVars coordinates) of the
// indicator of slot k's region.
func (l *Layout) slotIndicator(k int, point []fr.Element) fr.Element {
	s := &l.Slots[k]
	return regionIndicator(s.Offset, s.NbVars, l.LookupVars, point)
}

// regionIndicator returns eq(bits of offset / 2^k, point[:n−k]): the MLE
// at point (n coordinates) of the indicator of the aligned region of 2^k
// entries at offset.
func regionIndicator(offset, k, n int, point []fr.Element) fr.Element {
	leading := n - k
	idx := offset >> k
	var res, f fr.Element
	res.SetOne()
	for i := range leading {
		if idx>>(leading-1-i)&1 == 1 {
			f = point[i]
		} else {
			f.SetOne()
			f.Sub(&f, &point[i])
		}
		res.Mul(&res, &f)
	}
	return res
}

// slotLocal is the last NbVars coordinates of a lookup point: slot k's
// local coordinates.
func (l *Layout) slotLocal(k int, point []fr.Element) []fr.Element {
	return point[l.LookupVars-l.Slots[k].NbVars:]
}

// prefixBits returns the leading NbVars − k coordinates that select block b:
// the bits of Offset / 2^k, most significant first.
func (l *Layout) prefixBits(b int) (bits []int) {
	blk := &l.Blocks[b]
	leading := l.NbVars - blk.NbVars
	idx := blk.Offset >> blk.NbVars
	bits = make([]int, leading)
	for i := range leading {
		bits[i] = idx >> (leading - 1 - i) & 1
	}
	return bits
}

// Point returns the point of the stacked MLE at which its value is that
// of block b's MLE at local (NbVars of the block coordinates).
func (l *Layout) Point(b int, local []fr.Element) []fr.Element {
	bits := l.prefixBits(b)
	out := make([]fr.Element, 0, l.NbVars)
	for _, v := range bits {
		out = append(out, field.FromInt64[fr.Element](int64(v)))
	}
	return append(out, local...)
}

// indicator returns eq(prefix of block b, point[:leading]): the MLE at point
// of the indicator of block b's rows.
func (l *Layout) indicator(b int, point []fr.Element) fr.Element {
	blk := &l.Blocks[b]
	return regionIndicator(blk.Offset, blk.NbVars, l.NbVars, point)
}

// valid returns the MLE at point of the indicator of block b's valid
// (unpadded) entries.
func (l *Layout) valid(b int, point []fr.Element) fr.Element {
	blk := &l.Blocks[b]
	ind := l.indicator(b, point)
	if blk.NbVars == 0 {
		return ind
	}
	sel := lookup.Selector[fr.Element](blk.Tensor.Shape, point[l.NbVars-blk.NbVars:])
	ind.Mul(&ind, &sel)
	return ind
}

// blockSum returns Σ_b c(b)·valid_b(point) over the blocks with c(b) ≠ 0.
func (l *Layout) blockSum(point []fr.Element, c func(b int) *big.Int) fr.Element {
	var res, v, t fr.Element
	for b := range l.Blocks {
		k := c(b)
		if k.Sign() == 0 {
			continue
		}
		v = l.valid(b, point)
		t.SetBigInt(k)
		v.Mul(&v, &t)
		res.Add(&res, &v)
	}
	return res
}

// blockGenerators returns the tables Σ_b cₖ(b)·valid_b over the cube, one
// per column cₖ, as generators of the zero-check (sumcheck.Generate): an
// entry is its block's constant, read through a table of each entry's
// block (2 bytes an entry, where a stored table takes 32), so that the
// tables are never built. Their zero granules are those where every
// entry is padding or in a block whose constant is zero.
func (l *Layout) blockGenerators(cols []func(b int) *big.Int) ([]sumcheck.Generator[fr.Element], error) {
	if len(l.Blocks) >= 1<<16-1 {
		return nil, fmt.Errorf("committed: %d blocks, more than a block table holds", len(l.Blocks))
	}
	size := 1 << l.NbVars
	// owner[i] is 1 + the block whose valid entry i is, 0 on padding.
	owner := hugepage.Make[uint16](size)
	for b := range l.Blocks {
		idx, err := poly.PaddedIndices(l.Blocks[b].Tensor.Shape)
		if err != nil {
			return nil, err
		}
		dst := owner[l.Blocks[b].Offset:]
		parallel.Execute(len(idx), fillChunk, func(start, end int) {
			for _, i := range idx[start:end] {
				dst[i] = uint16(b + 1)
			}
		})
	}
	// values[k][1+b] = cₖ(b), values[k][0] = 0; zero[k][b] when it is 0.
	values := make([][]fr.Element, len(cols))
	nonzero := make([][]bool, len(cols))
	for k, c := range cols {
		values[k] = make([]fr.Element, 1+len(l.Blocks))
		nonzero[k] = make([]bool, 1+len(l.Blocks))
		for b := range l.Blocks {
			v := c(b)
			values[k][1+b].SetBigInt(v)
			nonzero[k][1+b] = v.Sign() != 0
		}
	}
	var zero [][]bool
	if g := size / poly.Granule; g >= 2 {
		zero = make([][]bool, len(cols))
		for k := range zero {
			zero[k] = make([]bool, g)
		}
		parallel.Execute(g, 64, func(start, end int) {
			for q := start; q < end; q++ {
				for k := range cols {
					zero[k][q] = true
				}
				last := -1
				for _, o := range owner[q*poly.Granule : (q+1)*poly.Granule] {
					if int(o) == last {
						continue
					}
					last = int(o)
					for k := range cols {
						if nonzero[k][o] {
							zero[k][q] = false
						}
					}
				}
			}
		})
	}
	gens := make([]sumcheck.Generator[fr.Element], len(cols))
	for k := range cols {
		v := values[k]
		gens[k].Fill = func(dst []fr.Element, start int) {
			for i, o := range owner[start : start+len(dst)] {
				dst[i] = v[o]
			}
		}
		if zero != nil {
			gens[k].Zero = zero[k]
		}
	}
	return gens, nil
}

// Table returns the stacked table of the tensors' current values.
func (l *Layout) Table() ([]fr.Element, error) {
	out := hugepage.Make[fr.Element](1 << l.NbVars)
	for b := range l.Blocks {
		if err := fillPadded(blockOf(l, out, b), l.Blocks[b].Tensor); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// fillChunk is the number of a tensor's values one core converts at a
// time when a table is filled.
const fillChunk = 1 << 14

// fillPadded writes t's values into dst at their per-dimension padded
// indices (poly.PaddedIndices), on every core; the other entries are left
// as they are.
func fillPadded(dst []fr.Element, t *model.Tensor) error {
	idx, err := poly.PaddedIndices(t.Shape)
	if err != nil {
		return err
	}
	if len(idx) != len(t.Data) {
		return fmt.Errorf("committed: tensor %s has %d values for shape %v", t.Name, len(t.Data), t.Shape)
	}
	parallel.Execute(len(idx), fillChunk, func(start, end int) {
		for k := start; k < end; k++ {
			dst[idx[k]].SetInt64(t.Data[k])
		}
	})
	return nil
}

// blockOf is block b's slice of the stacked table.
func blockOf(l *Layout, stacked []fr.Element, b int) []fr.Element {
	blk := &l.Blocks[b]
	return stacked[blk.Offset : blk.Offset+1<<blk.NbVars]
}

// limbs returns the number of limbs of width w of a window of the given
// bits and the width of the top limb.
func limbs(bits, w int) (count, top int) {
	if bits == 0 {
		return 0, 0
	}
	count = (bits + w - 1) / w
	return count, bits - w*(count-1)
}

// limbWidth returns the range width of limb row j of block b, 0 when the
// row is unused by the block.
func (l *Layout) limbWidth(b, j int) int {
	blk := &l.Blocks[b]
	if j >= MaxLimbs && !blk.Exact {
		return 0
	}
	count, top := limbs(blk.Bits, l.LimbBits)
	j %= MaxLimbs
	switch {
	case j < count-1:
		return l.LimbBits
	case j == count-1:
		return top
	}
	return 0
}

// limbWeight is 2^(LimbBits·(j mod MaxLimbs)) when row j is used by block b, else 0.
func (l *Layout) limbWeight(b, j int) *big.Int {
	if l.limbWidth(b, j) == 0 {
		return new(big.Int)
	}
	return new(big.Int).Lsh(big.NewInt(1), uint(l.LimbBits*(j%MaxLimbs)))
}

// Widths returns the distinct limb widths the layout uses, LimbBits
// first.
func (l *Layout) Widths() []int {
	seen := map[int]bool{l.LimbBits: true}
	out := []int{l.LimbBits}
	for b := range l.Blocks {
		for j := range limbRows {
			if w := l.limbWidth(b, j); w != 0 && !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	sort.Ints(out[1:])
	return out
}

// LimbTable returns the limb rows of the tensors' current values, one
// after the other (limbRows rows of 2^NbVars entries, each committed on
// its own and aligned with the stacked MLE): row j < MaxLimbs holds limb
// j of v − Min, row MaxLimbs + j limb j of Max − v for the exact blocks,
// each limb (LimbBits bits) in 2 bytes. It fails if a value is outside
// its window (or, for exact blocks, above Max).
func (l *Layout) LimbTable() ([]uint16, error) {
	size := 1 << l.NbVars
	out := hugepage.Make[uint16](limbRows * size)
	for b := range l.Blocks {
		blk := &l.Blocks[b]
		t := blk.Tensor
		idx, err := poly.PaddedIndices(t.Shape)
		if err != nil {
			return nil, err
		}
		var rows []int // the limb rows the block uses
		for j := range limbRows {
			if l.limbWidth(b, j) != 0 {
				rows = append(rows, j)
			}
		}
		// The values are split on every core; each chunk keeps its first
		// failure, and the first chunk's is reported.
		chunks := (len(idx) + fillChunk - 1) / fillChunk
		errs := make([]error, chunks)
		parallel.Execute(chunks, 1, func(start, end int) {
			for c := start; c < end; c++ {
				for k := c * fillChunk; k < min((c+1)*fillChunk, len(idx)); k++ {
					v, i := t.Data[k], idx[k]
					lo := uint64(v) - uint64(t.Min)
					if v < t.Min || (blk.Bits < 64 && lo>>blk.Bits != 0) {
						errs[c] = fmt.Errorf("committed: %s[%d] = %d outside [%d, %d + 2^%d)", t.Name, k, v, t.Min, t.Min, blk.Bits)
						break
					}
					hi := uint64(t.Max) - uint64(v)
					if blk.Exact && v > t.Max {
						errs[c] = fmt.Errorf("committed: %s[%d] = %d above its range's maximum %d", t.Name, k, v, t.Max)
						break
					}
					for _, j := range rows {
						x := lo
						if j >= MaxLimbs {
							x = hi
						}
						out[j*size+blk.Offset+i] = uint16(x >> (l.LimbBits * (j % MaxLimbs)) & (1<<l.LimbBits - 1))
					}
				}
			}
		})
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
