// Package requant is the in-circuit twin of protocol/requant: range checks
// of the opened output and remainder tensors of a rescaling step
// ([Checker.Assert]) and the evaluation of the accumulator's MLE from them
// ([EvaluateAcc]). Both read the native protocol/requant.Spec, so the
// circuit and the native checks use one description of the step.
//
// Cost (R1CS, BN254): per element a range check of k bits for the remainder
// and of b bits for the output (gnark's log-derivative range checker, about
// 3–6 constraints each), and one multiplication in [EvaluateAcc], plus
// 2ⁿ − 2 multiplications for the eq table of the point.
package requant
