// Package model holds transformer configs and weights, their quantization
// to integers, and an exact integer forward pass that records every
// intermediate tensor for the prover, with a float64 reference to measure
// how faithful the integers are.
//
// Everything the proof checks is an integer: int8 weights, fixed-point
// activations, int64 accumulators, remainders of every rescaling, and
// tables for every non-linear function. A value never leaves its checked
// range, so in a field of about 253 bits nothing wraps and every lookup
// table has at most 2¹⁶ entries.
//
// # Usage
//
//	m := model.Default()                 // or model.Load(dir)
//	g, err := m.Generate(prompt, 8)      // greedy decoding with a KV cache
//	tr := g.Traces[0]                    // every tensor of the prompt pass
//	f, err := m.Fidelity(prompt, 8)      // integer vs float64 report
//
// # Families
//
// [GPT2]: token + learned position embeddings, pre-LayerNorm blocks, Q, K, V
// and output projections with biases (the Hugging Face c_attn Conv1D is
// split into Q, K, V), masked multi-head attention, MLP Down(GELU(Up(x)))
// with the tanh GELU ("gelu_new"), final LayerNorm, LM head tied to the
// token embedding.
//
// [Llama]: token embedding, RMSNorm, RoPE on queries and keys (Hugging
// Face's rotate-half pairing: dimension j pairs with j + hd/2), grouped-query
// attention (query head h reads key/value head ⌊h·KVHeads/Heads⌋, e.g. 32
// query and 4 key/value heads for TinyLlama), MLP Down(SiLU(Gate(x)) ⊙ Up(x)),
// no biases, final RMSNorm, an LM head that is tied or not.
//
// Shapes need not be powers of two: the prover pads, and the integer pass
// computes attention in padded heads where the proofs need them ("Padded
// heads").
//
// # Fixed-point formats
//
// An activation tensor of kind K stores integers x meaning x/2^F_K. The
// fractional bits F_K ([Formats]) are chosen once per model by calibration:
// the float reference runs on calibration sequences, m_K is the largest
// |value| of kind K over all layers, and F_K is the largest integer in
// [−8, 24] with m_K·margin·2^F_K ≤ 2^B_K − 1 (margin 4 by default). The
// checked ranges are
//
//	residual stream (embeddings, layer inputs and outputs)        −2²² ≤ x ≤ 2²² − 1
//	norm outputs, queries, keys, values, contexts, MLP activations −2¹⁵ ≤ x ≤ 2¹⁵ − 1
//	attention scores (ScoreFrac = 12 fixed)                       −2³⁰ ≤ x ≤ 2³⁰ − 1
//	logits                                                        −2³⁰ ≤ x ≤ 2³⁰ − 1
//
// Each is exactly the signed integers of B + 1 bits, so a range check is a
// window of B + 1 bits and no exact bound on top of it.
//
// A value outside its range stops the pass with a [*BoundError]: there is no
// clamping anywhere, so the prover never has to prove a clamp.
//
// Weights are symmetric int8 in [−127, 127]: Wq[j][i] = round(W[j][i]/sⱼ)
// with sⱼ = max_i |W[j][i]|/127 per output row (or one s for the whole
// matrix with [QuantOptions].PerTensor). Matrices are stored [Out, In]
// (GPT-2's Conv1D [In, Out] is transposed on load). Biases are integers at
// the accumulator scale: bq[j] = round(b[j]·2^F_in/sⱼ). Embedding tables
// are added, not multiplied, so they are stored directly in the residual
// format: E[t][i] = round(wte[t][i]·2^F_res) (and P for GPT-2's wpe). The
// tied LM head uses its own int8 quantization of the token embedding.
//
// # Requantization
//
// Every rescaling is one integer rule ([Requantize]): for an accumulator a,
// a positive multiplier M and a shift k ∈ [1, 62],
//
//	y   = ⌊(a·M + 2^(k−1)) / 2^k⌋                  (floor division, also for a < 0)
//	rem = a·M + 2^(k−1) − y·2^k ∈ [0, 2^k)
//
// so y·2^k + rem = a·M + 2^(k−1) is one product check and rem one range
// check (in 16-bit limbs). M and k approximate the real factor f (ratio of
// scales): k is the largest shift ≤ 62 with max M < 2²⁰, M = round(f·2^k) ≥ 1
// (a factor needing a shift above 62 for 12 bits of precision is refused).
// Per-row weight scales give one multiplier per output column; the trace
// stores the multiplier vector. a·M is computed in 128 bits.
//
// # Matmuls
//
// Acc[r][j] = Σᵢ X[r][i]·Wq[j][i] + bq[j] (bq = 0 without bias), then
// Out = requant(Acc, Mⱼ, k) with Mⱼ/2^k ≈ sⱼ·2^(F_out − F_in). Static bound,
// checked when the model is quantized: In·127·2¹⁵ + max|bq| < 2⁶².
// [MatMulInt] is blocked and multi-core; with two or more rows it packs two
// activation rows into one int64 (x₀ + x₁·2³²) so that one multiplication
// yields two products, summing blocks short enough that each half stays in
// an int32 and splitting every block sum exactly.
//
// # Norms
//
// For a row h of n residual values (F = F_res), LayerNorm computes
//
//	S = Σᵢ hᵢ,  S = μ·n + r_μ with r_μ ∈ [0, n)        (μ = ⌊S/n⌋)
//	cᵢ = hᵢ − μ                                       (RMSNorm: cᵢ = hᵢ, no S, μ)
//	V = Σᵢ cᵢ² + ε_int,   ε_int = max(1, round(ε·n·2^(2F)))
//	e = min{e ≥ 0 : V < 2¹⁶·4^e},  v = ⌊V/4^e⌋,  r_V = V − v·4^e ∈ [0, 4^e)
//	T = RSQRT(v)                                      (table, v ∈ [1, 2¹⁶))
//	uᵢ = cᵢ·T·2^(E_max − e)
//	accᵢ = uᵢ·γqᵢ + βqᵢ,   yᵢ = requant(accᵢ, M, k)
//
// Why it is right: √V ≈ √v·2^e, so uᵢ ≈ 2^(R+E_max)·cᵢ/√V and the real
// normalised value is cᵢ/√(V/n) = uᵢ·√n/2^(R+E_max) (R = RSqrtFrac = 22).
// γ is int8 with one scale s_γ, βq = round(β·2^(R+E_max)/(s_γ√n)), and
// M/2^k ≈ s_γ·√n·2^(F_out−R−E_max). E_max is the exponent of the largest
// possible V (from the residual bound), so the row-dependent factor
// 2^(E_max−e) is a non-negative power of two (a 32-entry table of e) and
// the rescaling has one fixed shift. When e > 0, v ∈ [2¹⁴, 2¹⁶), so T has
// about 15 significant bits. Minimality of e is a range check:
// V < 2^(16+2e) and, for e > 0, V ≥ 2^(14+2e).
//
// # Attention
//
// Scores: Acc[h][i][j] = Σ_c q[i][h·hd+c]·k[j][g·hd+c] for the unmasked
// entries j ≤ Start + i (0 where masked), then requant to ScoreFrac with
// M/2^k ≈ 2^(ScoreFrac−2F_qk)/√hd. Softmax per row, over unmasked entries:
//
//	m = max_j s_j                            (RowMax; z_j ≥ 0 and some z_j = 0)
//	z_j = m − s_j ∈ [0, 2³¹),  z_j = lo_j + 2¹⁶·hi_j,  lo_j ∈ [0, 2¹⁶), hi_j ∈ [0, 2¹⁵)
//	x_j = EXP(lo_j)·EXPHIGH(hi_j)            (0 where masked)
//	Σ = Σ_j x_j ≥ 2¹⁶
//	p_j = ⌊(2·x_j·2^P + Σ) / (2Σ)⌋,  ρ_j = 2·x_j·2^P + Σ − p_j·2Σ ∈ [0, 2Σ)
//
// with P = ProbFrac = 16 (round to nearest; masked entries give p = 0 and
// ρ = Σ). EXP(lo) = round(2¹⁶·exp(−lo/2¹²)) and EXPHIGH(hi) = [hi = 0]: the
// exp of any z ≥ 2¹⁶ rounds to 0 anyway, so the two-limb product is exact.
// Context: Acc[i][h·hd+c] = Σ_j p[h][i][j]·v[j][g·hd+c], requant to
// F_ctx with M/2^k = 2^(F_ctx − P − F_v). Query head h reads key/value
// head g = ⌊h/(Heads/KVHeads)⌋.
//
// In these formulas and in the trace, Heads, KVHeads and hd are those of
// the head layout ([Config.HeadLayout]), which pads them when they are
// not powers of two (below); the score scale 1/√hd is the model's own hd.
//
// # Padded heads
//
// The proofs split a query column into the bits of its key/value head, its
// member in the group and its dimension, so the integer pass computes
// attention in heads whose group size g and head dimension hd are powers
// of two, and, for Llama, whose RoPE rotates whole rows of queries and
// keys, whose number of key/value heads h_kv is one too. When the model's
// are not, each is padded to the next power of two: ĥ_kv (Llama) or
// h_kv, ĝ, ĥd, with ĥ_kv·ĝ query heads (Qwen2.5's 14 query heads per 2
// key/value heads become 16 in groups of 8; Phi-3's head dimension 96
// becomes 128). The padding is in the quantized weights, fixed by the
// model and hashed into its id with them:
//
//   - the rows of Wq, Wk and Wv (their output columns) move: query column
//     (a·g + b)·hd + t of key/value head a, member b, dimension t becomes
//     (a·ĝ + b)·ĥd + t′, key and value column a·hd + t becomes a·ĥd + t′,
//     where t′ = t, except for Llama's second RoPE half, t′ = t − hd/2 +
//     ĥd/2, so that the rotation pairs t′ with t′ + ĥd/2 as the model pairs
//     t with t + hd/2. Every other row is zero, with zero bias;
//   - the columns of Wo (its input) move the same way; the others are zero;
//   - the RoPE tables have ĥd/2 pairs per position: the model's θⱼ for
//     j < hd/2 and the identity (C = 2¹⁴, S = 0) for the padding pairs.
//
// The computed queries, keys and values are then zero in every padding
// column, so the scores of a real head are the model's; a padding head
// (a member b ≥ g, or a head of a padding key/value head) has zero
// scores, uniform probabilities and a context that Wo's zero columns
// drop. The logits are those of the model's own heads, exactly: the
// padding changes no integer of them.
//
// # RoPE
//
// For position p and pair j < hd/2 the tables give C = round(cos(p·θⱼ)·2¹⁴)
// and S = round(sin(p·θⱼ)·2¹⁴), θⱼ = base^(−2j/hd), at index p·hd/2 + j.
// x'ⱼ = requant(xⱼ·C − x_{j+hd/2}·S, 1, 14) and
// x'_{j+hd/2} = requant(x_{j+hd/2}·C + xⱼ·S, 1, 14). The tables cover
// min(MaxPositions, 2¹⁶/(hd/2)) positions so that each has at most 2¹⁶
// entries (2048 positions for head dimension 64, TinyLlama's context; hd
// is the layout's, so padded heads cover fewer: 1024 for Phi-3's 96).
//
// # MLP
//
// GPT-2: u = Up(x) at F_gate, a = GELU(u) by table (input and output at
// F_gate, so |a| ≤ |u| stays in range), Down(a) to the residual format.
// Llama: g = Gate(x) at F_gate, u = Up(x) at F_up, a = SILU(g) by table,
// Product: acc = a·u, requant to F_hidden with M/2^k = 2^(F_hidden−F_gate−F_up),
// Down to the residual format. Residual adds are exact integer sums.
//
// # Tables
//
// Each [Table] is an exact integer function over a contiguous domain, with
// Domain, Eval and Entries for the lookup argument:
//
//	gelu / silu   x ∈ [−2¹⁵, 2¹⁵−1]       round(f(x/2^F)·2^F), F = F_gate
//	exp           z ∈ [0, 2¹⁶)            round(2¹⁶·exp(−z/2¹²))
//	exp_high      z ∈ [0, 2¹⁵)            1 if z = 0 else 0
//	rsqrt         v ∈ [1, 2¹⁶)            round(2²²/√v)
//	rope_cos/sin  i ∈ [0, P·hd/2)         round(cos|sin(p·θⱼ)·2¹⁴), i = p·hd/2 + j
//
// Range checks (remainders, limbs, activation ranges) are the other
// lookups the prover needs; their ranges are the Min/Max of each trace
// [Tensor]. [Tables.All] lists a model's tables.
//
// The tables are computed once from float64 maths when the model is
// quantized; they are part of the model like its weights. Whoever fixes
// them in a proof setup should take them from Entries (or commit to them)
// rather than recompute them elsewhere, since a last-bit difference of a
// libm on another platform could move a rounding.
//
// # Bounds
//
// Activations are checked during the pass against the ranges above. The
// rest is bounded by construction, and the static parts are checked when a
// model is quantized (n ≤ 2¹⁴ channels, hd ≤ n, T ≤ 2¹⁶ positions):
//
//	matmul Acc          |Acc| ≤ In·127·(2¹⁵−1) + max|bq| < 2⁶²
//	norm Centered       |c| ≤ 2²³ (LayerNorm), 2²² (RMSNorm)
//	norm SumSquares     1 ≤ V ≤ n·2⁴⁶ + ε_int < 2⁶¹
//	norm Scaled         |u| ≤ 2^(22+E_max+1)
//	norm Acc            |acc| ≤ 127·2^(23+E_max) + max|βq| < 2⁶²
//	score Acc           |Acc| ≤ hd·(2¹⁵−1)²
//	softmax             2·x·2¹⁶ + Σ ≤ 2³⁴ + T·2¹⁶, Σ ∈ [2¹⁶, T·2¹⁶]
//	context Acc         |Acc| ≤ (2¹⁶ + T)·(2¹⁵−1)
//	RoPE, product Acc   |Acc| ≤ 2·(2¹⁵−1)·2¹⁴, (2¹⁵−1)²
//	requant products    |Acc·M| < 2⁸² (formed in 128 bits)
//
// All are far below the ≈ 2²⁵³ scalar fields, so the prover can map every
// value v to the field (negative v as p − |v|) and every relation of the
// trace holds in the field exactly as over the integers.
//
// # Argmax
//
// The next token is the argmax of the last row of the logits, ties broken
// by the smallest index ([Argmax]).
//
// # Trace
//
// [Model.Forward] returns a [Trace] for one pass over n new tokens at
// positions Start…Start+n−1 (T = Start + n, or the cache's Capacity
// when that is larger: the keys and values then end with zero rows,
// masked for every query row, so that the turns of a conversation over
// one cache have the same shapes). Every [Tensor] has a name, a
// row-major shape, int64 data, its fractional bits and its checked range.
// Per pass:
//
//	Embedding                [n, d]          E[token] (+ P[position])
//	FinalNorm                (as a Norm)
//	LMHead                   (as a MatMul; Out = logits [n, Vocab])
//	Next                     argmax of the last logits row
//
// Per layer ([Layer]):
//
//	Input                    [n, d]          residual stream in
//	AttnNorm, MLPNorm        Norm: Input, Sum/Mean/MeanRem [n] (LayerNorm),
//	                         Centered [n, d], SumSquares [n], Exponent [n],
//	                         RSqrt (lookup, [n]), RSqrtRem [n], Scaled [n, d],
//	                         Gamma (int8 [d]), Beta ([d], LayerNorm), Acc, Out, Rem [n, d]
//	Q, K, V, O, Up, Down     MatMul: Input [n, in], Weight (int8 [out, in]),
//	(Gate for Llama)         Bias ([out] or nil), Acc, Out, Rem [n, out],
//	                         Multiplier ([out] or [1]), Shift
//	RopeQ, RopeK (Llama)     Input, Cos/Sin lookups ([n, hd/2], index
//	                         p·hd/2 + j), Acc, Out, Rem [n, heads·hd]
//	Attention                Query [n, Heads·hd], Keys and Values [T, KVHeads·hd]
//	                         (the cache rows then the new rows), Scores
//	                         (Acc, Out, Rem [Heads, n, T]), RowMax [Heads, n],
//	                         Shifted, ExpLow, ExpHigh, Exp, Probs, ProbRem
//	                         [Heads, n, T], RowSum [Heads, n], Context (Acc,
//	                         Out, Rem [n, Heads·hd]: O's input)
//	Mid                      [n, d]          Input + O.Out
//	Activation               lookup [n, f]   GELU(Up.Out) or SiLU(Gate.Out)
//	Product (Llama)          Acc = Activation.Out ⊙ Up.Out, Out, Rem [n, f]
//	Output                   [n, d]          Mid + Down.Out
//
// Accumulators carry the fractional bits of their operands' power-of-two
// formats; weight scales are folded into the multipliers. The exact
// relations between these tensors are on each type's documentation, and a
// test re-derives all of them from the trace alone.
//
// # KV cache and decoding
//
// A [Cache] holds, per layer, the keys (after RoPE) and values of all
// positions so far, [Len, KVHeads·hd] in the head layout. A pass appends its n new rows; causal
// masking means row i attends to positions 0…Start+i. [Model.Generate]
// runs the prompt as one pass, then one pass per generated token, and
// produces exactly the logits of one pass over the whole sequence (tested).
//
// # Float reference and fidelity
//
// [Model.Reference] is a float64 pass over the original float weights (not
// the dequantized ones), so [Model.Fidelity] measures the whole
// quantization error: per layer and for the logits, the largest and mean
// |integer/2^F − float| over all positions, relative to the largest |float|,
// plus top-1 agreement of the generated tokens (same prefix, and the float
// model's own free-running greedy tokens). Tested tolerances: relative error
// ≤ 3% for every layer output and the logits; for the default model the
// integer and float tokens agree on every step for a fixed set of prompts.
// Measured on the default model: about 0.6% per layer and 0.5% on the
// logits; on GPT-2 small's shape with random weights the error grows from
// 0.8% after the first layer to 1.5% after the twelfth and on the logits,
// and the first four greedy tokens agree.
//
// # Default model
//
// [Default] needs no files: [DefaultConfig] (GPT-2, 2 layers, d = 64, 4
// heads, context 32, vocabulary 256 for byte-level tokens) with
// [RandomWeights] from DefaultSeed. Projections have standard deviation
// 1/√In (so activations keep their scale) and token embeddings standard
// deviation 1 ([DefaultEmbedScale]): with the tied head this spreads the
// logits (largest about 50) so that the gap between the top two tokens is
// far above the quantization error, and the top-1 tokens agree.
//
// # Loading
//
// [Load] reads config.json and model.safetensors as Hugging Face stores them
// (float32, float64, float16 or bfloat16 tensors; GPT-2 names with an
// optional "transformer." prefix; Llama names), with errors that name the
// missing, mis-shaped or mis-typed tensor. [Model.Save] writes the same
// layout (weights and config; not the tokenizer). When the directory has
// tokenizer files, Load also reads the tokenizer and its
// beginning-of-sequence rule (tokenizer.LoadCodec, BOSAuto; [LoadBOS]
// chooses the rule) into Model.Tokenizer, which the model id covers.
//
// # Benchmarks
//
//	go test ./model -run NONE -bench TokensPerSecond -benchtime 5x
//
// BenchmarkDefaultTokensPerSecond and BenchmarkGPT2SmallTokensPerSecond
// (12 layers, d = 768, 12 heads, random weights) report tokens/s of greedy
// decoding with full traces, and, in the same run, the tokens/s of the
// same passes' matmuls alone with the int8 kernel and with a float32
// kernel of the same blocking (MatMulFloat32, in the benchmarks), and the
// ratios. Measured on a shared, heavily loaded 2-core machine (figures vary
// between runs):
// the default model decodes 1,800–4,600 tokens/s; GPT-2 small 3.1–4.5
// tokens/s with full traces, about as fast as the same passes' float32
// matmuls alone (ratio 0.66–1.35), the int8 kernel running at 0.8–1.3
// times the float32 kernel's speed.
package model
