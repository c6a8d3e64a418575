package attention

import (
	"math/rand/v2"
	"strings"
	"testing"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

func invalidConfigs() map[string]Config {
	return map[string]Config{
		"no heads":            {HeadDim: 4, QueryRows: 2, KeyRows: 2},
		"kv heads not divide": {Heads: 6, KVHeads: 4, HeadDim: 4, QueryRows: 2, KeyRows: 2},
		"kv heads > heads":    {Heads: 2, KVHeads: 4, HeadDim: 4, QueryRows: 2, KeyRows: 2},
		"no head dim":         {Heads: 2, QueryRows: 2, KeyRows: 2},
		"no rows":             {Heads: 2, HeadDim: 4, KeyRows: 2},
		"rows past the keys":  {Heads: 2, HeadDim: 4, QueryRows: 2, KeyRows: 5, Start: 4},
		"negative start":      {Heads: 2, HeadDim: 4, QueryRows: 2, KeyRows: 5, Start: -1},
		"g and m odd":         {Heads: 6, KVHeads: 2, HeadDim: 10, QueryRows: 2, KeyRows: 2},
		"mask too large":      {Heads: 2, HeadDim: 4, QueryRows: 2, KeyRows: 2, MaskValue: 1 << 62},
		"negative claims":     {Heads: 2, HeadDim: 4, QueryRows: 2, KeyRows: 2, OutputClaims: -1},
		"too many heads":      {Heads: MaxHeads + 1, HeadDim: 4, QueryRows: 2, KeyRows: 2},
	}
}

// TestConfigValidation checks that invalid shapes are rejected with an
// error by the configuration, the provers and the verifiers alike (the
// gadget: TestConfigValidationGadget).
func TestConfigValidation(t *testing.T) {
	type E = bn254fr.Element
	for name, cfg := range invalidConfigs() {
		if _, err := cfg.Dims(); err == nil || !strings.HasPrefix(err.Error(), "attention: ") {
			t.Errorf("%s: Dims = %v", name, err)
		}
		tr := transcript.New[E]("x")
		if _, _, err := ProveOutput(tr, cfg, &Witness{}, nil); err == nil {
			t.Errorf("%s: ProveOutput accepted", name)
		}
		if _, err := VerifyScores(tr, cfg, &ScoresProof[E]{}, nil, poly.Claim[E]{}); err == nil {
			t.Errorf("%s: VerifyScores accepted", name)
		}
	}
}

// TestMalformed checks that wrong claim counts, wrong point lengths and
// proofs of the wrong size give errors, not panics (the gadget:
// TestMalformedGadget).
func TestMalformed(t *testing.T) {
	type E = bn254fr.Element
	cfg := Config{Heads: 3, HeadDim: 10, QueryRows: 5, KeyRows: 5, MaskValue: -9}
	r := prove[E](t, cfg, randomWitness(rand.New(rand.NewPCG(5, 5)), cfg), cheat{})
	d, _ := cfg.Dims()
	verify := func() error { _, _, err := verifyNative(r); return err }
	for name, mutate := range map[string]func() func(){
		"two output claims": func() func() {
			saved := r.out
			r.out = append([]poly.Claim[E]{r.out[0]}, r.out...)
			return func() { r.out = saved }
		},
		"no scores claim": func() func() {
			saved := r.masked
			r.masked = nil
			return func() { r.masked = saved }
		},
		"missing round": func() func() {
			saved := r.outProof.Mix.Rounds
			r.outProof.Mix.Rounds = saved[1:]
			return func() { r.outProof.Mix.Rounds = saved }
		},
		"short round": func() func() {
			saved := r.scoresProof.Padding.Rounds[0]
			r.scoresProof.Padding.Rounds[0] = saved[:1]
			return func() { r.scoresProof.Padding.Rounds[0] = saved }
		},
		"unexpected same-poly": func() func() {
			r.scoresProof.SamePoly = &sumcheck.SamePolyProof[E]{}
			return func() { r.scoresProof.SamePoly = nil }
		},
		"nil proof": func() func() {
			saved := r.outProof
			r.outProof = nil
			return func() { r.outProof = saved }
		},
	} {
		restore := mutate()
		if err := verify(); err == nil {
			t.Errorf("%s: accepted", name)
		}
		restore()
	}
	if err := verify(); err != nil {
		t.Fatalf("restored proof rejected: %v", err)
	}
	// Wrong point length on the V̂ claim given to the scores half.
	tr := transcript.New[E]("x")
	short := poly.Claim[E]{Point: make([]E, d.KeyVars)}
	if _, err := VerifyScores(tr, cfg, r.scoresProof, r.masked, short); err == nil {
		t.Error("short V̂ claim accepted")
	}
}
