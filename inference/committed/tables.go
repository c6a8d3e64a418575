package committed

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
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
// lookups sit in lookup row Row at the input block's entries, a row that
// block's limbs and no other application on that block use.
type Function struct {
	Table   *FuncTable
	In, Out int
	Row     int
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
		lo, _ := t.Domain()
		_, outputs := t.Entries()
		f := &FuncTable{Name: t.Name, Lo: lo, Outputs: outputs}
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
	if seg.To == len(tr.Layers) {
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

// functionsOf places the applications in the layout's lookup rows.
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
		used := map[int]bool{}
		for _, f := range out {
			if f.In == bi {
				used[f.Row] = true
			}
		}
		row := -1
		for j := limbRows - 1; j >= 0 && row < 0; j-- {
			if l.limbWidth(bi, j) == 0 && !used[j] {
				row = j
			}
		}
		if row < 0 {
			return nil, fmt.Errorf("committed: table %s: its input %s leaves no lookup row free", a.table.Name, a.in.Name)
		}
		out = append(out, Function{Table: a.table, In: bi, Out: bo, Row: row})
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
		t, err := table.Function(f.Table.Name, f.Table.Lo, f.Table.Outputs)
		if err != nil {
			return nil, nil, err
		}
		tables = append(tables, t)
		ids.Functions[f.Table.Name] = int64(len(tables))
	}
	s, err := table.NewSet("committed/tables", tables...)
	return s, ids, err
}

// lookupColumns returns the lookups' columns (id, a, b) over the lookup
// rows: row j holds limb row j in a (b zero) and, at the input block's
// entries of each function placed in row j, the input in a and the
// output in b; every other entry is the all-zero tuple of Range(15).
func lookupColumns(l *Layout, ids *TableIDs, limbs []int64) ([3][]int64, error) {
	size := 1 << l.NbVars
	total := size << limbRowVars
	if len(limbs) != total {
		return [3][]int64{}, fmt.Errorf("committed: a limb table of %d entries, want %d", len(limbs), total)
	}
	var cols [3][]int64
	cols[0] = idTable(l, ids, total)
	cols[1] = make([]int64, total)
	copy(cols[1], limbs)
	cols[2] = make([]int64, total)
	for _, fn := range l.Functions {
		row := fn.Row * size
		in, out := l.Blocks[fn.In].Tensor, l.Blocks[fn.Out].Tensor
		idx, err := poly.PaddedIndices(in.Shape)
		if err != nil {
			return cols, err
		}
		if len(in.Data) != len(idx) || len(out.Data) != len(idx) {
			return cols, fmt.Errorf("committed: table %s: %d inputs, %d outputs for shape %v", fn.Table.Name, len(in.Data), len(out.Data), in.Shape)
		}
		for k, i := range idx {
			cols[1][row+l.Blocks[fn.In].Offset+i] = in.Data[k]
			cols[2][row+l.Blocks[fn.In].Offset+i] = out.Data[k]
		}
	}
	return cols, nil
}

// idTable returns the id column of the lookups (total entries).
func idTable(l *Layout, ids *TableIDs, total int) []int64 {
	size := 1 << l.NbVars
	pad := ids.Ranges[LimbBits]
	out := make([]int64, total)
	for i := range out {
		out[i] = pad
	}
	for b := range l.Blocks {
		idx, _ := poly.PaddedIndices(l.Blocks[b].Tensor.Shape)
		for j := range limbRows {
			w := l.limbWidth(b, j)
			if w == 0 {
				continue
			}
			for _, i := range idx {
				out[j*size+l.Blocks[b].Offset+i] = ids.Ranges[w]
			}
		}
	}
	for _, fn := range l.Functions {
		blk := &l.Blocks[fn.In]
		idx, _ := poly.PaddedIndices(blk.Tensor.Shape)
		for _, i := range idx {
			out[fn.Row*size+blk.Offset+i] = ids.Functions[fn.Table.Name]
		}
	}
	return out
}

// idEval returns the id column's MLE at point (limbRowVars + NbVars
// coordinates).
func idEval(l *Layout, ids *TableIDs, point []fr.Element) fr.Element {
	rv := limbRowVars
	rows := poly.EqTable[fr.Element](point[:rv])
	x := point[rv:]
	pad := ids.Ranges[LimbBits]
	res := field.FromInt64[fr.Element](pad)
	for j := range limbRows {
		v := l.blockSum(x, func(b int) *big.Int {
			w := l.limbWidth(b, j)
			if w == 0 {
				return new(big.Int)
			}
			return big.NewInt(ids.Ranges[w] - pad)
		})
		v.Mul(&v, &rows[j])
		res.Add(&res, &v)
	}
	for _, fn := range l.Functions {
		v := l.valid(fn.In, x)
		d := field.FromInt64[fr.Element](ids.Functions[fn.Table.Name] - pad)
		v.Mul(&v, &d)
		v.Mul(&v, &rows[fn.Row])
		res.Add(&res, &v)
	}
	return res
}

// lookupColumnEvals returns the MLEs of the lookups' columns a and b at
// point from the rows' values: the limb rows' LimbEvals (zero at the
// function entries, which no limb of their block uses), and each
// function's input and output block values at the point's last
// coordinates, placed at its input block in its row.
func lookupColumnEvals(l *Layout, point []fr.Element, limbEvals []fr.Element, fns []FunctionEval) (a, b fr.Element) {
	rv := limbRowVars
	rows := poly.EqTable[fr.Element](point[:rv])
	x := point[rv:]
	var term fr.Element
	for j := range limbRows {
		term.Mul(&rows[j], &limbEvals[j])
		a.Add(&a, &term)
	}
	for f, fn := range l.Functions {
		ind := l.indicator(fn.In, x)
		ind.Mul(&ind, &rows[fn.Row])
		term.Mul(&ind, &fns[f].In)
		a.Add(&a, &term)
		term.Mul(&ind, &fns[f].Out)
		b.Add(&b, &term)
	}
	return a, b
}

// functionEvals evaluates each function's input and output blocks of the
// stacked table at the last coordinates of the lookup point.
func functionEvals(l *Layout, stacked []fr.Element, point []fr.Element) []FunctionEval {
	x := point[limbRowVars:]
	out := make([]FunctionEval, len(l.Functions))
	for f, fn := range l.Functions {
		local := x[l.NbVars-l.Blocks[fn.In].NbVars:]
		out[f].In = poly.Evaluate[fr.Element](blockOf(l, stacked, fn.In), local)
		out[f].Out = poly.Evaluate[fr.Element](blockOf(l, stacked, fn.Out), local)
	}
	return out
}

// functionClaims returns the claims on the stacked MLE of each function's
// input and output values.
func functionClaims(l *Layout, point []fr.Element, fns []FunctionEval) []pcs.Claim {
	x := point[limbRowVars:]
	var out []pcs.Claim
	for f, fn := range l.Functions {
		local := x[l.NbVars-l.Blocks[fn.In].NbVars:]
		out = append(out,
			pcs.Claim{Commitment: tensorsCommitment, Point: l.Point(fn.In, local), Value: fns[f].In},
			pcs.Claim{Commitment: tensorsCommitment, Point: l.Point(fn.Out, local), Value: fns[f].Out})
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
