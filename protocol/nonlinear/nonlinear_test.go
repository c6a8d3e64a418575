package nonlinear

import (
	"testing"

	"github.com/veriformer/veriformer/model"
)

// generations returns a GPT-2 and a Llama generation: a prompt pass and
// decoding passes with a KV cache.
func generations(t testing.TB) map[string]*model.Generation {
	t.Helper()
	out := map[string]*model.Generation{}
	gpt := model.Default()
	g, err := gpt.Generate([]int{'H', 'e', 'l', 'l', 'o'}, 3)
	if err != nil {
		t.Fatal(err)
	}
	out["gpt2"] = g
	c := &model.Config{Family: model.Llama, Vocab: 64, Hidden: 48, Layers: 1, Heads: 4, KVHeads: 2,
		Intermediate: 96, MaxPositions: 16, NormEps: 1e-5, RopeTheta: 10000}
	w, err := model.RandomWeights(c, 7, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	llama, err := model.New(c, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g, err = llama.Generate([]int{1, 2, 3}, 2); err != nil {
		t.Fatal(err)
	}
	out["llama"] = g
	return out
}

// checkPass runs every element-wise check of one pass.
func checkPass(tr *model.Trace, heads int) error {
	gpt := tr.Family == model.GPT2
	for i := range tr.Layers {
		l := &tr.Layers[i]
		if err := CheckNorm(&l.AttnNorm, gpt); err != nil {
			return err
		}
		if l.RopeQ != nil {
			if err := CheckRope(l.RopeQ, tr.Start, heads); err != nil {
				return err
			}
		}
		if err := CheckSoftmax(&l.Attention); err != nil {
			return err
		}
		if err := CheckSum(&l.Input, &l.O.Out, &l.Mid); err != nil {
			return err
		}
		if err := CheckNorm(&l.MLPNorm, gpt); err != nil {
			return err
		}
		if err := CheckLookup(&l.Activation); err != nil {
			return err
		}
		if err := CheckSum(&l.Mid, &l.Down.Out, &l.Output); err != nil {
			return err
		}
	}
	if err := CheckNorm(&tr.FinalNorm, gpt); err != nil {
		return err
	}
	logits := tr.Logits()
	vocab := logits.Shape[1]
	last := logits.Data[len(logits.Data)-vocab:]
	return CheckArgmax(last, tr.Next)
}

func TestHonestTraces(t *testing.T) {
	for name, g := range generations(t) {
		for p, tr := range g.Traces {
			heads := 4
			if err := checkPass(tr, heads); err != nil {
				t.Fatalf("%s pass %d: %v", name, p, err)
			}
		}
	}
}

// tamper changes one entry of a tensor, runs check, and restores it.
func tamper(t *testing.T, what string, data []int64, i int, delta int64, check func() error) {
	t.Helper()
	data[i] += delta
	defer func() { data[i] -= delta }()
	if err := check(); err == nil {
		t.Errorf("%s[%d] %+d accepted", what, i, delta)
	}
}

func TestTampered(t *testing.T) {
	gens := generations(t)
	tr := gens["gpt2"].Traces[0]
	l := &tr.Layers[0]
	a := &l.Attention
	soft := func() error { return CheckSoftmax(a) }
	for _, k := range []int{0, len(a.Probs.Data) / 2, len(a.Probs.Data) - 1} {
		tamper(t, "probs", a.Probs.Data, k, 1, soft)
		tamper(t, "prob_rem", a.ProbRem.Data, k, 1, soft)
		tamper(t, "scores", a.Scores.Out.Data, k, 1, soft)
		tamper(t, "high limb", a.ExpHigh.In.Data, k, 1, soft)
	}
	tamper(t, "row_max", a.RowMax.Data, 0, 1, soft)
	tamper(t, "row_max", a.RowMax.Data, 0, -1, soft)
	// A masked probability: row 0 of head 0 has only column 0 unmasked.
	tamper(t, "masked probs", a.Probs.Data, 1, 1, soft)
	tamper(t, "masked high limb", a.ExpHigh.In.Data, 1, 1, soft)
	// Rounding moved between quotient and remainder.
	sum := a.RowSum.Data[0]
	a.Probs.Data[0]--
	tamper(t, "prob_rem carry", a.ProbRem.Data, 0, 2*sum, soft)
	a.Probs.Data[0]++

	n := &l.AttnNorm
	norm := func() error { return CheckNorm(n, true) }
	tamper(t, "norm out", n.Out.Data, 3, 1, norm)
	tamper(t, "norm rem", n.Rem.Data, 3, 1, norm)
	tamper(t, "norm mean", n.Mean.Data, 0, 1, norm)
	tamper(t, "norm exponent", n.Exponent.Data, 0, 1, norm)
	tamper(t, "rsqrt out", n.RSqrt.Out.Data, 0, 1, norm)
	tamper(t, "rsqrt in", n.RSqrt.In.Data, 0, 1, norm)
	tamper(t, "rsqrt rem", n.RSqrtRem.Data, 0, 1, norm)

	act := func() error { return CheckLookup(&l.Activation) }
	tamper(t, "gelu", l.Activation.Out.Data, 5, 1, act)
	res := func() error { return CheckSum(&l.Input, &l.O.Out, &l.Mid) }
	tamper(t, "residual", l.Mid.Data, 2, 1, res)

	logits := tr.Logits()
	vocab := logits.Shape[1]
	last := logits.Data[len(logits.Data)-vocab:]
	if err := CheckArgmax(last, (tr.Next+1)%vocab); err == nil {
		t.Error("a non-argmax token accepted")
	}
	// A tie with a smaller index wins.
	saved := last[0]
	last[0] = last[tr.Next]
	if tr.Next != 0 {
		if err := CheckArgmax(last, tr.Next); err == nil {
			t.Error("a tie broken towards the larger index accepted")
		}
	}
	last[0] = saved
	if err := CheckArgmax(last, vocab); err == nil {
		t.Error("a token outside the vocabulary accepted")
	}

	ltr := gens["llama"].Traces[1]
	ll := &ltr.Layers[0]
	product := func() error { return CheckProduct(&ll.Activation.Out, &ll.Up.Out, ll.Product) }
	if err := product(); err != nil {
		t.Fatalf("honest product: %v", err)
	}
	tamper(t, "product out", ll.Product.Out.Data, 3, 1, product)
	tamper(t, "product rem", ll.Product.Rem.Data, 3, 1, product)
	tamper(t, "up", ll.Up.Out.Data, 3, 1, product)
	rp := ltr.Layers[0].RopeQ
	rope := func() error { return CheckRope(rp, ltr.Start, 4) }
	tamper(t, "rope out", rp.Out.Data, 7, 1, rope)
	tamper(t, "rope rem", rp.Rem.Data, 7, 1, rope)
	if err := CheckRope(rp, ltr.Start+1, 4); err == nil {
		t.Error("rope at the wrong position accepted")
	}
}
