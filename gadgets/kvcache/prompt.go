package kvcache

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/protocol/kvcache"
)

// PromptProof is the in-circuit prompt-cache proof.
type PromptProof struct {
	// Prompt holds one value per cache claim when the context adds row
	// coordinates to the prompt's.
	Prompt []frontend.Variable
	// Merge holds the same-poly proof when there is more than one claim.
	Merge []sumcheck.SamePolyProof
}

// PlaceholderPromptProof sizes a proof for the prompt cache cfg.
func PlaceholderPromptProof(cfg kvcache.PromptConfig) PromptProof {
	var p PromptProof
	if cfg.HiVars() > 0 {
		p.Prompt = make([]frontend.Variable, cfg.CacheClaims)
	}
	if cfg.CacheClaims+cfg.PromptClaims > 1 {
		p.Merge = []sumcheck.SamePolyProof{sumcheck.PlaceholderSamePolyProof(cfg.PromptVars())}
	}
	return p
}

// ValueOfPromptProof returns the assignment of a native prompt-cache proof.
func ValueOfPromptProof[E field.Scalar](p *kvcache.PromptProof[E]) PromptProof {
	a := PromptProof{Merge: sumcheck.ValueOfSamePolyProofs(p.Merge)}
	if len(p.Prompt) > 0 {
		a.Prompt = poly.ValuesOf(p.Prompt)
	}
	return a
}

// VerifyPrompt checks that each cache claim at (p_hi ‖ p_lo ‖ p_col) equals
// Πₖ(1 − p_hi,k)·K̃_prompt(p_lo, p_col) and returns the accumulated claim on
// the prompt matrix.
func VerifyPrompt(api frontend.API, tr *transcript.Transcript, shape kvcache.PromptConfig, proof PromptProof, cache, prompt []poly.Claim) (poly.Claim, error) {
	if err := shape.Validate(); err != nil {
		return poly.Claim{}, err
	}
	want := PlaceholderPromptProof(shape)
	if len(cache) != shape.CacheClaims || len(prompt) != shape.PromptClaims || len(proof.Prompt) != len(want.Prompt) || len(proof.Merge) != len(want.Merge) {
		return poly.Claim{}, fmt.Errorf("kvcache: claims or proof do not match prompt shape %+v", shape)
	}
	lo := shape.PromptVars()
	hi := shape.HiVars()
	for i, c := range cache {
		if len(c.Point) != hi+lo {
			return poly.Claim{}, fmt.Errorf("kvcache: cache claim %d has %d coordinates, want %d", i, len(c.Point), hi+lo)
		}
	}
	for i, c := range prompt {
		if len(c.Point) != lo {
			return poly.Claim{}, fmt.Errorf("kvcache: prompt claim %d has %d coordinates, want %d", i, len(c.Point), lo)
		}
	}
	tr.Label("kvcache/prompt")
	all := make([]poly.Claim, 0, len(cache)+len(prompt))
	if hi > 0 {
		tr.Absorb(proof.Prompt...)
		for i, c := range cache {
			scale := poly.EqIndex(api, c.Point[:hi], 0)
			api.AssertIsEqual(c.Value, api.Mul(scale, proof.Prompt[i]))
			all = append(all, poly.Claim{Point: c.Point[hi:], Value: proof.Prompt[i]})
		}
	} else {
		all = append(all, cache...)
	}
	all = append(all, prompt...)
	if len(all) == 1 {
		return all[0], nil
	}
	claim, err := sumcheck.VerifySamePoly(api, tr, all, proof.Merge[0])
	if err != nil {
		return poly.Claim{}, fmt.Errorf("kvcache: prompt same-poly: %w", err)
	}
	return claim, nil
}
