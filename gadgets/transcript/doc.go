// Package transcript is the in-circuit twin of package
// github.com/veriformer/veriformer/transcript: the same Poseidon2
// compression (gnark's std/permutation/poseidon2 with the default parameters
// of the circuit's field), the same constants and the same order of
// operations. It uses frontend.API only and works on any curve whose
// scalar field has default Poseidon2 parameters in gnark (BN254, BLS12-377,
// BLS12-381, BW6-761).
//
// Cost: one absorb or challenge is one permutation, 186 R1CS constraints on
// BN254 and 190 on BLS12-377.
//
// # Opened tensors
//
// [Transcript.AbsorbPacked] range-checks each value of a tensor to the
// window [lo, lo + 2^b), b = bitlen(hi − lo), which makes the packing
// injective; [Transcript.AbsorbPackedExact] also excludes the window's
// values above hi, so that the tensor lies in its exact range [lo, hi]:
// nothing when the window is the range (the model's ranges, [−2^k,
// 2^k − 1]), one constraint per excluded value when one or two are, a
// second range check when more are.
package transcript
