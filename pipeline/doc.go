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
// The aggregated shape has two designs ([Tensors]). With [Committed], the
// default, each segment's tensors are committed (package pcs, a KZG SRS
// from a ceremony file or a cached development one) and proven by the
// native committed prover (inference/committed); the segment circuits
// (gadgets/committed) replay its field part and expose the scalars of its
// pairing check, and the committed aggregator (recursion) checks the
// segment proofs, links the segments' residual-stream commitments and
// completes every opening with one pairing. The model id is
// recursion.CommittedModelID of the segment keys and the model's table
// commitments. With [Opened], segment circuits take the tensors as
// witnesses (circuits), as the direct shape does.
//
// A committed run holds no compiled circuit and no proving key between
// its stages: each circuit is kept in the circuit cache
// (setup.CompileCached) and read again when it is proven, each proving
// key read by its manifest (setup.LoadProvingKey) and dropped after its
// proof. GPT-2 small's shape peaks at 14.5 GB that way, in the
// wrapper's proof.
//
// # Warning
//
// Keys come from package setup's cache, checked against the digests of
// their manifest; when a circuit has none, from a development setup
// (setup.LoadOrSetup), which is for development only (whoever ran it can
// forge proofs) and logged as such.
// Production keys come from an MPC ceremony sealed into the cache
// (cmd/ceremony, docs/ceremony.md); Options.KeyKind = setup.Ceremony
// refuses any other. [Export] checks the verifying key against its
// manifest before writing anything.
package pipeline
