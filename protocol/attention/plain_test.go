package attention

import (
	"math/rand/v2"
	"slices"
	"testing"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/model"
)

// plainScores returns the integer scores S = Q_i·K_{⌊i/g⌋}ᵀ of every
// head, Heads × QueryRows × KeyRows, at every position (masked ones
// included), unscaled: the tests' plain computation of the unmasked
// scores.
func plainScores(cfg Config, query, keys []int64) ([]int64, error) {
	d, err := cfg.Dims()
	if err != nil {
		return nil, err
	}
	if err := d.checkScores(&Witness{Query: query, Keys: keys}); err != nil {
		return nil, err
	}
	m, qw, kw := d.Width, d.Heads*d.Width, d.KVHeads*d.Width
	out := make([]int64, d.Heads*d.QueryRows*d.KeyRows)
	for i := range d.Heads {
		a := i / d.Group
		for j := range d.QueryRows {
			q := query[j*qw+i*m : j*qw+(i+1)*m]
			row := out[(i*d.QueryRows+j)*d.KeyRows:]
			for k := range d.KeyRows {
				row[k] = dot(q, keys[k*kw+a*m:k*kw+(a+1)*m])
			}
		}
	}
	return out, nil
}

// naive computes the scores and output with one loop per index, query head
// h reading key/value head h/g.
func naive(cfg Config, w *Witness) (scores, out []int64) {
	kv := cfg.KVHeads
	if kv == 0 {
		kv = cfg.Heads
	}
	g, m, s, l := cfg.Heads/kv, cfg.HeadDim, cfg.QueryRows, cfg.KeyRows
	scores = make([]int64, cfg.Heads*s*l)
	out = make([]int64, s*cfg.Heads*m)
	for h := range cfg.Heads {
		for i := range s {
			for j := range l {
				for x := range m {
					scores[(h*s+i)*l+j] += w.Query[i*cfg.Heads*m+h*m+x] * w.Keys[j*kv*m+(h/g)*m+x]
					out[i*cfg.Heads*m+h*m+x] += w.Probs[(h*s+i)*l+j] * w.Values[j*kv*m+(h/g)*m+x]
				}
			}
		}
	}
	return scores, out
}

func TestPlainAgainstNaive(t *testing.T) {
	for i, cfg := range testConfigs() {
		rng := rand.New(rand.NewPCG(uint64(i), 4))
		w := randomWitness(rng, cfg)
		wantScores, wantOut := naive(cfg, w)
		scores, err := plainScores(cfg, w.Query, w.Keys)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Output(cfg, w.Probs, w.Values)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(scores, wantScores) || !slices.Equal(out, wantOut) {
			t.Fatalf("config %d: plain computation differs from the naive one", i)
		}
		masked, err := MaskedScores(cfg, w.Query, w.Keys)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := cfg.Dims()
		for h := range cfg.Heads {
			for r := range cfg.QueryRows {
				for k := range cfg.KeyRows {
					at, err := cfg.ScoreIndex(h, r, k)
					if err != nil {
						t.Fatal(err)
					}
					want := cfg.MaskValue
					if k <= cfg.Start+r {
						want = scores[(h*cfg.QueryRows+r)*cfg.KeyRows+k]
					}
					if masked[at] != want {
						t.Fatalf("config %d: masked score (%d, %d, %d) = %d, want %d", i, h, r, k, masked[at], want)
					}
				}
			}
		}
		// The prover's padded tensors agree with the plain ones.
		if !slices.Equal(d.maskedOf(d.scoresOf(d.padQuery(w.Query), d.padKV(w.Keys)), cfg.MaskValue), masked) {
			t.Fatalf("config %d: padded masked scores differ", i)
		}
		o := d.unpadOutput(d.outputOf(d.padScores(w.Probs), d.padKV(w.Values)))
		if !slices.Equal(padColumns(padRows(out, cfg.Heads*cfg.HeadDim, d.paddedRows()), cfg.Heads*cfg.HeadDim, d.queryCols()), o) {
			t.Fatalf("config %d: padded output differs", i)
		}
	}
}

// TestModelTrace proves the attention of every layer of the built-in model
// on a prefill pass, a decoding pass and a three-token continuation, and
// checks the plain computation
// against the model's own: the zeroified scores (MaskValue 0) are the score
// accumulators and the output is the context accumulator.
func TestModelTrace(t *testing.T) {
	m := model.Default()
	c := m.Config
	cache := m.NewCache()
	for pass, tokens := range [][]int{{72, 101, 108, 108, 111}, {33}, {32, 119, 111}} {
		trace, err := m.Forward(cache, tokens)
		if err != nil {
			t.Fatal(err)
		}
		for li, layer := range trace.Layers {
			a := layer.Attention
			n, total := len(tokens), a.Start+len(tokens)
			cfg := Config{Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim(), QueryRows: n, KeyRows: total, Start: a.Start}
			w := &Witness{Query: a.Query.Data, Keys: a.Keys.Data, Values: a.Values.Data, Probs: a.Probs.Data}
			masked, err := MaskedScores(cfg, w.Query, w.Keys)
			if err != nil {
				t.Fatal(err)
			}
			for h := range c.Heads {
				for r := range n {
					for k := range total {
						at, _ := cfg.ScoreIndex(h, r, k)
						if masked[at] != a.Scores.Acc.Data[(h*n+r)*total+k] {
							t.Fatalf("pass %d layer %d: score (%d, %d, %d) differs from the model's", pass, li, h, r, k)
						}
					}
				}
			}
			out, err := Output(cfg, w.Probs, w.Values)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(out, a.Context.Acc.Data) {
				t.Fatalf("pass %d layer %d: output differs from the model's context", pass, li)
			}
			s := prove[bn254fr.Element](t, cfg, w, cheat{})
			if _, _, err := verifyNative(s); err != nil {
				t.Fatalf("pass %d layer %d: %v", pass, li, err)
			}
		}
	}
}
