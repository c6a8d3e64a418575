// Package circuits holds the Groth16 circuits that verify veriformer
// proofs.
//
// [Direct] is the circuit of the direct design: one BN254 circuit per
// (model, row bucket R) that replays inference.Verify with the gadgets for
// every request whose pass fits R — the statement (model id as a
// constant, token digests of the prompt and output held in buffers of R
// tokens with their lengths as witnesses, gadgets/statement.Request),
// the opened tensors as private witnesses bound to the Poseidon2
// transcript, every element-wise check (gadgets/nonlinear), every
// contraction's sum-check (gadgets/linear, gadgets/attention) and the
// claims they leave, on opened tensors (direct MLE evaluation) and on the
// weights (constants), and the argmax of every row of the logits: the
// output token on a live row, the row's own argmax (a free target) on a
// pad row. Its one public input is StatementDigest, the
// SHA-256 digest of the statement (statement.Digest of ModelID,
// InputDigest, OutputDigest; gadgets/statement), the layout the Solidity
// verifier and the registry take; the statement's three values are
// private witnesses bound to it ([PublicWitness]).
//
// [Committed] is the aggregated design's segment circuit, over BLS12-377:
// one per (model, segment, row bucket), it verifies the field part of
// one segment's committed proof (inference/committed) with
// gadgets/committed.VerifySegment, the model's weights as constants,
// the tokens private and bound to the statement's digests. Its public
// inputs are gadgets/committed.Publics: the statement, the digests of
// the proof's commitments, of its multiplicities' and of its opening's
// folds, and the scalars of the opening's pairing check, which the
// aggregator (package recursion) completes. [CommittedBatch] is the same
// for a batch's stacked pass: one per (model, segment, row bucket,
// request slots), the requests and their layout private and bound to
// the statement (model id, list digest, count) by
// gadgets/committed.VerifyBatchSegment.
//
// # Usage
//
//	layout, _ := circuits.NewLayout(m, req.Rows)
//	placeholder, _ := layout.Placeholder()          // compile this
//	assignment, _ := layout.Assign(st, req, nativeProof)
//
// # Size
//
// Most of the circuit is the opened tensors: their packed digest, their
// range checks (in the window of the packing, and in the exact range for
// the contraction outputs and row maxima of inference.WalkExact) and
// their MLE evaluations, and the three 2¹⁶-entry tables (exp, GELU,
// 1/√). The
// embedding rows are checked by one random linear combination per row and
// a lookup among V combinations of the table's rows
// (gadgets/embedding.CheckRows), with a challenge from a fork of the
// transcript taken after every opened tensor is absorbed.
package circuits
