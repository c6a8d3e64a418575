// Package pcs verifies in a circuit the field part of a batch opening of
// package pcs (HyperKZG over BLS12-377): the in-circuit twin of
// pcs.VerifyBatchField, with the same transcript order and the same golden
// vector (pcs/testdata/batch_vector.json). It runs in circuits over
// BLS12-377's scalar field, where the proof's scalars are native: the
// BLS12-377 segment circuits of the committed shape.
//
// Status: tested on the golden vector (honest proof accepted; every round
// value, evaluation, claimed value, point coordinate, fold and quotient
// point, output scalar and the final transcript state changed → rejected
// by the gadget and by the native verifier); not yet on the proving
// path: the committed segment circuits will call it.
//
// # What it checks and what it returns
//
// The commitments and the claims' points must already be bound to the
// transcript (the segment binds every commitment as a digest, computed by
// the aggregator from the points). [VerifyBatchField] then
//
//   - absorbs the claimed values under label "pcs/batch", draws α and
//     replays the degree-2 sum-check of Σₖ αᵏ vₖ = Σ_x Σⱼ Aⱼ(x)·fⱼ(x);
//   - computes the combination coefficients Aⱼ(r*) = ∏_{i<oⱼ} (1 − r*ᵢ) ·
//     Σ_{k on j} αᵏ eq(pₖ, r*[oⱼ:]) (oⱼ = n − nⱼ, a commitment of fewer
//     variables padded with leading zero coordinates);
//   - replays the opening's transcript under label "pcs/hyperkzg": the
//     value, the folds' digest, β, the evaluation triples, q, d, the first
//     quotient's digest, z, the second quotient's digest;
//   - asserts β ∉ {0, 1, −1}, each fold consistency
//     2β·F_{i+1}(β²) = β·(Fᵢ(β)+Fᵢ(−β)) + rᵢ·((Fᵢ(β)−Fᵢ(−β)) − β·(Fᵢ(β)+Fᵢ(−β))),
//     the last against the sum-check's final value, and Z(z) ≠ 0;
//   - returns the scalars of the pairing check ([GroupCheck]): per
//     commitment Aⱼ·s, per fold s·qⁱ, −Z(z) and z for the quotients and −g
//     for the generator (s, g the combined-opening scalars).
//
// The group part — subgroup checks of every point, the digests of the
// points, one MSM with these scalars and one pairing check against [1]₂
// and [τ]₂ — is native in the BW6-761 aggregator, whose scalar field is
// BLS12-377's base field; the segment exposes these scalars as public
// inputs. A forged point is caught there: the scalars here only depend on
// the points through their digests.
//
// # Cost
//
// Per opening variable: one sum-check round of degree 2 (two values
// absorbed), three evaluation values absorbed, one fold check (about four
// multiplications); per claim: one absorption and an eq of its point's
// length. The test vector (an opening over 4 variables, 3 commitments,
// 5 claims, transcript set-up included) is 11,126 R1CS
// (testdata/constraints.csv).
package pcs
