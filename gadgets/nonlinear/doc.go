// Package nonlinear asserts, in a circuit, the element-wise relations of
// the non-linear steps of a forward pass on opened tensors; it is the twin
// of protocol/nonlinear and follows the same equations (see that package).
//
// Tables are gnark log-derivative lookup tables (std/lookup/logderivlookup)
// built once per circuit from the model's table entries; ranges use gnark's
// range checker. Both draw their challenges from the Groth16 commitment to
// the witness, so they need nothing from the transcript.
//
// # Cost (R1CS, BN254)
//
// A table of 2¹⁶ entries costs about 2¹⁶ constraints once per circuit and
// 3–11 constraints per lookup; a range check 3–6 per value. Softmax: per
// unmasked entry one exp lookup, one equality test, about four
// multiplications and four range checks. Norm: per element one
// multiplication for the square, one for the scaling, one product check
// and two range checks; per row a 1/√ lookup and two small lookups (4^e
// and 2^(Eₘₐₓ−e)). RoPE: per element a product check and two range
// checks (cos and sin are constants). Argmax: per vocabulary entry an
// equality test, a multiplication and a range check.
//
// testdata/constraints.csv snapshots the counts on the default model's
// shapes (3 rows): softmax over 4 heads 66,943, LayerNorm of 3×64 69,973,
// GELU of 3×256 68,301 — each dominated by its 2¹⁶-entry table — and a
// residual add of 3×64 with the argmax over 256 logits 3,934.
package nonlinear
