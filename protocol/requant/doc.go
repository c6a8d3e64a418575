// Package requant checks the rescaling step that follows every matmul
// (and RoPE, norms, the gated MLP product): for an accumulator a, a
// positive multiplier M (per tensor or per output column) and a shift k,
//
//	y·2^k + rem = a·M + 2^(k−1),   rem ∈ [0, 2^k)
//
// which is the rounding rule of model.Requantize.
//
// # Claims in, claims out
//
// y and rem are opened tensors (see docs/architecture.md): the proof
// carries them and binds them to the transcript. The accumulator is not
// opened: a claim on its MLE at a point r, which the matmul's sum-check
// needs as its starting claim, is computed from y and rem,
//
//	ã(r) = Σ_x β(r, x)·(y(x)·2^k + rem(x) − 2^(k−1))·M(x)⁻¹
//
// over the valid (unpadded) entries x ([EvaluateAcc]). Because rem is in
// range and |a·M| stays far below p/2 (the model's static bounds), the
// field identity is the integer one, and y is the unique rounding of a.
//
// # Ranges
//
// This package checks no range: the designs that hold y and rem do. The
// direct design checks every opened tensor in the window of its range
// ([0, 2^k) for rem) and every output in its exact range (package
// inference), natively and in the circuit; the committed design
// decomposes every committed value into range-checked limbs (package
// inference/committed). gadgets/requant evaluates ã(r) in a circuit with
// one multiplication per element plus the eq table.
//
// The range of rem is what makes the rounding unique: (y − 1, rem + 2^k)
// satisfies the product identity for the same a.
package requant
