// Package circuits holds the Groth16 circuits that verify veriformer
// proofs.
//
// [Direct] is the circuit of the direct proof shape: one BN254 circuit per
// (model, prompt length, output length) that replays inference.Verify with
// the gadgets — the statement (model id as a constant, token digests),
// the opened tensors as private witnesses bound to the Poseidon2
// transcript, every element-wise check (gadgets/nonlinear), every
// contraction's sum-check (gadgets/linear, gadgets/attention) and the
// claims they leave, on opened tensors (direct MLE evaluation) and on the
// weights (constants). Its public inputs are exactly the statement:
// ModelID, InputDigest, OutputDigest.
//
// [Segment] is the circuit of one segment of the aggregated shape
// (Groth16 over BLS12-377): inference.VerifySegment for a range of
// blocks, with the public inputs of the recursion package's segment
// contract (ModelID, InputDigest, OutputDigest, ChainIn, ChainOut). The
// default model cut into one-block segments gives circuits of 444,291 and
// 506,929 R1CS constraints for 2 prompt and 2 generated tokens.
//
// # Usage
//
//	layout, _ := circuits.NewLayout(m, len(prompt), len(output))
//	placeholder, _ := layout.Placeholder()          // compile this
//	assignment, _ := layout.Assign(st, prompt, output, nativeProof)
//
// # Size
//
// The default model (2 layers, d = 64, vocabulary 256) takes 731,515 R1CS
// constraints for 2 prompt and 2 generated tokens (3 rows). Most of it is
// the opened tensors: their packed digest, their range checks (in the
// window of the packing, and in the exact range for the contraction
// outputs and row maxima of inference.WalkExact, free since the model's
// ranges are their windows: the count above was taken when they were
// symmetric and cost one more constraint per value) and their MLE evaluations, and the three 2¹⁶-entry tables (exp, GELU, 1/√). The
// embedding rows are checked by one random linear combination per row and
// a lookup among V combinations of the table's rows
// (gadgets/embedding.CheckRows), with a challenge from a fork of the
// transcript taken after every opened tensor is absorbed.
package circuits
