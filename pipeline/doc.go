// Package pipeline runs veriformer end to end in the direct proof shape:
// greedy generation with the integer model, the native proof and its
// verification, the BN254 circuit (compiled, keys set up once and cached
// by circuit hash), the Groth16 proof and its verification, and — on
// request — the exported Solidity verifier and registry compiled with
// solcjs, deployed on go-ethereum's simulated chain, with the proof
// submitted and recorded and the gas measured. [RunAggregated] does the
// same in the aggregated shape: BLS12-377 segment proofs, their BW6-761
// aggregation and the BN254 wrapper (solved by gnark's test engine unless
// AggregatedOptions.Wrap). cmd/prove is a thin command over both.
//
// # Warning
//
// Keys come from groth16.Setup, which is for development only: whoever ran
// it can forge proofs. Production keys come from an MPC ceremony (see
// docs/recursion.md, "MPC ceremony").
package pipeline
