// Package turns holds the default tier's end-to-end test of a
// conversation: two turns of the built-in micro model in the aggregated
// design, with real Groth16 keys, the second on workers (TestRunTwoTurns). It is a package of
// its own so that the test runner runs it beside package test rather
// than after it. The full tier's conversations (TestRunTurns,
// TestRunStream) are in package test.
//
// The package has no code outside its tests: it is on the product path as
// its check.
package turns
