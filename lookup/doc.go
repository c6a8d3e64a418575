// Package lookup proves that tuples of integers are rows of a fixed table
// with the LogUp argument, proven by a GKR protocol over a binary tree of
// fractions whose layers are reduced with sum-checks. The in-circuit twin is
// package gadgets/lookup, which imports this package's [Proof] and converts
// it to a witness (gadgets/lookup.ValueOfProof); this package does not
// depend on gnark's frontend.
//
// Status: tested natively and in circuit, not on the proving path today
// (while tensors are opened, gnark's own log-derivative lookups are
// cheaper); kept for the committed-tensor work, whose table relations it
// proves.
//
// # Statement
//
// A [Table] has 2ᵏ rows of c columns t₀, …, t_{c−1}; [Lookups] are N tuples
// (w₀(i), …, w_{c−1}(i)) laid out as a tensor of some shape. With
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
// so the prover sends w_c(ρ) ([Proof].ColumnEvals) and these become the
// claims the protocol outputs. The table tree has p = m and
// q = α − Σ_c βᶜ t_c; the verifier evaluates m itself (the multiplicities
// are opened in full) and the table columns in closed form (affine key
// columns, O(k)) or densely (O(2ᵏ)). Finally P_w·Q_t = P_t·Q_w with
// Q_w, Q_t ≠ 0.
//
// # Transcript order and binding
//
// Label "lookup/<table>"; the multiplicities, packed seven 32-bit values per
// field element; β (tables of more than one column); α; the witness tree
// (layer 1, γ, then per layer: λ, sum-check, four values, γ); the table
// tree; the column evaluations. The lookups themselves are not absorbed:
// they must be bound before α by the caller — tensors whose claims are
// reduced by other protocols are determined by the statement, and advice
// tensors (lookup outputs, remainders) must be absorbed or digested into
// the transcript first.
//
// # Cost
//
// Witness of 2ⁿ entries, table of 2ᵏ rows: the verifier does
// O(n² + k²) field operations for the two trees, O(k) per affine column,
// O(2ᵏ) per dense column and O(2ᵏ) for the multiplicities. Proofs hold
// n(n−1)/2·3 + 4n + k(k−1)/2·3 + 4k + c field elements and 2ᵏ
// multiplicities.
package lookup
