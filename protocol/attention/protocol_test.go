package attention

import (
	"fmt"
	"math/rand/v2"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
)

// checkClaim checks a claim against the MLE of an integer table.
func checkClaim[E field.Scalar, P field.Ptr[E]](t *testing.T, name string, table []int64, c poly.Claim[E]) {
	t.Helper()
	got := poly.Evaluate[E, P](toField[E](table), c.Point)
	if !P(&got).Equal(&c.Value) {
		t.Errorf("%s: claim does not match the table's MLE", name)
	}
}

// honest proves and verifies one configuration and checks every output
// claim against the tensors.
func honest[E field.Scalar, P field.Ptr[E]](t *testing.T, cfg Config, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	w := randomWitness(rng, cfg)
	s := prove[E, P](t, cfg, w, cheat{})
	outClaims, in, err := verifyNative[E, P](s)
	if err != nil {
		t.Fatalf("honest proof rejected: %v", err)
	}
	if err := solve(s); err != nil {
		t.Fatalf("honest proof rejected by the gadget: %v", err)
	}
	d, _ := cfg.Dims()
	probs, _ := PadProbabilities(cfg, w.Probs)
	checkClaim[E, P](t, "probabilities", probs, outClaims.Probs)
	checkClaim[E, P](t, "padded values", d.padKV(w.Values), outClaims.PaddedValues)
	checkClaim[E, P](t, "query", padColumns(padRows(w.Query, d.Heads*d.Width, d.paddedRows()), d.Heads*d.Width, d.queryCols()), in.Query)
	checkClaim[E, P](t, "keys", padColumns(padRows(w.Keys, d.KVHeads*d.Width, d.paddedKeys()), d.KVHeads*d.Width, d.kvCols()), in.Keys)
	checkClaim[E, P](t, "values", padColumns(padRows(w.Values, d.KVHeads*d.Width, d.paddedKeys()), d.KVHeads*d.Width, d.kvCols()), in.Values)
	for i, c := range []poly.Claim[E]{outClaims.Probs, outClaims.PaddedValues, in.Query, in.Keys, in.Values} {
		if !equalPoints[E, P](c.Point, []poly.Claim[E]{s.outClaims.Probs, s.outClaims.PaddedValues, s.inClaims.Query, s.inClaims.Keys, s.inClaims.Values}[i].Point) {
			t.Errorf("claim %d: prover and verifier points differ", i)
		}
	}
}

func padRows(m []int64, cols, rows int) []int64 {
	out := make([]int64, rows*cols)
	copy(out, m)
	return out
}

func equalPoints[E field.Scalar, P field.Ptr[E]](a, b []E) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !P(&a[i]).Equal(&b[i]) {
			return false
		}
	}
	return true
}

func testConfigs() []Config {
	var cfgs []Config
	for _, s := range []int{1, 3, 5, 16} {
		for _, h := range []int{1, 3, 12} {
			for _, m := range []int{10, 64} {
				if s == 16 && h == 12 && m == 64 {
					continue // the GPT-2 shape runs in the benchmarks
				}
				cfgs = append(cfgs, Config{Heads: h, HeadDim: m, QueryRows: s, KeyRows: s, MaskValue: -(1 << 40)})
			}
		}
	}
	return append(cfgs,
		Config{Heads: 8, KVHeads: 2, HeadDim: 10, QueryRows: 5, KeyRows: 5, MaskValue: -7},                                 // GQA 4:1
		Config{Heads: 12, KVHeads: 4, HeadDim: 16, QueryRows: 3, KeyRows: 3},                                               // GQA 3:1, c = 0
		Config{Heads: 6, KVHeads: 1, HeadDim: 8, QueryRows: 1, KeyRows: 7, Start: 6, MaskValue: -1000},                     // MQA decoding
		Config{Heads: 3, HeadDim: 10, QueryRows: 1, KeyRows: 5, Start: 2, MaskValue: -99, OutputClaims: 2, ScoreClaims: 3}, // fixed-size cache
		Config{Heads: 4, KVHeads: 2, HeadDim: 16, QueryRows: 3, KeyRows: 7, Start: 4, MaskValue: -3},                       // continuation
		Config{Heads: 3, HeadDim: 10, QueryRows: 2, KeyRows: 9, Start: 3, MaskValue: -(1 << 50)},
		Config{Heads: 8, KVHeads: 2, HeadDim: 64, QueryRows: 1, KeyRows: 1},
	)
}

func TestHonest(t *testing.T) {
	for i, cfg := range testConfigs() {
		t.Run(fmt.Sprintf("%d/h%d:%d/m%d/s%d/l%d", i, cfg.Heads, cfg.KVHeads, cfg.HeadDim, cfg.QueryRows, cfg.KeyRows), func(t *testing.T) {
			seed := uint64(i) + 1
			t.Logf("seed %d", seed)
			if i%2 == 0 {
				honest[bn254fr.Element](t, cfg, seed)
			} else {
				honest[bls12377fr.Element](t, cfg, seed)
			}
		})
	}
}
