// Package requant is the in-circuit twin of protocol/requant: the
// evaluation of the accumulator's MLE from the opened output and remainder
// tensors of a rescaling step ([EvaluateAcc]). It reads the native
// protocol/requant.Spec, so the circuit and the native verifier use one
// description of the step; the ranges of the tensors are the circuit's
// concern (protocol/requant, "Ranges").
//
// Cost (R1CS, BN254): one multiplication per element, plus 2ⁿ − 2
// multiplications for the eq table of the point.
package requant
