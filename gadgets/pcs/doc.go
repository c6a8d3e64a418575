// Package pcs verifies grouped openings of package pcs (HyperKZG over
// BLS12-377) in circuits, split where the curves are native:
//
//   - [VerifyGroupFieldParts], the in-circuit twin of
//     pcs.VerifyGroupFieldParts, runs over BLS12-377's scalar field, where
//     the proof's scalars are native: the BLS12-377 segment circuits of
//     the committed shape. It returns the scalars of the pairing check.
//   - [VerifyGroup], the in-circuit twin of pcs.VerifyGroup, runs over
//     BW6-761's scalar field, BLS12-377's base field, where the points are
//     native: the aggregator. It takes those scalars (a segment proof's
//     public inputs), checks every point, and completes the pairing checks
//     of several openings with one pairing. [PointsDigest] computes the
//     digests that stand for the points in the segment's transcript.
//
// Both are tested on the same golden vectors as the native verifier
// (pcs/testdata/group_vector.json, group_parts_vector.json): the honest proof is accepted by the
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
// the aggregator from the points). [VerifyGroupFieldParts] then
//
//   - absorbs the claimed values under label "pcs/batch", draws α and
//     replays the degree-2 sum-check of Σₖ αᵏ vₖ = Σ_x Σⱼ Aⱼ(x)·fⱼ(x);
//   - computes the combination coefficients Aⱼ(r*) = ∏_{i<oⱼ} (1 − r*ᵢ) ·
//     Σ_{k on j} αᵏ eq(pₖ, r*[oⱼ:]) (oⱼ = n − nⱼ, a commitment of fewer
//     variables padded with leading zero coordinates);
//   - replays the opening's transcript under label "pcs/hyperkzg": the
//     value, the folds' digest, β, the evaluation triples, q, the
//     quotient's digest;
//   - asserts β ∉ {0, 1, −1} and each fold consistency
//     2β·F_{i+1}(β²) = β·(Fᵢ(β)+Fᵢ(−β)) + rᵢ·((Fᵢ(β)−Fᵢ(−β)) − β·(Fᵢ(β)+Fᵢ(−β))),
//     the last against the sum-check's final value;
//   - interpolates the batched values at β, −β, β² by a quadratic I
//     (two divisions) and returns the scalars of the pairing check
//     ([GroupCheck]): per commitment Aⱼ (per part, with the MLEs
//     committed in parts), per fold qⁱ, (−β⁴, β²) for
//     the quotient and (−I₀, −I₁, −I₂) for the key's [1]₁, [τ]₁, [τ²]₁.
//
// The group part — subgroup checks of every point, the digests of the
// points, the MSMs with these scalars and one pairing check against
// [1]₂, [τ]₂ + [τ²]₂ and [τ³]₂ — is native in the BW6-761 aggregator,
// whose scalar field is BLS12-377's base field; the segment exposes these
// scalars as public inputs. A forged point is caught there: the scalars
// here only depend on the points through their digests.
//
// # The group part
//
// [VerifyGroup] asserts that every prover point of every opening is in G1
// (on the curve, and the subgroup check by the endomorphism; the identity
// (0, 0), the commitment to an all-zero table such as a limb row no block
// uses, is accepted, as natively), computes
// per opening the points digest and a Poseidon2 chain over the digests and
// the scalars, and from it 128-bit weights w₀ = 1, wᵢ = the low 128 bits
// of C(seed, i). With L₀ᵢ = Σ scalar·point over opening i (commitments,
// folds, the quotient Wᵢ) + g₀ᵢ·[1]₁ + g₁ᵢ·[τ]₁ + g₂ᵢ·[τ²]₁ and
// L₁ᵢ = Q₁ᵢ·Wᵢ (native pcs.GroupCheck), it asserts
//
//	e(Σᵢ wᵢ·L₀ᵢ, [1]₂) · e(Σᵢ wᵢ·L₁ᵢ, [τ]₂ + [τ²]₂) · e(−Σᵢ wᵢ·Wᵢ, [τ³]₂) = 1
//
// with the three G1 and three G2 points circuit constants of the SRS
// ([Key]; the G2 points' Miller loop lines precomputed). Honest openings satisfy it; if one opening's
// own equation fails, the combination holds with probability at most
// 2⁻¹²⁸ over the weights, which depend on everything the openings
// contain.
//
// The scalars are BW6-761 variables ([GroupScalars]), used modulo r by
// the scalar multiplications (GLV, complete arithmetic); L₀ᵢ and L₁ᵢ are
// each their own sum of scalar multiplications, then weighed by wᵢ, as
// is Wᵢ. Nothing is emulated: the circuit has no
// range check and so no Pedersen commitment, which keeps the aggregator
// that calls it within the one wrapper of every aggregator (an
// emulated-scalar version had one, and its wrapper grew from 7.9M to
// 12.3M R1CS). Cost (testdata/group_constraints.csv): 36,302 R1CS for the
// vector's opening (7 points), 69,831 for two, and 120,778 for one
// opening of a committed GPT-2-small block segment's shape at 16 rows
// (15 commitments, 20 variables: 35 points) — about 3.1k per point for
// the subgroup check, the scalar multiplication and the digests, plus
// per opening the generator's products on [τ]₁ and [τ²]₁, L₁ and the
// weights, with the three-pair pairing check paid once. The first
// one-quotient version paired the generator's terms with [τ]₂ and
// [τ²]₂ and multiplied W by β² twice: four pairs, one scalar
// multiplication and one weight more per opening (40,038, 76,818 and
// 124,514); the two-quotient opening before it had one point more and
// a two-pair pairing check (33,279, 64,270 and 117,755). That is above
// the 70–90k per segment the prototype of ../shared/DESIGN.md estimated; the function tables'
// commitments, fixed by the model, could be circuit constants (no
// subgroup check, a fixed-base multiplication).
//
// # Cost
//
// Per opening variable: one sum-check round of degree 2 (two values
// absorbed), three evaluation values absorbed, one fold check (about four
// multiplications); per claim: one absorption and an eq of its point's
// length. The test vector (an opening over 4 variables, 3 commitments,
// 5 claims, transcript set-up included) is 10,551 R1CS
// (testdata/constraints.csv).
package pcs
