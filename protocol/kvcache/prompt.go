package kvcache

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// PromptConfig is the shape of the prompt pass's cache: the Rows × Width
// keys (or values) of the prompt, seen by the attention as the ŝ × ŵ padded
// matrix and by the first decoding pass as the first rows of the Context ×
// Width padded cache.
type PromptConfig struct {
	Context, Rows, Width int
	// CacheClaims are on the Context × Width cache (from the first
	// decoding pass), PromptClaims on the Rows × Width matrix (from the
	// attention); at least one claim in all.
	CacheClaims, PromptClaims int
}

// HiVars returns the row coordinates of the cache beyond those of the
// prompt, ⌈log₂ Context⌉ − ⌈log₂ Rows⌉.
func (c PromptConfig) HiVars() int { return poly.Log2Ceil(c.Context) - poly.Log2Ceil(c.Rows) }

// PromptVars returns the coordinates of a claim on the prompt matrix.
func (c PromptConfig) PromptVars() int { return poly.Log2Ceil(c.Rows) + poly.Log2Ceil(c.Width) }

// CacheVars returns the coordinates of a claim on the cache.
func (c PromptConfig) CacheVars() int { return poly.Log2Ceil(c.Context) + poly.Log2Ceil(c.Width) }

// Validate checks the shape.
func (c PromptConfig) Validate() error {
	if c.Context < 1 || c.Context > maxSide || c.Width < 1 || c.Width > maxSide {
		return fmt.Errorf("kvcache: context %d and width %d must lie in [1, 2^24]", c.Context, c.Width)
	}
	if c.Rows < 1 || c.Rows > c.Context {
		return fmt.Errorf("kvcache: prompt of %d rows outside [1, %d]", c.Rows, c.Context)
	}
	if c.CacheClaims < 0 || c.PromptClaims < 0 || c.CacheClaims+c.PromptClaims < 1 || c.CacheClaims+c.PromptClaims > maxSide {
		return fmt.Errorf("kvcache: %d cache and %d prompt claims", c.CacheClaims, c.PromptClaims)
	}
	return nil
}

// PromptProof is the prover's message for the prompt pass's cache.
type PromptProof[E field.Scalar] struct {
	// Prompt[i] = K̃_prompt(p_lo, p_col) for cache claim i at (p_hi ‖ p_lo ‖
	// p_col); empty when the context adds no row coordinate.
	Prompt []E
	// Merge accumulates all claims on the prompt matrix (nil for one).
	Merge *sumcheck.SamePolyProof[E]
}

// promptClaims turns the cache claims into claims on the prompt matrix
// (values from the proof) and appends the direct ones.
func promptClaims[E field.Scalar](cfg PromptConfig, values []E, cache, prompt []poly.Claim[E]) []poly.Claim[E] {
	hi := cfg.HiVars()
	all := make([]poly.Claim[E], 0, len(cache)+len(prompt))
	for i, c := range cache {
		if hi == 0 {
			all = append(all, c)
			continue
		}
		all = append(all, poly.Claim[E]{Point: c.Point[hi:], Value: values[i]})
	}
	return append(all, prompt...)
}

// ProvePrompt binds the claims on the cache after the prompt pass (the
// prompt's Rows × Width matrix keys, zero-padded to the context) and the
// attention's claims on the prompt matrix to one claim on the prompt
// matrix, which goes to the layer that made it.
func ProvePrompt[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg PromptConfig, keys []int64, cache, prompt []poly.Claim[E]) (*PromptProof[E], poly.Claim[E], error) {
	if err := cfg.Validate(); err != nil {
		return nil, poly.Claim[E]{}, err
	}
	if len(keys) != cfg.Rows*cfg.Width {
		return nil, poly.Claim[E]{}, fmt.Errorf("kvcache: prompt matrix of %d entries, want %d", len(keys), cfg.Rows*cfg.Width)
	}
	if err := checkOut(cfg.CacheClaims, cfg.CacheVars(), cache, "cache"); err != nil {
		return nil, poly.Claim[E]{}, err
	}
	if err := checkOut(cfg.PromptClaims, cfg.PromptVars(), prompt, "prompt matrix"); err != nil {
		return nil, poly.Claim[E]{}, err
	}
	tr.Label("kvcache/prompt")
	table := padCache[E, P](keys, cfg.Rows, cfg.Rows, cfg.Width)
	proof := &PromptProof[E]{}
	if hi := cfg.HiVars(); hi > 0 {
		for _, c := range cache {
			proof.Prompt = append(proof.Prompt, poly.Evaluate[E, P](table, c.Point[hi:]))
		}
		tr.Absorb(proof.Prompt...)
	}
	all := promptClaims(cfg, proof.Prompt, cache, prompt)
	if len(all) == 1 {
		return proof, all[0], nil
	}
	merge, claim, err := sumcheck.ProveSamePoly(tr, table, all)
	if err != nil {
		return nil, poly.Claim[E]{}, fmt.Errorf("kvcache: prompt same-poly: %w", err)
	}
	proof.Merge = &merge
	return proof, claim, nil
}

// VerifyPrompt checks a prompt-cache proof: each cache claim at
// (p_hi ‖ p_lo ‖ p_col) must equal Πₖ(1 − p_hi,k)·K̃_prompt(p_lo, p_col),
// the cache rows beyond the prompt's padded rows being zero. It returns the
// accumulated claim on the prompt matrix.
func VerifyPrompt[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg PromptConfig, proof *PromptProof[E], cache, prompt []poly.Claim[E]) (poly.Claim[E], error) {
	if err := cfg.Validate(); err != nil {
		return poly.Claim[E]{}, err
	}
	if err := checkOut(cfg.CacheClaims, cfg.CacheVars(), cache, "cache"); err != nil {
		return poly.Claim[E]{}, err
	}
	if err := checkOut(cfg.PromptClaims, cfg.PromptVars(), prompt, "prompt matrix"); err != nil {
		return poly.Claim[E]{}, err
	}
	hi := cfg.HiVars()
	wantPrompt := 0
	if hi > 0 {
		wantPrompt = cfg.CacheClaims
	}
	if proof == nil || len(proof.Prompt) != wantPrompt || (proof.Merge == nil) != (cfg.CacheClaims+cfg.PromptClaims == 1) {
		return poly.Claim[E]{}, fmt.Errorf("%w: kvcache: malformed prompt proof", sumcheck.ErrRejected)
	}
	tr.Label("kvcache/prompt")
	if hi > 0 {
		tr.Absorb(proof.Prompt...)
		for i, c := range cache {
			// β(p_hi, 0…0) = Πₖ (1 − p_hi,k)
			scale := poly.EqIndex[E, P](c.Point[:hi], 0)
			P(&scale).Mul(&scale, &proof.Prompt[i])
			if !P(&scale).Equal(&c.Value) {
				return poly.Claim[E]{}, fmt.Errorf("%w: kvcache: cache claim %d does not match the prompt matrix", sumcheck.ErrRejected, i)
			}
		}
	}
	all := promptClaims(cfg, proof.Prompt, cache, prompt)
	if len(all) == 1 {
		return all[0], nil
	}
	claim, err := sumcheck.VerifySamePoly(tr, all, *proof.Merge)
	if err != nil {
		return poly.Claim[E]{}, fmt.Errorf("kvcache: prompt same-poly: %w", err)
	}
	return claim, nil
}
