package statement

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/internal/listvectors"
	"github.com/veriformer/veriformer/internal/snapshot"
	native "github.com/veriformer/veriformer/statement"
)

// listCircuit states the list digest of its leaves and the statement
// digest of its model id and that list digest.
type listCircuit struct {
	ModelID frontend.Variable
	Leaves  []Leaf
	List    frontend.Variable
	Digest  frontend.Variable `gnark:",public"`
}

func (c *listCircuit) Define(api frontend.API) error {
	l, err := ListDigestOf(api, c.Leaves)
	if err != nil {
		return err
	}
	api.AssertIsEqual(l, c.List)
	d, err := DigestOfList(api, c.ModelID, l)
	if err != nil {
		return err
	}
	api.AssertIsEqual(d, c.Digest)
	return nil
}

// listPlaceholder returns the circuit of a list of leaves of these kinds.
func listPlaceholder(kinds ...native.Kind) *listCircuit {
	c := &listCircuit{Leaves: make([]Leaf, len(kinds))}
	for i, k := range kinds {
		c.Leaves[i].Kind = k
	}
	return c
}

// kindsOf returns the kinds of the list's leaves.
func kindsOf(l native.List) []native.Kind {
	kinds := make([]native.Kind, len(l.Leaves))
	for i, leaf := range l.Leaves {
		kinds[i] = leaf.Kind
	}
	return kinds
}

// rawListAssignment assigns the leaves' values (a request's states 0)
// with the list digest and statement digest given.
func rawListAssignment(modelID *big.Int, leaves []native.Leaf, list, digest *big.Int) *listCircuit {
	c := &listCircuit{ModelID: modelID, Leaves: make([]Leaf, len(leaves)), List: list, Digest: digest}
	for i, leaf := range leaves {
		c.Leaves[i] = Leaf{Kind: leaf.Kind, StateIn: 0, Input: leaf.Input, Output: leaf.Output, StateOut: 0}
		if leaf.Kind == native.KindTurn {
			c.Leaves[i].StateIn, c.Leaves[i].StateOut = leaf.StateIn, leaf.StateOut
		}
	}
	return c
}

// listAssignment is the honest assignment of a list: its native list
// digest and statement digest.
func listAssignment(t *testing.T, l native.List) *listCircuit {
	t.Helper()
	list, err := l.ListDigest()
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return rawListAssignment(l.ModelID, l.Leaves, list, d)
}

// rawDigests returns the list digest and statement digest of the given
// words, which need not be a list's.
func rawDigests(modelID *big.Int, words []*big.Int) (*big.Int, *big.Int) {
	list := native.ListDigestOfWords(words)
	d, err := native.DigestOfList(modelID, list)
	if err != nil {
		panic(err)
	}
	return list, d
}

// TestListDigestOfVectors checks ListDigestOf and DigestOfList against
// every shared golden vector, over BN254 and BW6-761, with the test
// engine; a vector holding a value at least a field's order is skipped
// for that field only.
func TestListDigestOfVectors(t *testing.T) {
	vectors, err := listvectors.Read()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vectors {
		l := v.List
		values := []*big.Int{l.ModelID}
		for _, leaf := range l.Leaves {
			if leaf.Kind == native.KindTurn {
				values = append(values, leaf.StateIn, leaf.StateOut)
			}
			values = append(values, leaf.Input, leaf.Output)
		}
		c := rawListAssignment(l.ModelID, l.Leaves, v.ListDigest, v.Digest)
		for _, curve := range []ecc.ID{ecc.BN254, ecc.BW6_761} {
			r := curve.ScalarField()
			fits := true
			for _, x := range values {
				fits = fits && x.Cmp(r) < 0
			}
			if !fits {
				t.Logf("%s: skipped over %v, a value is not below its scalar field's order", v.Name, curve)
				continue
			}
			if err := test.IsSolved(listPlaceholder(kindsOf(l)...), c, r); err != nil {
				t.Errorf("%s over %v: %v", v.Name, curve, err)
			}
		}
	}
}

// TestListDigestOf checks the gadgets on BW6-761, compiled (Groth16,
// solver only) and on the test engine, for a list of a request and a
// turn: the honest assignment and the largest values are accepted;
// another list digest or statement digest, a changed value, a model id
// 2²⁵⁶ more, a value at least 2²⁵⁴ and a turn leaving the empty state
// (each assigned the digests of the words it would give) are rejected;
// a turn and two requests of the same four values have different
// digests, and neither circuit takes the other's.
func TestListDigestOf(t *testing.T) {
	id := big.NewInt(0x1d)
	ints := func(v ...int64) []*big.Int {
		out := make([]*big.Int, len(v))
		for i, x := range v {
			out[i] = big.NewInt(x)
		}
		return out
	}
	top := new(big.Int).Lsh(big.NewInt(1), native.KindShift)
	below := new(big.Int).Sub(top, big.NewInt(1))
	v := ints(11, 12, 13, 14, 15, 16)
	honest := native.List{ModelID: id, Leaves: []native.Leaf{native.RequestLeaf(v[0], v[1]), native.TurnLeaf(v[2], v[3], v[4], v[5])}}
	largestID := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), native.ModelIDBits), big.NewInt(1))
	largest := native.List{ModelID: largestID, Leaves: []native.Leaf{native.RequestLeaf(below, below), native.TurnLeaf(below, below, below, below)}}
	opts := []test.TestingOption{test.WithCurves(ecc.BW6_761), test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks(), test.NoProverChecks(),
		test.WithValidAssignment(listAssignment(t, honest)), test.WithValidAssignment(listAssignment(t, largest))}
	bad := func(c *listCircuit) { opts = append(opts, test.WithInvalidAssignment(c)) }
	plus := func(x *big.Int, y int64) *big.Int { return new(big.Int).Add(x, big.NewInt(y)) }

	c := listAssignment(t, honest)
	c.List = plus(c.List.(*big.Int), 1)
	bad(c) // another list digest
	c = listAssignment(t, honest)
	c.Digest = plus(c.Digest.(*big.Int), 1)
	bad(c) // another statement digest
	c = listAssignment(t, honest)
	c.Leaves[1].Output = 99
	bad(c) // a changed value
	c = listAssignment(t, honest)
	c.ModelID = new(big.Int).Add(id, new(big.Int).Lsh(big.NewInt(1), 256))
	bad(c) // a model id of 2²⁵⁶ more, with the honest digests
	// Values at least 2²⁵⁴, with the digests of the words they give: a
	// request's input that would make its first word a turn's, a turn's
	// state in and a request's output.
	words := func(w ...*big.Int) []*big.Int { return w }
	kind := func(k int64, x *big.Int) *big.Int {
		return new(big.Int).Add(x, new(big.Int).Lsh(big.NewInt(k), native.KindShift))
	}
	for _, tc := range []struct {
		leaves []native.Leaf
		words  []*big.Int
	}{
		{[]native.Leaf{native.RequestLeaf(plus(top, 11), v[1]), native.TurnLeaf(v[2], v[3], v[4], v[5])},
			words(kind(2, v[0]), v[1], kind(2, v[2]), v[3], v[4], v[5])},
		{[]native.Leaf{native.RequestLeaf(v[0], v[1]), native.TurnLeaf(plus(top, 13), v[3], v[4], v[5])},
			words(kind(1, v[0]), v[1], kind(3, v[2]), v[3], v[4], v[5])},
		{[]native.Leaf{native.RequestLeaf(v[0], kind(1, v[1])), native.TurnLeaf(v[2], v[3], v[4], v[5])},
			words(kind(1, v[0]), kind(1, v[1]), kind(2, v[2]), v[3], v[4], v[5])},
	} {
		list, d := rawDigests(id, tc.words)
		bad(rawListAssignment(id, tc.leaves, list, d))
	}
	// A turn leaving the empty state, with the digests of its words.
	empty := []native.Leaf{native.RequestLeaf(v[0], v[1]), native.TurnLeaf(v[2], v[3], v[4], big.NewInt(0))}
	list, d := rawDigests(id, words(kind(1, v[0]), v[1], kind(2, v[2]), v[3], v[4], big.NewInt(0)))
	bad(rawListAssignment(id, empty, list, d))
	test.NewAssert(t).CheckCircuit(listPlaceholder(native.KindRequest, native.KindTurn), opts...)

	// A turn and two requests of the same four values differ by their
	// kinds alone: their digests differ, and neither circuit takes the
	// other's.
	turn := native.List{ModelID: id, Leaves: []native.Leaf{native.TurnLeaf(v[2], v[3], v[4], v[5])}}
	requests := native.List{ModelID: id, Leaves: []native.Leaf{native.RequestLeaf(v[2], v[3]), native.RequestLeaf(v[4], v[5])}}
	ct, cr := listAssignment(t, turn), listAssignment(t, requests)
	if ct.List.(*big.Int).Cmp(cr.List.(*big.Int)) == 0 || ct.Digest.(*big.Int).Cmp(cr.Digest.(*big.Int)) == 0 {
		t.Fatal("a turn and two requests of the same values have one digest")
	}
	r := ecc.BW6_761.ScalarField()
	for _, tc := range []struct {
		name         string
		circuit      *listCircuit
		honest, swap *listCircuit
	}{
		{"turn", listPlaceholder(native.KindTurn), ct, rawListAssignment(id, turn.Leaves, cr.List.(*big.Int), cr.Digest.(*big.Int))},
		{"two requests", listPlaceholder(native.KindRequest, native.KindRequest), cr, rawListAssignment(id, requests.Leaves, ct.List.(*big.Int), ct.Digest.(*big.Int))},
	} {
		if err := test.IsSolved(tc.circuit, tc.honest, r); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if test.IsSolved(tc.circuit, tc.swap, r) == nil {
			t.Errorf("%s: the other kind's digests accepted", tc.name)
		}
	}
}

// TestListDigestOfRefuses checks that no leaves, an unknown kind and a
// field too small are refused at compile time.
func TestListDigestOfRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		curve   ecc.ID
		circuit frontend.Circuit
	}{
		"no leaves":    {ecc.BN254, listPlaceholder()},
		"unknown kind": {ecc.BN254, listPlaceholder(3)},
		"small field":  {ecc.BLS12_377, listPlaceholder(native.KindRequest)},
	} {
		if _, err := frontend.Compile(tc.curve.ScalarField(), r1cs.NewBuilder, tc.circuit); err == nil {
			t.Errorf("%s: compiled", name)
		}
	}
}

// TestListDigestOfConstraints compiles the gadgets in BW6-761 R1CS, the
// aggregator's, and checks that they need no commitment; it snapshots
// the counts of ListDigestOf and of the statement digest (ListDigestOf
// then DigestOfList) of a list of one request and of one turn, in
// BW6-761 and BN254 (testdata/leaves_constraints.csv).
func TestListDigestOfConstraints(t *testing.T) {
	rows := [][]string{{"gadget", "curve", "nb_constraints"}}
	for _, curve := range []ecc.ID{ecc.BW6_761, ecc.BN254} {
		for _, tc := range []struct {
			name    string
			circuit frontend.Circuit
		}{
			{"ListDigestOf one request", &listOnlyCircuit{Leaves: []Leaf{{Kind: native.KindRequest}}}},
			{"ListDigestOf one turn", &listOnlyCircuit{Leaves: []Leaf{{Kind: native.KindTurn}}}},
			{"statement digest of one request", listPlaceholder(native.KindRequest)},
			{"statement digest of one turn", listPlaceholder(native.KindTurn)},
		} {
			ccs, err := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, tc.circuit)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(ccs.GetCommitments().CommitmentIndexes()); n != 0 {
				t.Errorf("%s over %v: %d commitments", tc.name, curve, n)
			}
			t.Logf("%s, %v: %d R1CS", tc.name, curve, ccs.GetNbConstraints())
			rows = append(rows, []string{tc.name, curve.String(), fmt.Sprint(ccs.GetNbConstraints())})
		}
	}
	snapshot.CheckCSV(t, "testdata/leaves_constraints.csv", rows, *update)
}

// listOnlyCircuit states the list digest of its leaves.
type listOnlyCircuit struct {
	Leaves []Leaf
	List   frontend.Variable `gnark:",public"`
}

func (c *listOnlyCircuit) Define(api frontend.API) error {
	l, err := ListDigestOf(api, c.Leaves)
	if err != nil {
		return err
	}
	api.AssertIsEqual(l, c.List)
	return nil
}
