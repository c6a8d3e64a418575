// Package linear verifies the linear-layer proofs of protocol/linear
// inside a gnark circuit, and evaluates fixed weight matrices and bias
// vectors from circuit constants. It uses frontend.API only; the tests run
// it on BN254 and BLS12-377 against the native prover and verifier.
//
// # Protocol
//
// K matmuls Acc_k = X·W_kᵀ + 1·b_kᵀ share the input X (Rows × In). From the
// claims y_k = Ãcc_k(r_row_k ‖ r_col_k), [Verify] absorbs the bias values
// β_k = b̃_k(r_col_k), forms h_k = y_k − S̃el_Rows(r_row_k)·β_k, and checks
// the degree-2 batched sum-check
//
//	Σ_k λᵏ·h_k = Σ_{x ∈ {0,1}^⌈log₂ In⌉} Σ_k λᵏ · X̃(r_row_k, x) · W̃_k(r_col_k, x)
//
// against the claimed W̃_k(r_col_k, r*) and X̃(r_row_k, r*) at its end
// point r*. The shape is the native linear.Config. With its SharedRow the row points must be equal (asserted,
// ⌈log₂ Rows⌉·(K−1) constraints) and X̃ enters once; otherwise the K claims
// on X are merged by a same-poly sum-check over the ⌈log₂ Rows⌉ row
// coordinates. [Verify] returns one claim on X, one per weight matrix and
// one per bias; the transcript order is the native package's.
//
// # Weight claims
//
// Weights are constants of a segment circuit. [EvaluateWeight] computes
// W̃(r_row, r_col) for an out × in int8 matrix padded to 2^a × 2^b as
//
//	Σ_{j<out} β(r_row, j) · (Σ_{i<in} W[j, i]·β(r_col, i)):
//
// the two eq tables cost 2^a − 2 and 2^b − 2 multiplications, each inner
// sum is a linear combination with constant coefficients (free in R1CS),
// and each row costs one multiplication; when out > in the roles of rows
// and columns swap. gnark's R1CS builder turns a linear expression of at
// least its compress threshold of terms (300 by default) into a new
// variable with one constraint: a row whose inner sum has that many terms
// costs two constraints, and so does the final sum of that many products.
// For the shapes of the snapshot, with the default compile options,
//
//	(2^a − 2) + (2^b − 2) + min(out, in)·(1 + [2^max(a,b) ≥ 300]) + [min(out, in) ≥ 300]
//
// constraints, plus one for the caller's equality with the claimed value
// (frontend.WithCompressThreshold(0) removes the compress terms). The
// weight claims of one layer all have the column point r*, so a segment
// circuit builds its eq table once with [NewColumns] and evaluates each
// matrix with [Columns.EvaluateWeight]: GPT-2's Q, K and V weights
// (3 × 768 × 768) cost 8,702 constraints instead of 3 × 3,582.
// [EvaluateBias] costs the eq table alone, 2ⁿ − 2. Measured on BN254
// (testdata/constraints.csv, equality included): 189 for 64 × 64, 381 for
// 256 × 64 or 64 × 256; 3,582 for 768 × 768, 6,654 for 3072 × 768,
// 768 × 3072 and 2304 × 768 (GPT-2 small's MLP and fused QKV). Compiling a
// 768 × 3072 constant matrix takes about 5 s on two busy cores; 768 × 768
// about 1 s.
//
// # Verifier cost
//
// A degree-2 sum-check round costs 560 constraints on BN254 (two
// absorptions and a challenge of the Poseidon2 transcript, interpolation),
// an absorbed value 186. With n = ⌈log₂ In⌉, B biases and ℓ = ⌈log₂ Rows⌉,
// measured and fitted on BN254:
//
//	shared row:     560·(n + 1) + 186·B + [K > 1]·(185 + 376·(K − 1)) + (K − 1)·ℓ·[SharedRow]
//	distinct rows:  the same + 560·ℓ + 372·K + 185 + about (2ℓ + 1)·K
//
// where the distinct-row terms are the K − 1 further X values and the
// same-poly merge (ℓ rounds, the K values again, α, the evaluation, K
// equality polynomials), plus at most ℓ per bias for S̃el_Rows when Rows
// is not a power of two.
// Examples (testdata/constraints.csv): 6,346 for one GPT-2-small projection
// with In = 768 (prompt or decoding pass), 7,466 with In = 3072, 7,663 for
// Q, K, V with a shared row point over 16 rows, 11,224 with distinct row
// points.
//
// # Tests
//
// testdata/constraints.csv is the constraint snapshot of [Verify] and
// [EvaluateWeight]; the test also checks the formula above. Rewrite it
// with go test -run TestConstraintCounts -update ./gadgets/linear.
package linear
