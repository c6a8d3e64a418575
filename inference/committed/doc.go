// Package committed proves, for one segment of an inference pass, that
// the tensors the native proof of package inference opens are
// committed with package pcs instead, and proves on the commitments their
// ranges, their requantization identities, every contraction (Q, K, V,
// O, MLP, LM head, attention scores and context, RoPE, the gated
// product), the table applications (1/√, GELU, SiLU), the norms'
// arithmetic, the residual adds, the embedding and the argmax of every
// row: every requantization's accumulator is proven, and the
// verifier's work is polylogarithmic in the number of activations, apart
// from O(width) per requantization for per-column multipliers (and the
// weights' evaluation, as in the opened proof). With the softmax
// (maxima, exp lookups, row sums, the probabilities' division) every
// relation of the forward pass is proven on the commitments.
//
// Built for BLS12-377 Fr (package pcs). In the aggregated design the
// segment circuits of gadgets/committed verify its field part on
// BLS12-377 and the aggregator of package recursion completes the
// opening's group part on BW6-761. Its measured costs are in
// docs/measurements.md ("The committed prover").
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
// coordinates (Proof.Lookup.TableEvals), and the grouped opening proves it
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
// input, a block of s: it joins the grouped opening at (prefix, point).
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
// Rem = 2^(k−1) give. A pass from position 0 reads its own rows as keys
// and values; a turn of a conversation reads the cache (below, "Turns").
//
// Argmax (argmax.go, last segment only): the pass is a request's
// (statement.Request): R rows over the tokens T = prompt ‖ output ‖ 0, …,
// whose live rows s − 1 ≤ i < n = s + g − 1 must have T[i + 1] as argmax.
// Every row i has a target U_i, sent by the prover: T[i + 1] on a live
// row, which the verifier requires, and the row's argmax on the others.
// With the logits L, the last segment commits one more block, the margins
// D[i][j] = L[i][U_i] − L[i][j] − [j < U_i] ([R, V], range [0, Max − Min]
// of the logits, range-checked as every block). All margins are in range
// exactly when each U_i is its row's argmax with ties broken by the
// smallest index. Their link to the logits: the prover sends the targets
// (absorbed packed as tokens, each below 2²⁰ and below V) and the chosen
// logits c_i = L[i][U_i] (claims on s at boolean points), both absorbed
// before the point; the verifier draws (ρ_k, ρ_j) over D's variables, the
// prover sends D(ρ), and one degree-2 sum-check over the logits' row
// coordinates proves
//
//	Σᵢ w(i)·L(i, ρ_j) = Σ_i eq(ρ_k, i)·(c_i·Sel_V(ρ_j) − Prefix_{U_i}(ρ_j)) − D(ρ),
//	w(i) = eq(ρ_k, i)·[i < R],
//
// (Sel_V the indicator of j < V, Prefix_t of j < t, both O(log V)), ending
// with a claim L(r′, ρ_j) on s; the verifier evaluates w(r′) in
// O(R·log R). A pass of one row has no row coordinate: the value is the
// claim itself. The rows past n (pad rows) are computed by the same
// integer rules on token 0: causal attention keeps rows i < n those of the
// n-row pass, so the statement's rows are proven whatever the pad rows
// hold, and one segment shape serves every request of the bucket.
//
// Chunks of the LM head (chunk.go; inference.ChunkedSegments): the LM
// head of a large vocabulary can be proven in segments of its own, one
// per range [a, b) of the vocabulary, after a last segment of blocks that
// sets NoHead (it ends at the last block without the final norm and the
// LM head, and commits its output as a boundary). A chunk is the segment
// From = To = the number of blocks: it reads that stream as its incoming
// commitment, proves the final norm over it, and proves the columns
// [a, b) of the LM head (the weight's rows a…b−1, a trace restricted to
// them: accumulator, logits and remainders [R, b − a]) and the margins
// over them, D[i][j] = c_i − L[i][a+j] − [a+j < U_i], against the chosen
// logits c_i of the whole row. Its argmax step is the one above over the
// chunk's logits, with Prefix_{p_i}, p_i = min(max(U_i − a, 0), b − a)
// the chunk's columns before U_i, and one more list absorbed after the
// chosen logits: Local, per row the chunk's logit at column
// c = U_i − a if the chunk holds U_i, 0 otherwise, claimed on the logits
// in place of c_i; where the chunk holds U_i the verifier requires
// Local[i] = c_i. [VerifyPass] requires the chunks to cover [0, V) in
// order, to read the same incoming stream as the segment of blocks hands
// on ([CheckChain]), and to state the same chosen logits: then every
// margin of every column is in range and each c_i is L[i][U_i], which is
// the argmax condition of the whole row. (A pad row's target may differ
// between chunks; a live row's is T[i + 1] in each.) A chunk's lookup cube is that
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
// is the maximum. The mask's MLE is poly.CausalZeroifier's (a pass from
// position 0, T = n), or in a turn poly.ShiftedCausal's,
// [i < n ∧ j ≤ Start + i] over T = Capacity key rows, times the heads'
// selector: O(log T).
//
// Embedding (embedding.go, first segment only): the embedding block is
// the model's embedding of the public tokens, E[token] (plus P[position]
// for GPT-2, positions from Start in a turn). At a point r of its variables the verifier computes that
// tensor's MLE itself from the model and the tokens (O(rows·d)) and makes
// it the value of a claim on the block of s: the prover sends nothing.
//
// Openings: every claim — the limb slots' and the function blocks'
// values at the lookup point, the multiplicity claim, the
// zero-check's claims on s and on the 8 limb rows, the requantization
// claim on s, the boundary link, the function tables' outputs — is
// proven by one pcs.OpenGroupParts over the commitments (s, m, l₀, …,
// l₇[, boundary][, incoming], then the key's commitments to the set's
// function tables in set order), whose sum-check runs over max(N, set
// variables) variables. The key's commitments are not absorbed: they are
// a function of the model, which the statement's model id binds.
//
// # Turns
//
// A conversation is proven turn by turn (turn.go, [ProveTurn],
// [VerifyTurn]); its [State] after a turn is the number of rows cached
// and, per block, commitments to the keys' and the values' cache, each
// the MLE of a Capacity × ŵ matrix (ŵ the key/value width padded),
// zero from the cached rows on. The first turn reads [EmptyState]
// (every commitment the identity). A turn ([Turn]: Start cached rows, a
// cache of Capacity rows) is a request's pass of n rows (its bucket) at
// positions Start…Start+n−1, Start + n ≤ Capacity; it keeps the rows of
// the request's s + g tokens, prompt then output, as many as the pass
// has ([TurnKeep]: min(s + g, n); with s + g ≤ n the pass computes the
// row of the last output token too, otherwise, as in a token-by-token
// generation's turns of one row, the next turn starts with it). Its shapes depend on n and
// Capacity only (model.Cache.Capacity: the attention runs over Capacity
// key rows), so one set of segment shapes serves every turn; RoPE's
// tables, GPT-2's position rows and the mask take Start.
//
// Per block of the segment, the proof carries four commitments (after
// the incoming stream's, absorbed with the others): KeysIn and ValuesIn,
// the state in's, and Keys and Values, the written rows W =
// Σ_{a<keep} e_{Start+a} ⊗ X_a of the new keys (after RoPE) and values X
// (protocol/kvcache, "Writes"). The commitment is linear, so the state
// out's commitments are the state in's plus W's ([NextState]): a turn
// commits its own rows only. The attention reads the cache
// K_all = K_in + Σ_{a<n} e_{Start+a} ⊗ X_a (every new row: the pad rows
// attend to their own keys, as in a pass), so its scores and context
// are the contractions above with T = Capacity and B the cache; the
// key sum-check's claim on K_all and the context's on V_all are proven
// by the cache step. Under label "committed/cache", per block:
//
//   - the reads: protocol/kvcache's append of the n new rows at Start
//     proves the claim on K_all from a claim on K_in (on KeysIn) and one
//     on the new keys' block of s; the same for V_all;
//   - the writes: at a point p drawn after every commitment, the prover
//     sends W_K(p) and W_V(p) (claims on Keys and Values), and
//     kvcache.ProveWrites proves each from the new rows, leaving a claim
//     on their block of s.
//
// Soundness across turns: the state in's rows from Start on are zero
// (the empty state is, and each turn adds W, zero outside its rows), so
// K_all holds the state in's rows and then the new ones; W is bound to
// the new rows at a random point drawn after its commitment, so it is
// the kept rows shifted to Start (up to (log Capacity + log ŵ)/|Fr|).
// [VerifyTurn] requires every segment to read the state in's
// commitments; a cache changed between turns (a row changed, rows
// swapped or dropped) is another commitment or another Start, and is
// rejected. The state's digest ([State.Digest]) is pcs.DigestWith over
// the row count, the capacity and the commitments (0 for the empty
// state): a turn's leaf (statement.TurnLeaf) carries the digests of the
// state in and out. [State.MarshalBinary] writes a state for a verifier
// ("veriformer/state", Rows, Capacity and the number of blocks as 4-byte
// big-endian integers, then per block its keys' and values' commitments,
// compressed); [UnmarshalState] checks it as [State.Check] does and
// never panics (fuzzed).
//
// # Batches
//
// A batch's requests are proven as more rows of one pass
// (statement.Stack, a [Pass] with Batch set): request j's pass tokens on
// the n_j rows from o_j = n_0 + … + n_{j−1}, in order, then pad rows,
// each a request of one row of its own (position 0). The bucket may
// exceed the model's context: each request's positions may not. The trace is
// model.Model.ForwardStacked's: row i attends to the rows Begins[i] … i
// of its request (Begins[i] = o_j, its request's first row) and sits at
// position i − Begins[i] (GPT-2's position rows and Llama's RoPE tables
// restart per request), so each request's rows are those of its own
// pass. The verifier takes the layout from the pass, which is public:
// its view is ForwardStacked over zero tokens with the pass's Begins.
// What changes, every other step being the single request's:
//
//   - the mask is block-diagonal: key row j is masked for query row i
//     when j < Begins[i] or j > i. The contractions' weights use prefix
//     sums from Begins[i] (the scores' K̃, the context's weight E,
//     [Contraction] maskSum), and the key weight w(j) sums eq(z_i, i) over
//     the rows i of j's request from j on (suffix sums to its last row);
//     the softmax's public mask is [BlockCausal], O(n) at the end point
//     where a single pass uses the O(log n) causal zeroifier;
//   - the embedding's value is that of the model's embedding of the pass's
//     tokens at their positions in their requests (model.EmbedStacked);
//   - the argmax's live rows and targets are each request's
//     (statement.Stack.Next): row o_j + k is live when request j's row k
//     is, its target request j's next output token;
//   - the transcript is seeded with the batch's statement
//     (statement.StackStatement): the model id, the list digest of the
//     requests' leaves (statement.List.ListDigest) and the number of
//     requests.
//
// A batch's pass is never a turn.
//
// # Parts
//
// Each of those MLEs is committed in parts of M variables
// (pcs.CommitParts; M = [PartVars] = 18 unless [WithPartVars] says
// otherwise, raised to the boundary's, the incoming stream's and a
// turn's cache's variables, which are committed whole:
// [Shape.PartVars]), and the
// opening runs over min(max(N, set variables), M) variables
// ([Shape.OpeningVars]): its multi-scalar multiplications cover 2^M
// points whatever the segment's size (pcs, "Commitments in parts").
// An MLE of M variables
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
// ([SelectParts]).
//
// # Transcript
//
// Domain "veriformer/inference/committed/v1", seeded with the statement
// (model id, input digest, output digest), then From and To (then 1 for
// a segment that sets NoHead, VocabFrom + 2 and VocabTo for a chunk; then
// in a turn the label "committed/turn", Start and Capacity). The
// statement is only bound here: the caller checks it against the model
// and tokens (as inference.VerifySegment does). Then:
//
//	pcs.Digest(s, m, l₀, …, l₇[, boundary][, incoming][, per block KeysIn, ValuesIn, Keys, Values])   (all commitments, every committed part, before any challenge)
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
//	label "committed/cache"; per block: the keys' read (protocol/kvcache append), the values' read; p;
//	  W_K(p), W_V(p); the keys' writes, the values' writes (kvcache.ProveWrites)   (turns only)
//	label "committed/norm"; per norm: ρ₁; the 9 row values; ρ₂; sum-check (degree 4; 3 RMSNorm), 5 values;
//	  sum-check (degree 6; 5 RMSNorm) of Acc(r_q), 4 values
//	label "committed/softmax"; per attention: γ; zero-check (14 tables); ρ′; 3 row values;
//	  sum-check (degree 2), 3 values
//	label "committed/residual"; r; the residual values                (when the segment has a residual add)
//	label "committed/embedding"; its point                           (first segment only)
//	label "committed/argmax"; U packed; c_i; Local (chunks); (ρ_k, ρ_j); D(ρ); sum-check (degree 2); L(r′, ρ_j)   (with the LM head)
//	label "committed/boundary"; its point; the boundary's value     (not in the last segment)
//	pcs.OpenGroupParts: label "pcs/batch", the claims' values, α, sum-check, HyperKZG
//
// The claims' order in the batch: multiplicities, s of the zero-check,
// each limb slot's claim on its limb row, each limb row's zero-check
// claim, each function's
// input and output, s of the requantization sum-check, the projections' inputs, the boundary and its
// block of s, the residual values, the embedding, each gated product's
// Act and Up, each rotation's two input values, each attention
// contraction's two factors (the keys' at the key sum-check's end; in a
// turn the queries' and probabilities' only), per block of a turn its
// cache claims (K_in and the new keys from the keys' read, V_in and the
// new values from the values' read, W_K(p), W_V(p), the new keys and
// values from the writes), the chosen logits, the margins, the logits
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
// byte (1, or 2 for a chunk's) and the argmax proof (Targets: a count
// and 4 bytes each; Chosen, Local for a chunk's, MarginsEval, rounds,
// LogitsEval),
// ResidualEvals, the cache proofs (count; per block the four
// commitments as a count and points, per read y_prev, rounds and y_X,
// W_K(p), W_V(p), per write rounds and y_X), and the batch
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
package committed
