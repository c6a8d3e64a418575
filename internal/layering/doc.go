// Package layering holds two dependency checks of the module.
//
// The native packages (fields, polynomials, transcript, sum-check,
// lookups, the model, the layer protocols, the whole-inference provers
// and verifiers, the statement, the commitments) never depend on gnark's
// circuit frontend, on gnark's std gadgets or on any of the module's
// gadgets/… packages. The direction follows gnark, where
// std/recursion/groth16 imports backend/groth16 and converts its types
// (ValueOfProof, PlaceholderProof), never the reverse; that a gadget
// package offers such converters is its own tests' concern, not this
// check's.
//
// No package's non-test code imports test code: gnark's test engine
// (gnark/test) or the module's test knobs (internal/tier).
//
// The package has no code; its tests run `go list` and fail on any
// forbidden dependency, naming the package and the dependency. They do
// not check the order of the other layers.
package layering
