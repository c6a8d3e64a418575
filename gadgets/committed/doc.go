// Package committed verifies the committed segment proof of package
// inference/committed in a BLS12-377 circuit, where its scalars are
// native: the segment circuits of the committed shape. It grows with the
// verifier, one step at a time, each the twin of a native function of
// inference/committed and tested on the same proofs.
//
// Status: [VerifyLookups], the verifier's first steps (native
// VerifyLookups) — the LogUp instance over the layout's slots with the
// function tables left as claims, the id column and the slots' values,
// and the decomposition zero-check with its public tables — and
// [VerifyRequants], the step after them (native VerifyRequants): the
// accumulator points, the batched requantization sum-check and its final
// check against the public weight evaluated from the layout. Tested on a
// real proof of the built-in model: the honest proof leaves the circuit
// with the native transcript state and claim on the stacked MLE; a value
// of every kind changed (slot and function values, table values, the
// LogUp instance's columns, multiplicities, roots and layers, the
// zero-check's rounds and evaluations, the multiplicities' digest) is
// rejected by both, or ends both in another transcript state, which the
// segment exposes to the steps after it; for the requantizations, the
// first and last accumulators, the sum-check's first and last rounds and
// the claim on s. Not yet
// on the proving path: the projection, contraction,
// norm, softmax, residual, embedding and argmax steps and the batch
// opening's field part (package gadgets/pcs) complete the segment
// circuit.
//
// # Cost
//
// The LogUp instance as in gadgets/lookup (≈ 850 R1CS per degree-3 GKR
// round, the function tables not evaluated); the id column and the
// columns' recombination O(S·K) for S slots over a lookup cube of 2^K
// entries; the zero-check N rounds of degree 3 and 20 evaluations; its
// public tables O(B·N) for B blocks. The built-in model's first segment
// over 4 rows (stacked MLE 2¹⁴, lookup cube 2¹⁵, table set 2¹⁸): 297,736
// R1CS, most of it the 258 GKR rounds; with the requantization step (10
// requantizations: a degree-2 sum-check over N and the public weight's
// evaluation) 326,227 (testdata/constraints.csv).
package committed
