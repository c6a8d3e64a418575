package solidity

import (
	"crypto/sha256"
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/ethereum/go-ethereum/common"

	"github.com/veriformer/veriformer/statement"
)

// testBatch returns a batch of n inferences of the model with digests
// drawn deterministically from seed, below r.
func testBatch(model *big.Int, n int, seed string) Batch {
	value := func(kind string, i int) *big.Int {
		sum := sha256.Sum256(fmt.Appendf(nil, "%s/%s/%d", seed, kind, i))
		return new(big.Int).Mod(new(big.Int).SetBytes(sum[:]), fr.Modulus())
	}
	b := Batch{ModelID: model, Inputs: make([]*big.Int, n), Outputs: make([]*big.Int, n)}
	for i := range n {
		b.Inputs[i], b.Outputs[i] = value("in", i), value("out", i)
	}
	return b
}

// batchProof returns a proof of the batch's digest.
func batchProof(t *testing.T, v *variant, b Batch) groth16.Proof {
	t.Helper()
	return digestProof(t, v, b.Digest)
}

// TestBatchTree checks the batch's tree natively: the paths of every
// statement of batches of 1 to 9 verify against the root and no other
// index, statement or root does, and the root changes with the order.
func TestBatchTree(t *testing.T) {
	model := big.NewInt(5)
	for n := 1; n <= 9; n++ {
		b := testBatch(model, n, "tree")
		root, err := BatchRoot(b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			r, path, err := BatchPath(b, i)
			if err != nil || r != root {
				t.Fatalf("n %d, statement %d: root %x (%v), want %x", n, i, r, err, root)
			}
			if !VerifyBatchPath(b.Statement(i), root, i, path) {
				t.Fatalf("n %d: statement %d's path does not verify", n, i)
			}
			if n > 1 && VerifyBatchPath(b.Statement(i), root, i^1, path) {
				t.Fatalf("n %d: statement %d's path verifies at index %d", n, i, i^1)
			}
			if VerifyBatchPath(b.Statement((i+1)%n), root, i, path) && n > 1 {
				t.Fatalf("n %d: statement %d verifies on statement %d's path", n, (i+1)%n, i)
			}
			if VerifyBatchPath(b.Statement(i), common.Hash{1}, i, path) {
				t.Fatalf("n %d: statement %d verifies against another root", n, i)
			}
			if len(path) > 0 && VerifyBatchPath(b.Statement(i), root, i+1<<len(path), path) {
				t.Fatalf("n %d: statement %d verifies at an index beyond the tree", n, i)
			}
		}
		if n > 1 {
			swapped := Batch{ModelID: model, Inputs: slices.Clone(b.Inputs), Outputs: slices.Clone(b.Outputs)}
			swapped.Inputs[0], swapped.Inputs[1] = swapped.Inputs[1], swapped.Inputs[0]
			swapped.Outputs[0], swapped.Outputs[1] = swapped.Outputs[1], swapped.Outputs[0]
			if r, _ := BatchRoot(swapped); r == root {
				t.Fatalf("n %d: a reordered batch has the same root", n)
			}
		}
		if _, _, err := BatchPath(b, n); err == nil {
			t.Fatalf("n %d: a path for statement %d", n, n)
		}
	}
	over := testBatch(model, 1, "over")
	over.Outputs[0] = fr.Modulus()
	if _, err := BatchRoot(over); err == nil {
		t.Fatal("a batch with a digest of r has a root")
	}
}

// TestRegistryBatches records batches of 1, 8, 32 and 128 statements with
// real Groth16 proofs of their digests (the fixture's circuit, one public
// input and one commitment, as the wrappers) and reports the gas per
// inference; checks the registry's digest and root against the native
// ones (the golden batch of package statement included), one
// InferenceVerified event per statement in order and one BatchVerified,
// and inclusion through isBatchVerified. Refused: a statement changed,
// dropped, added or reordered in the calldata, another model id, a batch
// replayed, a batch's proof as a single statement's and the other way
// round, empty and uneven batches.
func TestRegistryBatches(t *testing.T) {
	f := loadFixture(t)
	v := f.commitment
	ctx := testContext(t)
	chain := newSimChain(t)
	deployment, err := chain.DeployVerifierAndRegistry(ctx, v.contracts, nil)
	if err != nil {
		t.Fatal(err)
	}
	registry := deployment.Registry
	model := v.statement.ModelID

	// The registry computes the native digest and root.
	golden := Batch{ModelID: big.NewInt(1), Inputs: []*big.Int{big.NewInt(2), big.NewInt(4)}, Outputs: []*big.Int{big.NewInt(3), big.NewInt(5)}}
	for _, b := range []Batch{golden, testBatch(model, 7, "pure")} {
		want, err := b.Digest()
		if err != nil {
			t.Fatal(err)
		}
		got := callBig(t, chain, registry, "batchDigest", b.ModelID, b.Inputs, b.Outputs)
		if got.Cmp(want) != 0 {
			t.Fatalf("batchDigest %#x, statement.Batch.Digest %#x", got, want)
		}
		root, err := BatchRoot(b)
		if err != nil {
			t.Fatal(err)
		}
		if gotRoot := callBig(t, chain, registry, "batchRoot", b.ModelID, b.Inputs, b.Outputs); common.BigToHash(gotRoot) != root {
			t.Fatalf("batchRoot %#x, BatchRoot %x", gotRoot, root)
		}
	}
	if got := callBig(t, chain, registry, "batchDigest", golden.ModelID, golden.Inputs, golden.Outputs); got.Text(16) != "f76f24f0be463c7f132dfd794644122fbc39b5a563f35d6f691e57fd46f3051" {
		t.Fatalf("the golden batch's digest on chain is %x", got)
	}

	gas := map[int]uint64{}
	for _, n := range []int{1, 8, 32, 128} {
		b := testBatch(model, n, fmt.Sprint("batch", n))
		receipt, err := chain.SubmitBatch(ctx, registry, batchProof(t, v, b), b)
		if err != nil {
			t.Fatalf("batch of %d: %v", n, err)
		}
		gas[n] = receipt.GasUsed
		events, err := Events(receipt, registry)
		if err != nil || len(events) != n {
			t.Fatalf("batch of %d: %d InferenceVerified events (%v)", n, len(events), err)
		}
		for i, e := range events {
			if e.Statement.String() != b.Statement(i).String() || e.Submitter != chain.From() {
				t.Fatalf("batch of %d: event %d is %v, want %v", n, i, e.Statement, b.Statement(i))
			}
		}
		root, err := BatchRoot(b)
		if err != nil {
			t.Fatal(err)
		}
		batches, err := BatchEvents(receipt, registry)
		if err != nil || len(batches) != 1 || batches[0].Root != root || batches[0].ModelID.Cmp(model) != 0 || batches[0].Count != n || batches[0].Submitter != chain.From() {
			t.Fatalf("batch of %d: BatchVerified events %+v (%v)", n, batches, err)
		}
		for _, i := range []int{0, n / 2, n - 1} {
			_, path, err := BatchPath(b, i)
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := IsBatchVerified(ctx, chain.Backend(), registry, b.Statement(i), root, i, path); err != nil || !ok {
				t.Fatalf("batch of %d: statement %d not verified (%v)", n, i, err)
			}
			other := b.Statement(i)
			other.OutputDigest = new(big.Int).Add(other.OutputDigest, big.NewInt(1))
			if ok, err := IsBatchVerified(ctx, chain.Backend(), registry, other, root, i, path); err != nil || ok {
				t.Fatalf("batch of %d: a statement not in the batch verified at %d (%v)", n, i, err)
			}
			if n > 1 {
				if ok, err := IsBatchVerified(ctx, chain.Backend(), registry, b.Statement(i), root, i^1, path); err != nil || ok {
					t.Fatalf("batch of %d: statement %d verified at index %d (%v)", n, i, i^1, err)
				}
			}
		}
		if ok, err := IsBatchRecorded(ctx, chain.Backend(), registry, root); err != nil || !ok {
			t.Fatalf("batch of %d: root not recorded (%v)", n, err)
		}
		// Replayed: refused, nothing emitted.
		_, err = chain.SubmitBatch(ctx, registry, batchProof(t, v, b), b)
		wantRevert(t, err, "BatchRecorded("+fmt.Sprint(root)+")")
	}
	for _, n := range []int{1, 8, 32, 128} {
		t.Logf("submitBatch of %d: %d gas, %d per inference", n, gas[n], gas[n]/uint64(n))
	}
	if per := gas[32] / 32; per > maxBatchGasPerInference {
		t.Errorf("a batch of 32 costs %d gas per inference, over %d", per, maxBatchGasPerInference)
	}

	// Tampered calldata: each proof is of the honest batch.
	b := testBatch(model, 8, "tamper")
	proof := batchProof(t, v, b)
	clone := func() Batch {
		return Batch{ModelID: b.ModelID, Inputs: slices.Clone(b.Inputs), Outputs: slices.Clone(b.Outputs)}
	}
	invalid := []string{"ProofInvalid()", "PairingFailed()", "CommitmentInvalid()"}
	changed := clone()
	changed.Inputs[3] = new(big.Int).Add(changed.Inputs[3], big.NewInt(1))
	dropped := clone()
	dropped.Inputs, dropped.Outputs = dropped.Inputs[:7], dropped.Outputs[:7]
	added := clone()
	added.Inputs, added.Outputs = append(added.Inputs, big.NewInt(1)), append(added.Outputs, big.NewInt(2))
	reordered := clone()
	reordered.Inputs[2], reordered.Inputs[5] = reordered.Inputs[5], reordered.Inputs[2]
	reordered.Outputs[2], reordered.Outputs[5] = reordered.Outputs[5], reordered.Outputs[2]
	paired := clone()
	paired.Outputs[0], paired.Outputs[1] = paired.Outputs[1], paired.Outputs[0]
	otherModel := clone()
	otherModel.ModelID = new(big.Int).Add(model, big.NewInt(1))
	for name, bad := range map[string]Batch{
		"a statement changed":               changed,
		"a statement dropped":               dropped,
		"a statement added":                 added,
		"two statements reordered":          reordered,
		"two outputs exchanged":             paired,
		"another model id":                  otherModel,
		"the batch's proof for its first 1": {ModelID: model, Inputs: b.Inputs[:1], Outputs: b.Outputs[:1]},
	} {
		_, err := chain.SubmitBatch(ctx, registry, proof, bad)
		if err == nil {
			t.Fatalf("%s: recorded", name)
		}
		wantRevert(t, err, invalid...)
	}
	// A batch's proof is not a statement's, nor a statement's a batch's.
	_, err = chain.Submit(ctx, registry, proof, b.Statement(0))
	wantRevert(t, err, invalid...)
	one := Batch{ModelID: model, Inputs: b.Inputs[:1], Outputs: b.Outputs[:1]}
	single, _, err := v.proveDigest(mustDigest(t, one.Statement(0)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = chain.SubmitBatch(ctx, registry, single, one)
	wantRevert(t, err, invalid...)
	// Empty and uneven batches, which PackSubmitBatch refuses to pack.
	encoded, err := ProofBytes(proof)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string][2][]*big.Int{
		"empty":  {{}, {}},
		"uneven": {b.Inputs, b.Outputs[:7]},
	} {
		if _, err := PackSubmitBatchBytes(encoded, Batch{ModelID: model, Inputs: c[0], Outputs: c[1]}); err == nil {
			t.Fatalf("%s batch packed", name)
		}
		raw, err := registryABI.Pack("submitBatch", encoded, model, c[0], c[1])
		if err != nil {
			t.Fatal(err)
		}
		_, err = chain.SubmitCalldata(ctx, registry, raw)
		wantRevert(t, err, fmt.Sprintf("BatchSize(%d, %d)", len(c[0]), len(c[1])))
	}
	// The honest batch is recorded after all of this.
	if _, err := chain.SubmitBatch(ctx, registry, proof, b); err != nil {
		t.Fatalf("the honest batch after the refusals: %v", err)
	}
}

// maxBatchGasPerInference is the ceiling of submitBatch's gas per
// inference in a batch of 32 (the whole transaction divided by 32).
const maxBatchGasPerInference = 20_000

// mustDigest returns the statement's digest.
func mustDigest(t *testing.T, s Statement) *big.Int {
	t.Helper()
	d, err := statement.Digest(s.ModelID, s.InputDigest, s.OutputDigest)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// callBig calls a pure or view method of the registry that returns one
// word.
func callBig(t *testing.T, chain *simChain, registry common.Address, method string, args ...any) *big.Int {
	t.Helper()
	data, err := registryABI.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := chain.Backend().CallContract(testContext(t), callMsg(registry, data), nil)
	if err != nil {
		t.Fatalf("%s: %v", method, describeRevert(err))
	}
	if len(out) != 32 {
		t.Fatalf("%s returned %d bytes", method, len(out))
	}
	return new(big.Int).SetBytes(out)
}

// TestCatalog publishes a model id, refuses it again from the same
// publisher and accepts it from another, each with its event, and
// refuses id 0.
func TestCatalog(t *testing.T) {
	f := loadFixture(t)
	ctx := testContext(t)
	chain := newSimChain(t)
	deployment, err := chain.DeployVerifierAndRegistry(ctx, f.commitment.contracts, nil)
	if err != nil {
		t.Fatal(err)
	}
	registry := deployment.Registry
	id := f.commitment.statement.ModelID
	for _, c := range []*Chain{chain.Chain, chain.second} {
		if ok, err := IsPublished(ctx, chain.Backend(), registry, c.From(), id); err != nil || ok {
			t.Fatalf("published before publishing (%v)", err)
		}
		receipt, err := c.PublishModel(ctx, registry, id, "micro", "ipfs://model-card")
		if err != nil {
			t.Fatal(err)
		}
		events, err := PublicationEvents(receipt, registry)
		want := Publication{Publisher: c.From(), ModelID: id, Name: "micro", MetadataURI: "ipfs://model-card"}
		if err != nil || len(events) != 1 || events[0].Publisher != want.Publisher || events[0].ModelID.Cmp(id) != 0 || events[0].Name != want.Name || events[0].MetadataURI != want.MetadataURI {
			t.Fatalf("ModelPublished events %+v (%v), want %+v", events, err, want)
		}
		if ok, err := IsPublished(ctx, chain.Backend(), registry, c.From(), id); err != nil || !ok {
			t.Fatalf("not published after publishing (%v)", err)
		}
		t.Logf("publishModel: %d gas", receipt.GasUsed)
	}
	_, err = chain.PublishModel(ctx, registry, id, "micro again", "")
	wantRevert(t, err, fmt.Sprintf("ModelPublishedAlready(%s, %s)", chain.From(), id))
	raw, err := registryABI.Pack("publishModel", new(big.Int), "zero", "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = chain.SubmitCalldata(ctx, registry, raw)
	wantRevert(t, err, "ZeroModelId()")
	for name, c := range map[string]struct {
		id        *big.Int
		name, uri string
	}{
		"id 0":           {new(big.Int), "zero", ""},
		"id r":           {fr.Modulus(), "r", ""},
		"no name":        {id, "", ""},
		"a long URI":     {id, "micro", string(make([]byte, MaxCatalogText+1))},
		"not UTF-8 name": {id, "\xff", ""},
		"an unset id":    {nil, "nil", ""},
	} {
		if _, err := PackPublishModel(c.id, c.name, c.uri); err == nil {
			t.Errorf("%s: packed", name)
		}
	}
}
