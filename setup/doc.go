// Package setup owns the Groth16 keys of every circuit the project proves
// with — the direct circuit, the aggregated design's segments, aggregator
// and wrapper — and the MPC ceremony that makes production keys and the
// BLS12-377 KZG SRS.
//
// It depends on gnark's backend and constraint packages only; pipeline,
// recursion and cmd/ceremony use it.
//
// # Key cache
//
// Keys live in a cache directory ([DefaultCacheDir]: $VERIFORMER_CACHE,
// else .cache/keys under the module root) under the [CircuitHash] of the
// compiled circuit — the SHA-256 of a format tag, the gnark version, the
// field and the constraint system's serialization — as three files:
//
//	<hash>.pk     proving key, gnark's raw serialization
//	<hash>.vk     verifying key, gnark's raw serialization
//	<hash>.json   the [Manifest]: circuit hash, curve, size, kind
//	              (development or ceremony), "sha256:<hex>" of each key
//	              file, and for ceremony keys the contribution hashes and
//	              beacons of the transcript
//
// [LoadOrSetup] loads and checks the keys of a circuit or, when none of the
// three files exist, makes development keys — DEVELOPMENT ONLY: the
// warning goes to the run's log ([WithLog]) — and stores them with a
// manifest of kind [Development].
//
// # Development keys
//
// A development setup draws the toxic waste t, α, β, γ, δ in the process
// and computes the keys of groth16.Setup, in its layout: with the domain
// ω of N ≥ m points (m constraints) and the Lagrange polynomials Lⱼ,
// each wire i has Aᵢ(t) = Σⱼ aⱼᵢ·Lⱼ(t) (likewise Bᵢ, Cᵢ), and the keys
// hold [α]₁, [β]₁, [δ]₁, [Aᵢ(t)]₁ and [Bᵢ(t)]₁ for the wires whose
// polynomial is not zero (the others marked as at infinity), [Bᵢ(t)]₂,
// [tᵏ·(tᴺ − 1)/δ]₁ for k < N − 1 in bit-reversed order, and
// [(β·Aᵢ(t) + α·Bᵢ(t) + Cᵢ(t))/γ]₁ for the public inputs, the
// commitments and the private wires a commitment holds (those form the
// commitment's Pedersen basis), /δ for the other wires; [β]₂, [γ]₂,
// [δ]₂. Every point is a product of the generator, computed by a
// fixed-base comb (internal/comb) rather than by a scalar multiplication
// of its own. Each Pedersen commitment key has its G2 point equal to
// [γ]₂, as a ceremony's keys have, so that the on-chain verifier folds
// the proof of knowledge into the Groth16 pairing check (five pairs
// instead of six; docs/onchain.md). [Store] puts a ceremony's keys in the
// cache with a manifest of kind [Ceremony]; [WithKind] makes a load
// refuse other kinds.
//
// # What is checked
//
// Keys are decoded without gnark's subgroup checks (they would take minutes
// for the wrapper's 3.6 GB proving key); the digests stand for them. On
// every load:
//
//   - the manifest is well formed and names the circuit being loaded, so a
//     key of another circuit stored under this name is refused;
//   - each key file hashes to the digest the manifest recorded when the keys
//     were made; a changed byte, an appended byte or a file of another setup
//     is refused;
//   - the verifying key has the circuit's number of public inputs and
//     commitments;
//   - when the proving key is decoded, it belongs to the verifying key
//     ([CheckPair]: same [α]₁, [β]₁, [δ]₁, [β]₂, [δ]₂). [LoadOrSetupVK]
//     hashes the proving key file without decoding it; [LoadProvingKey]
//     decodes it later, when it is needed, from the manifest the keys were
//     loaded with, without the circuit, with the same two checks.
//
// Key files without a manifest (or a manifest without its keys) are an
// error, never a reason to set up again. Before a verifying key is exported
// or deployed, [Keys.Check] checks it again against its manifest and
// circuit.
//
// The manifest protects against mistakes and against keys changed after
// setup, not against whoever writes the cache directory: that party can
// write keys and manifest together. What makes keys trustworthy is where
// they come from — a ceremony whose transcript anyone can replay
// (cmd/ceremony verify, docs/ceremony.md) and whose sealed verifying key
// has the digest its manifest publishes.
//
// # MPC ceremony
//
// Production keys come from gnark's two-phase Groth16 ceremony
// (backend/groth16/<curve>/mpcsetup) for BN254 (direct circuit, wrapper),
// BLS12-377 (segments; its phase 1 is also the KZG SRS) and BW6-761
// (aggregator). Every object travels as gnark's serialization, so
// participants exchange files:
//
//	Phase1Init(curve, N, w)                      coordinator
//	Phase1Contribute(curve, N, r, w)             each participant, in turn
//	Phase1Seal(curve, N, beacon₁, [c₁…c_m], w)   anyone: verifies the chain, writes the SRS commons
//	Phase2Init(ccs, commons, w)                  coordinator, per circuit
//	Phase2Contribute(ccs, r, w)                  each participant, in turn
//	Phase2Seal(ccs, commons, beacon₂, [d₁…d_n])  anyone: verifies the chain, returns the keys
//	Store(ccs, dir, pk, vk, manifest)            puts them where LoadOrSetup finds them
//
// N is a power of two at least the number of constraints ([DomainSize]).
// The keys are sound if one participant of each phase kept their
// randomness secret; the beacons are public randomness fixed after the
// last contribution.
//
// # Ceremony directories
//
// cmd/ceremony keeps a ceremony as files ([NewCeremony], [OpenCeremony]):
// ceremony.json ([CeremonyInfo]), phase1/0000.bin, 0001.bin, … and
// phase2/0000.bin, … (the initial objects and the contributions, in order),
// one beacon file per phase, and phase1/commons.bin, the sealed phase 1
// (gnark's SrsCommons: the KZG SRS for BLS12-377). A contribution's hash is
// the SHA-256 of its file, the challenge the next contribution signs.
// [CeremonyDir.Contribute] adds one, [CeremonyDir.SetBeacon] closes a phase,
// [CeremonyDir.VerifyPhase1] and [CeremonyDir.VerifyPhase2] replay the
// transcript from the files and print every hash, [CeremonyDir.Seal] stores
// the keys with a manifest of kind [Ceremony] recording the transcript
// ([Transcript]). Contributions use the operating system's randomness,
// mixed with a contributor's own entropy when given (HMAC-SHA256 keyed by
// it, see entropy.go): gnark's Contribute reads crypto/rand.Reader, which
// is replaced for the time of one contribution.
//
// gnark's decoders size buffers from counts read off the stream; every
// ceremony object is first read by a guard that compares those counts with
// what the domain size or the circuit allows, so a few hostile bytes cannot
// ask for terabytes (fuzz tests FuzzPhase1Contribute, FuzzPhase2Contribute).
package setup
