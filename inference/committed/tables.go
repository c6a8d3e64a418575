package committed

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
)

// FuncTable is an exact integer function over [Lo, Lo + len(Outputs)):
// a model's table (model.Table.Entries) or one of the norms' exponent
// tables.
type FuncTable struct {
	Name    string
	Lo      int64
	Outputs []int64
}

// Function is one table application of a segment, Out = Table(In) entry
// by entry: In and Out are blocks of the stacked MLE, of one shape. Its
// lookups fill a slot of the lookup cube of the input block's size.
type Function struct {
	Table   *FuncTable
	In, Out int
}

// FunctionEval is a function lookup's input and output block MLEs at the
// last coordinates of the lookup's column point.
type FunctionEval struct {
	In, Out fr.Element
}

// application is a table application by its tensors.
type application struct {
	in, out *model.Tensor
	table   *FuncTable
}

// applications lists the table applications of a segment whose input
// and output are both committed, in order: per block the attention
// norm's, the MLP norm's 1/√ and the MLP activation (GELU or SiLU, which
// reads the up or gate projection's output), then the final norm's 1/√
// in the last segment; then each attention's exp table on the low limb
// of its shifted scores (softmax.go); then each norm's exponent tables
// (norms order, see norm.go).
func applications(tr *model.Trace, seg inference.Segment, norms []*normAux, softmax []*softmaxAux) []application {
	tables := map[*model.Table]*FuncTable{}
	of := func(t *model.Table) *FuncTable {
		if f, ok := tables[t]; ok {
			return f
		}
		f := funcTableOf(t)
		tables[t] = f
		return f
	}
	var out []application
	norm := func(n *model.Norm) { out = append(out, application{&n.RSqrt.In, &n.RSqrt.Out, of(n.RSqrt.Table)}) }
	for i := seg.From; i < seg.To; i++ {
		l := &tr.Layers[i]
		norm(&l.AttnNorm)
		norm(&l.MLPNorm)
		in := &l.Up.Out
		if l.Gate != nil {
			in = &l.Gate.Out
		}
		out = append(out, application{in, &l.Activation.Out, of(l.Activation.Table)})
	}
	if seg.HasHead(len(tr.Layers)) {
		norm(&tr.FinalNorm)
	}
	for _, x := range softmax {
		a := x.att
		out = append(out, application{&a.ExpLow.In, &a.ExpLow.Out, of(a.ExpLow.Table)})
	}
	exps := map[string]*FuncTable{}
	for _, a := range norms {
		for _, e := range a.exponentTables() {
			t, ok := exps[e.table.Name]
			if !ok {
				t = e.table
				exps[t.Name] = t
			}
			out = append(out, application{e.in, e.out, t})
		}
	}
	return out
}

// functionsOf resolves the applications' tensors to the layout's blocks.
func functionsOf(apps []application, l *Layout) ([]Function, error) {
	var out []Function
	for _, a := range apps {
		bi, okIn := l.Index[a.in]
		bo, okOut := l.Index[a.out]
		if !okIn || !okOut {
			return nil, fmt.Errorf("committed: table %s: input or output is not committed", a.table.Name)
		}
		if !slices.Equal(a.in.Shape, a.out.Shape) {
			return nil, fmt.Errorf("committed: table %s: input %v and output %v differ in shape", a.table.Name, a.in.Shape, a.out.Shape)
		}
		out = append(out, Function{Table: a.table, In: bi, Out: bo})
	}
	return out, nil
}

// TableIDs names the tables of a segment's lookup set: the range tables
// by width, the function tables by name.
type TableIDs struct {
	Ranges    map[int]int64
	Functions map[string]int64
}

// TableSet returns the table set of a layout's lookups: Range(LimbBits)
// (id 1, also the padding's) then the narrower top-limb widths, then the
// function tables in order of first use.
func TableSet(l *Layout) (*table.Set, *TableIDs, error) {
	ids := &TableIDs{Ranges: map[int]int64{}, Functions: map[string]int64{}}
	var tables []table.Table
	for _, w := range l.Widths() {
		tables = append(tables, table.Range(w))
		ids.Ranges[w] = int64(len(tables))
	}
	for _, f := range l.Functions {
		if _, ok := ids.Functions[f.Table.Name]; ok {
			continue
		}
		t, err := f.Table.table()
		if err != nil {
			return nil, nil, err
		}
		tables = append(tables, t)
		ids.Functions[f.Table.Name] = int64(len(tables))
	}
	s, err := table.NewSet("committed/tables", tables...)
	return s, ids, err
}

// table returns the lookup table of f: its inputs from Lo, its outputs
// padded to a power of two by repeating the last (table.Function).
func (f *FuncTable) table() (table.Table, error) {
	return table.Function(f.Name, f.Lo, f.Outputs)
}

// modelTables lists the function tables of a pass's model, whatever the
// segment (those a [VerifyingKey] commits to), deduplicated by name in
// order of first use: per block the
// attention and MLP norms' 1/√, the activation and the softmax's exp
// table; the final norm's 1/√; then each norm's exponent tables (pow4,
// scale, nonzero) in the same norm order.
func modelTables(tr *model.Trace) []*FuncTable {
	var out []*FuncTable
	seen := map[string]bool{}
	add := func(f *FuncTable) {
		if !seen[f.Name] {
			seen[f.Name] = true
			out = append(out, f)
		}
	}
	var norms []*model.Norm
	for i := range tr.Layers {
		l := &tr.Layers[i]
		norms = append(norms, &l.AttnNorm, &l.MLPNorm)
		add(funcTableOf(l.AttnNorm.RSqrt.Table))
		add(funcTableOf(l.MLPNorm.RSqrt.Table))
		add(funcTableOf(l.Activation.Table))
		add(funcTableOf(l.Attention.ExpLow.Table))
	}
	norms = append(norms, &tr.FinalNorm)
	add(funcTableOf(tr.FinalNorm.RSqrt.Table))
	for _, n := range norms {
		for _, f := range exponentFuncTables(n.MaxExponent) {
			add(f)
		}
	}
	return out
}

// funcTableOf returns a model table's entries as a FuncTable.
func funcTableOf(t *model.Table) *FuncTable {
	lo, _ := t.Domain()
	_, outputs := t.Entries()
	return &FuncTable{Name: t.Name, Lo: lo, Outputs: outputs}
}

// lookupColumns returns the lookups' columns (id, a, b) over the lookup
// cube: a limb slot (b, j) holds limb row j over block b's entries in a
// (b zero), a function slot the input block's values in a and the output
// block's in b; every other entry is the all-zero tuple of Range(LimbBits).
func lookupColumns(l *Layout, ids *TableIDs, limbs []uint16) ([3][]int64, error) {
	size := 1 << l.NbVars
	if len(limbs) != limbRows*size {
		return [3][]int64{}, fmt.Errorf("committed: a limb table of %d entries, want %d", len(limbs), limbRows*size)
	}
	total := 1 << l.LookupVars
	var cols [3][]int64
	cols[0] = idTable(l, ids, total)
	cols[1] = hugepage.Make[int64](total)
	cols[2] = hugepage.Make[int64](total)
	for _, sl := range l.Slots {
		blk := &l.Blocks[sl.Block]
		if sl.Function < 0 {
			row := sl.Row*size + blk.Offset
			dst, src := cols[1][sl.Offset:sl.Offset+1<<sl.NbVars], limbs[row:row+1<<blk.NbVars]
			parallel.Execute(len(dst), fillChunk, func(start, end int) {
				for i := start; i < end; i++ {
					dst[i] = int64(src[i])
				}
			})
			continue
		}
		fn := &l.Functions[sl.Function]
		in, out := blk.Tensor, l.Blocks[fn.Out].Tensor
		idx, err := poly.PaddedIndices(in.Shape)
		if err != nil {
			return cols, err
		}
		if len(in.Data) != len(idx) || len(out.Data) != len(idx) {
			return cols, fmt.Errorf("committed: table %s: %d inputs, %d outputs for shape %v", fn.Table.Name, len(in.Data), len(out.Data), in.Shape)
		}
		parallel.Execute(len(idx), fillChunk, func(start, end int) {
			for k := start; k < end; k++ {
				cols[1][sl.Offset+idx[k]] = in.Data[k]
				cols[2][sl.Offset+idx[k]] = out.Data[k]
			}
		})
	}
	return cols, nil
}

// SlotID is the table id of slot k's valid entries.
func (l *Layout) SlotID(ids *TableIDs, k int) int64 {
	sl := &l.Slots[k]
	if sl.Function >= 0 {
		return ids.Functions[l.Functions[sl.Function].Table.Name]
	}
	return ids.Ranges[l.limbWidth(sl.Block, sl.Row)]
}

// idTable returns the id column of the lookups (total entries): the
// slots' ids at their blocks' valid entries, the padding's elsewhere.
func idTable(l *Layout, ids *TableIDs, total int) []int64 {
	pad := ids.Ranges[l.LimbBits]
	out := hugepage.Make[int64](total)
	parallel.Execute(total, fillChunk, func(start, end int) {
		for i := start; i < end; i++ {
			out[i] = pad
		}
	})
	for k, sl := range l.Slots {
		id := l.SlotID(ids, k)
		idx, _ := poly.PaddedIndices(l.Blocks[sl.Block].Tensor.Shape)
		parallel.Execute(len(idx), fillChunk, func(start, end int) {
			for _, i := range idx[start:end] {
				out[sl.Offset+i] = id
			}
		})
	}
	return out
}

// idEval returns the id column's MLE at point (LookupVars coordinates):
// pad + Σₖ (idₖ − pad)·slotₖ(point)·valid_b(local).
func idEval(l *Layout, ids *TableIDs, point []fr.Element) fr.Element {
	pad := ids.Ranges[l.LimbBits]
	res := field.FromInt64[fr.Element](pad)
	for k, sl := range l.Slots {
		v := l.slotIndicator(k, point)
		if sl.NbVars > 0 {
			sel := lookup.Selector[fr.Element](l.Blocks[sl.Block].Tensor.Shape, l.slotLocal(k, point))
			v.Mul(&v, &sel)
		}
		d := field.FromInt64[fr.Element](l.SlotID(ids, k) - pad)
		v.Mul(&v, &d)
		res.Add(&res, &v)
	}
	return res
}

// lookupColumnEvals returns the MLEs of the lookups' columns a and b at
// point from the slots' values: the limb slots' LimbEvals (in slot
// order) and each function's input and output block values, each times
// its slot's indicator.
func lookupColumnEvals(l *Layout, point []fr.Element, limbEvals []fr.Element, fns []FunctionEval) (a, b fr.Element) {
	var term fr.Element
	m := 0
	for k, sl := range l.Slots {
		ind := l.slotIndicator(k, point)
		if sl.Function < 0 {
			term.Mul(&ind, &limbEvals[m])
			a.Add(&a, &term)
			m++
			continue
		}
		term.Mul(&ind, &fns[sl.Function].In)
		a.Add(&a, &term)
		term.Mul(&ind, &fns[sl.Function].Out)
		b.Add(&b, &term)
	}
	return a, b
}

// limbSlots returns the number of limb slots (LimbEvals' length).
func (l *Layout) limbSlots() int {
	n := 0
	for _, sl := range l.Slots {
		if sl.Function < 0 {
			n++
		}
	}
	return n
}

// limbEvals evaluates each limb slot's limb row over its block at the
// slot's local coordinates of the lookup point (rows: the limb rows'
// tables, nil where dropped: then the block is converted from limbs, the
// rows' integers).
func limbEvals(l *Layout, limbs []uint16, rows [][]fr.Element, point []fr.Element) []fr.Element {
	var out []fr.Element
	size := 1 << l.NbVars
	for k, sl := range l.Slots {
		if sl.Function < 0 {
			var block []fr.Element
			if rows[sl.Row] != nil {
				block = blockOf(l, rows[sl.Row], sl.Block)
			} else {
				// Dropped: the block's integers, converted.
				blk := &l.Blocks[sl.Block]
				block = limbFieldTable(limbs[sl.Row*size+blk.Offset : sl.Row*size+blk.Offset+1<<blk.NbVars])
			}
			out = append(out, poly.Evaluate[fr.Element](block, l.slotLocal(k, point)))
		}
	}
	return out
}

// limbClaims returns the claims on the limb rows of the limb slots'
// values.
func limbClaims(l *Layout, point []fr.Element, evals []fr.Element) []pcs.Claim {
	var out []pcs.Claim
	m := 0
	for k, sl := range l.Slots {
		if sl.Function < 0 {
			out = append(out, pcs.Claim{Commitment: LimbsCommitment + sl.Row, Point: l.Point(sl.Block, l.slotLocal(k, point)), Value: evals[m]})
			m++
		}
	}
	return out
}

// functionEvals evaluates each function's input and output blocks of the
// stacked table at the last coordinates of the lookup point.
func functionEvals(l *Layout, stacked []fr.Element, point []fr.Element) []FunctionEval {
	out := make([]FunctionEval, len(l.Functions))
	for f, fn := range l.Functions {
		local := point[len(point)-l.Blocks[fn.In].NbVars:]
		out[f].In = poly.Evaluate[fr.Element](blockOf(l, stacked, fn.In), local)
		out[f].Out = poly.Evaluate[fr.Element](blockOf(l, stacked, fn.Out), local)
	}
	return out
}

// functionClaims returns the claims on the stacked MLE of each function's
// input and output values.
func functionClaims(l *Layout, point []fr.Element, fns []FunctionEval) []pcs.Claim {
	var out []pcs.Claim
	for f, fn := range l.Functions {
		local := point[len(point)-l.Blocks[fn.In].NbVars:]
		out = append(out,
			pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(fn.In, local), Value: fns[f].In},
			pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(fn.Out, local), Value: fns[f].Out})
	}
	return out
}

// absorbFunctions absorbs the function lookups' values, input then
// output of each.
func absorbFunctions(t *pcs.Transcript, fns []FunctionEval) {
	for f := range fns {
		t.Absorb(fns[f].In, fns[f].Out)
	}
}
