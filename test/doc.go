// Package test holds the project's end-to-end tests. They use only the
// exported API of package pipeline, as a user would.
//
// The default tier (scripts/test.sh) proves a greedy generation of the
// built-in micro model with real Groth16 keys: in the direct design
// (TestRunDirect), its final proof verified on go-ethereum's simulated
// chain and its tampered variants refused there by both Solidity
// templates; in the aggregated design on two in-process workers that
// lie on their first attempts (TestRunAggregated), the segment and
// aggregator proofs real (the full tier also solves the BN254 wrapper
// on the aggregator's proof with gnark's test engine). Package
// test/lists proves a conversation's first turn alone and a mixed list
// of two requests and its second turn, both on workers; test/batches a
// batch; test/workers kills workers, a coordinator and a cluster's node
// mid-run.
//
// The full tier (scripts/test.sh --full, the build tag full) runs the
// built-in default model: in the direct design (TestRunDirectDefault),
// in the aggregated design (TestRunAggregatedDefault), all the way to the
// chain with the wrapper's Groth16 setup (TestRunAggregatedFull), and
// with the LM head in chunks of the vocabulary
// (TestRunAggregatedChunks); and the micro model's conversations, two
// turns recorded on a simulated chain (TestRunTurns), a token-by-token
// stream (TestRunStream) and a lone turn then a mixed list recorded
// through the one verifier (TestRunListOnChain).
//
// The development node used by the JSON-RPC tests of package solidity is
// the command in test/devnode, built by scripts/setup-geth.sh.
//
// The package has no code outside its tests: it is on the product path as
// its check.
package test
