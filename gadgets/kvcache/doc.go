// Package kvcache is the in-circuit verifier of the KV-cache steps of
// package protocol/kvcache (whose documentation gives the equations): the
// append of a pass's rows ([Verify]: a decoding pass's one, or a turn's
// first n of its bucket, written from row t; n and t are circuit
// variables, so one circuit serves every turn of a conversation), the
// claim on a turn's written rows alone ([VerifyWrites], the same shift
// sum-check without the previous cache) and the prompt pass's cache
// ([VerifyPrompt]), in the native verifiers' transcript order.
//
// # Usage
//
// Size the proofs with [PlaceholderProof] and [PlaceholderPromptProof] from
// the native kvcache.Config and kvcache.PromptConfig (whose Validate both
// verifiers apply), fill them with [ValueOfProof] and [ValueOfPromptProof]
// from the native proofs. The claim on the previous
// cache that [Verify] returns goes to the verification of the previous pass
// (as one of its claims on the new cache, or as a cache claim of
// [VerifyPrompt]); the claim on the new rows goes to the layers that made
// them.
//
// # Size
//
// With N transcript permutations, about 186·N R1CS constraints on BN254:
//
//	append: N = 1 (label) + 3 + 3·⌈log₂ R⌉ + [Claims > 1]·(Claims + 1 + 3·(⌈log₂ l⌉ + ⌈log₂ w⌉) + 1)
//	writes: N = 1 (label) + 2 + 3·⌈log₂ R⌉
//	prompt: N = 1 + [l̂ > ŝ]·CacheClaims + [claims > 1]·(claims + 1 + 3·(⌈log₂ s⌉ + ⌈log₂ w⌉) + 1)
//
// plus, for an append of R rows, about 3(R + 1) for the thermometer of n,
// 2⌈log₂ l⌉ for the range of t and of t + n, and R·(3⌈log₂ l⌉ + ⌈log₂ R⌉
// + 3) for W(ρ) (the bits of each written row's index), 2 per same-poly
// round and
// 2·(vars) per same-poly claim. testdata/constraints.csv snapshots the
// counts for GPT-2 small's width 768. Nothing is left to the caller: the
// cache steps have no weights.
package kvcache
