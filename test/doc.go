// Package test holds the project's end-to-end tests: a greedy generation
// of the built-in model proven in the direct shape (TestRunDirect) and in
// the aggregated shape over committed tensors (TestRunAggregated; with
// the build tag full, all the way to the chain, TestRunAggregatedFull,
// and with the LM head in chunks of the vocabulary,
// TestRunAggregatedChunks) and
// over opened tensors (TestRunAggregatedOpened), each final proof verified on
// go-ethereum's simulated chain and its tampered variants refused there
// by both Solidity templates. They use only the exported API of package
// pipeline, as a user would.
//
// The development node used by the JSON-RPC tests of package solidity is
// the command in test/devnode, built by scripts/setup-geth.sh.
//
// The package has no code outside its tests: it is on the product path as
// its check.
package test
