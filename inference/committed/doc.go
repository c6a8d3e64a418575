// Package committed proves, for one segment of an inference pass, that
// the tensors the native proof (package inference) opens today are
// committed with package pcs instead, and proves on the commitments their
// ranges, their requantization identities, every contraction (Q, K, V,
// O, MLP, LM head, attention scores and context, RoPE, the gated
// product), the table applications (1/√, GELU, SiLU), the norms'
// arithmetic, the residual adds, the embedding and the argmax of the
// output tokens: every requantization's accumulator is proven, and the
// verifier's work is polylogarithmic in the number of activations, apart
// from O(width) per requantization for per-column multipliers (and the
// weights' evaluation, as in the opened proof). With the softmax
// (maxima, exp lookups, row sums, the probabilities' division) every
// relation of the forward pass is proven on the commitments.
//
// Status: tested natively (honest proofs; every field element and every
// point of a proof changed, one at a time, on the built-in model's
// segments, its last block without the LM head, a chunk of the LM head
// and a Llama segment — 8,031 changes, found by walking the proof's
// fields, each rejected — and on GPT-2 small's shape behind a flag;
// lists shortened, commitments and statement element, segment and pass
// length changed; forged limbs; wrong remainders), and on the proving path of the aggregated shape
// (pipeline, the default design of prove --shape aggregated): the
// segment circuits of gadgets/committed verify its field part on
// BLS12-377, the committed aggregator of package recursion the
// opening's group part on BW6-761. Built for BLS12-377 Fr (pcs). What is
// left is listed under "Left" below.
//
// # Layout
//
// The committed tensors of segment [From, To) of a pass are those of
// inference.WalkSegment and, in the last segment, the argmax margins
// (below). Each is a block: its MLE over its shape padded
// dimension by dimension to powers of two (poly.PaddedIndices, zeros in
// the padding), of kᵦ variables. Blocks are sorted by size, largest first
// (ties in canonical order), and stacked at offsets aligned to their size
// into one table of 2ᴺ entries, N = max(⌈log₂ Σ 2^kᵦ⌉, 1); rows past the
// last block are zero. Block b at offset oᵦ is selected by the leading
// N − kᵦ coordinates, the bits of oᵦ/2^kᵦ (most significant first), so a
// claim on the tensor's MLE at r is the claim on the stacked MLE s at
// (bits(oᵦ/2^kᵦ), r) ([Layout.Point]).
//
// The residual stream handed to the next segment (the last block's
// output, not in the last segment) is also committed on its own, as the
// MLE over its padded shape (at least one variable), so that neighbouring
// segments can be linked by equal commitments; a random-point claim on it
// and on its block of s ties the two. A segment with From > 0 commits, the
// same way, to the residual stream it reads (Proof.Incoming): the
// previous block's output, whose commitment is then the same point as the
// previous segment's Boundary ([CheckChain] checks the links of a pass;
// [VerifyPass] verifies a whole pass's proofs, its shapes computed once,
// and their chain; [ProveSegments] proves them, several at once if
// asked: each has its own transcript, so the proofs are the same).
// [Verify] runs its first steps as exported phases,
// [VerifyLookups] then [VerifyRequants], whose in-circuit twins are in
// gadgets/committed.
//
// Every committed value v of a tensor with range [Min, Max] lies in the
// window [Min, Min + 2^w) (w = transcript.Layout(Min, Max).Bits, as the
// opened proof packs it). Its limbs are the base-2^L digits of v − Min:
// ⌈w/L⌉ limbs, all of L bits but the top one (w − L·(⌈w/L⌉ − 1) bits).
// L ([Layout.LimbBits]) is 15 or 16, the one whose lookup instance (cube
// and table set) is the smaller: 16 for GPT-2 small's segments at 16 rows
// and its LM head, 15 for small models, whose table set it would double.
// The tensors of inference.WalkExact and the function inputs, where their
// range is narrower than their window (Max − Min < 2^w − 1: not the
// model's kinds, whose ranges are their windows), are "exact" blocks: the
// digits of Max − v are limbs too. The limb
// MLE l has 3 + N variables: row j ∈ [0, 8) (the leading 3 coordinates,
// each row committed on its own as an MLE of N variables) holds, at the
// stacked index of each value, limb j of v − Min (j < 4) or
// limb j − 4 of Max − v (j ≥ 4, exact blocks), and zero elsewhere
// (MaxLimbs = 4: windows of at most 4·L bits; a wider one is refused).
//
// # Relations
//
// Lookups (one LogUp-GKR instance with committed multiplicities,
// lookup.ProveCommitted): the lookups are tuples (id, a, b) over a lookup
// cube of 2^K entries ([Layout.Slots], K = Layout.LookupVars) made of
// slots, each the size of a block's MLE: a limb slot (b, j) for every limb
// row j that block b uses, holding (id, lⱼ, 0) over block b's entries of
// row j, and a function slot for every table application ([Function]:
// the attention and MLP norms' 1/√ of each block, the MLP activation —
// GELU or SiLU — and the final norm's 1/√ in the last segment, each
// attention's exp table, the norms' exponent tables), holding the input
// block's values in a and the output block's at the same index in b. The
// slots (per block its used rows in order, then the applications) are
// placed aligned to their sizes, largest first; every other entry is
// (1, 0, 0), a row of Range(L). Only the limbs that exist are looked
// up: for GPT-2 small's block at 64 rows, 2²³ entries where the eight
// full rows of the limb MLE were 2²⁵. The table set ([TableSet]) is
// Range(L) (id 1) then Range(w) for every narrower top-limb width w, in
// increasing order, then the function tables in order of first use. The
// id column is public: each slot's id (its limb width's range, or its
// function's table) on its block's valid entries, 1 elsewhere; the
// verifier evaluates its MLE in O(S·K) for S slots. The multiplicities
// (over the set's rows) are the second commitment. The function tables'
// output columns are not evaluated by the verifier (lookup.WithTableClaims):
// the prover sends each one's MLE at the table point's last kₜ
// coordinates (Proof.Lookup.TableEvals), and the batch opening proves it
// against the [VerifyingKey]'s fixed commitment to that table (one per
// function table of the model, [NewVerifyingKey]; a circuit holds them
// as constants). The claims the
// instance leaves on a and b at ρ are split by the prover into one value
// per slot at ρ's last coordinates (the slot's local ones): each limb
// slot's limb row over its block (Proof.LimbEvals, slot order), each
// function's input and output block MLEs (Proof.Functions); the verifier
// recombines them with each slot's indicator (eq of its offset's bits
// with ρ's leading coordinates), and each value becomes a claim on its
// limb row, or on its block of s, at the block's point. A function
// table's rows past its domain repeat its last output with the next
// keys, so every function input is an exact block (below): its values
// stay in the domain.
//
// Decompositions (one zero-check, sumcheck.ProveZero, degree 3 with the
// eq factor): with public block-constant tables masked by each block's
// valid entries — Min (Min of the block), Wⱼ (2^(Lj) where limb row j is
// used), E (1 on exact blocks), Max·E, Uⱼ (2^(Lj) where upper row j is
// used) — and γ a challenge,
//
//	s − Min − Σⱼ Wⱼ·lⱼ + γ·(Max·E − E·s − Σⱼ Uⱼ·l₄₊ⱼ) = 0   on {0,1}ᴺ.
//
// It makes v − Min and Max − v (exact blocks) sums of range-checked limbs
// and s zero in every padding entry (where all public tables vanish).
// The verifier checks the evaluations of the public tables at the end
// point itself (O(B·N) each); those of s and the limb rows are claims.
//
// Requantizations ([Requants]: norms, Q, K, V, RoPE, scores, context, O,
// gate, up, gated product, down, LM head): Out·2^k + Rem = Acc·M +
// 2^(k−1), i.e. Acc = (2^k·Out + Rem − 2^(k−1))·M⁻¹ element-wise (M per
// column or one multiplier). For requantization q at a challenge point
// r_q over its padded shape, the prover states Acc_q(r_q); with a
// challenge ρ one degree-2 sum-check over the stacked MLE proves
//
//	Σ_q ρ^q·(Acc_q(r_q) + 2^(k_q−1)·C_q) = Σ_{x ∈ {0,1}ᴺ} G(x)·s(x),
//	G = Σ_q ρ^q·(2^(k_q)·[Out_q block]·eq(r_q, ·)·M_q⁻¹ + [Rem_q block]·eq(r_q, ·)·M_q⁻¹),
//	C_q = Σ_x eq(r_q, x)·M_q⁻¹(x)·valid_q(x),
//
// ending with one claim on s. The verifier evaluates G at the end point
// (a product over the leading coordinates and a sum over the last
// dimension's columns: O(N + width) per requantization) and C_q
// (selectors and the same sum). Remainders are never derived from
// accumulators here: both Out and Rem are committed, since both need range
// checks.
//
// Projections (package linear, one proof per input, rows shared): Q, K, V
// of the attention norm's output; O of the context; gate and up of the
// MLP norm's output; down of the activation (or gated product); the LM
// head of the final norm's output. The projections of one input take the
// row coordinates of the first one's point (r_q = (r_row, r_col,q)). Each
// proof turns the Acc_q(r_q) claims into claims on the weights and biases,
// which the verifier evaluates from the model, and one claim on the
// input, a block of s: it joins the batch opening at (prefix, point).
// The other accumulator claims are proven by the steps below; [Claims]
// lists any left (none with every step in place).
//
// Residual adds (residual.go): for every block i of the segment,
// Mid = Input + O.Out, Input being the embedding (i = 0), block i − 1's
// Output, or the incoming stream (the segment's first block when
// From > 0), and Output = Mid + Down.Out — all of one shape [rows, d], so
// one point r of their k variables serves every add: the prover states
// each distinct residual tensor's MLE at r (Proof.ResidualEvals, in order
// of first appearance), the verifier checks every add on those values
// (the MLE is linear, so Sum − A − B vanishes on the cube exactly when it
// vanishes at a random point, up to k/|Fr|), and each value becomes a
// claim on its block of s, or for the incoming stream on Proof.Incoming
// at r.
//
// Gated products (product.go, Llama MLP): the accumulator of the product
// requantization is Act ⊙ Up element-wise. Its claim Acc(r_q) from the
// requantization step is proven by one degree-3 sum-check,
//
//	Acc(r_q) = Σₓ eq(r_q, x)·Act(x)·Up(x)   over the product's padded shape,
//
// whose end point r′ leaves the claims Act(r′), Up(r′) (sent, absorbed)
// on their blocks of s; the verifier evaluates eq(r_q, r′) itself. Zero
// padding makes the sum over the padded cube the sum over the entries.
// The product's claim is then no longer an output ([Claims]).
//
// Rotations (rope.go, Llama): RoPE rotates the pairs (j, j + hd/2) of
// every head of the Q and K projections' outputs, Acc = In·C − In′·S on
// the first half of a head and In·C + In′·S on the second, with cos and
// sin values that depend on the positions only. With hd and the width
// powers of two, In′ is In with one column bit flipped, so one degree-3
// sum-check per rotation proves its claim Acc(r_q):
//
//	Acc(r_q) = Σₓ eq(r_q, x)·(In(x)·C(x) + In(x ⊕ hd/2)·S′(x)),
//
// C and S′ (= ∓S) public tables over the padded shape, which the verifier
// evaluates at the end point r′ itself (O(rows·width), from the cos and
// sin values of its shape pass). The prover sends In(r′) and In at r′
// with the half-head coordinate complemented: two claims on the input's
// block of s. The rotation's claim is then no longer an output.
//
// Attention contractions (attention.go): the scores,
// Acc[h][i][j] = [j ≤ i]·Σ_c Q[i][h·hd+c]·K[j][g·hd+c], and the context,
// Acc[i][h·hd+c] = Σ_j [j ≤ i]·P[h][i][j]·V[j][g·hd+c] (g = h / (query
// heads per key/value head), Q and K after RoPE for Llama), each as a
// matrix product: the output's coordinates are bound first, so that no
// sum-check runs over the whole cube (h, i, j, c). Both factors are
// blocks of s in their per-dimension padded layout (the scores and
// probabilities as [heads, n, T]), so no layout change is needed: with
// hd and the heads-per-group ratio powers of two, the column h·hd + c is
// the bits of h then c, and g the leading bits of h. With the claim's
// point r_q split by groups:
//
//   - the context, one degree-3 sum-check over (i, h, j) of
//     E(i, h, j)·P(h, i, j)·V(j, g, r_c), E = eq(r_i, i)·eq(r_h, h)·[j ≤ i].
//     The prover folds V's head dimension at r_c first. The end point
//     (e_i, e_h, e_j) gives a claim on P and one on V at (e_j, e_g, r_c);
//     the verifier evaluates E there itself: eq(r_h, e_h) times
//     Σ_{a,b} eq(e_i, a)·eq(r_i, a)·eq(e_j, b)·[b ≤ a] over the padded
//     query and key rows, O(n + T) with prefix sums;
//   - the scores, one degree-3 sum-check over (h, i, c) of
//     eq(r_h, h)·eq(r_i, i)·Q(i, h, c)·K̃(h, i, c), where
//     K̃(h, i, c) = Σ_{j ≤ i} eq(r_j, j)·K(j, g, c) are prefix sums of the
//     keys over their rows (the mask is causal). The end point
//     z = (z_h, z_i, z_c) gives a claim on Q, and the prover sends K̃(z).
//     K̃(z) = Σ_j w(j)·K(j, z_g, z_c), with the public
//     w(j) = eq(r_j, j)·Σᵢ eq(z_i, i)·[j ≤ i], is proven by a degree-2
//     sum-check over j (Keys, label "committed/keys", after all the
//     contractions); its end point e_j gives a claim on K at
//     (e_j, z_g, z_c), and the verifier evaluates w(e_j) as E above.
//
// This is the identity the cube's sum states, factored, so it is as
// sound, with the same number of rounds (the scores' j rounds are of
// degree 2). The prover's tables have heads·n·hd and n·heads·T entries
// instead of heads·n·T·hd each: 2¹⁶ instead of 2²² at 64 rows. Masked
// scores have accumulator 0, which the requantization's Out = 0,
// Rem = 2^(k−1) give. The pass must start at position 0 (the keys are its
// own rows).
//
// Argmax (argmax.go, last segment only): with P prompt tokens, output
// tokens t_k (k < g) and logits L, the last segment commits one more
// block, the margins D[k][j] = L[P−1+k][t_k] − L[P−1+k][j] − [j < t_k]
// ([g, V], range [0, Max − Min] of the logits, range-checked as every
// block). All margins are in range exactly when each t_k is its row's
// argmax with ties broken by the smallest index. Their link to the
// logits: the prover sends the chosen logits c_k = L[P−1+k][t_k]
// (claims on s at boolean points, absorbed before the point), the
// verifier draws (ρ_k, ρ_j) over D's variables, the prover sends D(ρ),
// and one degree-2 sum-check over the logits' row coordinates proves
//
//	Σᵢ w(i)·L(i, ρ_j) = Σ_k eq(ρ_k, k)·(c_k·Sel_V(ρ_j) − Prefix_{t_k}(ρ_j)) − D(ρ),
//	w(i) = Σ_k eq(ρ_k, k)·[i = P − 1 + k],
//
// (Sel_V the indicator of j < V, Prefix_t of j < t, both O(log V)), ending
// with a claim L(r′, ρ_j) on s; the verifier evaluates w(r′) in
// O(g·log n). A pass of one row has no row coordinate: the value is the
// claim itself.
//
// Chunks of the LM head (chunk.go; inference.ChunkedSegments): the LM
// head of a large vocabulary can be proven in segments of its own, one
// per range [a, b) of the vocabulary, after a last segment of blocks that
// sets NoHead (it ends at the last block without the final norm and the
// LM head, and commits its output as a boundary). A chunk is the segment
// From = To = the number of blocks: it reads that stream as its incoming
// commitment, proves the final norm over it, and proves the columns
// [a, b) of the LM head (the weight's rows a…b−1, a trace restricted to
// them: accumulator, logits and remainders [n, b − a]) and the margins
// over them, D[k][j] = c_k − L[P−1+k][a+j] − [a+j < t_k], against the
// chosen logits c_k of the whole row. Its argmax step is the one above
// over the chunk's logits, with Prefix_{p_k}, p_k = min(max(t_k − a, 0),
// b − a) the chunk's columns before t_k, and one more list absorbed after
// the chosen logits: Local, per output token the chunk's logit at column
// c_k = t_k − a if the chunk holds t_k, 0 otherwise, claimed on the
// logits in place of c_k; where the chunk holds t_k the verifier requires
// Local[k] = c_k. [VerifyPass] requires the chunks to cover [0, V) in
// order, to read the same incoming stream as the segment of blocks hands
// on ([CheckChain]), and to state the same chosen logits: then every
// margin of every column is in range and each c_k is L[P−1+k][t_k], which
// is the argmax condition of the whole row. A chunk's lookup cube is that
// of the LM head over b − a columns, so the LM head of GPT-2 small at 256
// rows (a cube of 2²⁸ entries in one segment) becomes four chunks of
// 2¹⁴ columns (cubes of 2²⁶). The segment circuit (gadgets/committed)
// verifies chunks and NoHead segments as it verifies the others.
//
// Norms (norm.go): every norm of the segment (per block the attention
// norm, which reads the block's input — the embedding, the previous
// block's output or the incoming stream — and the MLP norm, which reads
// Mid; the final norm in the last segment) over its input h ([rows, n],
// kᵣ + k_c variables) with the committed per-row mean μ and remainder r_μ
// (LayerNorm), exponent e, 1/√ input v, remainder r_V and 1/√ output T,
// and five more committed per-row tensors (auxiliary blocks stacked after
// the walk's): 4^e, 2^(Eₘₐₓ−e) and [e > 0] (table applications on e,
// tables "committed/norm/pow4|scale|nonzero/Eₘₐₓ"), the gap
// 4^e − 1 − r_V (range [0, 4^Eₘₐₓ)) and the floor v − 2¹⁴·[e > 0] (range
// [0, 2¹⁶)); r_μ (range [0, n − 1]) and e (range [0, Eₘₐₓ]) are exact
// blocks. At a random row point ρ₁ the prover states h(ρ₁, ½, …, ½) (the
// row sums over 2^k_c) and the eight row tensors; the verifier checks
//
//	2^k_c·h(ρ₁, ½) = n·μ(ρ₁) + r_μ(ρ₁)                      (LayerNorm; zero values for RMSNorm)
//	gap(ρ₁) = 4^e(ρ₁) − Sel_rows(ρ₁) − r_V(ρ₁),   floor(ρ₁) = v(ρ₁) − 2¹⁴·[e>0](ρ₁)
//
// so that r_V < 4^e and v ≥ 2¹⁴ when e > 0 (e minimal; v < 2¹⁶ is v's
// exact range). Then, at a random row point ρ₂, one sum-check over (r, i)
// proves every row's sum of squares (degree 4, 3 for RMSNorm; value 0):
//
//	Σ_{r,i} eq(ρ₂, r)·((h − μ·VC)² − 2^(−k_c)·(v·4^e + r_V − ε·VR)) = 0
//
// (VC, VR the valid columns and rows, public), and one more the norm's
// accumulator claim Acc(r_q) from the requantization step (degree 6, 5
// for RMSNorm; the round degree is the largest factor count of a term):
//
//	Acc(r_q) = Σ_{r,i} eq(r_q, (r, i))·((h − μ·VC)·T·2^(Eₘₐₓ−e)·γ + β·VR·VC)
//
// with γ and β the model's per-column weights, evaluated by the verifier
// (O(n)). Each sum-check's end values (h, μ, v, 4^e, r_V; h, μ, T,
// 2^(Eₘₐₓ−e)) are claims on their blocks (h on Proof.Incoming when the
// norm reads the incoming stream).
//
// Softmax (softmax.go): every attention of the segment, over its padded
// cube (h, i, j) of scores s (zero where masked), with its committed row
// maxima m, high limbs hi, probabilities p and remainders ρ, and eight
// more committed blocks: the trace's low limbs lo (ExpLow.In), EXP(lo)
// (ExpLow.Out), z = [hi = 0] (ExpHigh.Out), the exps x and the row sums Σ,
// and three it does not have: gap = 2Σ − 1 − ρ (range [0, 2·T·2¹⁶)), a
// one-hot mark of each row's maximum (range [0, 1]) and hiGap =
// hi + z − 1 (range [0, 2¹⁵)). EXP(lo) is a table application (lo is
// exact, the exp table covers [0, 2¹⁶)); z needs no lookup: it is a bit,
// z·hi = 0 and hi + z − 1 ≥ 0 make it [hi = 0]. One zero-check over the
// cube (mask and valid entries public, m and Σ broadcast over j), with
// powers of a challenge γ, proves on every entry
//
//	lo + 2¹⁶·hi = mask·m − s                   (so m ≥ every unmasked score)
//	x = mask·EXP(lo)·z
//	p·2Σ + ρ = 2^(P+1)·x + Σ·valid,  gap = 2Σ·valid − valid − ρ   (so ρ < 2Σ)
//	z·hi = 0,  hiGap = hi + z − valid
//
// at a random row point ρ′ the prover states x(ρ′, ½), Σ(ρ′) and the
// mark's row sums; the verifier checks 2^bj·x(ρ′, ½) = Σ(ρ′) and
// 2^bj·mark(ρ′, ½) = Sel(ρ′) (one mark per valid row); and one degree-2
// sum-check proves Σ mark·(lo + 2¹⁶·hi + 1 − mask) = 0 — non-negative
// terms far below |Fr|, so each mark sits on an unmasked entry whose score
// is the maximum. The mask's MLE is poly.CausalZeroifier's (the pass
// starts at position 0, T = n) times the heads' selector: O(log n).
//
// Embedding (embedding.go, first segment only): the embedding block is
// the model's embedding of the public tokens, E[token] (plus P[position]
// for GPT-2). At a point r of its variables the verifier computes that
// tensor's MLE itself from the model and the tokens (O(rows·d)) and makes
// it the value of a claim on the block of s: the prover sends nothing.
//
// Openings: every claim — the limb slots' and the function blocks'
// values at the lookup point, the multiplicity claim, the
// zero-check's claims on s and on the 8 limb rows, the requantization
// claim on s, the boundary link, the function tables' outputs — is
// proven by one pcs.OpenBatchParts over the commitments (s, m, l₀, …,
// l₇[, boundary][, incoming], then the key's commitments to the set's
// function tables in set order), whose sum-check runs over max(N, set
// variables) variables. The key's commitments are not absorbed: they are
// a function of the model, which the statement's model id binds.
//
// # Parts
//
// Each of those MLEs is committed in parts of M variables
// (pcs.CommitParts; M = [PartVars] = 18 unless [WithPartVars] says
// otherwise, raised to the boundary's and the incoming stream's
// variables, which are committed whole: [Shape.PartVars]), and the
// opening runs over min(max(N, set variables), M) variables
// ([Shape.OpeningVars]): its multi-scalar multiplications cover 2^M
// points whatever the segment's size, where they covered the stacked
// tensors' length (pcs, "Commitments in parts"). An MLE of M variables
// or fewer is one part, its commitment: the built-in model's segments
// (N = 15, a table set of 2¹⁸ rows) are unchanged. Of s and the limb
// rows the proof commits only the parts the layout fills ([Shape.Parts]:
// those that meet a block, of a limb row a block that uses the row);
// the others are zero whatever the tensors' values, and the verifier
// takes them as the identity, the commitment to zero, which binds them
// to zero. Every part of the multiplicities and of the key's tables is
// committed ([VerifyingKey.PartVars] is the key's M; a proof verifies
// under a key of its own M only). [Proof.Commitments] lists the parts,
// commitment by commitment; the verifier checks each count against the
// layout, then keeps the scalars of the committed parts
// ([SelectParts]). GPT-2 small's block at 16 rows (N = 20, 541,536
// entries) commits 3 parts of s and 42 points in all (33 whole), the
// LM-head segment (N = 22) 15 parts of s and 97 points (33 whole).
//
// # Transcript
//
// Domain "veriformer/inference/committed/v1", seeded with the statement
// (model id, input digest, output digest), then From and To (then 1 for
// a segment that sets NoHead, VocabFrom + 2 and VocabTo for a chunk). The
// statement is only bound here: the caller checks it against the model
// and tokens (as inference.VerifySegment does). Then:
//
//	pcs.Digest(s, m, l₀, …, l₇[, boundary][, incoming])      (all commitments, every committed part, before any challenge)
//	lookup.ProveCommitted: label "lookup/committed/committed/tables", pcs.Digest(m), β, α,
//	  witness tree, table tree, m(ρₜ), column evaluations, the function tables' outputs
//	each limb slot's value (slot order); per function, its input and output values
//	label "committed/decomposition"; γ; zero-check (sumcheck.ZeroCheckLabel, …, evaluations)
//	label "committed/requant"; r_q for every requantization (shared rows drawn once); Acc_q(r_q); ρ;
//	  sum-check (degree 2, N rounds); s at its end point
//	label "committed/projections"; per input, linear.Prove's transcript
//	label "committed/product"; per gated product: sum-check (degree 3), Act(r′), Up(r′)   (Llama)
//	label "committed/rope"; per rotation: sum-check (degree 3), In(r′), In(r′ with the half-head bit flipped)   (Llama)
//	label "committed/attention"; per block: scores then context, each a sum-check (degree 3), A(r′), B(r′)
//	label "committed/keys"; per scores contraction: sum-check over the key rows (degree 2), K at its end
//	label "committed/norm"; per norm: ρ₁; the 9 row values; ρ₂; sum-check (degree 4; 3 RMSNorm), 5 values;
//	  sum-check (degree 6; 5 RMSNorm) of Acc(r_q), 4 values
//	label "committed/softmax"; per attention: γ; zero-check (14 tables); ρ′; 3 row values;
//	  sum-check (degree 2), 3 values
//	label "committed/residual"; r; the residual values                (when the segment has a residual add)
//	label "committed/embedding"; its point                           (first segment only)
//	label "committed/argmax"; c_k; Local (chunks); (ρ_k, ρ_j); D(ρ); sum-check (degree 2); L(r′, ρ_j)   (with the LM head)
//	label "committed/boundary"; its point; the boundary's value     (not in the last segment)
//	pcs.OpenBatchParts: label "pcs/batch", the claims' values, α, sum-check, HyperKZG
//
// The claims' order in the batch: multiplicities, s of the zero-check,
// each limb slot's claim on its limb row, each limb row's zero-check
// claim, each function's
// input and output, s of the requantization sum-check, the projections' inputs, the boundary and its
// block of s, the residual values, the embedding, each gated product's
// Act and Up, each rotation's two input values, each attention
// contraction's two factors (the keys' at the key sum-check's end), the chosen logits, the margins, the logits
// at the sum-check's end, then per norm its row values (the row sums
// first, LayerNorm), the variance sum-check's and the scaling sum-check's
// end values, then per attention its zero-check's committed tables (m
// and Σ at the end point's row coordinates), its three row values and
// the one-hot sum-check's (mark, lo, hi), then each function table's
// output column at the table point (set order).
//
// # Format
//
// [Proof.MarshalBinary] writes the magic string "veriformer/committed",
// [FormatVersion], then Tensors, Multiplicities and each limb row (each
// a count and its parts' points), a presence byte
// and the Boundary, BoundaryEval (zero without a Boundary: the decoder and
// the verifier reject any other value), a presence byte and Incoming, LimbEvals
// (count; values),
// Functions (count; per function In, Out), the LogUp proof (witness and
// table trees: root, layers; MultiplicityEval; ColumnEvals; TableEvals), the
// zero-check (rounds, evaluations), Accumulators, the requantization
// sum-check's rounds, RequantEval, the projection proofs (count; per
// proof: Biases, sum-check rounds, Inputs, Weights), the gated products,
// the rotations and the attention contractions (three lists of
// [FactorProof]: count; per proof: sum-check rounds, A, B — Act and Up,
// the input and its pair, the two factors, K̃(z) for the scores), the key
// proofs (count; per proof: sum-check rounds, K), the norm proofs (count; per
// proof: 9 row values, rounds, 5 values, rounds, 4 values), the softmax
// proofs (count; per proof: zero-check rounds and evaluations, 3 row
// values, rounds, 3 values), a presence
// byte (1, or 2 for a chunk's) and the argmax proof (Chosen, Local for
// a chunk's, MarginsEval, rounds, LogitsEval),
// ResidualEvals, and the batch
// opening in pcs's encoding behind its length: G1 points compressed (48
// bytes), scalars canonical (32 bytes), counts as 4-byte big-endian
// integers. [UnmarshalProof]
// bounds every count by a constant and by the bytes left before
// allocating, refuses non-canonical scalars and points that are
// uncompressed, non-canonical or outside G1, and never panics (fuzzed).
// [Proof.Size] is the same size without the magic, counts and flags.
//
// # Soundness notes
//
// The limbs and multiplicities are committed before β, α, γ, ρ and every
// point; the stacked MLE before the accumulator points. LogUp is sound for
// field multiplicities (2^K + 2^18 ≪ |Fr|); each limb is then in its
// range, the decomposition makes v − Min (and Max − v) a sum of limbs below
// 2^60 ≪ |Fr|, so v is in its window (exact range). The padding of every
// block is zero, which the contraction sum-checks' zero-padded claims
// rely on. A wrong Out or Rem (in range) gives a false Acc_q(r_q) claim,
// rejected by the sum-check that proves it (tested for projections,
// norms, attention, rotations and products). The function tables' rows
// past their domains repeat the last output with the next keys; every
// function input is an exact block, so no lookup reaches them. Every
// identity above holds over the integers as soon as it holds in Fr: its
// values are range-checked blocks and public constants, and each side is
// far below |Fr| ≈ 2²⁵³ (the model's bounds, package model, "Bounds": the
// largest are the accumulators, below 2⁶², and v·4^e + r_V, below 2⁶¹).
//
// # Cost
//
// Measured (go test -run '^$' -bench Prove ./inference/committed
// -committed.gpt2small=true [-committed.rows=N] [-committed.pass=true]
// [-committed.block=K] (without the pass, block K's segment; 11 is the
// last, with the LM head) [-committed.parts=M] (parts of 2^M entries),
// one run each on the 2-core machine, nothing else running, development
// SRS), with every relation above, before the commitments were split in
// parts (the current figures are under "Parts" below):
//
//	                      built-in, 16 rows   GPT-2-small shape, block 1 only     whole pass, 16 rows
//	                      both segments       16 rows    32 rows    64 rows       12 segments
//	stacked MLE           2¹⁶ (each)          2²⁰        2²¹        2²²           2²⁰ (2²² last)
//	lookup cube           2¹⁷, 2¹⁸            2²¹        2²²        2²³           2²¹ (2²⁴ last)
//	prover                4.1 s               7.3 s      15.6 s     34.4 s        120 s
//	  commit              0.24 s              0.83 s     1.6 s      3.1 s         15.7 s
//	  GKR (LogUp)         0.32 s              0.85 s     1.8 s      8.0 s         18.6 s
//	  sum-checks          0.11 s              0.69 s     1.6 s      4.1 s         10.4 s
//	  batch opening       3.4 s               5.0 s      10.6 s     19.2 s        74.8 s
//	forward pass (all)    1.2 ms              289 ms     550 ms     1.1 s         279 ms
//	prover / forward      3,500               25         28         33            428
//	verifier              57 ms               368 ms     573 ms     1.1 s         4.1 s
//	proof                 130 kB (two)        74 kB      78 kB      82 kB         908 kB
//	peak RSS of the run   0.2 GB              3.8 GB     5.3 GB     8.7 GB        10.3 GB
//	field work (below)    ≈ 435k, 488k R1CS   ≈ 535k     ≈ 563k     ≈ 594k        ≈ 535k (646k last)
//
// ("sum-checks" covers every sum-check and zero-check but the LogUp
// instance's; "prover / forward" is the prover's time over the integer
// forward pass of the same tokens in the same run, the whole model's for
// the pass.) In the whole pass, each block's segment takes 6.5–6.9 s
// (the first, with the embedding, 8.6 s) and the last one, with the LM
// head (its logits, 31-bit exact, and remainders over 16·2¹⁶ padded
// entries, the margins over 9·2¹⁶), 43 s. Three blocks per segment
// (-committed.blocks=3, measured before the changes below) took 28–31 s
// per segment, but the last one then holds 2²³ entries and the run peaked
// at 17.6 GB, for the same total. The 64-row block fits the 12 GB target
// since the lookups run over slots (2²³ entries, where the eight full
// limb rows were 2²⁵ and the run peaked at 23.1 GB). A block at 128
// rows (stacked MLE 2²³, lookup cube 2²⁵; measured on the slower-faulting
// machine of "Memory faults" below, with huge pages) proves in 112 s
// (commit 14.8 s, GKR 21.8 s, sum-checks 16.8 s, opening 58.4 s), verifies
// in 3.0 s, and its proof is 88,880 bytes: 74.4 / 78 / 82.3 / 88.9 kB at
// 16 / 32 / 64 / 128 rows, logarithmic growth. That run peaked at
// 23.5 GB, with the 2²³-point development SRS generated in the same
// process. A block at 256 rows (stacked MLE 2²⁵: the attention's
// tensors, heads·n², a dozen of them; lookup cube 2²⁶) now fits:
// measured on a machine about 3.3 times slower than the one of the
// other figures (the lookup benchmark at 2²⁰ lookups 0.82–0.89 s where
// it takes 0.24–0.25 s, the forward pass of 16 rows 0.75 s where it
// takes 0.22 s), it proves in 263 s
// (commit 42.2 s, GKR 61.3 s, sum-checks 112.6 s, of which the attention
// contractions most, opening 47.1 s), verifies in 15.5 s, peaks at
// 18.7 GB RSS, and its proof is 104,880 bytes (287 points, the parts of
// 2¹⁸ of a stacked MLE of 2²⁵), where block 1's is 74,736 bytes at 16
// rows and 84,016 at 64. At 256 rows the last segment with the LM head
// does not fit: its lookup cube would be 2²⁸ entries (eleven slots of
// 2²⁴ for the logits' six limb rows, the remainders' two and the
// margins' three). In chunks of 2¹⁴ columns (see "Chunks of the LM
// head") each chunk's stack is 2²⁴ and its cube 2²⁶ (2²² and 2²³ for the
// last, 1,105 columns); on the slower machine, shared with a test run,
// the four chunks prove in 306.9, 304.0, 181.8 and 29.4 s (commit
// 206.8 s, GKR 285.6 s, sum-checks 146.4 s, opening 183.3 s in all),
// verify in 69.4 s in all, peak at 13.6 GB RSS and make 317,312 bytes
// of proofs; a chunk's field work is about 553k R1CS of transcript and
// sum-checks (rounds by degree {2: 66, 3: 485, 4: 18, 6: 18}, GKR 461,
// 258 points). Block 11 without the LM head, as such a pass has it,
// proves in 170.0 s on the same machine (commit 22.3 s, GKR 41.8 s,
// sum-checks 72.8 s, opening 33.1 s), verifies in 11.1 s, peaks at
// 18.2 GB RSS and its proof is 104,880 bytes, as block 1's. So every
// segment of the 256-row pass fits in 24 GB. The whole pass at 256
// rows in sixteen segments (twelve blocks, four chunks;
// -committed.pass=true -committed.chunk=16384), measured on that
// machine: prover 2,408 s (157–185 s per block, 114.9–124.8 s per chunk
// of 2¹⁴ columns, 17.9 s for the last; commit 357.7 s, GKR 607.6 s,
// sum-checks 941.6 s, opening 500.7 s; 230 times the forward pass of
// 10.4 s), segments verified in 161.9 s, VerifyPass 11.7 s, proofs
// 1,576,032 bytes (below the 2 MB target), peak RSS 19.1 GB. The same
// pass with the code of today (smaller lookup cubes, the attention
// contractions as matrix products: below), one segment at a time, on the
// faster machine (AVX-512): prover 802.7 s (45.9–60.5 s per block,
// 41.5–45.5 s per chunk of 2¹⁴ columns, 8.7 s for the last; commit
// 228.6 s, GKR 211.5 s, sum-checks 153.5 s, opening 208.9 s; 175 times
// the forward pass of 4.6 s), segments verified in 100.0 s, VerifyPass
// 9.5 s, proofs 1,524,384 bytes, peak RSS 17.3 GiB (18.6 GB); a block's
// field work ≈ 668k R1CS (rounds by degree {2: 120, 3: 541, 4: 56,
// 6: 36}, GKR 478, 256 points), a chunk's ≈ 544k.
//
// How it got here, each step measured on the whole pass at 16 rows with
// the same proofs but the last:
//
//   - 183 s, 11.2 GB: the first committed prover.
//   - 152 s, 9.6 GB: the prover runs on both cores throughout (the LogUp
//     instance's leaves, layers and column evaluations, the commitments'
//     gathering of non-zero entries, the opening's vector work), and
//     every eq-weighted sum-check (the zero-checks, the GKR layers) runs
//     [sumcheck.ProveEq], which neither builds nor folds the eq table.
//   - 120 s: the opening sends one quotient where it sent two (package
//     pcs, "Opening"): one full-scalar MSM of the opening's size fewer.
//     A block's segment went from 9.4 s to 7.3 s, its opening from 6.9 s
//     to 5.0 s; the proof is one point (48 bytes) smaller.
//
// Memory faults. On a virtual machine whose host backs its memory on
// first touch, each fresh 4 KiB page costs about 12 µs (writing 2 GiB of
// fresh memory takes 6.3 s there, 0.12 s once resident), and a segment
// touches gigabytes of fresh tables. The prover's large tables (the
// lookup cube's layers, the eq and fold tables of the sum-checks, the
// stacked, limb and column tables, the opening's combinations) are
// allocated with internal/hugepage, which advises them for transparent
// huge pages, so that their first touch faults once per 2 MiB. Measured
// on such a machine, the code before against the code after (the same
// proofs), single runs alternated:
//
//	                          before           after            page faults
//	block 1 alone, 16 rows    11.4–11.7 s      9.5–9.8 s        1.03M → 0.67M
//	block 1 alone, 64 rows    45.9–47.9 s      35.4–49.0 s (*)  2.3–2.4M → 0.87–0.88M
//	LM-head segment alone     63.7–95.4 s      46.1–51.9 s      2.8M → 0.92M
//	whole pass, 16 rows       139.5–148.5 s    133.9 s          3.1M → 0.88M
//
// (*: that run's opening took 29.5 s, against 18.2–18.9 s in the three
// others.) In the pass, the first segment went from 12.4–14.8 s to
// 10.9 s and the last from 52.9–56.2 s to 44.7 s; the middle blocks
// stayed within the runs' spread (6.2–10 s), since the heap is reused
// after the first segment. A lower collector target (GOGC=25) gave the
// block alone as much (9.3 s) but the pass 141.6 s; it is not set.
//
// Trailing zeros. The opening's folds and quotient are zero past the
// stacked tensors' last entry (a block's quotient at 16 rows has 541,533
// non-zero coefficients of 2²⁰), and pcs commits them without those
// zeros, which gnark-crypto's MultiExp would still split and sort (the
// same proofs). Two pairs of whole passes at 16 rows on the machine
// above, old and new alternated: 136.2 and 123.4 s before, 125.0 and
// 112.7 s after (the opening 83.2 and 74.8 s before, 76.1 and 69.6 s
// after). Block 1 alone stayed within its runs' spread (opening 4.4–5.0 s
// before, 4.1–5.0 s after).
//
// Parts. The stacked MLE, the limb rows, the multiplicities and the
// tables committed in parts of 2¹⁸ entries ("Parts" above; the same
// relations, another opening): a block's opening covers 2·2¹⁸ points
// where it covered its 541,536 entries twice, the LM head's where it
// covered 3.72M twice. Old (the whole commitments) and new binaries,
// single runs alternated on the machine above, development SRS:
//
//	                               old                        new (parts of 2¹⁸)
//	whole pass, 16 rows, 1st pair  130.2 s (opening 78.7 s)    88.3 s (opening 35.1 s)
//	whole pass, 16 rows, 2nd pair  114.8 s (opening 69.6 s)    92.9 s (opening 37.9 s)
//	  commit / GKR / sum-checks    19.3, 15.3 / 18.0, 17.6 /   25.1, 24.8 / 14.4, 15.9 /
//	                               14.2, 12.3 s                13.6, 14.4 s
//	  a block's segment            5.9–10.2 s                  4.3–9.0 s
//	  the LM-head segment          48.2, 43.2 s                29.6, 30.0 s
//	  verifier (the pass)          4.9, 3.9 s                  3.9, 3.9 s
//	  proofs                       908 kB                      915 kB
//	  peak RSS                     10.9 GB                     10.7 GB
//	LM-head segment alone          51.3 s (opening 24.6 s)     29.8 s (opening 5.8 s); verifier 1.05 → 0.45 s
//	block 1 alone, 16 rows         8.6 s (opening 4.0 s)       7.8 s (opening 2.7 s), 74.4 → 74.7 kB
//	block 1 alone, 32 rows         20.8 s (opening 11.2 s)     11.4 s (opening 3.4 s), 6.5 → 5.2 GB, 78.3 → 79.0 kB
//	block 1 alone, 64 rows         37.7 s (opening 18.2 s)     28.2 s (opening 9.0 s), 82.3 → 84.0 kB
//
// The commit phase of the pass reads slower with parts although the
// commitments themselves cost the same (a block's stacked MLE and limb
// rows: 0.59 s whole, 0.58 s in parts of 2¹⁸, 0.59 s of 2¹⁷, measured
// alone): it absorbs the page faults of fresh memory that the smaller
// opening no longer leaves for the next segment to reuse. Parts of 2¹⁷
// gave the pass in 78.0 s (opening 27.3 s, one run), with 53 points per
// block segment and 164 in the LM head's (42 and 97 with 2¹⁸, 33
// whole); each point costs the aggregator about 3.1k R1CS (a scalar
// multiplication and a public input), so [PartVars] stays 2¹⁸ and the
// built-in model's segments (2¹⁵ stacked entries, a table set of 2¹⁸)
// keep their proofs and circuits.
//
// Zero blocks and filling. The eq-weighted sum-checks skip the blocks
// of pairs where a factor is zero in both halves (package sumcheck: most
// of the decomposition zero-check's selector and limb tables are zero
// over whole blocks), and the stacked, limb, public and lookup tables and
// the multiplicities are filled on every core (the same proofs). Block 1
// alone at 16 rows, by step: the tables before the commitments
// 0.53 → 0.27 s, the zero-check's public tables 0.46 → 0.33 s, the
// zero-check 1.35 → 1.1–1.2 s. In the whole pass at 16 rows the
// sum-checks' share fell from 14.5 and 16.9 s to 12.0 and 12.9 s, but
// the pass did not change beyond this machine's spread: 93.8 and 98.4 s
// before, 95.9 and 95.8 s after (single runs alternated, under the same
// memory limit; the machine gave 88–93 s for the same code earlier).
//
// Where a segment's time goes (block 1 alone, 16 rows, this code):
// commitments 1.35 s (the stacked MLE 0.45 s, the limb rows and
// multiplicities 0.9 s: MSMs of small scalars, about 0.4 µs a point),
// LogUp GKR 1.0 s, the zero-check 1.1 s and its public tables 0.33 s,
// the other sum-checks 0.4 s, the opening 2.6 s: its combination tables
// 0.41 s, its batching sum-check 0.56 s, g 0.12 s and HyperKZG over 2¹⁸
// variables 1.9 s (two full-scalar MSMs of 2¹⁸ points). The LM-head
// segment alone: commitments 7.3 s (limb rows 5.5 s), GKR over 2²⁴ leaves
// 7.3–8.0 s, the zero-check 3.0 s, the opening 6.7 s (combinations
// 1.6 s, batching sum-check 2.6 s, g 0.5 s, HyperKZG 2.0 s).
//
// The whole pass at 64 rows (32 prompt and 32 generated tokens, one
// block per segment; the stacked MLE 2²² per block, 2²⁴ in the last
// segment, whose lookup cube is 2²⁶), one run: prover 238.1 s (commit
// 71.6 s, GKR 49.6 s, sum-checks 38.8 s, openings 78.1 s; 278 times the
// forward pass), 24.0 s for the first segment, 12.2–14.5 s for each
// block, 79.3 s for the last; verifier 15.1 s; 1,036,560 bytes of
// proofs; peak RSS 21.0 GB. It fits only with the collector paced by a
// soft memory limit (internal/memlimit: 85% of the machine's memory,
// which the commands and the benchmark set unless GOMEMLIMIT is given):
// without it the last segment alone is killed at 24.4 GB, with it that
// segment proves in 102 s at a peak of 22.0 GB (commit 45.5 s, of which
// the limb rows 26 s; GKR 23.2 s; sum-checks 15.2 s; opening 18.5 s).
// The field work of a block's segment is ≈ 592k R1CS at 64 rows (78
// points), of the last ≈ 715k (305 points).
//
// Faster commitments, openings and lookups, less memory (the same
// proofs; packages pcs, lookup and sumcheck):
//
//   - The commitments of tables of integers below 2⁶⁴ (all of a
//     segment's) run package pcs's own multi-scalar multiplication: only
//     the windows the largest value needs, every core on each, batched
//     affine additions. The LM-head segment alone at 16 rows: commitments
//     9.9 and 10.8 s before, 5.6 and 6.9 s after; a block's 1.1–1.3 s
//     before, 0.8 s after.
//   - The batch opening proves the claims that share a point on several
//     MLEs (the decomposition zero-check's, on s and the eight limb rows)
//     as one term with one eq table, and skips the zero granules of its
//     tables in the sum-check, the inner products and g. A block at 64
//     rows: the opening 5.1–6.1 s before, 4.3–4.6 s after.
//   - The LogUp instance's leaves, whose numerators are all 1 (the
//     lookups fill their cube), keep no table of them.
//   - The decomposition zero-check folds its public tables in place
//     (sumcheck.Overwrite), and in segments whose stacked MLE has 2²²
//     entries or more it folds the limb rows in place too, the limb rows
//     in the field being dropped while the lookup argument runs and
//     rebuilt from the integers (after the argument and after the
//     zero-check; both since replaced by generated tables, "Less fresh
//     memory" below). The LM-head segment alone at 64 rows, under GOMEMLIMIT=11GiB (the live
//     heap after each collection): 16.4 GB in the lookup argument and
//     17.7 GB in the zero-check before, 11.3 GB and 13.6–13.9 GB after
//     (one collection saw 14.9 GB), the opening 13.9 GB; the peak RSS of
//     that run 17.2 GB before, 14.3 GB after. Under the default limit it
//     proved in 102.7 s before (commit 34.5 s, GKR 25.5 s, opening
//     21.5 s), 74.6 s after (23.3, 22.5 and 12.1 s).
//
// The whole pass at 16 rows after all four, one run: prover 75.9 s
// (112 times the forward pass; commit 14.9 s, GKR 16.2 s, sum-checks
// 12.0 s, openings 32.7 s; 4.0–5.0 s per block, 6.5 s for the first
// segment, 24.4 s for the last), verifier 4.4 s, 914,640 bytes of
// proofs, peak RSS 8.8 GB. Old and new binaries run one after the other
// later the same day: 82.5 s before, 78.4 s after (commit 22.4 and
// 14.2 s, GKR 15.2 and 15.7 s, sum-checks 10.5 and 14.4 s, openings 34.4
// and 34.1 s), peak RSS 10.6 and 8.6 GB: at 16 rows the faster
// commitments were mostly paid back by the limb rows' two rebuilds (in
// fresh memory, counted with the sum-checks), which only the larger
// segments need. The rows are now dropped and rebuilt only from 2²²
// entries a row on (dropLimbVars): the pass at 16 rows then took 71.3 s
// (commit 17.5 s, GKR 11.8 s, sum-checks 10.2 s, openings 31.8 s;
// 3.7–5.4 s per block, 21.0 s for the last segment), peak RSS 8.8 GB,
// one run. At 64 rows, old and new binaries run one after the other
// (this machine ran the old one 18% slower than the day before, 282.0 s
// against 238.1 s): 282.0 s before, 253.6 s after (commit 86.1 and
// 84.6 s, GKR 62.1 and 54.6 s, sum-checks 44.5 and 49.5 s, openings 89.4
// and 64.8 s; the last segment 101.3 and 96.1 s), peak RSS 21.0 and
// 20.6 GB: the last segment's live heap now stays under 14 GB, but the
// collector lets the heap grow to the soft limit.
//
// Less fresh memory (the same proofs; packages sumcheck, pcs and
// internal/memlimit). On this virtual machine a page of fresh memory is
// slow (its first touch faults to the host and the kernel zeroes it:
// package internal/hugepage), and the prover's time tracks the memory
// it touches for the first time as much as its arithmetic:
//
//   - The decomposition zero-check's eleven public tables (Min, the
//     weights, E, Max·E: constant per block) are generated
//     (sumcheck.Generate) from a table of each entry's block (2 bytes an
//     entry) and never built; where the limb rows are dropped they are
//     generated from the integers, and rebuilt once (for the opening)
//     where they were rebuilt twice. The LM-head segment alone at 64
//     rows under GOMEMLIMIT=11GiB: the zero-check's live heap 11.3 GB
//     where it was 13.6–13.9 GB.
//   - The commands and the benchmark collect each time the heap grows by
//     a quarter (internal/memlimit.GCPercent; Go's default lets it
//     double): the tables hold no pointers, so that a collection is
//     cheap and the memory it saves is fresh memory not touched. The
//     LM-head segment alone at 64 rows: 82.9 s and 14.9 GB against
//     89.9 s and 19.4 GB.
//   - The batch opening keeps the combination Aⱼ of an MLE whose claims
//     are all on blocks (within one half, adding up to half of it at
//     most: limb rows 2 to 7) as the blocks' eq tables until its first
//     round, and builds it at half size there; in large segments it
//     folded the limb rows in place and had them written again from the
//     integers for g (since replaced: below). The LM-head segment's live
//     heap in the opening, 64 rows, GOMEMLIMIT=11GiB: 12.2 GB where it
//     was 13.9 GB (peak RSS 13.0 GB, was 14.3).
//
// The pass at 16 rows, the previous version (437940d) and this one run
// alternately in the same hour: 80.4 and 78.2 s before, 68.8 and 78.4 s
// after (commit 19.2, 17.7 and 15.7, 17.8 s; GKR 12.7, 13.3 and 12.4,
// 13.4 s; sum-checks 11.6, 11.6 and 10.2, 12.3 s; openings 36.8, 35.6
// and 30.5, 34.9 s; the first segment 9.1–9.3 s before, 5.8 s after;
// the last 22.1–23.2 s before, 21.8–23.2 s after); peak RSS 8.3–9.1 GB
// before, 5.1 GB after; the same 914,640 bytes of proofs. The runs of
// this machine vary by 15% within the hour: another run of the
// zero-check's change with the collector's target gave 68.0 s. The pass
// at 64 rows, one run: 208.6 s (232 times the forward pass; commit
// 58.3 s, GKR 42.0 s, sum-checks 48.2 s, openings 60.0 s; 10.9–17.6 s
// per block, 69.3 s for the last segment), verifier 14.3 s, peak RSS
// 15.5 GB; the previous version, run a quarter of an hour later, 246.8 s
// (commit 74.9 s, GKR 58.2 s, sum-checks 55.3 s, openings 58.4 s; 90.8 s
// for the last segment) and 20.5 GB.
//
// Less memory still (the same proofs: TestGoldenProofs holds the SHA-256
// of the built-in model's segment proofs under a fixed τ, unchanged):
//
//   - The limb rows are 2-byte integers (they were 8), converted to the
//     field through a table of the 2¹⁶ values (2.5 ns an entry where the
//     conversion took 16).
//
//   - From dropLimbVars on they never exist in the field: each is
//     committed part by part from the integers, the zero-check generates
//     them (sumcheck.Generate) and so does the batch opening
//     (pcs.Generate, which replaces the in-place folds): it stores their
//     first folds only, 2 GB where the rows took 4 GB in the LM-head
//     segment at 64 rows.
//
//   - LogUp-GKR's fraction trees store each layer as its even and odd
//     halves, which the layer's sum-check folds in place, where the
//     layer was split into copies (2 GB at the leaves of the LM head's
//     cube of 2²⁶ entries); its column evaluations sum eq per small value
//     and multiply each value once.
//
//   - The collector's target is 10 (internal/memlimit.GCPercent).
//
//   - The batch opening's inner products, scaled sums and round sums run
//     on the vector kernels (a block's opening in shape, pcs
//     BenchmarkOpenBatchSparse: 2.37–2.50 s where it took 2.69–3.18 s).
//
//   - A segment's parts (stacked tensors, limb rows) are committed with
//     pcs.CommitEach: the parts shared between the cores, each committed
//     on one, so that each small-scalar multiplication sums its buckets
//     once, not once per core. Block 1's commit phase, on the machine
//     3.3 times slower of the 256-row figure, alternated: 5.4–6.0 s at
//     64 rows where it took 6.8–7.7 s, 1.4–1.7 s at 16 rows where it took
//     1.7–1.8 s. The attention contractions' tables are filled on
//     every core.
//
//   - From 2²⁵ lookups, LogUp-GKR drops the witness tree's leaves once
//     the layer above them is built and generates them again for the
//     last layer: the tree's upper layers (4 GB in the LM-head segment at
//     64 rows) and its leaves (2 GB) are never held together.
//
// The LM-head segment alone at 64 rows: its live heap peaks at 8.6 GB,
// in the opening, where it peaked at 12.2 GB (and at 10.5 GB at the
// start of GKR before its leaves were generated again); peak RSS
// 10.2 GB and 69.5 s, where it was 14.9 GB and 82.9 s. Before the
// leaves were generated again: 11.8–11.9 GB and 72.9–78.1 s with the
// collector's target of 10, 13.2–13.7 GB and 81.8–94.0 s with 25.
//
// The pass at 16 rows with all of the above, seven runs in one
// afternoon: 63.5, 70.0, 58.2, 59.8, 60.4, 60.3 and 61.0 s (commit
// 13.6–16.7 s, GKR 9.5–12.3 s, sum-checks 6.9–9.6 s, openings
// 27.7–31.3 s; 3.6–5.9 s per block, 13.9–15.7 s for the last segment;
// 216–286 times the forward pass), peak RSS 4.1 GB, the same 914,640
// bytes of proofs. The pass at 64 rows, two runs: 178.0 and 187.4 s (199
// and 201 times the forward pass; commit 52.3, 51.6 s, GKR 42.4, 48.5 s,
// sum-checks 31.9, 32.4 s, openings 51.5, 54.8 s; 9.3–11.8 s per block,
// 12.0–13.0 s for the first segment, 62.7–67.2 s for the last), verifier
// 13.8–14.0 s, peak RSS 10.4–11.0 GB; before the witness leaves were
// generated again, 188.1–191.3 s and 11.9–12.0 GB in three runs of
// intermediate versions.
//
// Where the pass stood before the cuts, segments at once and the
// changes below: memory at 64 rows within its target of 12 GB, the times
// at their targets of 60 s at 16 rows and 3 min at 64 rows, met in some
// runs and missed by up to 2% (16 rows) and 4% (64 rows) in other quiet
// ones (the figures since then meet them with room: the last paragraphs
// of this section). The MSMs (the commitments, and HyperKZG's fold commitments and
// quotient over 2¹⁸ points: about 1.7 s of a block's opening at 16
// rows) are about half of a block's segment; GKR and the zero-check most
// of the rest. Parts of 2¹⁷ halve HyperKZG's MSMs: the pass at 16 rows
// took 55.0 and 66.0 s with them against 61.9 and 62.8 s with parts of
// 2¹⁸ in the same hour, for 11 more points per block segment in the
// aggregator (≈ 3.1k R1CS each: in the BW6-761 aggregator's Groth16 that
// costs about what the native prover saves), so [PartVars] stays 2¹⁸.
// On the slower machine (no AVX-512), one run each in the same hour:
// 109.7 s with parts of 2¹⁸ (openings 51.0 s; 6.9–7.5 s per block,
// 29.5 s for the last segment; 226 times the forward pass; 914,640
// bytes; peak RSS 3.9 GB), 92.3 s with parts of 2¹⁷ (openings 34.5 s;
// 922,512 bytes): 1.45 s saved per segment, where the aggregator's
// 34k more R1CS a segment take about 3.4 s to prove (the built-in
// model's aggregator of 1.36M R1CS proved in 2 min 18 s on that machine).
// The pass at 64 rows there: 382.5 s (90 times the forward pass; commit
// 72.0 s, GKR 107.5 s, sum-checks 92.0 s, openings 110.8 s; 19.4–23.0 s
// per block, 39.9 s for the first segment, 126.0 s for the last),
// verifier 26.7 s, peak RSS 10.2 GB, 1,036,560 bytes.
//
// Cuts of the pass (the same relations; each segment's proof as above).
// Every segment pays a share that does not depend on its size: HyperKZG
// over 2¹⁸ points (two full-scalar MSMs), and the multiplicities and the
// table side of LogUp over the table set of 2¹⁸ rows. At 16 rows a
// block's 541,536 entries fill a stacked MLE of 2²⁰ to 52%; three blocks
// fill 2²¹ to 77%. With segments of three blocks and the LM head in a
// segment of its own (-committed.blocks=3 -committed.chunk=50257 here;
// prove's --segment-size 3 --vocab-chunk 50257) the pass has five
// segments instead of twelve. On the slower machine, at 16 rows, two
// pairs alternated in one call:
//
//	                         one block a segment       three blocks, the LM head alone
//	prover                   105.6, 107.2 s            84.4, 82.3 s (0.79 of the other)
//	  commit / GKR           16.0, 16.3 / 22.5, 22.6 s 16.9, 16.5 / 26.7, 25.8 s
//	  sum-checks / openings  18.6, 19.1 / 48.5, 49.2 s 14.9, 14.8 / 25.8, 25.3 s
//	  a segment              6.7–7.6 s; 27.4, 29.4 s   12.9–15.7 s; the LM head
//	                         the last (LM head)        25.4, 26.3 s
//	verifier                 7.9, 7.8 s                4.3, 4.1 s
//	proofs                   914,640 bytes             590,976 bytes
//	peak RSS of the process  3.7 GiB                   3.8–4.2 GiB
//	field work               ≈ 535k R1CS a segment     ≈ 879k a segment (475k the
//	                         (643k the last)           LM head's)
//
// Other cuts at 16 rows, one run each: two blocks a segment 92.7 s (the
// last, blocks 10 and 11 with the LM head, 39.5 s), 91.5 s with the LM
// head alone; four 88.0 s (2²² entries, half of them empty); six 82.6 s;
// twelve 82.8 s; three with the LM head in chunks of 2¹⁴ columns 89.0 s
// (the four chunks 31.9 s, where the whole LM head takes 24–26 s). Three
// is the smallest cut at that floor. At 64 rows the fixed share is small
// beside a block's 18.5–22.5 s, and the cut gains nothing, one run each on
// the same day: one block a segment 335.1 s (peak RSS 9.8 GB), three
// 348.5 s (GKR 127.5 s against 86.6 s: three blocks' 22.4M lookups take
// a cube of 2²⁵; 10.3 GB), two 376.8 s (10.9 GB); the same one-block
// pass took 382.5 s on another day, so single runs differ by more
// than the cuts do. Fewer segments also shrink the in-circuit side: at
// 16 rows the pass's field work is about 4.0M R1CS in five segments
// (879k × 4 + 475k) against 6.5M in twelve, and the aggregator's MSM has
// about 350 points against 569. The segment circuits at 15 rows
// (gadgets/committed, TestGPT2SmallSegments -committed.blocks=3): three
// blocks 1,461,660 R1CS where one block is 740,893, the LM head alone
// 911,013; about 7.1M R1CS for the five-segment pass against 9.8M for
// the twelve (docs/recursion.md). Their keys have not been set up, so
// the commands keep one block a segment by default.
//
// Segments at once ([ProveSegments]; -committed.jobs=2 here). A proof
// leaves the cores partly idle in its small steps (the transcript's
// hashing, the short sum-checks, the verifier-side scalars): the pass
// uses about 170% of two cores. Two segments at once fill some of that
// time, the same proofs. The pass at 16 rows in five segments (three
// blocks, the LM head alone), two calls of two pairs alternated on the
// slower machine: 73.5 s against 79.9 s, then 82.5 and 79.7 s against
// 87.0 and 84.6 s (0.92–0.95; a third pair, disturbed by a compile,
// left out), peak RSS 4.9–5.1 GiB against 3.7–4.0 GiB; in twelve
// segments, one run, 94.6 s against 105.6–107.2 s. Started in order,
// the LM head's segment, the longest, ran alone at the end; started
// largest first ([ProverMemory] as the measure), it runs beside the
// blocks: one pair alternated on another day, 79.4 and 83.2 s largest
// first against 88.3 and 87.1 s in order (0.90 and 0.96; peak RSS 4.9
// and 5.0 GiB both), the same proofs. With jobs > 1 the steps' times
// (commit, GKR, …) are each segment's own and overlap.
//
// Fewer multiplications in the eq-weighted sum-checks (package sumcheck,
// ProveEq: the terms summed pair by pair before one product with β's
// table; 14 multiplications per pair of a GKR layer where it took 16, 8
// at the leaves where it took 10; the same proofs). The pass at 16 rows
// in five segments, one segment at a time, two pairs alternated on the
// slower machine: 75.9 and 80.7 s against 87.4 and 87.9 s (0.87 and
// 0.92; GKR 23.3 and 24.1 s against 28.5 and 26.6 s, sum-checks 13.8
// and 15.1 s against 15.2 and 17.5 s); with two segments at once,
// largest first, 71.5 and 75.7 s (two runs, the same hour). The pass at
// 64 rows, one block a segment, one run that day: 343.9 s (commit
// 65.3 s, GKR 83.4 s, sum-checks 85.0 s, openings 110.1 s; 19.5–22.4 s
// per block, 112.9 s for the last segment), within the 335–383 s of
// the runs before it; with two segments at once, largest first, 317.5 s
// (one run, within the hour). Two segments at once against one at a
// time with this code, at 16 rows in five segments, two pairs
// alternated later that day: 76.6 and 80.4 s against 85.5 and 84.5 s
// (0.90 and 0.95), peak RSS 5.1–5.3 GiB against 3.8–4.0 GiB.
//
// Smaller lookup cubes (the model's ranges widened to their windows, and
// 16-bit limbs where they pay: "The lookups' fill" below; new proofs).
// On the slower machine, two segments at once, alternated with the code
// before: at 16 rows in five segments (three blocks, the LM head alone)
// 59.5 and 57.3 s against 78.9 and 81.1 s (0.75 and 0.71; GKR 24.4 and
// 22.4 s against 40.0 and 49.1 s; 21–22 s per three-block segment where
// they took 25–31 s, 31 s for the LM head where it took 46 s; 570 kB of
// proofs where they were 591 kB); in twelve segments (one block each,
// the LM head alone), two pairs: 85.2 and 85.1 s against 99.3 and
// 101.4 s (0.86 and 0.84). At 64 rows in five segments, one pair:
// 215.6 s against 320.9 s (0.67; 75–82 s per three-block segment, 110 s
// for the LM head), peak RSS 9.2 GiB against 11.2 GiB, 651 kB of
// proofs. The five-segment cut is now the faster one at both sizes.
//
// Where the time goes at 64 rows (five segments, two at once, the slower
// machine; CPU seconds summed over both cores, from a profile whose
// phases are labelled, 394 s in all for a 219 s pass): the batch opening
// 100 s (its batching sum-check about 70, HyperKZG's full-scalar MSMs
// about 28), LogUp-GKR 94 s, the commitments 93 s (the small-scalar
// MSMs 66), the decomposition zero-check 44 s, the attention
// contractions 36 s, the requantization sum-check 14 s, the norms 7.5 s,
// the rest under 3 s each. The target of 180 s asks for about 70 s of
// CPU less. The small-scalar MSM's buckets became chains of slots (an
// addition whose bucket is already in the batch takes another slot where
// it took a Jacobian addition): skewed rows commit a fifth to a half
// faster (package pcs). With a first version of it, which walked a
// bucket's chain from its start, the commitments of the pass took 3–4%
// less (100.9 and 107.0 s summed against 104.8 and 109.0 s), and the
// pass itself moved within its noise (two pairs, alternated: 216.3 and
// 218.7 s against 217.5 and 228.3 s; at 16 rows 62.8 and 60.4 s against
// 58.1 and 55.6 s). With the cursor as it is, one pair at 64 rows:
// 210.0 s against 211.9 s, the commitments 98.3 s summed against
// 106.7 s (8% less), peak RSS 8.9 GiB for both.
//
// The attention contractions as matrix products ("Attention
// contractions" above; new proofs), on the faster machine (AVX-512),
// five segments, two at once, two pairs alternated with the code
// before: 64 rows in 82.2 and 83.9 s against 102.4 and 100.5 s (0.80 and
// 0.83; the sum-checks 25.9 and 25.0 s summed over the segments against
// 41.9 and 40.8 s; the verifier 5.4 and 5.7 s against 8.5 and 6.1 s),
// 642 kB of proofs where they were 651 kB, peak RSS 9.0–9.2 GiB
// against 8.3–8.9 GiB; 16 rows moved within their noise (28.8 and 32.4 s against
// 29.7 and 28.9 s; 562 kB of proofs where they were 570 kB).
//
// Memory adds up (the LM head's segment at 64 rows alone holds 7.3 GiB
// above its inputs, [ProverMemory]), so the commands (package pipeline,
// prove's --native-jobs) prove two segments at once only when the two
// largest segments' estimates fit together in the memory left under the
// soft limit.
//
// The ways down from here that change the proof and the segment circuit:
// the decomposition relation is linear in the committed tables with
// block-constant public coefficients, so its zero-check can be one
// degree-3 term β(r, x)·Σₖ cₖ(x)·fₖ(x) of the batching sum-check, whose
// end values fₖ(z) the opening proves anyway (the verifiers evaluate
// β(r, z) and the public cₖ(z) as they do at the zero-check's end now):
// the 44 s of the zero-check and its end-point claims go, against a
// dearer batching sum-check;
// stack a tensor's columns in power-of-two chunks (768 = 512 + 256) with
// claims that are linear combinations of the chunks' evaluations, which
// brings a block from 541,536 to 406,240 entries, below 2¹⁹, and halves
// the stacked MLE, the lookup cube, the zero-check and the batching
// sum-check; one compact limb MLE over the slots ("Left"); merge the
// argmax margins into the logits' upper decomposition in the LM head
// (its lookup cube is 2²⁶ at 64 rows, and its segment a third of the
// pass). Memory at 64 rows now peaks in the LM head's opening (8.6 GB
// live: the combinations Aⱼ of the stacked MLE and limb rows 0 and 1,
// and the grouped term's eq table and sum, 512 MB each, built whole);
// building them as factored eq tables would take most of it.
//
// The lookups' fill. With the model's symmetric ranges [−(2ᵇ − 1), 2ᵇ − 1]
// and 15-bit limbs, a block's slots held 1,563,584 lookups in a cube of
// 2²¹ at 16 rows and 7,483,136 in 2²³ at 64 rows; the LM head's (in a
// segment of its own) 11,633,120 in 2²⁴ and 46,532,480 in 2²⁶. Two
// changes halve most of these cubes together, and neither alone:
//
//   - the model's ranges are [−2ᵇ, 2ᵇ − 1] (package model), exactly their
//     window of b + 1 bits, so no contraction output is an exact block
//     any more (a fifth of the lookups were the limbs of Max − v);
//   - a layout may take 16-bit limbs ([Layout.LimbBits]), so that the
//     16-bit windows of the activations and the 31-bit windows of the
//     scores, logits and margins need no top limb of one bit (a fifth of
//     the lookups left). Range(16) doubles the table set of a small model,
//     so each layout takes the width whose cube and table set have the
//     fewest entries together.
//
// Counted on the layouts of GPT-2 small's shape (lookups, cube, table set
// of the chosen width):
//
//	                        15-bit, symmetric    15-bit             16-bit
//	a block, 16 rows        1,563,584 (2²¹)      1,222,848 (2²¹)    984,928 (2²⁰, set 2¹⁹): 16
//	three blocks, 16 rows   —                    3,701,312 (2²²)    2,987,552 (2²², set 2¹⁹): 15
//	the LM head, 16 rows    11,633,120 (2²⁴)     8,487,392 (2²⁴)    6,373,808 (2²³, set 2¹⁸): 16
//	a block, 64 rows        7,483,136 (2²³)      5,972,736 (2²³)    4,922,752 (2²³, set 2¹⁹): 15
//	three blocks, 64 rows   —                    18,049,280 (2²⁵)   14,899,328 (2²⁴, set 2¹⁹): 16
//	the LM head, 64 rows    46,532,480 (2²⁶)     33,949,568 (2²⁶)   25,495,232 (2²⁵, set 2¹⁸): 16
//
// (the last column names the width chosen; the 15-bit table set is 2¹⁸,
// 2¹⁷ for the LM head alone). The built-in model's segments take 15 bits.
//
// The verifier's time is mostly inference.ShapePass, a forward pass over
// placeholder tokens that gives it the shapes and ranges (as for the
// opened proof) and the evaluation of the weights at the projections'
// claims (linear in the weights, as in the opened proof); the checks on
// the activations and the tables are polylogarithmic. The proof grows by about 4 kB when
// the rows double; the field work by about 30k R1CS. The table set of
// 2¹⁸ rows (the range tables, GELU or SiLU, 1/√ and exp, 2¹⁶ each) sets
// the opening's size for small segments, the parts' size for large ones.
//
// Field work per segment, for the segment circuit ([Proof.FieldWork],
// counted from the proof): the sum-check rounds by degree — GPT-2 block
// 1 at 16 rows, with 16-bit limbs and the attention contractions as
// matrix products: 98 of degree 2, 407 of degree 3 (361 of them the
// LogUp instance's GKR layers: 20·19/2 for the witness tree, 19·18/2 for
// the table tree), 40 of degree 4, 28 of degree 6 — 2,207 scalars
// absorbed (94 of degree 2, 417 of degree 3 and 2,228 scalars with the
// contractions over their whole cube), 37 points (entering as digests the aggregator
// computes) and 18 fold checks (with 15-bit limbs and the symmetric
// ranges: 419 of degree 3, 2,271 scalars, 43 points; 33 points and 20
// fold checks with the commitments whole). At the measured per-unit
// costs (≈ 191 R1CS per absorbed scalar with its round's interpolation,
// ≈ 850 per GKR round) that is ≈ 522k R1CS of transcript and
// sum-checks (526k with the contractions over their cube, 534k with
// 15-bit limbs and the symmetric ranges); the statement, the public
// tables' evaluations (masks, selectors, the norms' γ and β: O(width)),
// the weights' evaluations and the opening's final scalars come on top.
//
// # Left
//
//   - The weights are still evaluated by the verifier (linear in them);
//     in a circuit they too must become fixed commitments of the model,
//     opened in the batch as the function tables are.
//   - The context's tables grow as heads·n² (its probabilities are a
//     tensor of that size); the scores' as heads·n·hd.
//   - The limb rows stay aligned with s: eight MLEs of N variables, zero
//     where no block uses them (pcs.Commit multiplies over the non-zero
//     entries only, and the parts no block fills are not committed). One
//     compact limb MLE over the slots would make the decomposition a
//     linear relation between two cubes and cut most of the limb rows'
//     parts (a GPT-2 block at 16 rows commits 19 of them, the LM-head
//     segment 62, each a point of the aggregator's MSM), but its 2^K
//     entries (K = N + 1 for GPT-2 small's block) would set the batching
//     sum-check's size, now the larger share of the opening.
//   - The GPT-2-sized aggregator with the commitments in parts is
//     compiled (2,802,492 R1CS for six segments of two blocks,
//     docs/recursion.md) but has not been set up or proven: the
//     aggregator's handling of parts is tested by compiling it for a
//     segment in parts (package recursion) and, on the proving path, only
//     with the built-in model, whose commitments are whole.
package committed
