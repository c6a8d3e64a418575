// Package lookup is the in-circuit twin of package
// github.com/veriformer/veriformer/lookup: it verifies a LogUp proof (GKR
// over fraction trees) with frontend.API only, in the native verifier's
// transcript order, and returns the claims on the looked-up columns.
//
// The direction of conversion follows gnark's std/recursion/groth16: this
// package imports the native proof type, and [PlaceholderProof] sizes a
// circuit while [ValueOfProof] fills an assignment from a native proof.
// The native package knows nothing of circuits.
//
// The multiplicities are circuit witnesses: each is range-checked to 32
// bits (so that packing seven per field element is injective), absorbed
// packed, and its MLE is evaluated in-circuit at the table tree's leaf
// point. Affine table columns are linear forms in the point (no
// constraint); dense columns are evaluated from constants.
//
// # Cost
//
// testdata/constraints.csv holds the measured R1CS counts (BN254). The
// fixed part is the table: a table of 2ᵏ rows costs 2ᵏ range checks,
// 2ᵏ/7 absorbs, about 2ᵏ multiplications and Σ_{j<k}(3j+6) transcript
// permutations (≈186 constraints each); a witness of 2ⁿ entries adds
// Σ_{j<n}(3j+6) permutations and O(n²) multiplications — polylogarithmic
// in the number of lookups. Measured: 8-bit range table with 2⁴ lookups
// 49,499; 2⁸ lookups 71,221; 2¹² lookups 104,927; 12-bit table with 2¹²
// lookups 263,813.
package lookup
