// Package pcs verifies batch openings of package pcs (HyperKZG over
// BLS12-377) in circuits, split where the curves are native:
//
//   - [VerifyBatchField], the in-circuit twin of pcs.VerifyBatchField, runs
//     over BLS12-377's scalar field, where the proof's scalars are native:
//     the BLS12-377 segment circuits of the committed shape. It returns
//     the scalars of the pairing check.
//   - [VerifyGroup], the in-circuit twin of pcs.VerifyGroup, runs over
//     BW6-761's scalar field, BLS12-377's base field, where the points are
//     native: the aggregator. It takes those scalars (a segment proof's
//     public inputs), checks every point, and completes the pairing checks
//     of several openings with one pairing. [PointsDigest] computes the
//     digests that stand for the points in the segment's transcript.
//
// Both are tested on the same golden vector as the native verifier
// (pcs/testdata/batch_vector.json): the honest proof is accepted by the
// gadgets and by the native verifier; every round value, evaluation,
// claimed value, point coordinate, fold and quotient point, output scalar
// and the final transcript state changed is rejected by the field part
// and by the native verifier; every commitment, fold and quotient point
// moved in G1, a commitment outside G1 and every scalar changed, in one
// opening alone or as the second of two, is rejected by the group part
// and by native.VerifyGroup. On the proving path of the aggregated
// shape's committed design: the committed segment circuits
// (gadgets/committed) run the field part, the committed aggregator
// (recursion) the group part.
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
// # The group part
//
// [VerifyGroup] asserts that every prover point of every opening is in G1
// (on the curve, and the subgroup check by the endomorphism; the identity
// (0, 0), the commitment to an all-zero table such as a limb row no block
// uses, is accepted, as natively), computes
// per opening the points digest and a Poseidon2 chain over the digests and
// the scalars, and from it 128-bit weights w₀ = 1, wᵢ = the low 128 bits
// of C(seed, i). With Lᵢ = Σ scalar·point over opening i (commitments,
// folds, quotients) + gᵢ·[1]₁, it asserts
//
//	e(Σᵢ wᵢ·Lᵢ, [1]₂) · e(−Σᵢ wᵢ·W′ᵢ, [τ]₂) = 1
//
// with [1]₂ and [τ]₂ circuit constants of the SRS ([Key]; their Miller
// loop lines precomputed). Honest openings satisfy it; if one opening's
// own equation fails, the combination holds with probability at most
// 2⁻¹²⁸ over the weights, which depend on everything the openings
// contain.
//
// The scalars are BW6-761 variables ([GroupScalars]), used modulo r by
// the scalar multiplications (GLV, complete arithmetic); each Lᵢ is its
// own sum of scalar multiplications (gᵢ·[1]₁ by the fixed-base comb), then
// weighed by wᵢ, as are the W′ᵢ. Nothing is emulated: the circuit has no
// range check and so no Pedersen commitment, which keeps the aggregator
// that calls it within the one wrapper of every aggregator (an
// emulated-scalar version had one, and its wrapper grew from 7.9M to
// 12.3M R1CS). Cost (testdata/group_constraints.csv): 33,279 R1CS for the
// vector's opening (8 points), 64,270 for two, and 117,755 for one
// opening of a committed GPT-2-small block segment's shape at 16 rows
// (15 commitments, 20 variables: 36 points) — about 3.1k per point for
// the subgroup check, the scalar multiplication and the digests, with the
// pairing check paid once. That is above the 70–90k per segment the
// prototype of ../shared/DESIGN.md estimated; the function tables'
// commitments, fixed by the model, could be circuit constants (no
// subgroup check, a fixed-base multiplication).
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
