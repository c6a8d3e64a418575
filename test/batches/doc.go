// Package batches holds the default tier's end-to-end test of a batch:
// requests of the built-in micro model stacked in one pass and proven in
// the aggregated design with real Groth16 keys (TestRunSmallBatch). It is
// a package of its own so that the test runner runs it beside package
// test rather than after it. The full tier's batch, wrapped and recorded
// on a simulated chain, is TestRunBatch in package test.
//
// The package has no code outside its tests: it is on the product path as
// its check.
package batches
