package nonlinear_test

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/gadgets/nonlinear"
	"github.com/veriformer/veriformer/model"
)

func vars(xs []int64) []frontend.Variable {
	out := make([]frontend.Variable, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func inc(v frontend.Variable) frontend.Variable { return v.(int64) + 1 }

// prompt returns the prompt pass of the default model on a 3-token prompt
// (so attention has masked entries).
func prompt(t *testing.T) *model.Trace {
	g, err := model.Default().Generate([]int{'H', 'i', '!'}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return g.Traces[0]
}

// check runs the gnark test engine on a circuit with one valid and several
// invalid assignments, each built by copying the valid one and changing it.
func check[T any, C interface {
	*T
	frontend.Circuit
}](t *testing.T, placeholder C, valid func() C, tamper ...func(C)) {
	t.Helper()
	opts := []test.TestingOption{test.WithValidAssignment(valid()), test.WithCurves(ecc.BN254),
		test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks()}
	for _, f := range tamper {
		c := valid()
		f(c)
		opts = append(opts, test.WithInvalidAssignment(c))
	}
	test.NewAssert(t).CheckCircuit(placeholder, opts...)
}

type softmaxCircuit struct {
	shape                                nonlinear.SoftmaxShape `gnark:"-"`
	exp                                  *model.Table           `gnark:"-"`
	Scores, RowMax, High, Probs, ProbRem []frontend.Variable
}

func (c *softmaxCircuit) Define(api frontend.API) error {
	return nonlinear.New(api).Softmax(c.shape, c.exp, c.Scores, c.RowMax, c.High, c.Probs, c.ProbRem)
}

func TestSoftmax(t *testing.T) {
	a := &prompt(t).Layers[0].Attention
	cube := a.Scores.Out.Shape
	shape := softmaxCircuit{shape: nonlinear.SoftmaxShape{Heads: cube[0], Rows: cube[1], Start: a.Start}, exp: a.ExpLow.Table}
	valid := func() *softmaxCircuit {
		c := shape
		c.Scores, c.RowMax, c.High = vars(a.Scores.Out.Data), vars(a.RowMax.Data), vars(a.ExpHigh.In.Data)
		c.Probs, c.ProbRem = vars(a.Probs.Data), vars(a.ProbRem.Data)
		return &c
	}
	placeholder := valid()
	last := len(a.Probs.Data) - 1
	sum0 := a.RowSum.Data[0]
	check(t, placeholder, valid,
		func(c *softmaxCircuit) { c.Probs[last] = inc(c.Probs[last]) },
		func(c *softmaxCircuit) { c.ProbRem[0] = inc(c.ProbRem[0]) },
		// Quotient and remainder moved by one step: only ρ < 2Σ rejects it.
		func(c *softmaxCircuit) {
			c.Probs[0] = c.Probs[0].(int64) - 1
			c.ProbRem[0] = c.ProbRem[0].(int64) + 2*sum0
		},
		func(c *softmaxCircuit) { c.Scores[0] = inc(c.Scores[0]) },
		func(c *softmaxCircuit) { c.RowMax[0] = inc(c.RowMax[0]) },
		func(c *softmaxCircuit) { c.High[0] = inc(c.High[0]) },
		// Row 0 of head 0 has one unmasked column: column 1 is masked.
		func(c *softmaxCircuit) { c.Probs[1] = inc(c.Probs[1]) },
		func(c *softmaxCircuit) { c.High[1] = inc(c.High[1]) },
	)
}

type normCircuit struct {
	spec nonlinear.NormSpec `gnark:"-"`
	T    nonlinear.NormTensors
}

func (c *normCircuit) Define(api frontend.API) error { return nonlinear.New(api).Norm(c.spec, c.T) }

// NormSpecOf describes a model norm for the checker.
func normSpecOf(nm *model.Norm, withMean bool, resLo, resHi int64) nonlinear.NormSpec {
	gamma := make([]int64, len(nm.Gamma.Data))
	for i, g := range nm.Gamma.Data {
		gamma[i] = int64(g)
	}
	return nonlinear.NormSpec{Rows: nm.Input.Shape[0], N: nm.Input.Shape[1], WithMean: withMean, Epsilon: nm.Epsilon,
		MaxExponent: nm.MaxExponent, RSqrt: nm.RSqrt.Table, Gamma: gamma, Beta: nm.Beta, Multiplier: nm.Multiplier[0],
		Shift: nm.Shift, OutLo: nm.Out.Min, OutHi: nm.Out.Max, InLo: resLo, InHi: resHi}
}

func TestNorm(t *testing.T) {
	l := &prompt(t).Layers[0]
	nm := &l.AttnNorm
	valid := func() *normCircuit {
		return &normCircuit{spec: normSpecOf(nm, true, l.Input.Min, l.Input.Max), T: nonlinear.NormTensors{
			Input: vars(nm.Input.Data), Mean: vars(nm.Mean.Data), MeanRem: vars(nm.MeanRem.Data),
			Exponent: vars(nm.Exponent.Data), Small: vars(nm.RSqrt.In.Data), SmallRem: vars(nm.RSqrtRem.Data),
			RSqrt: vars(nm.RSqrt.Out.Data), Out: vars(nm.Out.Data), Rem: vars(nm.Rem.Data)}}
	}
	check(t, valid(), valid,
		func(c *normCircuit) { c.T.Out[3] = inc(c.T.Out[3]) },
		func(c *normCircuit) { c.T.Rem[3] = inc(c.T.Rem[3]) },
		func(c *normCircuit) { c.T.Mean[0] = inc(c.T.Mean[0]) },
		func(c *normCircuit) { c.T.Exponent[0] = inc(c.T.Exponent[0]) },
		func(c *normCircuit) { c.T.RSqrt[0] = inc(c.T.RSqrt[0]) },
		func(c *normCircuit) { c.T.SmallRem[0] = inc(c.T.SmallRem[0]) },
	)
}

type activationCircuit struct {
	table   *model.Table `gnark:"-"`
	In, Out []frontend.Variable
}

func (c *activationCircuit) Define(api frontend.API) error {
	return nonlinear.New(api).Lookup(c.table, c.In, c.Out)
}

func TestActivation(t *testing.T) {
	l := &prompt(t).Layers[0]
	act := &l.Activation
	valid := func() *activationCircuit {
		return &activationCircuit{table: act.Table, In: vars(act.In.Data), Out: vars(act.Out.Data)}
	}
	lo, hi := act.Table.Domain()
	check(t, valid(), valid,
		func(c *activationCircuit) { c.Out[5] = inc(c.Out[5]) },
		// An input outside the domain, with its true output.
		func(c *activationCircuit) { c.In[0] = hi + 1; c.Out[0] = int64(0) },
		func(c *activationCircuit) { c.In[0] = lo - 1; c.Out[0] = int64(0) },
	)
}

type residualCircuit struct {
	lo, hi    int64 `gnark:"-"`
	logitBits int   `gnark:"-"`
	A, B, Sum []frontend.Variable
	Logits    []frontend.Variable
	Next      frontend.Variable `gnark:",public"`
}

func (c *residualCircuit) Define(api frontend.API) error {
	ch := nonlinear.New(api)
	if err := ch.Sum(c.A, c.B, c.Sum, c.lo, c.hi); err != nil {
		return err
	}
	ch.Argmax(c.Logits, c.Next, c.logitBits)
	return nil
}

func TestResidualAndArgmax(t *testing.T) {
	tr := prompt(t)
	l := &tr.Layers[0]
	logits := tr.Logits()
	vocab := logits.Shape[1]
	last := logits.Data[len(logits.Data)-vocab:]
	valid := func() *residualCircuit {
		return &residualCircuit{lo: l.Mid.Min, hi: l.Mid.Max, logitBits: model.LogitBits,
			A: vars(l.Input.Data), B: vars(l.O.Out.Data), Sum: vars(l.Mid.Data), Logits: vars(last), Next: tr.Next}
	}
	// A tie with a smaller index than the chosen token.
	tie := 0
	if tr.Next == 0 {
		tie = 1
	}
	check(t, valid(), valid,
		func(c *residualCircuit) { c.Sum[2] = inc(c.Sum[2]) },
		func(c *residualCircuit) { c.Next = (tr.Next + 1) % vocab },
		func(c *residualCircuit) { c.Next = vocab },
		func(c *residualCircuit) {
			if tie < tr.Next {
				c.Logits[tie] = last[tr.Next]
			} else {
				c.Logits[tie] = last[tr.Next] + 1
			}
		},
	)
}

type ropeCircuit struct {
	spec         nonlinear.RopeSpec `gnark:"-"`
	In, Out, Rem []frontend.Variable
}

func (c *ropeCircuit) Define(api frontend.API) error {
	return nonlinear.New(api).Rope(c.spec, c.In, c.Out, c.Rem)
}

func TestRope(t *testing.T) {
	tr := llamaPasses(t)[1]
	rp := tr.Layers[0].RopeQ
	valid := func() *ropeCircuit {
		// The model's head dimension 12 is computed padded to 16
		// (model.Config.HeadLayout): the tables' pairs per row say so.
		hd := 2 * rp.Cos.Out.Shape[1]
		return &ropeCircuit{spec: nonlinear.RopeSpec{Rows: rp.Input.Shape[0], Start: tr.Start, Heads: rp.Input.Shape[1] / hd, HeadDim: hd,
			Cos: rp.Cos.Table, Sin: rp.Sin.Table, Multiplier: rp.Multiplier[0], Shift: rp.Shift, OutLo: rp.Out.Min, OutHi: rp.Out.Max},
			In: vars(rp.Input.Data), Out: vars(rp.Out.Data), Rem: vars(rp.Rem.Data)}
	}
	check(t, valid(), valid,
		func(c *ropeCircuit) { c.Out[7] = inc(c.Out[7]) },
		func(c *ropeCircuit) { c.Rem[7] = inc(c.Rem[7]) },
	)
	// The same tensors do not rotate to the next position.
	shifted := valid()
	shifted.spec.Start++
	if err := test.IsSolved(shifted, valid(), ecc.BN254.ScalarField()); err == nil {
		t.Fatal("rope checked at the wrong position")
	}
}

// llamaPasses returns the passes of a small Llama model (RMSNorm, RoPE,
// GQA, gated MLP): a 3-token prompt, then one decoding pass at position 3.
func llamaPasses(t *testing.T) []*model.Trace {
	cfg := &model.Config{Family: model.Llama, Vocab: 64, Hidden: 48, Layers: 1, Heads: 4, KVHeads: 2,
		Intermediate: 96, MaxPositions: 16, NormEps: 1e-5, RopeTheta: 10000}
	w, err := model.RandomWeights(cfg, 7, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(cfg, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Generate([]int{1, 2, 3}, 2)
	if err != nil {
		t.Fatal(err)
	}
	return g.Traces
}

func TestRMSNorm(t *testing.T) {
	l := &llamaPasses(t)[0].Layers[0]
	nm := &l.AttnNorm
	valid := func() *normCircuit {
		return &normCircuit{spec: normSpecOf(nm, false, l.Input.Min, l.Input.Max), T: nonlinear.NormTensors{
			Input: vars(nm.Input.Data), Exponent: vars(nm.Exponent.Data), Small: vars(nm.RSqrt.In.Data),
			SmallRem: vars(nm.RSqrtRem.Data), RSqrt: vars(nm.RSqrt.Out.Data), Out: vars(nm.Out.Data), Rem: vars(nm.Rem.Data)}}
	}
	check(t, valid(), valid,
		func(c *normCircuit) { c.T.Out[3] = inc(c.T.Out[3]) },
		func(c *normCircuit) { c.T.Small[0] = inc(c.T.Small[0]) },
		func(c *normCircuit) { c.T.Input[1] = inc(c.T.Input[1]) },
	)
}

type productCircuit struct {
	m              int64 `gnark:"-"`
	k              uint  `gnark:"-"`
	lo, hi         int64 `gnark:"-"`
	A, B, Out, Rem []frontend.Variable
}

func (c *productCircuit) Define(api frontend.API) error {
	return nonlinear.New(api).Product(c.A, c.B, c.Out, c.Rem, c.m, c.k, c.lo, c.hi)
}

func TestProduct(t *testing.T) {
	l := &llamaPasses(t)[0].Layers[0]
	p := l.Product
	valid := func() *productCircuit {
		return &productCircuit{m: p.Multiplier[0], k: p.Shift, lo: p.Out.Min, hi: p.Out.Max,
			A: vars(l.Activation.Out.Data), B: vars(l.Up.Out.Data), Out: vars(p.Out.Data), Rem: vars(p.Rem.Data)}
	}
	check(t, valid(), valid,
		func(c *productCircuit) { c.Out[3] = inc(c.Out[3]) },
		func(c *productCircuit) { c.Rem[3] = inc(c.Rem[3]) },
		func(c *productCircuit) { c.B[3] = inc(c.B[3]) },
		// The carry attack: quotient one less, remainder 2^k more.
		func(c *productCircuit) { c.Out[0] = c.Out[0].(int64) - 1; c.Rem[0] = c.Rem[0].(int64) + 1<<p.Shift },
	)
}
