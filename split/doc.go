// Package split runs private split inference: a client keeps its prompt
// and generated tokens secret from a server that holds the model, by
// having the server compute the projections of the first layers on
// CKKS-encrypted activations (Lattigo v5), while the client decrypts and
// does every non-linear step in plaintext. The client also checks every
// product the server returns against the model's int8 weights.
//
// The integer forward pass is package model's: the client assembles it
// from the exported steps of [model.Model] ([model.Model.NormRows],
// [model.ProjectAcc], [model.Model.RopeRows], [model.Model.AttendRows],
// [model.Model.MLPHidden], [model.AddResidual]), and only the
// accumulators X·Wᵀ of the projections come from the server. Since the
// client rounds each decrypted accumulator to the nearest integer and the
// CKKS error stays far below ½, the encrypted run produces exactly the
// logits and greedy tokens of [model.Model.Generate] (tested).
//
// # Protocol
//
// Session set-up: the client fetches GET /v1/info, refuses a server whose
// model id (model.Model.ID of the quantized model) differs from the id
// of the weights it holds, creates a CKKS secret key, and sends only the
// Galois (rotation) keys of [Layout.GaloisElements] in POST /v1/sessions.
// The secret key never leaves the client; no public encryption key or
// relinearization key is sent either (the server never multiplies two
// ciphertexts and never encrypts).
//
// Each pass (the prompt, then one pass per generated token with only the
// new row: the client's KV cache holds the earlier keys and values) makes
// four round trips per encrypted layer, each carrying all rows of the
// pass ([Round]):
//
//	RoundQKV     x = Norm(h)                          → Q, K, V accumulators
//	RoundOutput  x = attention context                → O accumulator
//	RoundMLP     x = Norm(h + O)                      → gate (Llama) and up accumulators
//	RoundDown    x = SiLU(gate) ⊙ up, or GELU(up)     → down accumulator
//
// and the client computes between them, in plaintext: requantization
// (with the biases of GPT-2), RMSNorm or LayerNorm, RoPE, attention with
// softmax, SiLU or GELU, the product, residual adds, and at the end the
// final norm, the LM head and the argmax. Both families of package model
// run this way (tested). Layers past the
// encrypted ones run entirely on the client, which holds the public
// weights anyway: a server running them in plaintext would see the hidden
// state, which gives the prompt away.
//
// # Packing and products
//
// [Layout] fixes the slots: N = 2¹³, and each row uses Slots = the
// smallest power of two ≥ 2·max(d, MLP width), at most N/2 = 4,096. A
// vector wider than Chunk = Slots/2 is split into pieces of at most Chunk
// (dimension splitting: TinyLlama's 5,632-wide MLP is three pieces). A
// piece x of length n is packed periodically, slot s holding x[s mod n],
// and the rows of a pass share ciphertexts, RowsPerCiphertext = (N/2)/Slots
// rows each, row i in slots [i·Slots, (i+1)·Slots).
//
// A block is an output piece of length m of a weight matrix against an
// input piece of length n ≤ Chunk. Output pieces have at most Chunk values,
// so n + m − 1 ≤ Slots and no rotation below moves a used slot out of its
// row's range; when a ciphertext holds a single row (Slots = N/2) and n
// divides Slots, every rotation wraps around a whole number of periods,
// and output pieces may fill all Slots (TinyLlama's 5,632-wide gate and up:
// two pieces instead of three). With the generalized diagonals
//
//	diag_k[t] = W[t mod m][(t + k) mod n]   for t < T, 0 for t ≥ T,
//
// the block computes z = Σ_{k<K} diag_k ⊙ rot_k(x), since rot_k(x)[t] =
// x[(t + k) mod n]. Two methods:
//
//   - plain: T = m, K = n, and y = z;
//   - hybrid (m < n, n/m a power of two, m a multiple of Baby): T = n,
//     K = m, then log₂(n/m) folds z ← z + rot_{T/2}(z), T ← T/2 give
//     y[j] = Σ_c z[j + c·m], and {(j + c·m + k) mod n : c < n/m, k < m}
//     is every input index once. TinyLlama's K and V (2048 → 256) need 256
//     diagonals instead of 2,048.
//
// The server evaluates Σ_k by baby steps and giant steps (B = Baby =
// 2^⌈log₂√Chunk⌉):
//
//	z = Σ_g rot_{g·B}( Σ_{j<B} rot_{−g·B}(diag_{g·B+j}) ⊙ rot_j(x) )
//
// with B − 1 hoisted baby rotations per input ciphertext (shared by every
// block that reads it) and ⌈K/B⌉ − 1 giant rotations per block. The
// diagonals are encoded as plaintexts repeating with period Slots, so one
// product serves every row packed in the ciphertext. A block's results
// over the input pieces are summed, and one rescaling ends the product.
// Weights are the int8 values themselves, encoded at scale q₁, so after
// the rescaling a result has the input's scale Δ and its slots hold the
// integer accumulators Σᵢ x[i]·Wq[j][i] plus the CKKS error. Rotation keys
// are those of 1…B−1 and of the multiples of B below Chunk; the folds
// rotate by multiples of m, hence of B.
//
// # Parameters
//
// N = 2¹³, Q = q₀·q₁ (60 and 45 bits), P one 61-bit prime: log₂(QP) = 166,
// below the 218 bits of the homomorphic encryption standard's 128-bit
// security table for N = 2¹³ with a ternary secret (Lattigo's default
// secret and error distributions). Client ciphertexts are at level 1
// (2·2·N·8 = 256 KiB each), results at level 0 (128 KiB). The client
// chooses Δ = 2^k per ciphertext with k ≤ 45 the largest exponent such
// that 127·Σᵢ|xᵢ| (a bound on every accumulator) times Δ stays below
// q₀/4 (for a ciphertext packing several rows, the smallest k of its
// rows), and refuses k < 20. The CKKS error, mostly the fresh encryption
// noise times the weights, measured in accumulator units: about 4·10⁻⁴
// for the built-in model, 0.08 for a TinyLlama layer. Both are below ½,
// so rounding recovers the integers exactly, and a rounding that went
// wrong would fail the check below rather than be used.
//
// # The client's check (Freivalds)
//
// For every weight matrix W ([out, in]) of an encrypted layer the client
// draws a secret r uniform in F_p^out (p = 2⁶¹ − 1, crypto/rand) and
// precomputes s = rᵀW once. For each row x it sent and each decrypted,
// rounded result y it checks ⟨r, y⟩ = ⟨s, x⟩ mod p, in O(in + out). It
// first refuses any |y_j| > 127·Σᵢ|xᵢ|, a bound every honest accumulator
// meets; so |y − x·Wᵀ| < 2·127·2¹⁶·2¹⁵ < p entry by entry, a wrong y is
// non-zero mod p, and it passes with probability at most 1/p per row
// (without the bound, a server adding p to an accumulator would pass). This catches a server that uses other
// weights than the model id names, skips a product (returns another
// product or its input), alters any accumulator by any amount, or breaks
// a ciphertext in transit; the client stops with [ErrCheck] before it
// uses a value. It does not protect privacy (CKKS does that), nor against
// a server that refuses service, and it reveals one bit to a cheating
// server: whether the client went on. The check is on the accumulators
// the client uses, so nothing the server returns is trusted unchecked.
//
// # Wire format
//
// Binary, little-endian, with a 4-byte magic and a version byte. A
// ciphertext is its two polynomials, each (level+1) limbs of N uint64
// coefficients, every coefficient below its modulus; the layout and the
// header fix every length, so a decoder knows the exact size before it
// reads and checks every coefficient; no third-party decoder reads
// untrusted bytes, and the server sets every ciphertext's metadata
// itself.
//
//	keys      "VFSK" 1 | count u16 | per key: its gadget ciphertext's Q and P limbs
//	request   "VFSQ" 1 | round u8 | layer u16 | rows u16 | ⌈rows/RowsPerCiphertext⌉·pieces ciphertexts (level 1)
//	response  "VFSR" 1 | count u32 | ciphertexts (level 0): per group, per projection, per output piece
//
// # HTTP API
//
//	GET    /v1/info                  model id, family, layers, slots, key count (JSON)
//	POST   /v1/sessions              keys message → session id (JSON)
//	POST   /v1/sessions/{id}/project request → response, header X-Split-Compute-Ns
//	DELETE /v1/sessions/{id}
//
// Every request carries "Authorization: Bearer <token>" (401 otherwise,
// compared in constant time). Bodies are bounded: the keys message has
// its exact size, and a request at most MaxRows rows, so that the widest
// round carries at most MaxCiphertexts input ciphertexts (the session
// reply states MaxRows; the client splits a longer prompt into
// consecutive passes, which the KV cache makes exact). Larger bodies get
// 413, malformed ones 400, unknown sessions 404, and a full server
// (MaxSessions) 503; at most two key messages are read at once. Sessions
// expire after SessionTTL idle; products run
// one at a time per session and at most GOMAXPROCS/Workers at once, so the
// server's memory is about MaxSessions sets of keys plus one request's
// rotations (MaxCiphertexts·Baby ciphertexts of 256 KiB).
package split
