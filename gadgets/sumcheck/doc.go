// Package sumcheck verifies sum-check proofs inside a gnark circuit: the
// in-circuit twin of package sumcheck, with the same transcript order, the
// same proof layout and the same golden vectors (sumcheck/testdata). It
// uses frontend.API only, so it compiles on any curve; the tests run it on
// BN254 and BLS12-377.
//
// # Protocol
//
// The prover claims H = Σ_{x ∈ {0,1}ⁿ} g(x) for a summand
// g(x) = Σ_k c_k · ∏_{j ∈ F_k} f_j(x) of degree ≤ d in each variable. Round
// i (X₁ first, Xₙ last; X₁ is the most significant bit of a table index)
// starts from a claim Cᵢ (C₁ = H) on the round polynomial pᵢ of degree ≤ d.
// The proof holds pᵢ(0), pᵢ(2), …, pᵢ(d) ([Proof].Rounds[i−1]); the
// verifier derives
//
//	pᵢ(1) = Cᵢ − pᵢ(0),
//
// absorbs the d values, draws rᵢ and sets C_{i+1} = pᵢ(rᵢ). The check
// pᵢ(0) + pᵢ(1) = Cᵢ holds by construction; soundness comes from pᵢ being
// fixed (by the absorbed values and the bound claim Cᵢ) before rᵢ is
// drawn, so a wrong claim survives a round with probability ≤ d/|F|. At the
// end C_{n+1} must equal g(r₁, …, rₙ): [AssertEvaluations] checks it from
// the factor values the caller provides.
//
// # Interpolation cost
//
// pᵢ(r) is computed from the coefficients of pᵢ, which are constant linear
// combinations of pᵢ(0), …, pᵢ(d) (the inverse Vandermonde matrix on the
// nodes 0, …, d, reduced modulo the circuit field): free in R1CS. Horner's
// rule then costs one multiplication per degree, so a degree-d round costs
// d constraints plus the transcript: d absorptions and one challenge.
// Measured on BN254 with the Poseidon2 transcript (testdata/constraints.csv):
//
//	degree 1: 373 R1CS per round
//	degree 2: 560 R1CS per round
//	degree 3: 747 R1CS per round
//	degree 4: 934 R1CS per round
//
// # Batching
//
// [VerifyBatch] absorbs the instance sums H₀, …, H_{K−1}, draws λ when
// K > 1 and checks Σ_x Σ_k λᵏ g̃_k(x) = Σ_k λᵏ·2^{o_k}·H_k; the returned
// [FinalClaim] carries the weights λᵏ for [AssertEvaluations]. An
// instance with [Instance].Offset o_k has n − o_k variables and does not
// depend on X₁, …, X_{o_k}: its factor values are taken at the last n − o_k
// coordinates of the final point (see the native package).
//
// # Same-poly accumulation
//
// [VerifySamePoly] turns claims f(r⁽ⁱ⁾) = vᵢ (i = 1, …, m) on one MLE into
// f(r*) = [SamePolyProof].Evaluation: it absorbs v₁, …, v_m, draws α,
// verifies a degree-2 sum-check of Σ_x (Σᵢ αⁱ⁻¹ β(r⁽ⁱ⁾, x))·f(x) =
// Σᵢ αⁱ⁻¹ vᵢ, and checks the final value against
// (Σᵢ αⁱ⁻¹ β(r⁽ⁱ⁾, r*)) · f(r*), which costs m equality polynomials of n
// variables (≈ 2n multiplications each). The evaluation is then absorbed.
// The points are not absorbed: they must be fixed by the transcript
// already.
//
// # Transcript order
//
//	[Verify]:         H; per round pᵢ(0), pᵢ(2), …, pᵢ(d), squeeze rᵢ
//	[VerifyBatch]:    H₀, …, H_{K−1}; squeeze λ if K > 1; the rounds
//	[VerifySamePoly]: v₁, …, v_m; squeeze α; the rounds; f(r*)
//
// # Witnesses
//
// [PlaceholderProof] (and [PlaceholderSamePolyProof]) size a circuit;
// [ValueOfProof] (and [ValueOfSamePolyProof], [ValueOfSamePolyProofs] for
// the optional merge step of the layer proofs) fill an assignment from a
// native proof over BN254 or BLS12-377. This package imports the native
// one, never the reverse.
//
// # Tests
//
// The tests read the golden vectors of the native package and check that
// every honest proof is accepted and that changing any single witness value
// (statement, sums, round values, factor values, claims) is rejected.
// testdata/constraints.csv is the constraint-count snapshot; rewrite it
// with go test -run TestConstraints -update ./gadgets/sumcheck.
//
// # Zero-check
//
// [VerifyZero] is the twin of the native VerifyZero (see package sumcheck,
// "Zero-check"): the same label, challenges and rounds, the final check
// eq(r, r′)·C(f(r′)) as one constraint, and the claims fᵢ(r′) returned.
// [PlaceholderZeroCheckProof] and [ValueOfZeroCheckProof] size and fill
// the proof. testdata/zerocheck_constraints.csv holds the BLS12-377
// constraint counts of a linear relation (requantization identity,
// residual add) and of the degree-3 masked gated product.
package sumcheck
