package model

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
)

// paddedConfig is a one-block Llama of the given heads, key/value heads
// and head dimension.
func paddedConfig(heads, kvHeads, hd int) *Config {
	return &Config{Family: Llama, Vocab: 64, Hidden: heads * hd, Layers: 1, Heads: heads, KVHeads: kvHeads,
		Intermediate: 48, MaxPositions: 16, NormEps: 1e-6, RopeTheta: 10000}
}

func TestHeadLayout(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		c                    *Config
		heads, kv, group, hd int
		padded               bool
	}{
		{"GPT-2 small", GPT2SmallConfig(1024), 12, 12, 1, 64, false},
		{"GPT-2, 3 heads of 16", smallGPT2Config(), 3, 3, 1, 16, false},
		{"TinyLlama", &Config{Family: Llama, Vocab: 32000, Hidden: 2048, Layers: 22, Heads: 32, KVHeads: 4, Intermediate: 5632, MaxPositions: 2048, NormEps: 1e-5, RopeTheta: 10000}, 32, 4, 8, 64, false},
		{"Qwen2.5 (group 7)", paddedConfig(14, 2, 64), 16, 2, 8, 64, true},
		{"Qwen2 (group 6)", paddedConfig(12, 2, 128), 16, 2, 8, 128, true},
		{"Phi-3 (head dimension 96)", paddedConfig(32, 32, 96), 32, 32, 1, 128, true},
		{"Phi-3 medium (10 key/value heads)", paddedConfig(40, 10, 128), 64, 16, 4, 128, true},
		{"group 3, head dimension 10", paddedConfig(6, 2, 10), 8, 2, 4, 16, true},
		{"GPT-2, head dimension 12", &Config{Family: GPT2, Vocab: 64, Hidden: 36, Layers: 1, Heads: 3, KVHeads: 3, Intermediate: 48, MaxPositions: 16, NormEps: 1e-5, TiedEmbeddings: true}, 3, 3, 1, 16, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.c.Validate(); err != nil {
				t.Fatal(err)
			}
			l := tc.c.HeadLayout()
			if l.Heads != tc.heads || l.KVHeads != tc.kv || l.Group != tc.group || l.HeadDim != tc.hd || l.Padded() != tc.padded {
				t.Fatalf("layout %d heads, %d key/value heads, group %d, head dimension %d (padded %v); want %d, %d, %d, %d (%v)",
					l.Heads, l.KVHeads, l.Group, l.HeadDim, l.Padded(), tc.heads, tc.kv, tc.group, tc.hd, tc.padded)
			}
			c := tc.c
			hd, group := c.HeadDim(), c.Heads/c.KVHeads
			seen := map[int]bool{}
			for col := range c.Heads * hd {
				k := l.QueryColumn(col)
				h, t0 := col/hd, col%hd
				if k < 0 || k >= l.QueryDim() || seen[k] {
					t.Fatalf("query column %d goes to %d: outside [0, %d) or taken", col, k, l.QueryDim())
				}
				seen[k] = true
				// Its computed head reads the key/value head the model's does.
				if (k/l.HeadDim)/l.Group != h/group {
					t.Fatalf("query column %d: head %d reads key/value head %d, want %d", col, k/l.HeadDim, (k/l.HeadDim)/l.Group, h/group)
				}
				// The computed query and key columns of a dimension match,
				// and RoPE's pair of a column stays its pair.
				if l.Offset(t0) != l.KVColumn(h/group*hd+t0)%l.HeadDim {
					t.Fatalf("query column %d: offset %d, key offset %d", col, l.Offset(t0), l.KVColumn(h/group*hd+t0)%l.HeadDim)
				}
				if c.Family == Llama && t0 < hd/2 && l.Offset(t0+hd/2) != l.Offset(t0)+l.HeadDim/2 {
					t.Fatalf("head dimension %d: pair (%d, %d) goes to (%d, %d)", hd, t0, t0+hd/2, l.Offset(t0), l.Offset(t0+hd/2))
				}
			}
			seen = map[int]bool{}
			for col := range c.KVHeads * hd {
				k := l.KVColumn(col)
				if k < 0 || k >= l.KVDim() || seen[k] {
					t.Fatalf("key column %d goes to %d: outside [0, %d) or taken", col, k, l.KVDim())
				}
				seen[k] = true
			}
		})
	}
	for _, name := range BuiltinNames() {
		c, err := BuiltinConfig(name)
		if err != nil {
			t.Fatal(err)
		}
		if c.HeadLayout().Padded() {
			t.Errorf("built-in model %s has padded heads: its keys and id would change", name)
		}
	}
}

// TestPaddedHeads runs models whose heads are padded: the padding columns
// of the queries, keys, values, their rotations and the real heads'
// contexts are zero, the padding rows and columns of the weights are zero,
// the trace's relations hold in the computed layout, and the integer pass
// tracks the float reference (which computes the model's own heads) as
// closely as for unpadded models.
func TestPaddedHeads(t *testing.T) {
	for _, c := range []*Config{paddedConfig(14, 2, 4), paddedConfig(12, 2, 8), paddedConfig(2, 2, 12), paddedConfig(6, 2, 10), paddedConfig(3, 3, 8)} {
		t.Run(fmt.Sprintf("%d heads, %d key-value heads, head dimension %d", c.Heads, c.KVHeads, c.HeadDim()), func(t *testing.T) {
			m := newModel(t, c, 5)
			l := c.HeadLayout()
			if !l.Padded() {
				t.Fatal("not padded")
			}
			realQ := make([]bool, l.QueryDim())
			for col := range c.Heads * c.HeadDim() {
				realQ[l.QueryColumn(col)] = true
			}
			realKV := make([]bool, l.KVDim())
			for col := range c.KVHeads * c.HeadDim() {
				realKV[l.KVColumn(col)] = true
			}
			ql := &m.Quant.Layers[0]
			for _, w := range []struct {
				name string
				q    *QLinear
				real []bool
			}{{"q", &ql.Q, realQ}, {"k", &ql.K, realKV}, {"v", &ql.V, realKV}} {
				in := w.q.Weight.Shape[1]
				for j, r := range w.real {
					for i := range in {
						if !r && w.q.Weight.Data[j*in+i] != 0 {
							t.Fatalf("%s: padding row %d is not zero", w.name, j)
						}
					}
				}
			}
			for j := range ql.O.Weight.Shape[0] {
				for i, r := range realQ {
					if !r && ql.O.Weight.Data[j*len(realQ)+i] != 0 {
						t.Fatalf("o: padding column %d is not zero", i)
					}
				}
			}
			tr, err := m.Forward(m.NewCache(), []int{3, 1, 4, 1, 5, 9})
			if err != nil {
				t.Fatal(err)
			}
			checkTrace(t, m, tr)
			ly := &tr.Layers[0]
			zero := func(name string, x *Tensor, real []bool) {
				for i, v := range x.Data {
					if !real[i%len(real)] && v != 0 {
						t.Fatalf("%s: padding column %d of row %d holds %d", name, i%len(real), i/len(real), v)
					}
				}
			}
			zero("queries", &ly.Q.Out, realQ)
			zero("keys", &ly.K.Out, realKV)
			zero("values", &ly.V.Out, realKV)
			zero("rotated queries", &ly.RopeQ.Out, realQ)
			zero("rotated keys", &ly.RopeK.Out, realKV)
			// The context of a real head has zeros in its padding
			// dimensions (the values' zeros); a padding head's context is
			// what O's zero columns cancel.
			realHead := make([]bool, l.QueryDim())
			for col := range l.QueryDim() {
				realHead[col] = (col/l.HeadDim)%l.Group < c.Heads/c.KVHeads && (col/l.HeadDim)/l.Group < c.KVHeads
			}
			for i, v := range ly.Attention.Context.Out.Data {
				col := i % l.QueryDim()
				if realHead[col] && !realQ[col] && v != 0 {
					t.Fatalf("context: padding dimension %d of a real head holds %d", col, v)
				}
			}
			f, err := m.Fidelity([]int{2, 7, 1, 8, 2, 8, 1, 8}, 8)
			if err != nil {
				t.Fatal(err)
			}
			checkFidelity(t, f)
			if f.Agree < 7 {
				t.Errorf("top-1 agreement %d/8", f.Agree)
			}
		})
	}
}

// TestPaddedHeadsChangeNoLogit: the padded pass gives the integers the
// pass in the model's own heads gave. The digests (SHA-256 of every
// logit of a generation, little-endian int64, first 8 bytes) and tokens
// are those of the unpadded pass, which ran these shapes before the
// padding existed.
func TestPaddedHeadsChangeNoLogit(t *testing.T) {
	for _, tc := range []struct {
		c      *Config
		tokens []int
		digest string
	}{
		{smallLlamaConfig(), []int{43, 5, 78, 24, 50, 30}, "8955d9451ff52752"},
		{&Config{Family: Llama, Vocab: 64, Hidden: 54, Layers: 1, Heads: 9, KVHeads: 3, Intermediate: 32, MaxPositions: 16, NormEps: 1e-5, RopeTheta: 10000},
			[]int{27, 58, 51, 3, 40, 15}, "faf1c80f520467f1"},
		{&Config{Family: Llama, Vocab: 64, Hidden: 56, Layers: 1, Heads: 14, KVHeads: 2, Intermediate: 32, MaxPositions: 16, NormEps: 1e-5, RopeTheta: 10000},
			[]int{54, 63, 33, 63, 33, 22}, "5d7264288f712cfd"},
	} {
		m := newModel(t, tc.c, 5)
		if !tc.c.HeadLayout().Padded() {
			t.Fatalf("%d/%d heads of %d: not padded", tc.c.Heads, tc.c.KVHeads, tc.c.HeadDim())
		}
		g, err := m.Generate([]int{3, 1, 4, 1, 5}, 6)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		for _, tr := range g.Traces {
			for _, v := range tr.LMHead.Out.Data {
				_ = binary.Write(h, binary.LittleEndian, v)
			}
		}
		if got := fmt.Sprintf("%x", h.Sum(nil)[:8]); got != tc.digest || !slices.Equal(g.Tokens, tc.tokens) {
			t.Errorf("%d/%d heads of %d: tokens %v, logits %s; the unpadded pass gave %v, %s", tc.c.Heads, tc.c.KVHeads, tc.c.HeadDim(), g.Tokens, got, tc.tokens, tc.digest)
		}
	}
}
