// Package kvcache is the in-circuit verifier of the KV-cache steps of
// package protocol/kvcache (whose documentation gives the equations): the
// append of a pass's rows ([Verify]: a turn's first n of its bucket,
// written from row t; n and t are circuit variables, so one circuit
// serves every turn of a conversation) and the claim on a turn's written
// rows alone ([VerifyWrites], the same shift sum-check without the
// previous cache), in the native verifiers' transcript order.
//
// # Usage
//
// Size the proofs with [PlaceholderProof] and [PlaceholderWritesProof]
// from the native kvcache.Config (whose Validate both verifiers apply),
// fill them with [ValueOfProof] and [ValueOfWritesProof] from the native
// proofs. The claim on the previous cache that [Verify] returns goes to
// the cache before the pass (gadgets/committed: the state in's
// commitment); the claims on the new rows that [Verify] and
// [VerifyWrites] return go to the layers that made them.
//
// # Size
//
// With N transcript permutations, about 186·N R1CS constraints on BN254:
//
//	append: N = 1 (label) + 3 + 3·⌈log₂ R⌉ + [Claims > 1]·(Claims + 1 + 3·(⌈log₂ l⌉ + ⌈log₂ w⌉) + 1)
//	writes: N = 1 (label) + 2 + 3·⌈log₂ R⌉
//
// plus, for R rows, about 3(R + 1) for the thermometer of n,
// 2⌈log₂ l⌉ for the range of t and of t + n, and R·(3⌈log₂ l⌉ + ⌈log₂ R⌉
// + 3) for W(ρ) (the bits of each written row's index), 2 per same-poly
// round and 2·(vars) per same-poly claim. testdata/constraints.csv
// snapshots the append's counts for GPT-2 small's width 768. Nothing is
// left to the caller: the cache steps have no weights.
package kvcache
