package solidity

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/veriformer/veriformer/internal/listvectors"
	"github.com/veriformer/veriformer/statement"
)

// value returns a deterministic value below 2^bits drawn from the seed and
// the labels.
func value(bits int, seed string, labels ...any) *big.Int {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%v", seed, labels))
	v := new(big.Int).SetBytes(sum[:])
	return v.Rsh(v, uint(256-bits))
}

// requestList returns a list of n requests of the model, digests drawn
// from the seed.
func requestList(model *big.Int, n int, seed string) List {
	l := List{ModelID: model}
	for i := range n {
		l.Leaves = append(l.Leaves, statement.RequestLeaf(value(253, seed, "in", i), value(253, seed, "out", i)))
	}
	return l
}

// conversationList returns a list of n leaves of the model whose leaves
// 1, 5, 9, … are the first turns of one conversation, chained inside the
// list: the state in of each is the state out of the one before, the
// first's is stateIn. The rest are requests. It returns the states out in
// order.
func conversationList(model *big.Int, n, turns int, stateIn *big.Int, seed string) (List, []*big.Int) {
	l := requestList(model, n, seed)
	var states []*big.Int
	for k := range turns {
		stateOut := value(250, seed, "state", k)
		l.Leaves[1+4*k] = statement.TurnLeaf(stateIn, value(253, seed, "turn in", k), value(253, seed, "turn out", k), stateOut)
		states = append(states, stateOut)
		stateIn = stateOut
	}
	return l, states
}

// listProof returns a proof of the list's digest with the variant's
// circuit.
func listProof(t testing.TB, v *variant, l List) groth16.Proof {
	t.Helper()
	d, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	proof, _, err := v.proveDigest(d)
	if err != nil {
		t.Fatal(err)
	}
	return proof
}

// submitList submits the list with a proof of its digest and checks the
// record: the leaves' events in order, the ListVerified event, the root
// recorded, every leaf verified with its path. It returns the receipt.
func submitList(t *testing.T, chain *simChain, registry common.Address, v *variant, l List) *types.Receipt {
	t.Helper()
	ctx := testContext(t)
	receipt, err := chain.Submit(ctx, registry, listProof(t, v, l), l)
	if err != nil {
		t.Fatalf("list of %d: %v", len(l.Leaves), err)
	}
	requests, err := Events(receipt, registry)
	if err != nil {
		t.Fatal(err)
	}
	turns, err := TurnEvents(receipt, registry)
	if err != nil {
		t.Fatal(err)
	}
	var wantRequests, wantTurns []Leaf
	for _, leaf := range l.Leaves {
		if leaf.Kind == statement.KindTurn {
			wantTurns = append(wantTurns, leaf)
		} else {
			wantRequests = append(wantRequests, leaf)
		}
	}
	if len(requests) != len(wantRequests) || len(turns) != len(wantTurns) {
		t.Fatalf("%d InferenceVerified and %d TurnVerified events, want %d and %d", len(requests), len(turns), len(wantRequests), len(wantTurns))
	}
	for i, e := range requests {
		if e.ModelID.Cmp(l.ModelID) != 0 || e.Leaf.String() != wantRequests[i].String() || e.Submitter != chain.From() {
			t.Fatalf("InferenceVerified %d is %+v, want %v", i, e, wantRequests[i])
		}
	}
	for i, e := range turns {
		if e.ModelID.Cmp(l.ModelID) != 0 || e.Leaf.String() != wantTurns[i].String() || e.Submitter != chain.From() {
			t.Fatalf("TurnVerified %d is %+v, want %v", i, e, wantTurns[i])
		}
		if ok, err := IsState(ctx, chain.Backend(), registry, l.ModelID, e.Leaf.StateOut); err != nil || !ok {
			t.Fatalf("turn %d's state out is not a state (%v)", i, err)
		}
	}
	root, err := ListRoot(l)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := ListEvents(receipt, registry)
	if err != nil || len(lists) != 1 || lists[0].Root != root || lists[0].ModelID.Cmp(l.ModelID) != 0 || lists[0].Count != len(l.Leaves) || lists[0].Submitter != chain.From() {
		t.Fatalf("ListVerified events %+v (%v), want one of root %s", lists, err, root)
	}
	if last := receipt.Logs[len(receipt.Logs)-1]; last.Topics[0] != registryABI.Events["ListVerified"].ID {
		t.Fatal("ListVerified is not the last event")
	}
	if ok, err := IsRecorded(ctx, chain.Backend(), registry, root); err != nil || !ok {
		t.Fatalf("root not recorded (%v)", err)
	}
	for i := range l.Leaves {
		if !isVerified(t, chain, registry, l, i) {
			t.Fatalf("leaf %d of %d not verified", i, len(l.Leaves))
		}
	}
	return receipt
}

// TestListTree checks the list's tree natively: the path of every leaf of
// lists of 1 to 9 leaves verifies against the root and no other index,
// leaf, model or root does, and the root changes with the order.
func TestListTree(t *testing.T) {
	model := big.NewInt(5)
	for n := 1; n <= 9; n++ {
		l, _ := conversationList(model, n, (n+2)/4, statement.EmptyState, fmt.Sprint("tree", n))
		root, err := ListRoot(l)
		if err != nil {
			t.Fatal(err)
		}
		depth := 0
		for 1<<depth < n {
			depth++
		}
		for i, leaf := range l.Leaves {
			hash, path, err := LeafPath(l, i)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := LeafHash(model, leaf); hash != want || len(path) != depth {
				t.Fatalf("n %d, leaf %d: hash %s and %d siblings, want %s and %d", n, i, hash, len(path), want, depth)
			}
			if !VerifyLeafPath(model, leaf, root, i, path) {
				t.Fatalf("n %d: leaf %d's path does not verify", n, i)
			}
			if n > 1 && VerifyLeafPath(model, leaf, root, i^1, path) {
				t.Fatalf("n %d: leaf %d's path verifies at index %d", n, i, i^1)
			}
			if n > 1 && VerifyLeafPath(model, l.Leaves[(i+1)%n], root, i, path) {
				t.Fatalf("n %d: leaf %d verifies on leaf %d's path", n, (i+1)%n, i)
			}
			if VerifyLeafPath(big.NewInt(6), leaf, root, i, path) {
				t.Fatalf("n %d: leaf %d verifies under another model", n, i)
			}
			if VerifyLeafPath(model, leaf, common.Hash{1}, i, path) {
				t.Fatalf("n %d: leaf %d verifies against another root", n, i)
			}
			if VerifyLeafPath(model, leaf, root, i+1<<len(path), path) {
				t.Fatalf("n %d: leaf %d verifies at an index beyond the tree", n, i)
			}
		}
		if n > 1 {
			swapped := List{ModelID: model, Leaves: slices.Clone(l.Leaves)}
			swapped.Leaves[0], swapped.Leaves[1] = swapped.Leaves[1], swapped.Leaves[0]
			if r, _ := ListRoot(swapped); r == root {
				t.Fatalf("n %d: a reordered list has the same root", n)
			}
		}
		if _, _, err := LeafPath(l, n); err == nil {
			t.Fatalf("n %d: a path for leaf %d", n, n)
		}
	}
	one := requestList(model, 1, "one")
	leaf, _ := LeafHash(model, one.Leaves[0])
	if root, _ := ListRoot(one); root != leaf {
		t.Fatal("the root of a list of one is not its leaf hash")
	}
	if 1<<MaxDepth != statement.MaxLeaves {
		t.Fatalf("MaxDepth %d for %d leaves", MaxDepth, statement.MaxLeaves)
	}
}

// TestListVectors checks the registry's digests and roots on the golden
// lists that the native and circuit code share: the words, the list and
// statement digests of each vector, and the root and leaf hashes against
// the native ones; the same for the worked example of docs/onchain.md; and
// MAX_LEAVES against statement.MaxLeaves.
func TestListVectors(t *testing.T) {
	f := loadFixture(t)
	ctx := testContext(t)
	chain, deployment := deployedChain(t, ctx, f.plain.contracts)
	registry := deployment.Registry
	vectors, err := listvectors.Read()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vectors {
		l := v.List
		words, err := l.Words()
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if len(words) != len(v.Words) {
			t.Fatalf("%s: %d words, want %d", v.Name, len(words), len(v.Words))
		}
		for i := range words {
			if words[i].Cmp(v.Words[i]) != 0 {
				t.Fatalf("%s: word %d", v.Name, i)
			}
		}
		if got := callBig(t, chain, registry, "listDigest", words); got.Cmp(v.ListDigest) != 0 {
			t.Fatalf("%s: listDigest on chain %#x, want %s", v.Name, got, v.ListDigest)
		}
		if got := callBig(t, chain, registry, "statementDigest", l.ModelID, words); got.Cmp(v.Digest) != 0 {
			t.Fatalf("%s: statementDigest on chain %#x, want %s", v.Name, got, v.Digest)
		}
		inputs, err := PublicInputs(l)
		if err != nil || inputs[0].Cmp(v.Digest) != 0 {
			t.Fatalf("%s: PublicInputs %v (%v), want %s", v.Name, inputs[0], err, v.Digest)
		}
		root, err := ListRoot(l)
		if err != nil {
			t.Fatal(err)
		}
		if got := callBig(t, chain, registry, "listRoot", l.ModelID, words); common.BigToHash(got) != root {
			t.Fatalf("%s: listRoot on chain %#x, ListRoot %s", v.Name, got, root)
		}
		for i, leaf := range l.Leaves {
			leafWords, _ := leaf.Words()
			hash, err := LeafHash(l.ModelID, leaf)
			if err != nil {
				t.Fatal(err)
			}
			if got := callBig(t, chain, registry, "listRoot", l.ModelID, leafWords); common.BigToHash(got) != hash {
				t.Fatalf("%s: leaf %d: the root of its list of one %#x, LeafHash %s", v.Name, i, got, hash)
			}
		}
	}
	checkDigests(t, chain, registry, onchainExample())
	if got := callBig(t, chain, registry, "MAX_LEAVES"); got.Cmp(big.NewInt(statement.MaxLeaves)) != 0 {
		t.Fatalf("MAX_LEAVES is %v, statement.MaxLeaves %d", got, statement.MaxLeaves)
	}
}

// TestRegistryLists records lists through the one entry point with real
// Groth16 proofs of their digests (the fixture's circuit with one
// commitment): a list of one request, of 32 requests, of 32 leaves with
// 8 turns chained inside it; turns continuing a state recorded by an
// earlier list, two continuations of one state; a replay that returns
// quietly. Refused: a turn from an unknown state, a state left only later
// in the list, a tampered proof, leaf word or model id. isVerified is true
// for every recorded leaf with its path and false for a wrong path, index
// or leaf.
func TestRegistryLists(t *testing.T) {
	f := loadFixture(t)
	v := f.commitment
	ctx := testContext(t)
	chain, deployment := deployedChain(t, ctx, v.contracts)
	registry := deployment.Registry
	model := v.list.ModelID
	invalid := []string{"ProofInvalid()"}

	// A list of one request: its leaf with index 0 and an empty path.
	one := requestList(model, 1, "one")
	submitList(t, chain, registry, v, one)
	if _, path, _ := LeafPath(one, 0); len(path) != 0 {
		t.Fatalf("a list of one has a path of %d", len(path))
	}
	isLeaf := func(l List, leaf Leaf, index int, path []common.Hash) bool {
		t.Helper()
		ok, err := IsLeafVerified(ctx, chain.Backend(), registry, l.ModelID, leaf, index, path)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if isLeaf(one, one.Leaves[0], 1, nil) || isLeaf(one, one.Leaves[0], 0, []common.Hash{{}}) {
		t.Fatal("the leaf of a list of one verified at index 1 or with a sibling")
	}

	// A list of 32 requests: every leaf verified; a wrong path, index or
	// leaf not.
	requests := requestList(model, 32, "requests")
	submitList(t, chain, registry, v, requests)
	for _, i := range []int{0, 1, 17, 31} {
		_, path, err := LeafPath(requests, i)
		if err != nil {
			t.Fatal(err)
		}
		leaf := requests.Leaves[i]
		wrongPath := slices.Clone(path)
		wrongPath[2][0] ^= 1
		changed := statement.RequestLeaf(leaf.Input, new(big.Int).Add(leaf.Output, big.NewInt(1)))
		asTurn := statement.TurnLeaf(leaf.Input, leaf.Output, big.NewInt(1), big.NewInt(1))
		for name, wrong := range map[string]bool{
			"a wrong path":            isLeaf(requests, leaf, i, wrongPath),
			"a wrong index":           isLeaf(requests, leaf, i^1, path),
			"an index beyond":         isLeaf(requests, leaf, i+32, path),
			"a path too long":         isLeaf(requests, leaf, i, append(slices.Clone(path), common.Hash{})),
			"a path too short":        isLeaf(requests, leaf, i%16, path[:4]),
			"another leaf":            isLeaf(requests, changed, i, path),
			"another kind":            isLeaf(requests, asTurn, i, path),
			"another model":           isLeaf(List{ModelID: new(big.Int).Add(model, big.NewInt(1))}, leaf, i, path),
			"another list's leaf":     isLeaf(requests, one.Leaves[0], i, path),
			"an inner node as a leaf": innerNodeVerified(t, chain, registry, requests, i),
		} {
			if wrong {
				t.Fatalf("leaf %d verified with %s", i, name)
			}
		}
	}

	// 32 leaves, 8 of them the turns of one conversation chained inside
	// the list.
	mixed, states := conversationList(model, 32, 8, statement.EmptyState, "mixed")
	submitList(t, chain, registry, v, mixed)

	// A turn whose state in no recorded turn left, with a valid proof; a
	// turn whose state in the list leaves only later.
	stray := List{ModelID: model, Leaves: []Leaf{statement.TurnLeaf(big.NewInt(999), big.NewInt(31), big.NewInt(32), big.NewInt(1003))}}
	_, err := chain.Submit(ctx, registry, listProof(t, v, stray), stray)
	wantRevert(t, err, fmt.Sprintf("UnknownState(%s, 999)", model))
	later, laterStates := conversationList(model, 8, 2, statement.EmptyState, "later")
	later.Leaves[1], later.Leaves[5] = later.Leaves[5], later.Leaves[1]
	_, err = chain.Submit(ctx, registry, listProof(t, v, later), later)
	wantRevert(t, err, fmt.Sprintf("UnknownState(%s, %s)", model, laterStates[0]))
	for _, s := range []*big.Int{big.NewInt(1003), laterStates[1]} {
		if ok, err := IsState(ctx, chain.Backend(), registry, model, s); err != nil || ok {
			t.Fatalf("a refused list's state %#x recorded (%v)", s, err)
		}
	}

	// A turn continuing a state recorded by an earlier list, and two
	// continuations of one state (a regenerated turn, a branch).
	next, _ := conversationList(model, 4, 1, states[7], "next")
	submitList(t, chain, registry, v, next)
	for _, seed := range []string{"regenerated", "branch"} {
		fork, _ := conversationList(model, 2, 1, states[3], seed)
		submitList(t, chain, registry, v, fork)
	}
	// Another model's turn cannot start from this model's states.
	otherModel := new(big.Int).Add(model, big.NewInt(1))
	if ok, err := IsState(ctx, chain.Backend(), registry, otherModel, states[0]); err != nil || ok {
		t.Fatalf("a state recorded for another model (%v)", err)
	}
	foreign, _ := conversationList(otherModel, 2, 1, states[0], "foreign")
	_, err = chain.Submit(ctx, registry, listProof(t, v, foreign), foreign)
	wantRevert(t, err, fmt.Sprintf("UnknownState(%s, %s)", otherModel, states[0]))

	// A replay returns quietly, whatever the proof: no event, no revert.
	encoded, err := ProofBytes(listProof(t, v, mixed))
	if err != nil {
		t.Fatal(err)
	}
	for name, proof := range map[string][]byte{"its proof": encoded, "a garbage proof": bytes.Repeat([]byte{0xff}, len(encoded))} {
		data, err := PackSubmitBytes(proof, mixed)
		if err != nil {
			t.Fatal(err)
		}
		receipt, err := chain.SubmitCalldata(ctx, registry, data)
		if err != nil {
			t.Fatalf("replay with %s: %v", name, err)
		}
		if len(receipt.Logs) != 0 {
			t.Fatalf("replay with %s emitted %d events", name, len(receipt.Logs))
		}
		t.Logf("replay of a list of 32 with %s: %d gas", name, receipt.GasUsed)
	}

	// Tampered: each proof is of the honest list, which is recorded after.
	honest := requestList(model, 8, "tamper")
	proof := listProof(t, v, honest)
	encoded, err = ProofBytes(proof)
	if err != nil {
		t.Fatal(err)
	}
	clone := func(edit func(l *List)) List {
		l := List{ModelID: honest.ModelID, Leaves: slices.Clone(honest.Leaves)}
		edit(&l)
		return l
	}
	for name, bad := range map[string]List{
		"a leaf word changed": clone(func(l *List) {
			l.Leaves[3] = statement.RequestLeaf(new(big.Int).Add(l.Leaves[3].Input, big.NewInt(1)), l.Leaves[3].Output)
		}),
		"a leaf dropped":   clone(func(l *List) { l.Leaves = l.Leaves[:7] }),
		"a leaf added":     clone(func(l *List) { l.Leaves = append(l.Leaves, l.Leaves[0]) }),
		"two leaves moved": clone(func(l *List) { l.Leaves[2], l.Leaves[5] = l.Leaves[5], l.Leaves[2] }),
		"a request a turn": clone(func(l *List) {
			l.Leaves[0] = statement.TurnLeaf(big.NewInt(0), l.Leaves[0].Input, l.Leaves[0].Output, big.NewInt(1))
		}),
		"another model id":  clone(func(l *List) { l.ModelID = otherModel }),
		"its first request": clone(func(l *List) { l.Leaves = l.Leaves[:1] }),
	} {
		_, err := chain.Submit(ctx, registry, proof, bad)
		if err == nil {
			t.Fatalf("%s: recorded", name)
		}
		wantRevert(t, err, invalid...)
	}
	for word := 0; word < len(encoded)/32; word++ {
		tampered := bytes.Clone(encoded)
		tampered[32*word+31] ^= 1
		data, err := PackSubmitBytes(tampered, honest)
		if err != nil {
			t.Fatal(err)
		}
		_, err = chain.SubmitCalldata(ctx, registry, data)
		wantRevert(t, err, invalid...)
	}
	if isVerified(t, chain, registry, honest, 0) {
		t.Fatal("a refused list recorded")
	}
	submitList(t, chain, registry, v, honest)
}

// innerNodeVerified asks isVerified whether the two children of the node
// above leaf i, presented as a leaf of one word under the left child as
// model id, verify with the rest of the path: the leaf's shape must refuse
// it.
func innerNodeVerified(t *testing.T, chain *simChain, registry common.Address, l List, i int) bool {
	t.Helper()
	leaf, path, err := LeafPath(l, i)
	if err != nil {
		t.Fatal(err)
	}
	left, right := leaf, path[0]
	if i%2 == 1 {
		left, right = path[0], leaf
	}
	ok, err := callBool(testContext(t), chain.Backend(), registry, "isVerified", left.Big(), []*big.Int{right.Big()}, big.NewInt(int64(i/2)), toWords(path[1:]))
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func toWords(path []common.Hash) [][32]byte {
	out := make([][32]byte, len(path))
	for i, p := range path {
		out[i] = p
	}
	return out
}

// TestRegistryMalformed submits words that no list has, with raw
// calldata: each reverts with its custom error, as the pure helpers do,
// and statement.ParseWords refuses them too.
func TestRegistryMalformed(t *testing.T) {
	f := loadFixture(t)
	v := f.plain
	ctx := testContext(t)
	chain, deployment := deployedChain(t, ctx, v.contracts)
	registry := deployment.Registry
	proof, err := ProofBytes(v.proof)
	if err != nil {
		t.Fatal(err)
	}
	model := v.list.ModelID
	first := func(kind int64, value int64) *big.Int {
		return new(big.Int).Add(new(big.Int).Lsh(big.NewInt(kind), statement.KindShift), big.NewInt(value))
	}
	request := []*big.Int{first(1, 7), big.NewInt(8)}
	requests := func(n int) []*big.Int {
		var out []*big.Int
		for range n {
			out = append(out, request...)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		words  []*big.Int
		reason string
	}{
		{"empty", nil, "ListSize(0)"},
		{"kind 0", []*big.Int{first(0, 7), big.NewInt(8)}, "UnknownKind(0, 0)"},
		{"kind 3 after a request", append(slices.Clone(request), first(3, 7), big.NewInt(8)), "UnknownKind(2, 3)"},
		{"a request without its output", []*big.Int{first(1, 7)}, "TruncatedLeaf(0)"},
		{"a truncated turn", append(slices.Clone(request), first(2, 0), big.NewInt(1), big.NewInt(2)), "TruncatedLeaf(2)"},
		{"a turn to the empty state", append(slices.Clone(request), first(2, 0), big.NewInt(1), big.NewInt(2), big.NewInt(0)), "EmptyStateOut(2)"},
		{"4097 requests", requests(statement.MaxLeaves + 1), fmt.Sprintf("ListSize(%d)", 2*statement.MaxLeaves+2)},
		{"more words than 4096 turns", make([]*big.Int, 4*statement.MaxLeaves+1), fmt.Sprintf("ListSize(%d)", 4*statement.MaxLeaves+1)},
	} {
		for i, w := range c.words {
			if w == nil {
				c.words[i] = first(2, 0)
			}
		}
		data, err := registryABI.Pack("submit", proof, model, c.words)
		if err != nil {
			t.Fatal(err)
		}
		_, err = chain.SubmitCalldata(ctx, registry, data)
		wantRevert(t, err, c.reason)
		call, err := registryABI.Pack("listRoot", model, c.words)
		if err != nil {
			t.Fatal(err)
		}
		_, err = chain.Backend().CallContract(ctx, callMsg(registry, call), nil)
		wantRevert(t, describeRevert(err), c.reason)
		if _, err := statement.ParseWords(c.words); err == nil {
			t.Fatalf("%s: statement.ParseWords accepts words the registry refuses", c.name)
		}
	}
	// The largest list is accepted by the parser (the proof then fails).
	data, err := registryABI.Pack("submit", proof, model, requests(statement.MaxLeaves))
	if err != nil {
		t.Fatal(err)
	}
	_, err = chain.SubmitCalldata(ctx, registry, data)
	wantRevert(t, err, "ProofInvalid()")
	if _, err := PackSubmitBytes(proof, requestList(model, statement.MaxLeaves+1, "many")); err == nil {
		t.Fatal("a list of 4097 leaves packed")
	}
}

// Gas targets of a submission (the whole transaction, 21,000 base and
// calldata included): a list of one request with the production key's
// shape (the ceremony's, five pairs), and a list of 32 requests per leaf
// with keys of groth16.Setup (six pairs).
const (
	maxSubmitGasOneRequest = 316_867
	maxSubmitGasPerLeaf32  = 15_344
)

// TestListGas measures the gas of submit for a list of one request (the
// fixture's), of 32 requests and of 32 leaves with 8 turns, with the
// merged verifier on both key shapes, and asserts the targets.
func TestListGas(t *testing.T) {
	f := loadFixture(t)
	for _, v := range []*variant{f.ceremony, f.commitment} {
		ctx := testContext(t)
		chain, deployment := deployedChain(t, ctx, v.contracts)
		model := v.list.ModelID
		mixed, _ := conversationList(model, 32, 8, statement.EmptyState, "gas mixed")
		gas := map[string]uint64{}
		for _, c := range []struct {
			name string
			list List
		}{
			{"one request", v.list},
			{"32 requests", requestList(model, 32, "gas requests")},
			{"32 leaves, 8 turns", mixed},
		} {
			receipt := submitList(t, chain, deployment.Registry, v, c.list)
			gas[c.name] = receipt.GasUsed
			t.Logf("%s: submit of %s: %d gas, %d per leaf", v.name, c.name, receipt.GasUsed, receipt.GasUsed/uint64(len(c.list.Leaves)))
		}
		switch v {
		case f.ceremony:
			if g := gas["one request"]; g > maxSubmitGasOneRequest {
				t.Errorf("%s: a list of one request costs %d gas, over %d", v.name, g, maxSubmitGasOneRequest)
			}
		case f.commitment:
			if per := gas["32 requests"] / 32; per > maxSubmitGasPerLeaf32 {
				t.Errorf("%s: a list of 32 requests costs %d gas per leaf, over %d", v.name, per, maxSubmitGasPerLeaf32)
			}
		}
	}
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

// TestOnchainExample recomputes the worked example of docs/onchain.md and
// checks that the page shows its words, digests, hashes and paths (a zero
// sibling as 0x00…00).
func TestOnchainExample(t *testing.T) {
	page, err := os.ReadFile("../docs/onchain.md")
	if err != nil {
		t.Fatal(err)
	}
	l := onchainExample()
	words, err := l.Words()
	if err != nil {
		t.Fatal(err)
	}
	list, _ := l.ListDigest()
	digest, _ := l.Digest()
	root, _ := ListRoot(l)
	want := map[string]common.Hash{"L": common.BigToHash(list), "D": common.BigToHash(digest), "root": root}
	for i, w := range words {
		want[fmt.Sprint("word ", i)] = common.BigToHash(w)
	}
	for i := range l.Leaves {
		leaf, path, err := LeafPath(l, i)
		if err != nil {
			t.Fatal(err)
		}
		want[fmt.Sprint("leaf ", i)] = leaf
		for k, sibling := range path {
			want[fmt.Sprintf("path %d sibling %d", i, k)] = sibling
		}
	}
	var missing []string
	for name, h := range want {
		shown := h.Hex()
		if h == (common.Hash{}) {
			shown = "0x00…00"
		}
		if !strings.Contains(string(page), shown) {
			missing = append(missing, name+" "+h.Hex())
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		t.Fatalf("docs/onchain.md does not show:\n%s", strings.Join(missing, "\n"))
	}
}

// onchainExample is the list of the worked example of docs/onchain.md.
func onchainExample() List {
	return List{ModelID: big.NewInt(5), Leaves: []Leaf{
		statement.RequestLeaf(big.NewInt(0x11), big.NewInt(0x12)),
		statement.TurnLeaf(statement.EmptyState, big.NewInt(0x21), big.NewInt(0x22), big.NewInt(0x51)),
		statement.TurnLeaf(big.NewInt(0x51), big.NewInt(0x31), big.NewInt(0x32), big.NewInt(0x52)),
	}}
}

// TestCatalog publishes a model id, refuses it again from the same
// publisher and accepts it from another, each with its event, and
// refuses id 0.
func TestCatalog(t *testing.T) {
	f := loadFixture(t)
	ctx := testContext(t)
	chain, deployment := deployedChain(t, ctx, f.commitment.contracts)
	registry := deployment.Registry
	id := f.commitment.list.ModelID
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
	_, err := chain.PublishModel(ctx, registry, id, "micro again", "")
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
