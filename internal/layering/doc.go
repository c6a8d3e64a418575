// Package layering holds the dependency check of the module: the native
// packages (fields, polynomials, transcript, sum-check, lookups, the model,
// the layer protocols, the whole-inference prover and verifier, the
// statement, the commitments) never depend on gnark's circuit frontend,
// on gnark's std gadgets or on any of the module's gadgets/… packages.
//
// The direction follows gnark, where std/recursion/groth16 imports
// backend/groth16 and converts its types (ValueOfProof, PlaceholderProof),
// never the reverse: each gadgets/… package imports its native twin, is
// sized by the native configuration and offers ValueOf… converters from
// the native proof.
//
// The package has no code; its test runs `go list` over the native
// packages and fails on any forbidden dependency, naming the package and
// the dependency.
package layering
