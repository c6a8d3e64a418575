// Package field is veriformer's abstraction over the two scalar fields it
// proves in: BN254 Fr (the direct design, verified on Ethereum as is)
// and BLS12-377 Fr (the aggregated design, whose segment proofs are verified
// in a BW6-761 aggregator).
//
// # Generic code
//
// Generic functions take two type parameters, [E Scalar, P Ptr[E]]: E is the
// element type (gnark-crypto's fr.Element of either curve) and P its pointer
// type, which carries the arithmetic. Call sites name E only; P is inferred:
//
//	var z E
//	P(&z).Mul(&a, &b)
//	x := field.FromInt64[bn254fr.Element](-3) // p − 3
//
// # Hot loops
//
// Both element types have the same memory layout, so the Go compiler shares
// one instantiation of a generic function between them and method calls
// through P are indirect. Loops over large tables therefore never call P per
// element: they call the vector kernels [Add], [Sub], [Mul], [ScalarMul],
// [Sum] and [InnerProduct] on chunks, which dispatch once per call to
// gnark-crypto's concrete (AVX-512 where available) vector code.
//
// # Integers
//
// Quantized values are small signed integers; v < 0 is the element p − |v|
// ([FromInt64]).
package field
