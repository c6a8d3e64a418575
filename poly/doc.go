// Package poly holds dense multilinear extensions (MLEs), eq/β tables and
// the structured MLEs that verifiers evaluate in closed form.
//
// # Variable order
//
// An MLE over n variables is stored as its table of 2ⁿ evaluations on the
// Boolean hypercube. The entry at index i is f(x₁,…,xₙ) with
//
//	i = Σₖ xₖ·2ⁿ⁻ᵏ
//
// so X₁ is the most significant bit. A point (r₁,…,rₙ) binds r₁ to X₁, and
// [Fold] fixes X₁ first:
//
//	f'(x₂,…,xₙ) = f(r, x₂,…,xₙ) = f(0, x₂,…) + r·(f(1, x₂,…) − f(0, x₂,…))
//
// A rows×cols matrix is padded to 2ᵃ×2ᵇ ([PadTensor]) and stored row-major,
// entry (i, j) at index i·2ᵇ + j: its MLE is evaluated at (r_row, r_col),
// row variables first.
//
// # eq / β
//
//	β(a, b) = Πₖ (aₖbₖ + (1−aₖ)(1−bₖ))
//
// is 1 on equal Boolean points and 0 on different ones; its table over x for
// a fixed point r ([EqTable]) takes 2ⁿ multiplications, and for every MLE f
//
//	f(r) = Σ_{x∈{0,1}ⁿ} β(r, x)·f(x).
//
// [Eq] evaluates β at two points in O(n).
//
// # Structured MLEs
//
// Verifiers never build a table of size 2ⁿ for a matrix they know: one-hot
// rows, prefix selectors, causal zeroifiers and padding matrices all
// have closed forms evaluated in O(n) field
// operations (structured.go, and their in-circuit twins in gadgets/poly).
//
// # Performance
//
// [Fold], [Evaluate] and [EqTable] run on the vector kernels of package
// field and split large tables across cores.
package poly
