package statement

import (
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	native "github.com/veriformer/veriformer/statement"
)

// requestListCircuit states the list digest of the first Count requests
// of its buffers, and optionally the statement digest of that list.
type requestListCircuit struct {
	ModelID, Count  frontend.Variable
	Inputs, Outputs []frontend.Variable
	List            frontend.Variable `gnark:",public"`
	Digest          frontend.Variable
	// withDigest: the circuit also states DigestOfList(ModelID, List).
	withDigest bool
}

func (c *requestListCircuit) Define(api frontend.API) error {
	l, err := ListDigest(api, c.Count, c.Inputs, c.Outputs)
	if err != nil {
		return err
	}
	api.AssertIsEqual(l, c.List)
	if c.withDigest {
		d, err := DigestOfList(api, c.ModelID, l)
		if err != nil {
			return err
		}
		api.AssertIsEqual(d, c.Digest)
	}
	return nil
}

func requestListPlaceholder(m int, withDigest bool) *requestListCircuit {
	return &requestListCircuit{Inputs: make([]frontend.Variable, m), Outputs: make([]frontend.Variable, m), withDigest: withDigest}
}

// requestList returns the native list of the requests (inputs[i],
// outputs[i]) for i < n.
func requestList(modelID *big.Int, inputs, outputs []*big.Int, n int) native.List {
	l := native.List{ModelID: modelID}
	for i := range n {
		l.Leaves = append(l.Leaves, native.RequestLeaf(inputs[i], outputs[i]))
	}
	return l
}

// requestListAssignment fills buffers of len(inputs) requests, with count
// n and the list digest and statement digest of the first n.
func requestListAssignment(t *testing.T, modelID *big.Int, inputs, outputs []*big.Int, n int) *requestListCircuit {
	t.Helper()
	l := requestList(modelID, inputs, outputs, n)
	list, err := l.ListDigest()
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	c := &requestListCircuit{ModelID: modelID, Count: n, Inputs: make([]frontend.Variable, len(inputs)), Outputs: make([]frontend.Variable, len(inputs)), List: list, Digest: d}
	for i := range inputs {
		c.Inputs[i], c.Outputs[i] = inputs[i], outputs[i]
	}
	return c
}

// TestListDigest checks the variable-count gadget against
// statement.List.ListDigest of request leaves on BLS12-377, the
// segments' field, in a circuit sized for four requests: lists of 1 to
// 4 requests out of the same buffers (values up to r − 1) are accepted;
// another count (0, beyond the buffers, or one less or more than the
// list's, each with the list digest of the requests it would count), a
// changed, reordered or swapped value and another list digest are
// rejected.
func TestListDigest(t *testing.T) {
	const m = 4
	r := ecc.BLS12_377.ScalarField()
	rMinus1 := new(big.Int).Sub(r, big.NewInt(1))
	id := big.NewInt(5)
	inputs := []*big.Int{big.NewInt(2), rMinus1, big.NewInt(0), big.NewInt(7)}
	outputs := []*big.Int{big.NewInt(3), big.NewInt(1), rMinus1, big.NewInt(8)}
	opts := []test.TestingOption{test.WithCurves(ecc.BLS12_377), test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks(), test.NoProverChecks()}
	for n := 1; n <= m; n++ {
		opts = append(opts, test.WithValidAssignment(requestListAssignment(t, id, inputs, outputs, n)))
	}
	bad := func(c *requestListCircuit) { opts = append(opts, test.WithInvalidAssignment(c)) }
	// Another count, with the list digest of the requests it would count.
	for _, tc := range []struct{ count, listed int }{{2, 3}, {3, 2}, {0, 1}, {m + 1, m}} {
		c := requestListAssignment(t, id, inputs, outputs, tc.listed)
		c.Count = tc.count
		bad(c)
	}
	// A count of 0 with the digest of the empty message, and of m + 1
	// with the digest of m + 1 requests, the last (0, 0).
	c := requestListAssignment(t, id, inputs, outputs, 1)
	c.Count, c.List = 0, native.ListDigestOfWords(nil)
	bad(c)
	c = requestListAssignment(t, id, inputs, outputs, 1)
	longer := requestList(id, append(inputs, big.NewInt(0)), append(outputs, big.NewInt(0)), m+1)
	words, err := longer.Words()
	if err != nil {
		t.Fatal(err)
	}
	c.Count, c.List = m+1, native.ListDigestOfWords(words)
	bad(c)
	c = requestListAssignment(t, id, inputs, outputs, 3)
	c.Inputs[1] = 6
	bad(c) // an input changed
	c = requestListAssignment(t, id, inputs, outputs, 3)
	c.Outputs[2] = 4
	bad(c) // an output changed
	c = requestListAssignment(t, id, inputs, outputs, 3)
	c.Inputs[0], c.Inputs[1] = c.Inputs[1], c.Inputs[0]
	bad(c) // inputs reordered
	c = requestListAssignment(t, id, inputs, outputs, 3)
	c.Inputs[0], c.Inputs[1], c.Outputs[0], c.Outputs[1] = c.Inputs[1], c.Inputs[0], c.Outputs[1], c.Outputs[0]
	bad(c) // requests reordered
	c = requestListAssignment(t, id, inputs, outputs, 3)
	c.Inputs[0], c.Outputs[0] = c.Outputs[0], c.Inputs[0]
	bad(c) // a request's input and output swapped
	c = requestListAssignment(t, id, inputs, outputs, 3)
	c.List = new(big.Int).Add(c.List.(*big.Int), big.NewInt(1))
	bad(c) // another list digest
	test.NewAssert(t).CheckCircuit(requestListPlaceholder(m, false), opts...)
}

// TestListDigestStatement checks ListDigest then DigestOfList against
// statement.List.Digest on BN254 with the test engine, for lists of one
// and two requests out of buffers of two.
func TestListDigestStatement(t *testing.T) {
	r := ecc.BN254.ScalarField()
	rMinus1 := new(big.Int).Sub(r, big.NewInt(1))
	inputs, outputs := []*big.Int{rMinus1, big.NewInt(9)}, []*big.Int{big.NewInt(4), rMinus1}
	for n := 1; n <= 2; n++ {
		c := requestListAssignment(t, big.NewInt(3), inputs, outputs, n)
		if err := test.IsSolved(requestListPlaceholder(2, true), c, r); err != nil {
			t.Fatalf("%d requests: %v", n, err)
		}
		c.Digest = new(big.Int).Add(c.Digest.(*big.Int), big.NewInt(1))
		if test.IsSolved(requestListPlaceholder(2, true), c, r) == nil {
			t.Fatalf("%d requests: another digest accepted", n)
		}
	}
}

// TestListDigestConstraints snapshots the gadget's R1CS count on BN254
// for buffers of 1 and 8 requests, alone and followed by DigestOfList
// (testdata/batch_constraints.csv).
func TestListDigestConstraints(t *testing.T) {
	checkCounts(t, "testdata/batch_constraints.csv", "requests", func(size int) []namedCircuit {
		return []namedCircuit{
			{"ListDigest", requestListPlaceholder(size, false)},
			{"ListDigest+DigestOfList", requestListPlaceholder(size, true)},
		}
	}, 1, 8)
}
