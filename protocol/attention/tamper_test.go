package attention

import (
	"fmt"
	"math/rand/v2"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/sumcheck"
)

// element names one field element of a run's proofs.
type element[E field.Scalar] struct {
	name string
	x    *E
}

func roundElements[E field.Scalar](name string, p *sumcheck.Proof[E]) []element[E] {
	var out []element[E]
	for i := range p.Rounds {
		for j := range p.Rounds[i] {
			out = append(out, element[E]{fmt.Sprintf("%s round %d value %d", name, i, j), &p.Rounds[i][j]})
		}
	}
	return out
}

func samePolyElements[E field.Scalar](name string, p *sumcheck.SamePolyProof[E]) []element[E] {
	if p == nil {
		return nil
	}
	return append(roundElements(name+" same-poly", &p.SumCheck), element[E]{name + " same-poly evaluation", &p.Evaluation})
}

// elements lists every round value and claimed evaluation of both proofs.
func (s *run[E]) elements() []element[E] {
	o, c := s.outProof, s.scoresProof
	var out []element[E]
	out = append(out, samePolyElements("output", o.SamePoly)...)
	out = append(out, roundElements("unpadding", &o.Unpadding)...)
	out = append(out, element[E]{"padded output", &o.PaddedOutput})
	out = append(out, roundElements("probabilities·values", &o.Mix)...)
	out = append(out, element[E]{"probabilities", &o.Probs}, element[E]{"padded values", &o.PaddedValues})
	out = append(out, samePolyElements("masked scores", c.SamePoly)...)
	out = append(out, roundElements("zeroifier", &c.Zeroifier)...)
	out = append(out, element[E]{"scores", &c.Scores})
	out = append(out, roundElements("query·keys", &c.Product)...)
	out = append(out, element[E]{"padded query", &c.PaddedQuery}, element[E]{"padded keys", &c.PaddedKeys})
	out = append(out, roundElements("padding", &c.Padding)...)
	out = append(out, element[E]{"query", &c.Query}, element[E]{"keys", &c.Keys}, element[E]{"values", &c.Values})
	return out
}

// rejectedByBoth fails the test unless the native verifier and the gadget
// both reject the run.
func rejectedByBoth[E field.Scalar, P field.Ptr[E]](t *testing.T, what string, s *run[E]) {
	t.Helper()
	if _, _, err := verifyNative[E, P](s); err == nil {
		t.Errorf("%s: accepted by the native verifier", what)
	}
	if err := solve(s); err == nil {
		t.Errorf("%s: accepted by the gadget", what)
	}
}

// tamperEveryElement adds one to each proof element in turn.
func tamperEveryElement[E field.Scalar, P field.Ptr[E]](t *testing.T, cfg Config, seed uint64) {
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	s := prove[E, P](t, cfg, randomWitness(rng, cfg), cheat{})
	one := field.One[E, P]()
	elements := s.elements()
	for _, e := range elements {
		saved := *e.x
		P(e.x).Add(e.x, &one)
		rejectedByBoth[E, P](t, e.name, s)
		*e.x = saved
	}
	if _, _, err := verifyNative[E, P](s); err != nil {
		t.Fatalf("restored proof rejected: %v", err)
	}
	t.Logf("%d proof elements tampered", len(elements))
}

func TestTamperedElements(t *testing.T) {
	t.Run("bn254/prefill-gqa", func(t *testing.T) {
		tamperEveryElement[bn254fr.Element](t, Config{Heads: 4, KVHeads: 2, HeadDim: 10, QueryRows: 3, KeyRows: 3, MaskValue: -(1 << 30), OutputClaims: 2, ScoreClaims: 2}, 11)
	})
	t.Run("bls12-377/decoding", func(t *testing.T) {
		tamperEveryElement[bls12377fr.Element](t, Config{Heads: 3, HeadDim: 8, QueryRows: 1, KeyRows: 5, Start: 4, MaskValue: -5, OutputClaims: 2, ScoreClaims: 2}, 12)
	})
}

// cheatingProver runs a dishonest prover and checks that both verifiers
// reject it.
func cheatingProver[E field.Scalar, P field.Ptr[E]](t *testing.T, what string, cfg Config, seed uint64, c func(d *Dims, w *Witness) cheat) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	w := randomWitness(rng, cfg)
	d, err := cfg.Dims()
	if err != nil {
		t.Fatal(err)
	}
	s := prove[E, P](t, cfg, w, c(&d, w))
	rejectedByBoth[E, P](t, what, s)
}

// honestPadding returns the padded tensors of w.
func honestPadding(d *Dims, w *Witness) *padded {
	return &padded{query: d.padQuery(w.Query), keys: d.padKV(w.Keys), values: d.padKV(w.Values), probs: d.padScores(w.Probs)}
}

func TestWrongMask(t *testing.T) {
	prefill := Config{Heads: 3, HeadDim: 10, QueryRows: 5, KeyRows: 5, MaskValue: -(1 << 20)}
	decoding := Config{Heads: 4, KVHeads: 1, HeadDim: 8, QueryRows: 1, KeyRows: 3, Start: 2, MaskValue: -(1 << 20)}
	continuation := Config{Heads: 2, HeadDim: 4, QueryRows: 3, KeyRows: 6, Start: 3, MaskValue: -(1 << 20)}
	for i, tc := range []struct {
		name string
		cfg  Config
		// entry (head, row, key) of the padded tensor and its new value
		// (nil: the unmasked score).
		head, row, key int
		value          func(scores []int64, i int) int64
	}{
		{"future key unmasked", prefill, 1, 1, 3, nil},
		{"visible key masked", prefill, 2, 4, 0, func([]int64, int) int64 { return -(1 << 20) }},
		{"padded row unmasked", prefill, 0, 6, 2, func([]int64, int) int64 { return 0 }},
		{"padded key unmasked", prefill, 0, 4, 7, func([]int64, int) int64 { return 0 }},
		{"padded head unmasked", prefill, 3, 1, 2, func([]int64, int) int64 { return 0 }},
		{"decoding: padded key unmasked", decoding, 2, 0, 3, func([]int64, int) int64 { return 0 }},
		{"decoding: visible key masked", decoding, 3, 0, 2, func([]int64, int) int64 { return -(1 << 20) }},
		{"continuation: future key unmasked", continuation, 1, 0, 4, nil},
		{"continuation: visible key masked", continuation, 0, 2, 5, func([]int64, int) int64 { return -(1 << 20) }},
		{"continuation: padded row unmasked", continuation, 1, 3, 0, func([]int64, int) int64 { return 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cheatingProver[bn254fr.Element](t, tc.name, tc.cfg, uint64(i), func(d *Dims, w *Witness) cheat {
				p := honestPadding(d, w)
				scores := d.scoresOf(p.query, p.keys)
				return cheat{padded: p, mask: func(d *Dims, masked []int64) {
					at := (tc.head*d.paddedRows()+tc.row)*d.paddedKeys() + tc.key
					if tc.value == nil {
						masked[at] = scores[at]
					} else {
						masked[at] = tc.value(scores, at)
					}
				}}
			})
		})
	}
	t.Run("mask value", func(t *testing.T) {
		// The prover masks with another −∞ than the verifier's.
		cheatingProver[bls12377fr.Element](t, "mask value", prefill, 9, func(d *Dims, w *Witness) cheat {
			return cheat{mask: func(d *Dims, masked []int64) {
				for i := range masked {
					if masked[i] == prefill.MaskValue {
						masked[i] = 2 * prefill.MaskValue
					}
				}
			}}
		})
	})
}

func TestWrongPadding(t *testing.T) {
	// width: ĥ_kv = 4 (h_kv = 3), ĝ = 2, m̂ = 16 (m = 10);
	// group: ĥ_kv = 2, ĝ = 4 (g = 3), m̂ = m = 8.
	width := Config{Heads: 6, KVHeads: 3, HeadDim: 10, QueryRows: 3, KeyRows: 3, MaskValue: -(1 << 20)}
	group := Config{Heads: 6, KVHeads: 2, HeadDim: 8, QueryRows: 3, KeyRows: 3, MaskValue: -(1 << 20)}
	query := func(d *Dims, p *padded) ([]int64, int) { return p.query, d.paddedQueryCols() }
	keys := func(d *Dims, p *padded) ([]int64, int) { return p.keys, d.paddedKVCols() }
	values := func(d *Dims, p *padded) ([]int64, int) { return p.values, d.paddedKVCols() }
	for i, tc := range []struct {
		name   string
		cfg    Config
		tensor func(d *Dims, p *padded) ([]int64, int)
		// row, head (a·ĝ + b for Q̂, a for K̂ and V̂), offset in the head
		row, head, offset int
	}{
		{"query: padded width", width, query, 1, 2, 12},
		{"query: padded head", width, query, 0, 7, 3},
		{"query: padded group member", group, query, 2, 3, 1},
		{"keys: padded width", width, keys, 2, 1, 15},
		{"keys: padded head", width, keys, 0, 3, 0},
		{"values: padded width", width, values, 1, 0, 10},
		{"values: padded head", width, values, 2, 3, 4},
	} {
		for _, curve := range []string{"bn254", "bls12-377"} {
			t.Run(tc.name+"/"+curve, func(t *testing.T) {
				c := func(d *Dims, w *Witness) cheat {
					p := honestPadding(d, w)
					m, cols := tc.tensor(d, p)
					m[tc.row*cols+tc.head*d.paddedWidth()+tc.offset] += 5
					return cheat{padded: p}
				}
				if curve == "bn254" {
					cheatingProver[bn254fr.Element](t, tc.name, tc.cfg, uint64(i), c)
				} else {
					cheatingProver[bls12377fr.Element](t, tc.name, tc.cfg, uint64(i), c)
				}
			})
		}
	}
}
