// Package pcs is veriformer's multilinear polynomial commitment over
// BLS12-377 Fr: HyperKZG (Gemini-style folding) on gnark-crypto's
// univariate KZG, with a grouped opening that reduces a group of claims on
// many committed MLEs to one opening by one sum-check, and a verifier split
// into a field part (everything in Fr) and a group part, named for the
// curve group (subgroup checks, multi-scalar multiplication, one
// multi-pairing check).
//
// It depends on field, poly, transcript and sumcheck (BLS12-377
// instantiation) and on gnark-crypto; it imports nothing of gnark's
// frontend or std. The field part is meant to run in the BLS12-377 segment
// circuits and the group part in the BW6-761 aggregator; both in-circuit
// twins take this package's types.
//
// # Committed MLE
//
// An MLE f of n ≥ 1 variables is its table of 2ⁿ evaluations on the Boolean
// cube in package poly's order: entry i is f(x₁, …, xₙ) with
// i = Σₖ xₖ·2ⁿ⁻ᵏ, X₁ the most significant bit. Its commitment ([Commit]) is
// the KZG commitment of the univariate polynomial with the table as
// coefficients,
//
//	F(Y) = Σᵢ f[i]·Yⁱ,   C = [F(τ)]₁ = Σᵢ f[i]·[τⁱ]₁.
//
// Xₙ is the least significant bit of the index, i.e. the even/odd split
// of F: F(Y) = F_even(Y²) + Y·F_odd(Y²) with F_even holding the entries
// with xₙ = 0.
//
// # Opening (HyperKZG)
//
// To prove f(r₁, …, rₙ) = v (the opening that ends every grouped opening,
// below), the prover folds from the last
// variable to the first:
//
//	F₀ = F,   F_{i+1}(Y) = F_i,even(Y) + r_{n−i}·(F_i,odd(Y) − F_i,even(Y)),   i = 0, …, n−1,
//
// so F_{i+1} is the table of f with X_{n−i}, …, Xₙ bound to r_{n−i}, …, rₙ
// and Fₙ is the constant v. The prover commits to F₁, …, F_{n−1}
// (Proof.Folds), receives β, and sends Fᵢ(β), Fᵢ(−β), Fᵢ(β²) for
// i = 0, …, n−1 (Proof.Evaluations). Since F_i,even(β²) = (Fᵢ(β)+Fᵢ(−β))/2
// and F_i,odd(β²) = (Fᵢ(β)−Fᵢ(−β))/(2β), the verifier checks, with r = r_{n−i}
// and F_{n}(β²) := v,
//
//	2β·F_{i+1}(β²) = β·(1−r)·(Fᵢ(β)+Fᵢ(−β)) + r·(Fᵢ(β)−Fᵢ(−β)),   i = 0, …, n−1.   (fold consistency)
//
// The evaluations are then proven together. With a challenge q,
// B = Σᵢ qⁱ·Fᵢ (commitment C_B = C + Σ_{i≥1} qⁱ·[Fᵢ]₁) and bⱼ = Σᵢ qⁱ·Fᵢ(uⱼ)
// at u = (β, −β, β²), let I be the polynomial of degree 2 with I(uⱼ) = bⱼ,
//
//	I₁ = (b₀ − b₁)/(2β),   I₂ = (b₂ − E − I₁·β²)/(β⁴ − β²),   I₀ = E − I₂·β²,   E = (b₀ + b₁)/2,
//
// and Z(Y) = (Y − β)(Y + β)(Y − β²) = Y³ − β²·Y² − β²·Y + β⁴. The prover
// sends one quotient, W = [h]₁ for
//
//	h(Y) = (B(Y) − I(Y))/Z(Y),
//
// a polynomial exactly when B(uⱼ) = bⱼ for all three points (the three
// KZG openings of B in one, of 2ⁿ − 3 coefficients). With
// [I(τ)]₁ = I₀·[1]₁ + I₁·[τ]₁ + I₂·[τ²]₁ and Z(τ)·W split by the powers
// of τ (the terms of τ and τ² share the factor β²), the check
// C_B − [I(τ)]₁ = Z(τ)·W reads
//
//	e(L₀, [1]₂) · e(β²·W, [τ]₂ + [τ²]₂) · e(−W, [τ³]₂) = 1,          (pairing equation)
//	L₀ = C + Σ_{i=1}^{n−1} qⁱ·[Fᵢ]₁ − β⁴·W − I₀·[1]₁ − I₁·[τ]₁ − I₂·[τ²]₁.
//
// The verifier needs [1]₁, [τ]₁, [τ²]₁ and [1]₂, [τ]₂ + [τ²]₂, [τ³]₂,
// all fixed (the G2 points' Miller-loop lines precomputed): three
// pairings, one scalar multiplication besides L₀'s MSM. (The first
// version of this opening paired I₁·[1]₁ with [τ]₂ and I₂·[1]₁ with
// [τ²]₂: four pairings, three scalar multiplications, and β² twice among
// the scalars; [τ]₁ and [τ²]₁ are G1 powers of the same SRS, which
// [SRS.Check] ties to the G2 ones.) An earlier version combined the three
// openings in the manner of SHPLONK with [τ]₂ alone: two quotients W and
// W′ = [f/(Y − z)]₁ for a further challenge z, so two MSMs of 2ⁿ full
// scalars where this one has one. The ceremony's output holds the G2
// powers anyway (SrsCommons has [τ⁰]₂ … [τ^{N−1}]₂), and a committed
// GPT-2-small block's opening fell from 6.9 s to 5.0 s.
//
// The prover's cost is these multi-scalar multiplications of full
// scalars: the folds (2ⁿ⁻¹ + … + 2 points) and W (2ⁿ − 3). Each is taken
// over its polynomial without the trailing zero coefficients, which
// change no commitment: a segment's batched polynomial is zero past its
// stacked tensors (541,533 of 2²⁰ coefficients in a GPT-2 block at 16
// rows), and so are its folds and W past half, a quarter, … of that
// length. An opening of 2²⁰ coefficients, 52% of them non-zero, takes
// 3.8–3.9 s on 2 cores against 4.4–4.7 s over the whole lengths, and
// 6.8 s without zeros (BenchmarkOpen, "prefix" and "full").
//
// Soundness. The commitments F₀ (the caller's), F₁, …, F_{n−1} and the
// point are fixed before β. If the evaluations are the true ones (KZG
// binding, q-SDH), the consistency equation is a polynomial identity in β
// of degree below the SRS size that holds at a random β, so
// F_{i+1} = fold(Fᵢ) as polynomials except with probability about
// SRS size/|Fr| per fold, and fold^n(F) ≡ v. If F has degree below 2ⁿ
// this is f(r) = v. The pairing equation says that Z divides B − I (KZG
// multi-point opening, q-SDH), i.e. B(uⱼ) = bⱼ, and B(uⱼ) = bⱼ for a
// random q gives Fᵢ(uⱼ) = Evaluations[i][j] (error n/|Fr|). W is sent
// after the last challenge: nothing is derived from it. A commitment to a
// polynomial of higher degree (which the SRS allows) is read as the MLE
// of its first 2ⁿ coefficients: then
// fold^n(F) = Σ_k f_k(r)·Y^k over its blocks f_k of 2ⁿ coefficients, and
// ≡ v says f₀(r) = v (and f_k(r) = 0), so the statement proven is still
// about the committed f₀. β ∈ {0, 1, −1} (β = 0 breaks the identity, ±1
// makes two of the points u equal, and the divisors 2β, β⁴ − β² of I
// vanish) is refused.
//
// # Grouped opening
//
// Claims fⱼ(pₖ) = vₖ (k = 0, …, K−1, [Claim]) on m committed MLEs of
// n_j variables ([OpenGroupParts], [GroupProof]) are reduced to one
// opening over
// n = maxⱼ nⱼ variables. Every fⱼ is read as an MLE f̃ⱼ of n variables:
// its table padded with zeros to 2ⁿ entries. Padding with zeros leaves the
// univariate polynomial, hence the commitment, unchanged, and
// f̃ⱼ(0, …, 0, p) = fⱼ(p) with oⱼ = n − nⱼ leading zeros. So the claims are
// claims on the f̃ⱼ at p̃ₖ = (0^{oⱼ}, pₖ). The verifier absorbs v₀, …, v_{K−1},
// draws α, and a degree-2 sum-check (package sumcheck, one instance) proves
//
//	Σ_{x ∈ {0,1}ⁿ} Σⱼ Aⱼ(x)·f̃ⱼ(x) = Σₖ αᵏ·vₖ,   Aⱼ(x) = Σ_{k on j} αᵏ·eq(p̃ₖ, x),
//
// (eq the β table of package poly), ending at a point r* with a claimed
// value c. The verifier computes
//
//	Aⱼ(r*) = ∏_{i ≤ oⱼ} (1 − r*ᵢ) · Σ_{k on j} αᵏ·eq(pₖ, (r*_{oⱼ+1}, …, r*ₙ))
//
// in O(K·n) operations, and the sum-check's final check,
// Σⱼ Aⱼ(r*)·f̃ⱼ(r*) = c, is itself one opening: of g = Σⱼ Aⱼ(r*)·f̃ⱼ at r*
// with value c, whose commitment is Σⱼ Aⱼ(r*)·Cⱼ. No evaluation of the
// individual fⱼ is sent. A false claim survives the grouping with
// probability at most (K−1)/|Fr| over α, then the sum-check's 2n/|Fr|,
// then the opening's error. The prover never builds the padded tables:
// while the sum-check binds fⱼ's leading zero coordinates, Aⱼ·f̃ⱼ lies in
// the half Xᵢ = 0 and adds (1 − X)²·c·Σ Aⱼ·fⱼ to the round polynomial
// (c the product of the (1 − rᵢ)² bound so far), so its work is
// Σⱼ 2^{nⱼ} rather than m·2ⁿ and its memory Aⱼ's 2^{nⱼ} entries.
//
// A table the caller holds in another form (integers) need not be given
// in the field: with [Generate] the caller passes nil and a generator
// (sumcheck.Generator), and the prover generates the spans it reads —
// the claims' inner products, the table's first round, its first fold
// and g — so that the table never exists at full size: its first fold,
// at half size, is the first the prover stores. The proof is the same.
//
// # Commitments in parts
//
// The opening's cost is its multi-scalar multiplications, over the
// length of g: n variables, however few of them the claims need. An MLE
// of nⱼ variables can instead be committed in [Parts](nⱼ, m) = 2^{nⱼ−m}
// parts of m variables ([CommitParts]): part p is fⱼ at leading
// coordinates the bits of p, the slice p·2^m … (p+1)·2^m − 1 of its
// table, committed as above; an MLE of m variables or fewer is one part,
// its commitment. [OpenGroupParts] with m < n runs the same grouping
// sum-check over n variables (same transcript, same claims), then opens
// over k = min(n, m) variables only: with r* = (u, w), w the last k coordinates,
//
//	nⱼ ≤ k:  f̃ⱼ(r*) = ∏_{i < n−k} (1 − r*ᵢ) · f̃ⱼ⁽ᵏ⁾(w)
//	nⱼ > k:  f̃ⱼ(r*) = ∏_{i < oⱼ} (1 − r*ᵢ) · Σₚ eq((r*_{oⱼ+1}, …, r*_{n−k}), p)·fⱼ,ₚ(w)
//
// (f̃ⱼ⁽ᵏ⁾ the table padded to 2ᵏ entries), so the final check is the
// opening of g = Σⱼ,ₚ cⱼ,ₚ·fⱼ,ₚ at w with value c, cⱼ,ₚ = Aⱼ(r*) times
// those factors, and its commitment is Σⱼ,ₚ cⱼ,ₚ·Cⱼ,ₚ: the group part
// takes one point and one scalar per part ([VerifyGroupFieldParts] lists
// the scalars commitment by commitment, parts in order). The prover's
// MSMs fall from the stacked length to 2ᵏ points (2²⁰ entries, 52% of
// them non-zero, opened whole: 4.1 s; in parts of 2¹⁸: 2.0 s; 2¹⁷: 1.2 s;
// 2¹⁶: 0.67 s, BenchmarkOpenGroupParts), the SRS needs 2ᵏ powers, and the
// proof loses n − k fold points and evaluation triples. A part of zeros
// is the identity; a caller that knows a part is zero (by its layout)
// may leave it out, giving the verifier the identity, which binds the
// MLE to zero there. With m ≥ n (m = [MaxNbVars]: every MLE committed
// whole) the opening is the one above, byte for byte.
//
// # Transcript
//
// The caller binds the commitments and the claims' points to the
// transcript before the claims are made (the points are usually
// challenges of the caller's protocol; commitments enter as their
// [Digest]). The package then absorbs and squeezes, in order:
//
//	OpenGroupParts / VerifyGroupFieldParts:
//	  Label("pcs/batch"); v₀, …, v_{K−1}; squeeze α
//	  sum-check (sumcheck.Prove / Verify, degree 2, n rounds): Σₖ αᵏvₖ; per round p(0), p(2); squeeze rᵢ
//	  then the opening of g at r* (in parts: at its last k coordinates) with value c, as below
//	the opening (point r, value v):
//	  Label("pcs/hyperkzg"); v; Digest(Folds); squeeze β
//	  Fᵢ(β), Fᵢ(−β), Fᵢ(β²) for i = 0, …, n−1; squeeze q
//	  Digest(W)
//
// # Point digests
//
// A BLS12-377 G1 point has coordinates in the BLS12-377 base field, which
// is the BW6-761 scalar field, not Fr. The transcript therefore absorbs
// [Digest] of a list of points: a Poseidon2 sponge over BW6-761 Fr of the
// coordinates, reduced to its low 250 bits (an Fr element). The aggregator
// (BW6-761) computes it from the points; the segment circuit (BLS12-377)
// takes it as an input. Collision resistance of the truncated digest is
// about 125 bits.
//
// # Verifier split
//
// The field part ([VerifyGroupFieldParts]) is a deterministic function of
//
//   - the transcript state (with the commitments and points bound),
//   - the claims (points and values),
//   - the proof's field elements (sum-check rounds, Proof.Evaluations),
//   - two Fr digests: Digest(Proof.Folds) and Digest(W) (absorbed last,
//     after every challenge),
//
// and uses no group operation. It replays the transcript, checks
// β ∉ {0, ±1} and the n fold-consistency equations, and returns a
// [GroupCheck]: the scalars of the pairing equation,
//
//	GroupCheck.Commitments[j] = Aⱼ(r*)     (in parts: cⱼ,ₚ, one per part)
//	GroupCheck.Folds[i−1]     = qⁱ,        i = 1, …, n−1
//	GroupCheck.Quotient       = (−β⁴, β²)
//	GroupCheck.Generator      = (−I₀, −I₁, −I₂)
//
// that is m + n + 4 elements of Fr (with m commitments). The group part
// ([VerifyGroup]) takes the [VerifyingKey], the m commitments, the n−1
// folds, the quotient and the GroupCheck; it checks that every point is
// on the curve and in the r-torsion, computes
//
//	L₀ = MSM((C₁…C_m, [F₁]₁…[F_{n−1}]₁, W, [1]₁, [τ]₁, [τ²]₁), (Commitments, Folds, Quotient[0], Generator)),
//	L₁ = Quotient[1]·W,
//
// and checks e(L₀, [1]₂)·e(L₁, [τ]₂ + [τ²]₂)·e(−W, [τ³]₂) = 1 with the
// fixed points of the key. In the aggregated proof, the aggregator
// must also check that the digests the segment used are the digests of
// the points it receives, and may combine the group checks of several
// segments with random weights (the same three pairings on Σ ρₛ·L₀,ₛ,
// Σ ρₛ·L₁,ₛ and Σ ρₛ·Wₛ). Natively, a caller runs [VerifyGroupFieldParts]
// then [VerifyGroup] on its output.
//
// # SRS
//
// An [SRS] is G1 powers [τ⁰]₁, …, [τ^{N−1}]₁ (N ≥ [MinSize]) and [τ]₂,
// [τ²]₂, [τ³]₂. Production SRSs come from the project's BLS12-377 phase-1
// ceremony: [LoadCeremony] reads the file gnark's
// backend/groth16/bls12-377/mpcsetup writes (SrsCommons.WriteTo; up to
// 2N−1 G1 powers and N G2 powers for a ceremony of domain N), checks every
// point and that the powers match ([SRS.Check]: two MSMs and two
// multi-pairings), and caches the result. [NewDevelopmentSRS] and [LoadOrCreateDevelopment] draw
// τ locally and warn so on the caller's logger; their G1 powers are
// sums of precomputed multiples of [1]₁, one per 8-bit window of τⁱ (at
// most 32 additions a point, no doublings): 2²⁰ powers take 7.7 s on 2
// cores, against 44.7 s for gnark-crypto's kzg.NewSRS (a scalar
// multiplication per power), 2²² take 39 s. The cache format
// ([SRS.WriteCache], [ReadCache]) stores the SHA-256 of the points
// ([SRS.Hash]); a file whose points do not hash to the recorded value, or
// to the value the caller expects, is refused ([ErrHashMismatch]). A file
// of the earlier format (v1, [τ]₂ alone) is reported as [ErrOldCache], and
// both loaders build the SRS again in its place.
//
// # Encoding
//
// [Proof.MarshalBinary] and [GroupProof.MarshalBinary] write lengths as
// 4-byte big-endian integers, G1 points compressed (48 bytes) and scalars
// canonically (32 bytes). Decoders bound every length by [MaxNbVars] and by
// the bytes left before allocating, refuse non-canonical scalars,
// non-canonical or uncompressed points and points outside G1, and never
// panic (fuzzed). A proof of n variables is n·48 + 3n·32 + 4 bytes;
// a grouped opening's proof adds 8 + 2n·32.
//
// # Golden vectors
//
// testdata/group_vector.json holds a grouped opening (three MLEs, five
// claims) with its commitments, proof, point digests and the GroupCheck
// the field part returns, for the in-circuit twins of both parts;
// testdata/group_parts_vector.json the same MLEs and claims in parts of
// 3 variables (1, 2 and 2 parts). Regenerate with
// go test ./pcs -run 'TestGroup(Parts)?Vector' -update.
//
// # Warning
//
// Non-hiding: the commitment and the evaluations reveal information about
// the table. Binding rests on q-SDH on BLS12-377 and on a τ nobody knows.
package pcs
