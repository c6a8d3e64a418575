package attention

import (
	"math/rand/v2"
	"testing"
	"time"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

// GPT-2 small attention: d = 768, 12 heads of 64; a prefill pass of 16
// tokens and a decoding pass of one token against a context of 64.
var (
	gpt2Prefill  = Config{Heads: 12, HeadDim: 64, QueryRows: 16, KeyRows: 16, MaskValue: -(1 << 40)}
	gpt2Decoding = Config{Heads: 12, HeadDim: 64, QueryRows: 1, KeyRows: 64, Start: 63, MaskValue: -(1 << 40)}
	// Llama-style GQA 4:1 (32 query heads, 8 key/value heads of 128).
	llamaPrefill = Config{Heads: 32, KVHeads: 8, HeadDim: 128, QueryRows: 16, KeyRows: 16, MaskValue: -(1 << 40)}
)

// plain runs the plain computation of the layer: the integer scores and
// output.
func plain(cfg Config, w *Witness) {
	if _, err := plainScores(cfg, w.Query, w.Keys); err != nil {
		panic(err)
	}
	if _, err := Output(cfg, w.Probs, w.Values); err != nil {
		panic(err)
	}
}

// benchClaims returns random claims on O and S_M and the transcript state
// after them.
func benchClaims[E field.Scalar, P field.Ptr[E]](cfg Config, w *Witness) (out, masked []poly.Claim[E]) {
	d, _ := cfg.Dims()
	rng := rand.New(rand.NewPCG(1, 2))
	o, _ := Output(cfg, w.Probs, w.Values)
	oTable := toField[E](padColumns(padRows(o, d.Heads*d.Width, d.paddedRows()), d.Heads*d.Width, d.queryCols()))
	point := field.RandomVector[E, P](rng, d.RowVars+d.QueryColVars)
	out = []poly.Claim[E]{{Point: point, Value: poly.Evaluate[E, P](oTable, point)}}
	s, _ := MaskedScores(cfg, w.Query, w.Keys)
	point = field.RandomVector[E, P](rng, d.ScoreVars())
	masked = []poly.Claim[E]{{Point: point, Value: poly.Evaluate[E, P](toField[E](s), point)}}
	return out, masked
}

// benchProve times the prover of both halves and, interleaved in the same
// iterations so that both see the same load of the machine, the plain
// computation; ns/op is their sum, prove-ns and plain-ns each, ×plain their
// ratio.
func benchProve[E field.Scalar, P field.Ptr[E]](b *testing.B, cfg Config) {
	w := randomWitness(rand.New(rand.NewPCG(3, 4)), cfg)
	out, masked := benchClaims[E, P](cfg, w)
	var plainTime, proveTime time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		plain(cfg, w)
		mid := time.Now()
		tr := transcript.New[E, P]("bench")
		_, oc, err := ProveOutput(tr, cfg, w, out)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := ProveScores(tr, cfg, w, masked, oc.PaddedValues); err != nil {
			b.Fatal(err)
		}
		plainTime += mid.Sub(start)
		proveTime += time.Since(mid)
	}
	b.ReportMetric(float64(proveTime.Nanoseconds())/float64(b.N), "prove-ns/op")
	b.ReportMetric(float64(plainTime.Nanoseconds())/float64(b.N), "plain-ns/op")
	b.ReportMetric(float64(proveTime)/float64(plainTime), "×plain")
}

func benchVerify[E field.Scalar, P field.Ptr[E]](b *testing.B, cfg Config) {
	w := randomWitness(rand.New(rand.NewPCG(3, 4)), cfg)
	out, masked := benchClaims[E, P](cfg, w)
	tr := transcript.New[E, P]("bench")
	op, oc, err := ProveOutput(tr, cfg, w, out)
	if err != nil {
		b.Fatal(err)
	}
	sp, _, err := ProveScores(tr, cfg, w, masked, oc.PaddedValues)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		tr := transcript.New[E, P]("bench")
		vc, err := VerifyOutput(tr, cfg, op, out)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := VerifyScores(tr, cfg, sp, masked, vc.PaddedValues); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProve(b *testing.B) {
	for _, c := range []struct {
		name string
		cfg  Config
	}{{"gpt2-prefill-s16", gpt2Prefill}, {"gpt2-decoding-l64", gpt2Decoding}, {"llama-gqa4-prefill-s16", llamaPrefill}} {
		b.Run(c.name+"/bn254", func(b *testing.B) { benchProve[bn254fr.Element](b, c.cfg) })
		b.Run(c.name+"/bls12-377", func(b *testing.B) { benchProve[bls12377fr.Element](b, c.cfg) })
	}
}

func BenchmarkVerify(b *testing.B) {
	b.Run("gpt2-prefill-s16/bn254", func(b *testing.B) { benchVerify[bn254fr.Element](b, gpt2Prefill) })
	b.Run("gpt2-decoding-l64/bn254", func(b *testing.B) { benchVerify[bn254fr.Element](b, gpt2Decoding) })
}
