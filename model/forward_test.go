package model

import (
	"errors"
	"slices"
	"testing"
)

// smallGPT2 is a GPT-2-shaped model with non-power-of-two shapes.
func smallGPT2Config() *Config {
	return &Config{Family: GPT2, Vocab: 90, Hidden: 48, Layers: 2, Heads: 3, KVHeads: 3,
		Intermediate: 144, MaxPositions: 20, NormEps: 1e-5, TiedEmbeddings: true}
}

// smallLlamaConfig is a Llama-shaped model with grouped-query attention
// (4 query heads, 2 key/value heads) and an untied LM head.
func smallLlamaConfig() *Config {
	return &Config{Family: Llama, Vocab: 100, Hidden: 40, Layers: 2, Heads: 4, KVHeads: 2,
		Intermediate: 72, MaxPositions: 24, NormEps: 1e-6, RopeTheta: 10000}
}

func newModel(t testing.TB, c *Config, seed uint64) *Model {
	t.Helper()
	w, err := RandomWeights(c, seed, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(c, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTraceRelations(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *Model
	}{
		{"default", Default()},
		{"gpt2", newModel(t, smallGPT2Config(), 1)},
		{"llama", newModel(t, smallLlamaConfig(), 2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.m.Generate([]int{3, 14, 15, 9, 26}, 4)
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Traces) != 4 || len(g.Tokens) != 4 {
				t.Fatalf("%d traces and %d tokens, want 4 and 4", len(g.Traces), len(g.Tokens))
			}
			start := 0
			for i, tr := range g.Traces {
				if tr.Start != start {
					t.Fatalf("pass %d starts at %d, want %d", i, tr.Start, start)
				}
				if i > 0 && !slices.Equal(tr.Tokens, []int{g.Tokens[i-1]}) {
					t.Fatalf("pass %d reads %v, want the previous token %d", i, tr.Tokens, g.Tokens[i-1])
				}
				checkTrace(t, tc.m, tr)
				start += len(tr.Tokens)
			}
			for li := range g.Traces[1].Layers {
				prev := g.Traces[0].Layers[li].Attention
				cur := g.Traces[1].Layers[li].Attention
				kvd := tc.m.Config.HeadLayout().KVDim()
				if !slices.Equal(cur.Keys.Data[:prev.Keys.Shape[0]*kvd], prev.Keys.Data) || !slices.Equal(cur.Values.Data[:prev.Values.Shape[0]*kvd], prev.Values.Data) {
					t.Fatalf("layer %d: cached keys/values differ from the previous pass", li)
				}
			}
		})
	}
}

// TestCacheMatchesRecomputation checks that decoding with the KV cache
// yields exactly the logits of one pass over the whole sequence.
func TestCacheMatchesRecomputation(t *testing.T) {
	for _, m := range []*Model{Default(), newModel(t, smallLlamaConfig(), 3)} {
		prompt := []int{7, 1, 8, 2, 8}
		g, err := m.Generate(prompt, 6)
		if err != nil {
			t.Fatal(err)
		}
		seq := append(slices.Clone(prompt), g.Tokens[:5]...)
		full, err := m.Forward(m.NewCache(), seq)
		if err != nil {
			t.Fatal(err)
		}
		v := m.Config.Vocab
		var cached []int64
		for _, tr := range g.Traces {
			cached = append(cached, tr.Logits().Data...)
		}
		if !slices.Equal(cached, full.Logits().Data) {
			t.Fatalf("%s: cached decoding logits differ from a full recomputation", m.Config.Family)
		}
		for i, tok := range g.Tokens {
			row := full.Logits().Data[(len(prompt)-1+i)*v : (len(prompt)+i)*v]
			if Argmax(row) != tok {
				t.Fatalf("%s: token %d is %d, full pass says %d", m.Config.Family, i, tok, Argmax(row))
			}
		}
	}
}

func TestForwardErrors(t *testing.T) {
	m := Default()
	if _, err := m.Forward(m.NewCache(), nil); err == nil {
		t.Error("empty input accepted")
	}
	if _, err := m.Forward(m.NewCache(), []int{256}); err == nil {
		t.Error("token outside the vocabulary accepted")
	}
	if _, err := m.Forward(m.NewCache(), []int{-1}); err == nil {
		t.Error("negative token accepted")
	}
	if _, err := m.Forward(nil, []int{1}); err == nil {
		t.Error("nil cache accepted")
	}
	if _, err := m.Forward(m.NewCache(), make([]int, 33)); err == nil {
		t.Error("33 positions accepted with a context of 32")
	}
	if _, err := m.Generate(make([]int, 30), 4); err == nil {
		t.Error("generation past the context accepted")
	}
	if _, err := m.Generate([]int{1}, 0); err == nil {
		t.Error("generation of zero tokens accepted")
	}
	bad := m.NewCache()
	bad.Len = 3
	if _, err := m.Forward(bad, []int{1}); err == nil {
		t.Error("inconsistent cache accepted")
	}
	cache := m.NewCache()
	if _, err := m.Forward(cache, []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Forward(cache, make([]int, 31)); err == nil {
		t.Error("cache overflow accepted")
	}
	if cache.Len != 2 {
		t.Errorf("failed pass changed the cache length to %d", cache.Len)
	}
}

// TestBoundError checks that a value outside its checked range stops the
// pass with a *BoundError instead of wrapping or clamping.
func TestBoundError(t *testing.T) {
	c := DefaultConfig()
	w, err := RandomWeights(c, DefaultSeed, DefaultEmbedScale, DefaultGain)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(c, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A token embedding far larger than anything seen in calibration
	// drives the attention and MLP inputs out of their tables' domains.
	lo, hi := rangeOf(ResidualBits)
	d := c.Hidden
	for i := range d {
		m.Quant.TokenEmbedding[5*d+i] = []int64{lo, hi}[i%2]
	}
	cache := m.NewCache()
	_, err = m.Forward(cache, []int{5})
	var be *BoundError
	if !errors.As(err, &be) {
		t.Fatalf("got %v, want a *BoundError", err)
	}
	if cache.Len != 0 {
		t.Errorf("failed pass changed the cache")
	}
	m.Quant.TokenEmbedding[5*d] = hi + 1
	if _, err = m.Forward(m.NewCache(), []int{5}); !errors.As(err, &be) || be.Tensor != "embedding" {
		t.Fatalf("got %v, want a *BoundError on the embedding", err)
	}
}

// TestRangeIsWindow checks that every kind's checked range is exactly
// the signed integers of its bits plus one, [−2^B, 2^B − 1], so that a
// range check is its window (the verifiers add no exact bound for it),
// and that checkRange accepts both ends and refuses one past each.
func TestRangeIsWindow(t *testing.T) {
	for _, b := range []int{ActivationBits, ResidualBits, ScoreBits, LogitBits} {
		lo, hi := rangeOf(b)
		if lo != -(int64(1)<<b) || hi != int64(1)<<b-1 {
			t.Errorf("%d bits: range [%d, %d]", b, lo, hi)
		}
		if err := checkRange("x", []int64{lo, hi}, lo, hi); err != nil {
			t.Errorf("%d bits: the ends refused: %v", b, err)
		}
		for _, v := range []int64{lo - 1, hi + 1} {
			if err := checkRange("x", []int64{v}, lo, hi); err == nil {
				t.Errorf("%d bits: %d accepted", b, v)
			}
		}
	}
}

func TestArgmaxTies(t *testing.T) {
	if got := Argmax([]int64{1, 5, 3, 5, 5}); got != 1 {
		t.Errorf("Argmax = %d, want the first maximum 1", got)
	}
	if got := Argmax([]int64{-3}); got != 0 {
		t.Errorf("Argmax = %d, want 0", got)
	}
}

func TestMatMulIntMatchesNaive(t *testing.T) {
	const in, out = 37, 11
	for _, rows := range []int{1, 2, 3, 8, 9, 13} {
		for _, scale := range []int64{1, 1 << 15, 1 << 22} {
			x := make([]int64, rows*in)
			w := make([]int8, out*in)
			bias := make([]int64, out)
			for i := range x {
				x[i] = (int64(i*7919)%(2*scale+1) - scale)
			}
			for i := range w {
				w[i] = int8(i*31%255 - 127)
			}
			for j := range bias {
				bias[j] = int64(j*1000 - 5000)
			}
			got := MatMulInt(x, rows, in, w, out, bias)
			for r := range rows {
				for j := range out {
					want := bias[j]
					for i := range in {
						want += x[r*in+i] * int64(w[j*in+i])
					}
					if got[r*out+j] != want {
						t.Fatalf("rows %d scale %d: acc[%d][%d] = %d, want %d", rows, scale, r, j, got[r*out+j], want)
					}
				}
			}
		}
	}
}

// TestRopePositionLimit checks that a pass beyond the positions covered by
// the RoPE tables (2^16 entries) is refused.
func TestRopePositionLimit(t *testing.T) {
	c := &Config{Family: Llama, Vocab: 16, Hidden: 64, Layers: 1, Heads: 1, KVHeads: 1,
		Intermediate: 32, MaxPositions: 4096, NormEps: 1e-6, RopeTheta: 10000}
	m := newModel(t, c, 4)
	if m.Quant.RopePositions != 2048 || m.Quant.Tables.RopeCos.Len() != 1<<16 {
		t.Fatalf("RoPE tables cover %d positions with %d entries", m.Quant.RopePositions, m.Quant.Tables.RopeCos.Len())
	}
	cache := m.NewCache()
	cache.Len = 2047
	cache.Keys[0] = make([]int64, 2047*64)
	cache.Values[0] = make([]int64, 2047*64)
	if _, err := m.Forward(cache, []int{1, 2}); err == nil {
		t.Fatal("position 2048 accepted")
	}
	if _, err := m.Forward(cache, []int{1}); err != nil {
		t.Fatalf("position 2047: %v", err)
	}
}

// TestCacheCapacity checks that a pass over a cache of fixed capacity
// computes what the pass over its own positions does (the logits, the
// cache), with the attention's key axis at the capacity: zero rows past
// the pass, masked; and that Truncate keeps a prefix of the cache.
func TestCacheCapacity(t *testing.T) {
	for _, m := range []*Model{Default(), newModel(t, smallGPT2Config(), 4), newModel(t, smallLlamaConfig(), 5)} {
		plain, fixed := m.NewCache(), m.NewCache()
		fixed.Capacity = 16
		for turn, tokens := range [][]int{{5, 3, 9}, {2, 7}, {1}} {
			a, err := m.Forward(plain, tokens)
			if err != nil {
				t.Fatal(err)
			}
			b, err := m.Forward(fixed, tokens)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a.Logits().Data, b.Logits().Data) {
				t.Fatalf("%s turn %d: the logits depend on the capacity", m.Config.Family, turn)
			}
			kvd := m.Config.HeadLayout().KVDim()
			for li := range b.Layers {
				at := &b.Layers[li].Attention
				if at.Keys.Shape[0] != 16 || at.Scores.Out.Shape[2] != 16 || at.Probs.Shape[2] != 16 {
					t.Fatalf("%s turn %d: keys %v, scores %v, want 16 key rows", m.Config.Family, turn, at.Keys.Shape, at.Scores.Out.Shape)
				}
				if tail := at.Keys.Data[fixed.Len*kvd:]; slices.ContainsFunc(tail, func(v int64) bool { return v != 0 }) {
					t.Fatalf("%s turn %d: key rows past the cache are not zero", m.Config.Family, turn)
				}
				if !slices.Equal(plain.Keys[li], fixed.Keys[li]) || !slices.Equal(plain.Values[li], fixed.Values[li]) {
					t.Fatalf("%s turn %d: the caches differ", m.Config.Family, turn)
				}
			}
		}
		keep := fixed.Clone()
		if err := keep.Truncate(4); err != nil {
			t.Fatal(err)
		}
		kvd := m.Config.HeadLayout().KVDim()
		if keep.Len != 4 || !slices.Equal(keep.Keys[0], fixed.Keys[0][:4*kvd]) || fixed.Len != 6 {
			t.Fatalf("%s: truncated cache of %d positions, the original %d", m.Config.Family, keep.Len, fixed.Len)
		}
		if keep.Truncate(5) == nil || keep.Truncate(-1) == nil {
			t.Fatalf("%s: truncation past the cache accepted", m.Config.Family)
		}
		over := m.NewCache()
		over.Capacity = m.Config.MaxPositions + 1
		if _, err := m.Forward(over, []int{1}); err == nil {
			t.Fatalf("%s: a capacity beyond the context accepted", m.Config.Family)
		}
	}
}

// TestContinue: decoding after a history is decoding the history and
// the prompt from scratch; the history's cache is unchanged.
func TestContinue(t *testing.T) {
	m := Default()
	history := []int{5, 3, 9, 2}
	cache := m.NewCache()
	if _, err := m.Forward(cache, history); err != nil {
		t.Fatal(err)
	}
	out, err := m.Continue(cache, []int{7, 1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Generate([]int{5, 3, 9, 2, 7, 1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out, g.Tokens) || cache.Len != 4 {
		t.Fatalf("continued %v, generated %v; the cache holds %d rows", out, g.Tokens, cache.Len)
	}
	if _, err := m.Continue(cache, []int{1}, 0); err == nil {
		t.Fatal("no token to generate accepted")
	}
}
