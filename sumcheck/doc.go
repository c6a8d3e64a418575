// Package sumcheck implements the sum-check protocol over dense
// multilinear extensions (MLEs): a prover, a verifier, batching of several
// instances, and the same-poly reduction of several claims on one MLE to a
// single claim. The in-circuit verifier is package gadgets/sumcheck; both
// follow the same transcript order and are tested on the same vectors
// (testdata/*.json).
//
// # Statement
//
// Tables f₀, …, f_{T−1} of 2ⁿ values each are the MLEs f_j(X₁, …, Xₙ). A
// summand is a sum of products of tables,
//
//	g(x) = Σ_k c_k · ∏_{j ∈ F_k} f_j(x),
//
// given as [Term] values (coefficient c_k, factor indices F_k; indices may
// repeat and several terms may share a table, which is then folded once).
// The claim is
//
//	H = Σ_{x ∈ {0,1}ⁿ} g(x).
//
// The degree d of g in each variable is the largest |F_k|; any d ≥ 1 is
// supported (the benchmarks cover 2 and 3, the native tests 1 to 8, the
// circuit tests 1 to 4).
//
// # Variable order
//
// Index i of a table of 2ⁿ values is the point (x₁, …, xₙ) with
// i = Σₖ xₖ·2^(n−k): X₁ is the most significant bit. Round 1 binds X₁,
// round n binds Xₙ, and the final point is (r₁, …, rₙ) in that order, so
// f(r₁, …, rₙ) is what poly.Evaluate returns at that point. Folding fixes
// X₁ := r: f'[i] = f[i] + r·(f[i + 2ⁿ⁻¹] − f[i]).
//
// # Rounds
//
// Round i (i = 1, …, n) starts from a claim Cᵢ (C₁ = H) on
//
//	pᵢ(X) = Σ_{x ∈ {0,1}ⁿ⁻ⁱ} g(r₁, …, r_{i−1}, X, x),
//
// a polynomial of degree ≤ d with pᵢ(0) + pᵢ(1) = Cᵢ. The prover sends
// pᵢ(0), pᵢ(2), pᵢ(3), …, pᵢ(d) ([Proof].Rounds[i−1]); the verifier sets
//
//	pᵢ(1) = Cᵢ − pᵢ(0),
//
// absorbs the d values, draws rᵢ, and sets C_{i+1} = pᵢ(rᵢ) by Lagrange
// interpolation on the nodes 0, 1, …, d. At the end, C_{n+1} must equal
// g(r₁, …, rₙ), which the caller checks from the factor values with
// [CheckEvaluations] (or from values it computes itself, e.g. eq tables).
//
// Deriving pᵢ(1) instead of receiving it saves one value (one transcript
// absorption) per round and loses nothing: the usual check
// pᵢ(0) + pᵢ(1) = Cᵢ holds by construction, and soundness rests on the
// other check. The d values and Cᵢ determine pᵢ, and Cᵢ is bound to the
// transcript before round i (C₁ is absorbed; C_{i+1} is a function of
// absorbed values and challenges), so pᵢ is fixed before rᵢ is drawn. If
// Cᵢ is wrong, the polynomial the prover commits to is not the true round
// polynomial sᵢ (whose values at 0 and 1 sum to the true value), and
// pᵢ(rᵢ) = sᵢ(rᵢ) with probability at most d/|F|; otherwise the wrong
// claim moves to round i+1. Over n rounds the error is at most n·d/|F|,
// exactly as when pᵢ(1) is sent and checked.
//
// # Batching
//
// [ProveBatch] proves several instances (g_k, H_k) over shared tables in
// one run: the sums H₀, H₁, … are absorbed, λ is drawn (only when there is
// more than one instance), and the protocol runs on
//
//	Σ_{x ∈ {0,1}ⁿ} Σ_k λᵏ g̃_k(x) = Σ_k λᵏ·2^{o_k}·H_k.
//
// Instances may have fewer variables than the batch: an instance with
// [Instance].Offset o_k has tables of 2^{n−o_k} entries and enters as
// g̃_k(x₁, …, xₙ) = g_k(x_{o_k+1}, …, xₙ), constant in X₁, …, X_{o_k}, so
// its sum over the n-cube is 2^{o_k}·H_k. In rounds 1, …, o_k its share of
// the round polynomial is the constant λᵏ·H_k·2^{o_k−i}, which the prover
// adds without touching its tables; from round o_k + 1 on its tables fold
// with the others, and its factors are opened at (r_{o_k+1}, …, rₙ), the
// last coordinates of the final point. A false H_k survives with
// probability at most (K−1)/|F| over λ, plus the sum-check error.
// [VerifyBatch] returns the weights λᵏ with the final claim, for
// [CheckEvaluations].
//
// # Same-poly accumulation
//
// Claims f(r⁽¹⁾) = v₁, …, f(r⁽ᵐ⁾) = v_m on one MLE f become one claim:
// the values are absorbed, α is drawn, and a degree-2 sum-check proves
//
//	Σ_x A(x)·f(x) = Σᵢ αⁱ⁻¹ vᵢ,  A(x) = Σᵢ αⁱ⁻¹ β(r⁽ⁱ⁾, x),
//
// with β(a, x) = ∏ₖ (aₖxₖ + (1−aₖ)(1−xₖ)). The prover sends f(r*) at the
// end point r*; the verifier computes A(r*) = Σᵢ αⁱ⁻¹ β(r⁽ⁱ⁾, r*) in
// O(m·n) operations and checks C_{n+1} = A(r*)·f(r*). The new claim is
// f(r*) = [SamePolyProof].Evaluation. The points are not absorbed: they
// must be determined by the transcript already (challenges of earlier
// steps, or public constants).
//
// # Zero-check
//
// An element-wise relation C(f₁(x), …, f_m(x)) = 0 for every x ∈ {0,1}ⁿ,
// with C = Σ_k c_k·∏_{j∈F_k} f_j a fixed polynomial of degree d given as
// terms (requantization y·2ˢ + rem − acc, a residual add z − x − y, a
// gated product out − mask·gate·up, …), is proven by [ProveZero]: with
// r ∈ Fⁿ drawn from the transcript, the degree-(d+1) sum-check of
//
//	Σ_x eq(r, x)·C(f(x)) = 0,   eq(r, x) = ∏ₖ (rₖxₖ + (1−rₖ)(1−xₖ)),
//
// whose summand is the MLE of x ↦ C(f(x)) at r: it is 0 for every r iff C
// vanishes on the cube, so a false relation passes with probability
// ≤ n/|F| over r, plus (d+1)·n/|F| for the sum-check. The prover sends
// fᵢ(r′) at the end point r′ ([ZeroCheckProof].Evaluations); [VerifyZero]
// checks eq(r, r′)·C(f(r′)) against the sum-check's final value and
// returns the claims fᵢ(r′), which the caller reduces (by an opening, for
// committed MLEs). A relation term must have at least one factor: a
// constant is a term over a table of ones. The tables must be bound to the
// transcript (their commitments absorbed) before r is drawn.
//
// [ProveZero] runs [ProveEq], which proves any Σ_x eq(r, x)·g(x) = H and
// sends exactly what [Prove] sends for the same summand with eq's table
// as one more factor of every term, without building or folding that
// table: with r₁, …, r_{i−1} bound, eq factors as
// eq(r_{<i}, r′_{<i})·eq(rᵢ, X)·eq(r_{>i}, y), so round i's polynomial is
// that prefix times eq(rᵢ, X)·H(X), H(X) = Σ_y eq(r_{>i}, y)·g(X, y) of
// degree d; the prover sums H at 0, 2, …, d, takes H(1) from the running
// claim and H(d+1) by interpolation, and the table of eq(r_{>i}, ·)
// halves each round by adding its halves. At each node it sums the terms
// pair by pair, each times its coefficient (a coefficient of 1 costs
// nothing), and multiplies by eq's table once, where [Prove] multiplies
// each term by it: 14 multiplications per pair of a LogUp GKR layer
// where it took 16, 8 at the leaves (numerators 1) where it took 10. The
// verifier is unchanged.
// The prover keeps, per table, which granules of 256 entries are all zero
// (scanned once, then a folded granule is zero when both granules it
// folds are): a pair block where a factor is zero in both halves adds
// nothing to the terms it is a factor of, which are skipped, and folds
// to the zeros its destination already holds. A decomposition zero-check
// over stacked tensors has most of its selector and limb tables zero over
// whole blocks. The proof is the same. The first fold of a table goes to
// fresh memory, so that the caller's tables are read, never written;
// the tables a caller hands over with [Overwrite] (its own copies, or
// tables it rebuilds) are folded in place instead, which saves half of
// their size again. The tables named by [Generate] are not stored at
// all: the prover asks the caller's generator for the pairs of entries
// it reads in the first round and folds into the second, so that their
// first fold, of half the size, is the first table it stores (a
// GPT-2-small LM-head segment at 64 rows: eleven public selector tables
// and eight limb rows of 2²⁴ entries, the former constant per block and
// the latter integers the caller holds, 9.5 GB as stored tables).
// Measured (BLS12-377, 2²⁰ entries, both cores, BenchmarkProveZero and
// BenchmarkProveEq, the generic prover in the same conditions): the
// requantization identity 55 ms (92 ms with [Prove]), the degree-3 masked
// gated product 106 ms (142 ms), a LogUp GKR layer 0.65–0.70 of [Prove]'s
// time from 2¹⁶ to 2²² entries before the terms were summed pair by
// pair, 0.58–0.64 after (2²⁰ and 2²² entries, on a machine without
// AVX-512, two runs of each alternated: 0.63–0.71 before).
//
// # Transcript order
//
// Prover and verifiers absorb and squeeze the same elements in this order:
//
//	[Prove], [Verify]:      H; then per round: pᵢ(0), pᵢ(2), …, pᵢ(d), squeeze rᵢ
//	[ProveBatch], [VerifyBatch]: H₀, …, H_{K−1}; squeeze λ if K > 1; the rounds
//	[ProveSamePoly], [VerifySamePoly]: v₁, …, v_m; squeeze α; the rounds; f(r*)
//	[ProveZero], [VerifyZero]: label "sumcheck/zero"; squeeze r₁, …, rₙ; 0; the rounds; f₁(r′), …, f_m(r′)
//
// The final factor values of [Prove] and [ProveBatch] are not absorbed:
// the caller sends those the verifier cannot compute and absorbs them
// before relying on them.
//
// # Performance
//
// The prover's inner loop works on blocks of pairs (f[i], f[i + 2ⁿ⁻ⁱ]) with
// the vector kernels of package field: hi − lo once per table, the values at
// 2, …, d by repeated addition of that difference, products by vector
// multiplication and the last factor by an inner product. Folding by rᵢ (a
// subtraction, a scalar multiplication and an addition) is fused with the
// evaluation of round i+1: each block of the folded tables is evaluated
// while it is in cache. Blocks are spread over cores with internal/parallel
// and per-worker scratch. A table's first fold writes into a fresh buffer
// of half its size, so the caller's tables are never written; apart from
// that, no round allocates anything proportional to the table size.
//
// Benchmarks: go test -run '^$' -bench Prove ./sumcheck reports, for
// degrees 2 and 3 at 2¹⁶ and 2¹⁸ elements on 1 and 2 cores, ns/element
// and mul-ratio (time per element over the time of one vector field
// multiplication per element over the same table, measured in the same
// run), in wall and CPU time; add -sumcheck.large for 2²⁰ and 2²². The
// golden vectors in testdata are rewritten with
// go test -run TestVectors -update ./sumcheck.
package sumcheck
