// Package lookup proves that tuples of integers are rows of a fixed table
// with the LogUp argument, proven by a GKR protocol over a binary tree of
// fractions whose layers are reduced with sum-checks, the tables gathered
// in a set and the multiplicities committed ([ProveCommitted],
// [VerifyCommitted]). The in-circuit twin is package gadgets/lookup, which
// imports this package's [CommittedProof] and converts it to a witness
// (gadgets/lookup.ValueOfCommittedProof); this package does not depend on
// gnark's frontend.
//
// Status: tested natively and in circuit; on the proving path through
// the committed-tensor proof (inference/committed natively, its segment
// circuits in gadgets/committed), whose table relations it proves with
// the table sets and committed multiplicities. Where tensors are opened,
// gnark's own log-derivative lookups are cheaper and used instead.
//
// # Statement
//
// A table (package lookup/table) has 2ᵏ rows of c columns t₀, …, t_{c−1};
// [Lookups] are N tuples (w₀(i), …, w_{c−1}(i)) laid out as a tensor of
// some shape. With
// multiplicities m(y) = #{i : w(i) = row y} and verifier challenges β (to
// fold columns) and α,
//
//	Σᵢ 1/(α − Σ_c βᶜ w_c(i)) = Σ_y m(y)/(α − Σ_c βᶜ t_c(y))
//
// holds for all α when every tuple is a row, and for a random α only with
// probability ≤ (N + 2ᵏ)/|F| otherwise.
//
// # Fraction trees (GKR)
//
// Each side is a tree of fractions p/q over n variables: layer j has 2ʲ
// nodes, and the children of node x are 2x and 2x+1 of layer j+1 (the new
// variable is the last, least significant one):
//
//	p_j(x) = p_{j+1}(x,0)·q_{j+1}(x,1) + p_{j+1}(x,1)·q_{j+1}(x,0)
//	q_j(x) = q_{j+1}(x,0)·q_{j+1}(x,1)
//
// The prover sends layer 1 (four values); the root fraction P/Q follows.
// A claim on (p_j(r), q_j(r)) becomes, with a challenge λ, the degree-3
// sum-check
//
//	p_j(r) + λ·q_j(r) = Σ_{x∈{0,1}ʲ} β(r,x)·(pₑ·qₒ + pₒ·qₑ + λ·qₑ·qₒ)(x)
//
// with pₑ(x) = p_{j+1}(x,0), pₒ(x) = p_{j+1}(x,1), and likewise for q. At
// its end point r′ the prover sends the four values, the verifier checks the
// summand, draws γ and continues at (r′, γ) with
// p_{j+1}(r′,γ) = (1−γ)·pₑ(r′) + γ·pₒ(r′).
//
// # Leaves
//
// The witness tree has p = 1, q = α − Σ_c βᶜ w_c on the valid entries of the
// tensor and p = 0, q = 1 in the padding. With sel the MLE of the valid
// entries (a product of prefix selectors, O(n)) and w_c the zero-padded
// column MLEs, at the leaf point ρ
//
//	p(ρ) = sel(ρ)        q(ρ) = 1 + sel(ρ)·(α − 1) − Σ_c βᶜ w_c(ρ)
//
// so the prover sends w_c(ρ) ([CommittedProof].ColumnEvals) and these become the
// claims the protocol outputs. When the lookups fill their cube (no
// padding, as a committed segment's do), every leaf numerator is 1: the
// prover keeps no table of them, computes the first layer's numerators as
// q(x,0) + q(x,1), and proves the leaf layer with the summand
// qₒ + qₑ + λ·qₑ·qₒ over the denominators alone (of the same degree, so
// the same proof; the numerators' values at r′ are 1). For a GPT-2-small
// LM-head segment at 64 rows (2²⁶ leaves) that is 2 GB of leaves, 2 GB
// of their halves and half of the leaf layer's folds less. The table tree has p = m and
// q = α − Σ_c βᶜ t_c; the prover sends m at the leaf point (a claim on the
// committed multiplicities, below) and the verifier evaluates the table
// columns in closed form (affine key columns, O(k)) or densely (O(2ᵏ)).
// Finally P_w·Q_t = P_t·Q_w with Q_w, Q_t ≠ 0.
//
// # Table sets
//
// A [table.Set] concatenates several tables (ranges of different widths,
// exp limbs, GELU/SiLU, 1/√, RoPE tables, …) into one table of 2ᵏ rows,
// so that all of a segment's lookups form one instance. Its columns are
// (id, c₀, …, c_{C−1}): table t (in the order given to table.NewSet) has
// id t+1, its columns, and zeros for the columns it lacks (C is the
// largest column count). Tables are placed in blocks aligned to their
// size, largest first; rows past the last block are padding with id 0
// and zero columns. Each looked-up tuple carries its table id as column
// 0 of the [Lookups] (so a set of C+1 columns is looked up with C+1
// lookup columns, and the id column comes out as a claim like the
// others). The id column pins each tuple to its table: a tuple of table
// a is a row under id b only if it is a row of table b. Id 0 is the
// padding's: the all-zero tuple is a row of every set, so the caller must
// bind the lookups' id column to ids ≥ 1 (e.g. a public, structured
// column whose claim the verifier evaluates itself).
//
// Every column of the set has a closed form, which the verifier
// evaluates: with table t of kₜ variables at offset oₜ (a multiple of 2^kₜ),
//
//	col_c(ρ) = Σₜ eq(oₜ/2^kₜ, (ρ₁, …, ρ_{k−kₜ}))·vₜ,c(ρ_{k−kₜ+1}, …, ρₖ)
//
// where vₜ,₀ = t+1 and vₜ,c is the table's own column c−1 (affine: O(kₜ);
// dense: O(2^kₜ)), or 0. The verifier's table work is O(T·k) for T tables
// with affine columns.
//
// # Committed multiplicities
//
// [ProveCommitted] and [VerifyCommitted] run the protocol over a set with
// the multiplicities m a committed MLE over the set's k variables, never
// sent in the proof. The caller commits to m (computed by
// [SetMultiplicities]) and passes the commitment as an opaque digest (a
// list of field elements); the digest is absorbed before β and α are
// drawn, so m is fixed before the challenges. At the table tree's leaf
// point ρₜ the prover sends m(ρₜ) ([CommittedProof].MultiplicityEval); the
// verifier checks p(ρₜ) = m(ρₜ) and outputs the claim m(ρₜ) = that value
// ([CommittedClaims].Multiplicities) beside the column claims, to be
// proven by a later opening of the commitment. The multiplicities are
// field elements here, with no range check: LogUp is sound for any
// multiplicities when the number of lookups plus the table size is below
// the field's characteristic, which it is (at most 2³⁰ + 2²⁰ entries).
// The verifier's work does not depend on the table's size: O(n² + k²)
// for the trees and O(T·k) for the set's affine columns.
//
// A dense column (a function table's outputs) still costs the verifier
// O(2ᵏₜ). With [WithTableClaims] (given to both sides) the prover sends
// each table's dense column at that table's coordinates of ρₜ (its last
// kₜ; [CommittedProof].TableEvals, in [DenseColumns] order) and the
// verifier uses it in the leaf check and outputs it as a claim on the
// column's MLE ([CommittedClaims].Tables), which the caller proves, e.g.
// by opening a fixed commitment to the table's column — independent of
// the other tables of the set, so one commitment per table serves every
// set: what a circuit does, where 2ᵏₜ evaluations would not fit.
//
// # Transcript order and binding
//
// Label "lookup/committed/<set>"; the commitment digest; β; α; the
// witness tree (layer 1, γ, then per layer: λ, sum-check, four values,
// γ); the table tree; m(ρₜ); the column evaluations (id column first);
// with [WithTableClaims], the dense columns' values. The lookups
// themselves are not absorbed:
// they must be bound before α by the caller — tensors whose claims are
// reduced by other protocols are determined by the statement, and advice
// tensors (lookup outputs, remainders) must be absorbed or digested into
// the transcript first.
//
// # Cost
//
// Witness of 2ⁿ entries, table of 2ᵏ rows: the verifier does
// O(n² + k²) field operations for the two trees, O(k) per affine column
// and O(2ᵏ) per dense column (none with [WithTableClaims]). Proofs hold
// n(n−1)/2·3 + 4n + k(k−1)/2·3 + 4k + c + 1 field elements (the last
// m(ρₜ)).
//
// Measured (BLS12-377, the idle 2-core machine; go test -run '^$' -bench
// Committed -benchmem ./lookup), lookups into a set of 2¹⁶ rows (15-,
// 14-, 8- and 4-bit ranges and a 2¹⁰-row function table): multiplicities
// and proof of 2¹⁶ lookups 61 ms, of 2²⁰ lookups 0.44 s (0.42 µs per
// lookup, 0.49 GB allocated); verification of the 2²⁰-lookup proof
// 7.5 ms. The prover's leaves, layers and column evaluations are split
// between the cores and its layer sum-checks run [sumcheck.ProveEq]
// (before both, on a loaded machine: 0.16 s and 1.9 s, 0.82 GB). The
// witness leaves take βᶜ·v from tables of the multiples of βᶜ for
// |v| < 2¹⁶ (limbs, table ids and most function keys), so such an
// entry costs additions only, from 2¹⁸ lookups on (below, building the
// tables cost more than they saved: 2¹⁶ lookups were 6–15% slower): 2²⁰
// lookups 0.54–0.60 s → 0.44–0.55 s, 2¹⁶ unchanged (81–89 ms), the two
// builds run alternately on another 2-core machine, slower than the one
// above. The column evaluations sum eq per small value (buckets) and
// multiply each value once, where each entry cost a conversion and a
// product; each layer of a fraction tree is stored as its even and odd
// halves, the two tables its sum-check reads and folds in place, where
// the layer was split into copies (2 GB at the leaves of a 2²⁶-entry
// cube): 2²⁰ lookups 236–252 ms where they took 270–284 ms, run
// alternately. The in-circuit figures are in package gadgets/lookup.
package lookup
