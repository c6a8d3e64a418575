// Package pipeline runs veriformer end to end in either design
// ([Design]). [RunDirect] proves a greedy generation in the direct
// design: the integer model's generation, the native proof and its
// verification, the BN254 circuit (compiled, keys set up once and cached
// by circuit hash), the Groth16 proof and its verification, and — on
// request — the exported Solidity verifier and registry compiled with
// solcjs, deployed on go-ethereum's simulated chain, with the proof
// submitted and recorded and the gas measured. [RunAggregated] does the
// same in the aggregated design: each segment's tensors committed
// (package pcs, a KZG SRS from a ceremony file or a cached development
// one) and proven by the native committed prover (inference/committed),
// the segment circuits (gadgets/committed) replaying its field part and
// exposing the scalars of its pairing check, the aggregator (recursion)
// checking the segment proofs, linking the segments' residual-stream
// commitments and completing every opening with one pairing, and, with
// AggregatedOptions.Wrap, the BN254 wrapper. Every run states a
// statement.List: the model id and its leaves, here the one request; the
// final proof's one public input is the list's statement digest, and the
// registry's one entry point records any list. The model id is
// recursion.ModelID of the segment keys and the model's table
// commitments. cmd/prove is a thin command over both.
//
// # Conversations
//
// [RunTurn] proves one turn of a conversation in the aggregated design:
// a request over the committed cache of the turns before it, in the turn
// circuits of its bucket and the cache's capacity, from the state in to
// the state out, ending with the turn aggregator's proof or, with Wrap,
// the wrapper's proof of the list of the turn's one leaf. With Wrap and
// Chain, a new simulated chain records the conversation's earlier turns
// (TurnOptions.Earlier) and then this one with the registry's submit,
// which records a turn only after a turn that left its state in. [RunStream] proves a generation token by token as turns of
// one conversation ([PlanStream]: a first turn that fills the prompt's
// bucket, then turns of one row). A prover keeps a conversation between
// its turns in conversation.json ([Conversation], [ParseConversation]).
//
// # Batches
//
// [RunBatch] proves many requests of one model in one pass of the
// aggregated design: each request is generated on its own, then the
// requests are stacked in the rows of one batch bucket (statement.Stack,
// [BatchRows]: a power of two that may exceed the model's context), a
// row attending to its own request's rows only, at its position within
// its request. The pass is proven by the batch's segment circuits
// (circuits.CommittedBatch, fixed by the bucket and AggregatedOptions.Slots
// request slots, the layout of the requests a witness), the aggregator
// of their shapes, whose segments state (model id, list digest, number
// of requests), and with Wrap the wrapper, whose one public input is the
// statement digest of the requests' list. With Wrap and Chain, the list
// is recorded on a new simulated chain (the registry's submit: a root in
// one slot, an event per request). A request
// that cannot be proven is reported in its [BatchResult] and left out;
// the others go on. A batch file is JSON Lines, a request a line
// ([ParseBatchFile]). The batch circuits are a deployment of their own,
// with their own final model id.
//
// # Mixed lists
//
// [RunList] proves a mixed list: AggregatedOptions.Mix.Requests requests
// then Mix.Turns turns of any conversations, each generated greedily and
// proven as a pass of its own in one bucket (a request's by the request
// segment circuits, a turn's from its state in by the turn segment
// circuits over the Capacity rows, on the workers with Queue), completed
// by one aggregator of those passes (recursion.PassShape) and with Wrap
// the wrapper, whose one public input is the statement digest of the
// list's leaves in order. A mixed deployment holds, per bucket, the lone
// turn's aggregator ([RunTurn] with Mix set) and the mixed list's, in one
// tree of aggregators (recursion.Slot), so a conversation's turns state
// one final model id alone or in lists. With Wrap and Chain, a new
// simulated chain records each turn's earlier turns, each in the list it
// was proven in ([RecordedTurn]), then the list.
//
// # Workers
//
// With AggregatedOptions.Queue, a run's proofs are jobs on the workers
// of a NATS JetStream deployment (package distributed; [WorkerHandlers]
// are the workers' side): each segment's native proof ([JobNative]) and
// its Groth16 proof ([JobSegment], after the native one), the
// aggregation ([JobAggregate], after every segment) and, with Wrap, the
// wrapper ([JobWrap], after the aggregation). The run puts in the
// object store its spec (the model — a built-in one's name, or the id of
// one whose config.json and model.safetensors are inputs too — the pass,
// the cut, the inner model id, the segment shapes and the wrapper's
// deployment), the SRS and the key files (by the digests their manifests
// record), and verifies every result before it uses it: a native proof
// with the native verifier, each Groth16 proof on public inputs it
// computes itself, the wrapper's on the final list. A turn's spec holds
// the history and the digests of the states in and out (both computed
// by the run before any job), its aggregation the state in's
// commitments; each native proof is checked from the state in as it
// arrives (committed.VerifyTurnSegment), and the whole turn must leave
// the state out the spec states. A worker
// rebuilds the model (checking a loaded one's id against the spec's),
// compiles each circuit itself and refuses keys whose manifest is of
// another circuit.
//
// # Circuits
//
// [Circuits] is the one catalog of the circuits a design of a model needs
// keys for, for a pair of prompt and output lengths: the direct circuit,
// or each segment's, the aggregator's and the wrapper's, one wrapper for
// every kind of pass. The runs, [Plan]
// (prove --plan), [VerifyingKeyDirect] and [VerifyingKeysAggregated]
// (export) and cmd/ceremony all take their circuits from it.
//
// An aggregated run holds no compiled circuit and no proving key between
// its stages: each circuit is kept in the circuit cache
// (setup.CompileCached) and read again when it is proven, each proving
// key read by its manifest (setup.LoadProvingKey) and dropped after its
// proof.
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
