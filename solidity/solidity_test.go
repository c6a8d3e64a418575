package solidity

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend/groth16"
	gnarksolidity "github.com/consensys/gnark/backend/solidity"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"
	"golang.org/x/crypto/sha3"

	"github.com/veriformer/veriformer/statement"
)

func TestExportGolden(t *testing.T) {
	f := loadFixture(t)
	for _, v := range f.variants() {
		t.Run(v.name, func(t *testing.T) {
			var got bytes.Buffer
			if err := ExportVerifierTemplate(v.vk, &got, v.template); err != nil {
				t.Fatal(err)
			}
			if *updateGolden || *updateKeys {
				if err := os.WriteFile(v.goldenPath(), got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(v.goldenPath())
			if err != nil {
				t.Fatalf("%v (run go test -run TestExportGolden -update)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("exported verifier differs from %s (%d bytes, want %d); run go test -run TestExportGolden -update if the change is intended",
					v.goldenPath(), got.Len(), len(want))
			}
			source := got.String()
			hasCommitment := strings.Contains(source, "PEDERSEN_G_X_0")
			if hasCommitment != v.rangeCheck {
				t.Fatalf("verifier checks a commitment: %v, want %v", hasCommitment, v.rangeCheck)
			}
			if v.rangeCheck && !strings.Contains(source, "keccak256(hashInput)") {
				t.Fatal("the commitment challenge is not hashed with keccak256")
			}
			// gnark's verifier is the export unchanged; the merged one
			// calls the pairing precompile once in verifyProof, with 6
			// pairs (0x480 bytes), or 5 (0x3c0) when G = γ.
			var gnark bytes.Buffer
			key, err := bn254Key(v.vk)
			if err != nil {
				t.Fatal(err)
			}
			if err := key.ExportSolidity(&gnark, gnarksolidity.WithHashToFieldFunction(sha3.NewLegacyKeccak256())); err != nil {
				t.Fatal(err)
			}
			verifyProof := source[strings.Index(source, verifyProofStart):]
			merged := v.template == Merged && v.rangeCheck
			if !merged {
				if source != gnark.String() {
					t.Fatal("the unmerged verifier differs from gnark's export")
				}
				return
			}
			if FoldsProofOfKnowledge(key) != v.ceremony {
				t.Fatalf("FoldsProofOfKnowledge = %v for a key from the ceremony: %v", FoldsProofOfKnowledge(key), v.ceremony)
			}
			wantCall := "PRECOMPILE_VERIFY, f, 0x480, f, 0x20)"
			if v.ceremony {
				wantCall = "PRECOMPILE_VERIFY, f, 0x3c0, f, 0x20)"
			}
			if n := strings.Count(verifyProof, "PRECOMPILE_VERIFY"); n != 1 || !strings.Contains(verifyProof, wantCall) {
				t.Fatalf("merged verifyProof has %d pairing calls, want one %q", n, wantCall)
			}
			if strings.Contains(verifyProof, "CommitmentInvalid") {
				t.Fatal("merged verifyProof still has a separate commitment check")
			}
		})
	}
}

// TestMergeRefusesUnknownSource: a gnark export whose verifyProof does not
// have the pieces the merge replaces is refused, not half merged.
func TestMergeRefusesUnknownSource(t *testing.T) {
	f := loadFixture(t)
	key, err := bn254Key(f.commitment.vk)
	if err != nil {
		t.Fatal(err)
	}
	var gnark bytes.Buffer
	if err := key.ExportSolidity(&gnark, gnarksolidity.WithHashToFieldFunction(sha3.NewLegacyKeccak256())); err != nil {
		t.Fatal(err)
	}
	source := gnark.String()
	for name, edit := range map[string]func(string) string{
		"no verifyProof":        func(s string) string { return strings.Replace(s, verifyProofStart, "    function verify(\n", 1) },
		"other commitment call": func(s string) string { return strings.Replace(s, "f, 0x180, f, 0x20)", "f, 0x180, f, 0x40)", -1) },
		"other pairing call":    func(s string) string { return strings.Replace(s, "f, 0x300, f, 0x20)", "f, 0x300, f, 0x40)", -1) },
		"other MSM call":        func(s string) string { return strings.Replace(s, gnarkMSMCall, "", 1) },
	} {
		if _, err := mergeCommitmentCheck(edit(source), key, NbPublicInputs); err == nil {
			t.Errorf("%s: merged a source it does not know", name)
		}
	}
	if _, err := mergeCommitmentCheck(source, key, NbPublicInputs); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseTemplate("other"); err == nil {
		t.Fatal("ParseTemplate accepted an unknown name")
	}
	for _, tmpl := range []Template{Merged, Gnark} {
		if got, err := ParseTemplate(tmpl.String()); err != nil || got != tmpl {
			t.Fatalf("ParseTemplate(%q) = %v, %v", tmpl, got, err)
		}
	}
}

// testCircuit has a configurable number of public inputs.
type testCircuit struct {
	Public []frontend.Variable `gnark:",public"`
	Secret frontend.Variable
}

func (c *testCircuit) Define(api frontend.API) error {
	sum := frontend.Variable(0)
	for _, p := range c.Public {
		sum = api.Add(sum, p)
	}
	api.AssertIsEqual(sum, c.Secret)
	return nil
}

func TestExportRejectsOtherShapes(t *testing.T) {
	setup := func(t *testing.T, curve ecc.ID, nbPublic int) groth16.VerifyingKey {
		ccs, err := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, &testCircuit{Public: make([]frontend.Variable, nbPublic)})
		if err != nil {
			t.Fatal(err)
		}
		_, vk, err := groth16.Setup(ccs)
		if err != nil {
			t.Fatal(err)
		}
		return vk
	}
	for _, tc := range []struct {
		name     string
		curve    ecc.ID
		nbPublic int
		want     string
	}{
		{"two public inputs", ecc.BN254, 2, "2 public inputs"},
		{"three public inputs", ecc.BN254, 3, "3 public inputs"},
		{"BLS12-377 key", ecc.BLS12_377, 1, "want a BN254"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ExportVerifier(setup(t, tc.curve, tc.nbPublic), &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ExportVerifier: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestABIConstants(t *testing.T) {
	f := loadFixture(t)
	signatures := func(a abi.ABI) []string {
		var out []string
		for _, m := range a.Methods {
			var outputs []string
			for _, o := range m.Outputs {
				outputs = append(outputs, o.Type.String())
			}
			out = append(out, "function "+m.Sig+" "+m.StateMutability+" returns ("+strings.Join(outputs, ",")+")")
		}
		for _, e := range a.Events {
			out = append(out, "event "+e.String())
		}
		for _, e := range a.Errors {
			out = append(out, "error "+e.String())
		}
		out = append(out, "constructor "+a.Constructor.String())
		sort.Strings(out)
		return out
	}
	got, want := signatures(registryABI), signatures(f.plain.contracts.Registry.ABI)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("RegistryABI differs from the compiled registry:\n got %q\nwant %q", got, want)
	}
	for _, v := range f.variants() {
		compiled := v.contracts.Verifier.ABI
		if compiled.Methods["verifyProof"].Sig != verifierABI.Methods["verifyProof"].Sig {
			t.Fatalf("%s: verifyProof is %s, want %s", v.name, compiled.Methods["verifyProof"].Sig, verifierABI.Methods["verifyProof"].Sig)
		}
		for name, e := range compiled.Errors {
			if mine, ok := verifierABI.Errors[name]; !ok || mine.ID != e.ID {
				t.Fatalf("%s: verifier error %s is missing from VerifierABI", v.name, e)
			}
		}
	}
}

func TestCodeSize(t *testing.T) {
	f := loadFixture(t)
	for _, v := range f.variants() {
		if err := v.contracts.CheckCodeSize(); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: verifier runtime %d bytes, registry runtime %d bytes (limit %d)",
			v.name, len(v.contracts.Verifier.DeployedBytecode), len(v.contracts.Registry.DeployedBytecode), MaxCodeSize)
	}
	oversized := *f.plain.contracts
	big := *oversized.Verifier
	big.DeployedBytecode = make([]byte, MaxCodeSize+1)
	oversized.Verifier = &big
	if err := oversized.CheckCodeSize(); err == nil {
		t.Fatal("CheckCodeSize accepted 24,577 bytes of code")
	}
}

// osakaRules runs the simulated chain with the rules of Osaka, the fork
// Ethereum mainnet runs, instead of every fork go-ethereum knows: the later
// ones reprice storage creation (EIP-8037), and the gas figures the tests
// report and bound are meant for mainnet.
func osakaRules(_ *node.Config, eth *ethconfig.Config) {
	config := *eth.Genesis.Config
	config.AmsterdamTime, config.BogotaTime = nil, nil
	eth.Genesis.Config = &config
}

// simChain is a simulated chain with two funded accounts: the chain's
// and second's.
type simChain struct {
	*Chain
	sim    *simulated.Backend
	auth   *bind.TransactOpts
	second *Chain
}

// deployedChain returns a new simulated chain with the verifier and the
// registry of contracts deployed on it, open to every model.
func deployedChain(t testing.TB, ctx context.Context, contracts *Contracts) (*simChain, *Deployment) {
	t.Helper()
	chain := newSimChain(t)
	deployment, err := chain.DeployVerifierAndRegistry(ctx, contracts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return chain, deployment
}

func newSimChain(t testing.TB) *simChain {
	t.Helper()
	var auths [2]*bind.TransactOpts
	alloc := types.GenesisAlloc{}
	for i := range auths {
		key, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		auths[i] = bind.NewKeyedTransactor(key, params.AllDevChainProtocolChanges.ChainID)
		alloc[auths[i].From] = types.Account{Balance: new(big.Int).Lsh(big.NewInt(1), 100)}
	}
	sim := simulated.NewBackend(alloc, osakaRules)
	t.Cleanup(func() { _ = sim.Close() })
	return &simChain{Chain: NewSimulatedChain(sim, auths[0]), sim: sim, auth: auths[0], second: NewSimulatedChain(sim, auths[1])}
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// isVerified asks the registry whether the list's i-th leaf was proven.
func isVerified(t testing.TB, chain *simChain, registry common.Address, l List, i int) bool {
	t.Helper()
	verified, err := IsVerified(testContext(t), chain.Backend(), registry, l, i)
	if err != nil {
		t.Fatal(err)
	}
	return verified
}

// wantRevert checks that err is a revert whose reason is one of reasons.
func wantRevert(t *testing.T, err error, reasons ...string) {
	t.Helper()
	var revert *RevertError
	if !errors.As(err, &revert) {
		t.Fatalf("error %v, want a revert with one of %q", err, reasons)
	}
	for _, reason := range reasons {
		if revert.Reason == reason {
			return
		}
	}
	t.Fatalf("reverted with %s, want one of %q", revert.Reason, reasons)
}

// Gas ceilings of a verifyProof transaction (gas used, 21,000 base and
// calldata included) asserted by the tests. The pairing precompile costs 45,000 +
// 34,000 per pair, ecMul 6,000 (EIP-1108): a proof without commitment is
// four pairs and one ecMul; the merged verifier six pairs (five when the
// commitment key's G2 point is γ) and four ecMuls; gnark's verifier four
// pairs, two more in a second call, and two ecMuls.
const (
	maxVerifyGasPlain    = 215_000
	maxVerifyGasMerged   = 310_000
	maxVerifyGasCeremony = 276_000
	maxVerifyGasGnark    = 340_000
)

func (v *variant) maxVerifyGas() uint64 {
	switch {
	case !v.rangeCheck:
		return maxVerifyGasPlain
	case v.template == Gnark:
		return maxVerifyGasGnark
	case v.ceremony:
		return maxVerifyGasCeremony
	default:
		return maxVerifyGasMerged
	}
}

func TestSimulatedChain(t *testing.T) {
	f := loadFixture(t)
	for _, v := range f.variants() {
		t.Run(v.name, func(t *testing.T) {
			ctx := testContext(t)
			chain, deployment := deployedChain(t, ctx, v.contracts)
			t.Logf("%s: deployment gas: verifier %d, registry %d", v.name, deployment.VerifierGas, deployment.RegistryGas)
			if isVerified(t, chain, deployment.Registry, v.list, 0) {
				t.Fatal("list recorded before any submission")
			}

			// Rejections first, so that a wrongly accepted tampered proof of
			// the honest list would show as a record.
			proofBytes, err := ProofBytes(v.proof)
			if err != nil {
				t.Fatal(err)
			}
			wantLen := 256
			if v.rangeCheck {
				wantLen = 384
			}
			if len(proofBytes) != wantLen {
				t.Fatalf("proof is %d bytes, want %d", len(proofBytes), wantLen)
			}
			rejectTampered(t, chain, deployment, proofBytes, v)
			if isVerified(t, chain, deployment.Registry, v.list, 0) {
				t.Fatal("list recorded by a rejected submission")
			}

			verifyLimit, err := EstimateVerifyGas(ctx, chain.Backend(), deployment.Verifier, v.proof, v.list)
			if err != nil {
				t.Fatal(err)
			}
			verifyGas, err := chain.VerifyProofGasUsed(ctx, deployment.Verifier, v.proof, v.list)
			if err != nil {
				t.Fatal(err)
			}
			if isVerified(t, chain, deployment.Registry, v.list, 0) {
				t.Fatal("list recorded by a call to the verifier alone")
			}
			receipt, err := chain.Submit(ctx, deployment.Registry, v.proof, v.list)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: gas: verifyProof transaction %d used (limit %d), submit transaction %d", v.name, verifyGas, verifyLimit, receipt.GasUsed)
			if verifyGas > v.maxVerifyGas() {
				t.Fatalf("verifyProof costs %d gas, over %d", verifyGas, v.maxVerifyGas())
			}
			// The limit covers the 1/64 of the pairing call's price that a
			// call keeps back (EIP-150) and go-ethereum's estimation
			// tolerance (1.5%).
			if verifyLimit < verifyGas || verifyLimit > verifyGas+verifyGas/64+verifyGas*3/200 {
				t.Fatalf("verifyProof needs a gas limit of %d to use %d", verifyLimit, verifyGas)
			}
			if !isVerified(t, chain, deployment.Registry, v.list, 0) {
				t.Fatal("honest list not recorded")
			}
			events, err := Events(receipt, deployment.Registry)
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != 1 || events[0].Submitter != chain.From() || !sameRequest(events[0], v.list, 0) {
				t.Fatalf("events %+v, want one InferenceVerified of %v by %s", events, v.list.Leaves[0], chain.From())
			}
			checkIndexedEvent(t, receipt, deployment.Registry, v.list)
			checkDigests(t, chain, deployment.Registry, v.list)
			checkSecondSubmission(t, chain, deployment.Registry, proofBytes, v.list, receipt.GasUsed)
		})
	}
}

// checkIndexedEvent checks that the model id and the request's two digests
// are the first event's topics, so that a node filters records by model,
// input or output.
func checkIndexedEvent(t *testing.T, receipt *types.Receipt, registry common.Address, l List) {
	t.Helper()
	for _, log := range receipt.Logs {
		if log.Address != registry {
			continue
		}
		if len(log.Topics) != 4 {
			t.Fatalf("InferenceVerified has %d topics, want 4", len(log.Topics))
		}
		for i, word := range []*big.Int{l.ModelID, l.Leaves[0].Input, l.Leaves[0].Output} {
			if log.Topics[1+i] != common.BigToHash(word) {
				t.Fatalf("topic %d is %s, want %#x", 1+i, log.Topics[1+i], word)
			}
		}
		return
	}
	t.Fatal("no log of the registry")
}

// checkSecondSubmission: a list already recorded is not checked again;
// the call succeeds without an event, whatever proof it carries.
func checkSecondSubmission(t *testing.T, chain *simChain, registry common.Address, proof []byte, l List, firstGas uint64) {
	t.Helper()
	ctx := testContext(t)
	garbage := bytes.Repeat([]byte{0xff}, len(proof))
	for name, p := range map[string][]byte{"the same proof": proof, "a garbage proof": garbage} {
		data, err := PackSubmitBytes(p, l)
		if err != nil {
			t.Fatal(err)
		}
		receipt, err := chain.SubmitCalldata(ctx, registry, data)
		if err != nil {
			t.Fatalf("second submission with %s: %v", name, err)
		}
		if len(receipt.Logs) != 0 {
			t.Fatalf("second submission with %s emitted %d events", name, len(receipt.Logs))
		}
		if receipt.GasUsed >= firstGas/4 {
			t.Fatalf("second submission with %s used %d gas, the first %d", name, receipt.GasUsed, firstGas)
		}
		t.Logf("second submission with %s: %d gas", name, receipt.GasUsed)
	}
	if !isVerified(t, chain, registry, l, 0) {
		t.Fatal("list no longer recorded")
	}
}

// sameRequest reports whether the event is the request leaf i of the list.
func sameRequest(e InferenceVerified, l List, i int) bool {
	leaf := l.Leaves[i]
	return e.ModelID.Cmp(l.ModelID) == 0 && e.Leaf.Kind == statement.KindRequest &&
		e.Leaf.Input.Cmp(leaf.Input) == 0 && e.Leaf.Output.Cmp(leaf.Output) == 0
}

// checkDigests checks the registry's pure helpers against the native
// digests and root of the list.
func checkDigests(t *testing.T, chain *simChain, registry common.Address, l List) {
	t.Helper()
	words, err := l.Words()
	if err != nil {
		t.Fatal(err)
	}
	list, err := l.ListDigest()
	if err != nil {
		t.Fatal(err)
	}
	digest, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	root, err := ListRoot(l)
	if err != nil {
		t.Fatal(err)
	}
	if got := callBig(t, chain, registry, "listDigest", words); got.Cmp(list) != 0 {
		t.Fatalf("listDigest on chain %#x, native %#x", got, list)
	}
	if got := callBig(t, chain, registry, "statementDigest", l.ModelID, words); got.Cmp(digest) != 0 {
		t.Fatalf("statementDigest on chain %#x, native %#x", got, digest)
	}
	if got := callBig(t, chain, registry, "listRoot", l.ModelID, words); common.BigToHash(got) != root {
		t.Fatalf("listRoot on chain %#x, ListRoot %s", got, root)
	}
}

// rejectTampered submits variants of an honest submission that must all be
// rejected, through the registry and to the verifier directly, and checks
// that none of their statements is recorded.
func rejectTampered(t *testing.T, chain *simChain, deployment *Deployment, proof []byte, v *variant) {
	ctx := testContext(t)
	l := v.list
	registry := deployment.Registry
	// gnark's verifier reports a bad commitment or proof of knowledge as
	// CommitmentInvalid (or, for a point off the curve in its public-input
	// MSM, PublicInputNotInField); the merged one as ProofInvalid.
	proofReasons := []string{"ProofInvalid()"}
	if v.rangeCheck && v.template == Gnark {
		proofReasons = append(proofReasons, "CommitmentInvalid()", "PublicInputNotInField()")
	}
	submit := func(p []byte, l List) error {
		data, err := PackSubmitBytes(p, l)
		if err != nil {
			t.Fatal(err)
		}
		_, err = chain.SubmitCalldata(ctx, registry, data)
		return err
	}
	digest, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	verify := func(p []byte, input *big.Int) error {
		data, err := packVerifyProofBytes(p, [NbPublicInputs]*big.Int{input})
		if err != nil {
			t.Fatal(err)
		}
		_, err = chain.Backend().EstimateGas(ctx, callMsg(deployment.Verifier, data))
		return describeRevert(err)
	}
	if err := verify(proof, digest); err != nil {
		t.Fatalf("honest proof rejected by the verifier: %v", err)
	}

	// Every 32-byte word of the proof.
	for word := 0; word < len(proof)/32; word++ {
		tampered := bytes.Clone(proof)
		tampered[32*word+31] ^= 1
		wantRevert(t, submit(tampered, l), proofReasons...)
		wantRevert(t, verify(tampered, digest), proofReasons...)
	}
	// The commitment and its proof of knowledge swapped or zeroed.
	if v.rangeCheck {
		commitment, pok := proof[0x100:0x140], proof[0x140:0x180]
		zero := make([]byte, 64)
		for name, pair := range map[string][2][]byte{
			"swapped":                   {pok, commitment},
			"commitment zeroed":         {zero, pok},
			"proof of knowledge zeroed": {commitment, zero},
			"both zeroed":               {zero, zero},
			"commitment doubled":        {commitment, commitment},
		} {
			tampered := bytes.Clone(proof)
			copy(tampered[0x100:], pair[0])
			copy(tampered[0x140:], pair[1])
			if err := submit(tampered, l); err == nil {
				t.Fatalf("%s: registry accepted the proof", name)
			}
			wantRevert(t, verify(tampered, digest), proofReasons...)
		}
	}
	// Every value of the list, and the digest itself at the verifier.
	add := func(v *big.Int, d int64) *big.Int { return new(big.Int).Add(v, big.NewInt(d)) }
	leaf := l.Leaves[0]
	for name, wrong := range map[string]List{
		"model id":             {ModelID: add(l.ModelID, 1), Leaves: l.Leaves},
		"input digest":         {ModelID: l.ModelID, Leaves: []Leaf{statement.RequestLeaf(add(leaf.Input, 1), leaf.Output)}},
		"output digest":        {ModelID: l.ModelID, Leaves: []Leaf{statement.RequestLeaf(leaf.Input, add(leaf.Output, 1))}},
		"output digest zero":   {ModelID: l.ModelID, Leaves: []Leaf{statement.RequestLeaf(leaf.Input, new(big.Int))}},
		"input digest plus r":  {ModelID: l.ModelID, Leaves: []Leaf{statement.RequestLeaf(new(big.Int).Add(leaf.Input, frModulus()), leaf.Output)}},
		"the request as turn":  {ModelID: l.ModelID, Leaves: []Leaf{statement.TurnLeaf(statement.EmptyState, leaf.Input, leaf.Output, big.NewInt(1))}},
		"the request repeated": {ModelID: l.ModelID, Leaves: []Leaf{leaf, leaf}},
	} {
		wantRevert(t, submit(proof, wrong), "ProofInvalid()")
		if isVerified(t, chain, registry, wrong, 0) {
			t.Fatalf("wrong %s recorded", name)
		}
	}
	wantRevert(t, verify(proof, new(big.Int).Add(digest, big.NewInt(1))), "ProofInvalid()")
	wantRevert(t, verify(proof, new(big.Int)), "ProofInvalid()")
	// The digest not reduced modulo r: the same value plus r.
	wantRevert(t, verify(proof, new(big.Int).Add(digest, frModulus())), "PublicInputNotInField()")

	// A truncated proof.
	words, err := l.Words()
	if err != nil {
		t.Fatal(err)
	}
	truncated, err := registryABI.Pack("submit", proof[:len(proof)-32], l.ModelID, words)
	if err != nil {
		t.Fatal(err)
	}
	_, err = chain.SubmitCalldata(ctx, registry, truncated)
	wantRevert(t, err, `Error("invalid proof length")`)
	if _, err := PackSubmitBytes(proof[:len(proof)-32], l); err == nil {
		t.Fatal("a truncated proof packed")
	}

	// A transaction sent without gas estimation is mined and reverts.
	tampered := bytes.Clone(proof)
	tampered[31] ^= 1
	data, err := PackSubmitBytes(tampered, l)
	if err != nil {
		t.Fatal(err)
	}
	fixedGas := &Chain{backend: chain.backend, auth: withGasLimit(chain.auth, 1_000_000), mine: chain.mine, poll: chain.poll}
	receipt, err := fixedGas.SubmitCalldata(ctx, registry, data)
	if !errors.Is(err, ErrReverted) || receipt != nil {
		t.Fatalf("mined tampered submission: receipt %v, error %v, want ErrReverted", receipt, err)
	}
}

func withGasLimit(auth *bind.TransactOpts, gas uint64) *bind.TransactOpts {
	copied := *auth
	copied.GasLimit = gas
	return &copied
}

func TestRegistryModelRestriction(t *testing.T) {
	f := loadFixture(t)
	v := f.plain
	ctx := testContext(t)
	chain := newSimChain(t)
	other := new(big.Int).Add(v.list.ModelID, big.NewInt(1))
	restricted, err := chain.DeployVerifierAndRegistry(ctx, v.contracts, other)
	if err != nil {
		t.Fatal(err)
	}
	_, err = chain.Submit(ctx, restricted.Registry, v.proof, v.list)
	wantRevert(t, err, "UnexpectedModelId("+other.String()+", "+v.list.ModelID.String()+")")
	if isVerified(t, chain, restricted.Registry, v.list, 0) {
		t.Fatal("list of another model recorded")
	}

	accepting, err := chain.DeployVerifierAndRegistry(ctx, v.contracts, v.list.ModelID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chain.Submit(ctx, accepting.Registry, v.proof, v.list); err != nil {
		t.Fatal(err)
	}
	if !isVerified(t, chain, accepting.Registry, v.list, 0) {
		t.Fatal("list of the required model not recorded")
	}
}

func TestRegistryNeedsVerifierCode(t *testing.T) {
	f := loadFixture(t)
	ctx := testContext(t)
	chain := newSimChain(t)
	args, err := registryConstructorArgs(chain.From(), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = chain.deploy(ctx, f.plain.contracts.Registry.Bytecode, args)
	wantRevert(t, err, "VerifierHasNoCode("+chain.From().Hex()+")")
}

// laggingBackend answers "no code" to the first lag code queries, as a
// node does between answering a receipt and moving its head to the
// receipt's block.
type laggingBackend struct {
	Backend
	lag, calls int
}

func (b *laggingBackend) CodeAt(ctx context.Context, account common.Address, block *big.Int) ([]byte, error) {
	b.calls++
	if b.calls <= b.lag {
		return nil, nil
	}
	return b.Backend.CodeAt(ctx, account, block)
}

// TestDeployWaitsForCode: a deployment waits until the latest block holds
// the verifier's code before deploying the registry (whose constructor
// reverts without it) and returns only once the registry's code is there
// too; a context that ends first stops the wait.
func TestDeployWaitsForCode(t *testing.T) {
	f := loadFixture(t)
	v := f.plain
	ctx := testContext(t)
	sim := newSimChain(t)
	lagging := &laggingBackend{Backend: sim.backend, lag: 3}
	chain := &Chain{backend: lagging, auth: sim.auth, mine: sim.mine, poll: time.Millisecond}
	d, err := chain.DeployVerifierAndRegistry(ctx, v.contracts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lagging.calls != lagging.lag+2 {
		t.Fatalf("%d code queries, want %d (the lag, then one per contract)", lagging.calls, lagging.lag+2)
	}
	if _, err := chain.Submit(ctx, d.Registry, v.proof, v.list); err != nil {
		t.Fatal(err)
	}

	never := &laggingBackend{Backend: sim.backend, lag: 1 << 30}
	stuck := &Chain{backend: never, auth: sim.auth, mine: sim.mine, poll: time.Millisecond}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := stuck.DeployVerifierAndRegistry(short, v.contracts, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("code never there: got %v, want the context's deadline", err)
	}
}

func TestValidateList(t *testing.T) {
	one := big.NewInt(1)
	top := new(big.Int).Sub(new(big.Int).Lsh(one, statement.KindShift), one)
	for _, tc := range []struct {
		name  string
		list  List
		valid bool
	}{
		{"small", List{ModelID: one, Leaves: []Leaf{statement.RequestLeaf(one, one)}}, true},
		{"2^254-1", List{ModelID: one, Leaves: []Leaf{statement.RequestLeaf(top, top)}}, true},
		{"a turn", List{ModelID: one, Leaves: []Leaf{statement.TurnLeaf(statement.EmptyState, one, one, one)}}, true},
		{"2^254", List{ModelID: one, Leaves: []Leaf{statement.RequestLeaf(new(big.Int).Add(top, one), one)}}, false},
		{"negative", List{ModelID: one, Leaves: []Leaf{statement.RequestLeaf(one, big.NewInt(-1))}}, false},
		{"nil", List{ModelID: one, Leaves: []Leaf{statement.RequestLeaf(nil, one)}}, false},
		{"no model id", List{Leaves: []Leaf{statement.RequestLeaf(one, one)}}, false},
		{"empty", List{ModelID: one}, false},
		{"a turn to the empty state", List{ModelID: one, Leaves: []Leaf{statement.TurnLeaf(one, one, one, statement.EmptyState)}}, false},
	} {
		err := ValidateList(tc.list)
		if (err == nil) != tc.valid {
			t.Fatalf("%s: ValidateList = %v, want valid %v", tc.name, err, tc.valid)
		}
		if _, err := ListRoot(tc.list); (err == nil) != tc.valid {
			t.Fatalf("%s: ListRoot error %v, want valid %v", tc.name, err, tc.valid)
		}
		if _, err := PackSubmitBytes(make([]byte, 256), tc.list); (err == nil) != tc.valid {
			t.Fatalf("%s: PackSubmitBytes error %v, want valid %v", tc.name, err, tc.valid)
		}
	}
}

// BenchmarkSubmitGas reports the gas used by the first submission of a
// list of one request and by a transaction calling the verifier alone, and the gas
// limit that call needs, for every test circuit and template; the time per
// operation is that of a repeated (already recorded) submission on the
// simulated chain.
func BenchmarkSubmitGas(b *testing.B) {
	f := loadFixture(b)
	for _, v := range f.variants() {
		b.Run(v.name, func(b *testing.B) {
			ctx := testContext(b)
			chain, deployment := deployedChain(b, ctx, v.contracts)
			verifyLimit, err := EstimateVerifyGas(ctx, chain.Backend(), deployment.Verifier, v.proof, v.list)
			if err != nil {
				b.Fatal(err)
			}
			verifyGas, err := chain.VerifyProofGasUsed(ctx, deployment.Verifier, v.proof, v.list)
			if err != nil {
				b.Fatal(err)
			}
			first, err := chain.Submit(ctx, deployment.Registry, v.proof, v.list)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := chain.Submit(ctx, deployment.Registry, v.proof, v.list); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(verifyGas), "gas/verify")
			b.ReportMetric(float64(verifyLimit), "gas/verify-limit")
			b.ReportMetric(float64(first.GasUsed), "gas/first-submit")
		})
	}
}

// TestCompressedProofGas measures gnark's verifyCompressedProof against
// verifyProof on the same proof (gnark's template, one commitment): the
// compressed form saves calldata (6 words instead of 12) but decompresses
// each point with square roots by modular exponentiation. It checks that
// the uncompressed layout, which the registry uses, is the cheaper one.
func TestCompressedProofGas(t *testing.T) {
	f := loadFixture(t)
	v := f.gnarkCommitment
	ctx := testContext(t)
	chain, deployment := deployedChain(t, ctx, v.contracts)
	proof, err := ProofBytes(v.proof)
	if err != nil {
		t.Fatal(err)
	}
	verifier := v.contracts.Verifier.ABI
	data, err := verifier.Pack("compressProof", proof)
	if err != nil {
		t.Fatal(err)
	}
	out, err := chain.Backend().CallContract(ctx, callMsg(deployment.Verifier, data), nil)
	if err != nil {
		t.Fatal(err)
	}
	values, err := verifier.Unpack("compressProof", out)
	if err != nil || len(values) != 3 {
		t.Fatalf("compressProof: %v (%d values)", err, len(values))
	}
	inputs, err := PublicInputs(v.list)
	if err != nil {
		t.Fatal(err)
	}
	compressed, err := verifier.Pack("verifyCompressedProof", values[0], values[1], values[2], inputs)
	if err != nil {
		t.Fatal(err)
	}
	send := func(data []byte) uint64 {
		contract := bind.NewBoundContract(deployment.Verifier, verifier, chain.backend, chain.backend, chain.backend)
		tx, err := contract.RawTransact(chain.opts(ctx), data)
		if err != nil {
			t.Fatal(describeRevert(err))
		}
		receipt, err := chain.wait(ctx, tx)
		if err != nil {
			t.Fatal(err)
		}
		return receipt.GasUsed
	}
	uncompressed, err := PackVerifyProof(v.proof, v.list)
	if err != nil {
		t.Fatal(err)
	}
	gasCompressed, gasUncompressed := send(compressed), send(uncompressed)
	t.Logf("gnark's verifier, gas used: verifyCompressedProof %d (%d bytes of calldata), verifyProof %d (%d bytes)",
		gasCompressed, len(compressed), gasUncompressed, len(uncompressed))
	if gasCompressed <= gasUncompressed {
		t.Fatalf("compressed proof verified for %d gas, uncompressed %d: the registry should take compressed proofs", gasCompressed, gasUncompressed)
	}
}

func frModulus() *big.Int { return fr.Modulus() }

func callMsg(to common.Address, data []byte) ethereum.CallMsg {
	return ethereum.CallMsg{To: &to, Data: data}
}
