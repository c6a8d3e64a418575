package recursion

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend/groth16"
	groth16bls12377 "github.com/consensys/gnark/backend/groth16/bls12-377"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	stmt "github.com/veriformer/veriformer/statement"
)

func TestSegmentShapeOf(t *testing.T) {
	f := getFixture(t)
	shape, err := SegmentShapeOf(f.layer0.ccs)
	if err != nil || shape.NbCommitments != 0 {
		t.Fatalf("plain segment: shape %+v, err %v", shape, err)
	}
	shape, err = SegmentShapeOf(f.commit.ccs)
	if err != nil || shape.NbCommitments != 1 {
		t.Fatalf("committing segment: shape %+v, err %v", shape, err)
	}
	if _, err := SegmentShapeOf(f.aggregator2.CCS); err == nil {
		t.Fatal("a BW6-761 circuit passed as a segment")
	}
	if _, err := NewAggregator(0, SegmentShape{}); err == nil {
		t.Fatal("arity 0 accepted")
	}
	if _, err := NewAggregator(2, SegmentShape{NbCommitments: 2}); err == nil {
		t.Fatal("two commitments accepted")
	}
}

func TestAggregateProveVerify(t *testing.T) {
	f := getFixture(t)
	chain, err := newChain([]*toyCircuit{f.layer0, f.layer1}, 11, 12, 13, 14)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	proof, statement, err := Aggregate(chain.proofs, chain.keys, chain.publics, chain.graph, f.aggregator2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("aggregator k=2: %d constraints, prove + verify %v", f.aggregator2.CCS.GetNbConstraints(), time.Since(start))
	if statement.String() != chain.publics[0].Statement().String() {
		t.Fatalf("statement %v, want the segments' %v", statement, chain.publics[0].Statement())
	}
	if err := VerifyAggregated(proof, f.aggregator2.VK, statement); err != nil {
		t.Fatal(err)
	}
	for name, tamper := range map[string]func(*stmt.Statement){
		"model id":      func(s *stmt.Statement) { s.ModelID = big.NewInt(1) },
		"input digest":  func(s *stmt.Statement) { s.InputDigest = big.NewInt(1) },
		"output digest": func(s *stmt.Statement) { s.OutputDigest = big.NewInt(1) },
	} {
		bad := statement
		tamper(&bad)
		if err := VerifyAggregated(proof, f.aggregator2.VK, bad); err == nil {
			t.Errorf("aggregator proof verifies with a wrong %s", name)
		}
	}
}

// TestAggregatorRejects solves the compiled aggregator of arity 2 on honest
// and dishonest assignments.
func TestAggregatorRejects(t *testing.T) {
	f := getFixture(t)
	ccs := f.aggregator2.CCS
	solve := func(a *Aggregator) error {
		w, err := frontend.NewWitness(a, ecc.BW6_761.ScalarField())
		if err != nil {
			return err
		}
		return ccs.IsSolved(w)
	}
	assign := func(c *chainFixture) *Aggregator {
		t.Helper()
		a, err := AggregatorAssignment(c.proofs, c.keys, c.publics, c.graph)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}

	honest, err := newChain([]*toyCircuit{f.layer0, f.layer1}, 21, 22, 23, 24)
	if err != nil {
		t.Fatal(err)
	}
	if err := solve(assign(honest)); err != nil {
		t.Fatalf("honest segments: %v", err)
	}

	t.Run("tampered proof", func(t *testing.T) {
		c := *honest
		c.proofs = append([]groth16.Proof(nil), honest.proofs...)
		tampered := *honest.proofs[1].(*groth16bls12377.Proof)
		_, _, g1, _ := bls12377.Generators()
		tampered.Ar.Add(&tampered.Ar, &g1)
		c.proofs[1] = &tampered
		if _, err := CheckSegments(c.proofs, c.keys, c.publics, c.graph); err == nil {
			t.Error("native check accepts a tampered proof")
		}
		if err := solve(assign(&c)); err == nil {
			t.Error("aggregator accepts a tampered proof")
		}
	})

	t.Run("reordered segments", func(t *testing.T) {
		// Two segments of one circuit, so the keys (and the model id) do
		// not change when swapped: only the chain breaks.
		same, err := newChain([]*toyCircuit{f.layer0, f.layer0}, 31, 32, 33, 34)
		if err != nil {
			t.Fatal(err)
		}
		if err := solve(assign(same)); err != nil {
			t.Fatalf("honest repeated segments: %v", err)
		}
		c := *same
		c.proofs = []groth16.Proof{same.proofs[1], same.proofs[0]}
		c.publics = []SegmentPublic{same.publics[1], same.publics[0]}
		if _, err := CheckSegments(c.proofs, c.keys, c.publics, c.graph); err == nil || !strings.Contains(err.Error(), "chain") {
			t.Errorf("native check on reordered segments: %v", err)
		}
		if err := solve(assign(&c)); err == nil {
			t.Error("aggregator accepts reordered segments")
		}
	})

	t.Run("segment of another model", func(t *testing.T) {
		// A valid proof of another circuit, for the same statement and
		// chaining values: its key changes the model id.
		proof, public, err := f.other.prove(honest.publics[1], 101)
		if err != nil {
			t.Fatal(err)
		}
		c := *honest
		c.proofs = []groth16.Proof{honest.proofs[0], proof}
		c.keys = []groth16.VerifyingKey{honest.keys[0], f.other.vk}
		c.publics = []SegmentPublic{honest.publics[0], public}
		if _, err := CheckSegments(c.proofs, c.keys, c.publics, c.graph); err == nil || !strings.Contains(err.Error(), "model id") {
			t.Errorf("native check on a foreign segment: %v", err)
		}
		if err := solve(assign(&c)); err == nil {
			t.Error("aggregator accepts a segment of another model")
		}
	})

	t.Run("other graph digest", func(t *testing.T) {
		a := assign(honest)
		a.GraphDigest = 25
		if err := solve(a); err == nil {
			t.Error("aggregator accepts another graph digest")
		}
	})

	rBLS := ecc.BLS12_377.ScalarField()
	for name, tamper := range map[string]func(*Aggregator){
		"model id":              func(a *Aggregator) { a.ModelID = new(big.Int).Add(a.ModelID.(*big.Int), big.NewInt(1)) },
		"input digest":          func(a *Aggregator) { a.InputDigest = 1 },
		"output digest":         func(a *Aggregator) { a.OutputDigest = 1 },
		"input digest + r":      func(a *Aggregator) { a.InputDigest = new(big.Int).Add(a.InputDigest.(*big.Int), rBLS) },
		"output digest + r":     func(a *Aggregator) { a.OutputDigest = new(big.Int).Add(a.OutputDigest.(*big.Int), rBLS) },
		"first chaining value":  func(a *Aggregator) { a.Chain[0] = 1 },
		"middle chaining value": func(a *Aggregator) { a.Chain[1] = 1 },
		"last chaining value":   func(a *Aggregator) { a.Chain[2] = 1 },
		"middle chaining value ≥ 2²⁵³": func(a *Aggregator) {
			a.Chain[1] = new(big.Int).Add(a.Chain[1].(*big.Int), new(big.Int).Lsh(big.NewInt(1), 253))
		},
	} {
		t.Run("wrong "+name, func(t *testing.T) {
			a := assign(honest)
			tamper(a)
			if err := solve(a); err == nil {
				t.Errorf("aggregator accepts a wrong %s", name)
			}
		})
	}
}

// TestAggregatorTestEngine runs the aggregator of arity 2 on segments with
// a Pedersen commitment in gnark's test engine, honest and tampered.
func TestAggregatorTestEngine(t *testing.T) {
	f := getFixture(t)
	honest, err := newChain([]*toyCircuit{f.commit, f.commit}, 41, 42, 43, 44)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CheckSegments(honest.proofs, honest.keys, honest.publics, honest.graph); err != nil {
		t.Fatal(err)
	}
	placeholder, err := NewAggregator(2, SegmentShape{NbCommitments: 1})
	if err != nil {
		t.Fatal(err)
	}
	a, err := AggregatorAssignment(honest.proofs, honest.keys, honest.publics, honest.graph)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := test.IsSolved(placeholder, a, ecc.BW6_761.ScalarField()); err != nil {
		t.Fatal(err)
	}
	t.Logf("test engine, k=2 with commitments: %v", time.Since(start))
	a.OutputDigest = 7
	if err := test.IsSolved(placeholder, a, ecc.BW6_761.ScalarField()); err == nil {
		t.Error("test engine accepts a wrong output digest")
	}
}

func TestModelID(t *testing.T) {
	f := getFixture(t)
	var g, h bls12377fr.Element
	g.SetUint64(1)
	h.SetUint64(2)
	keys := []groth16.VerifyingKey{f.layer0.vk, f.layer1.vk}
	id, err := ModelID(keys, g)
	if err != nil {
		t.Fatal(err)
	}
	if id.BitLen() > ModelIDBits {
		t.Fatalf("model id has more than %d bits", ModelIDBits)
	}
	again, err := ModelID(keys, g)
	if err != nil || again.Cmp(id) != 0 {
		t.Fatalf("model id not deterministic: %v", err)
	}
	for name, other := range map[string]func() (*big.Int, error){
		"graph digest": func() (*big.Int, error) { return ModelID(keys, h) },
		"key order":    func() (*big.Int, error) { return ModelID([]groth16.VerifyingKey{f.layer1.vk, f.layer0.vk}, g) },
		"another key":  func() (*big.Int, error) { return ModelID([]groth16.VerifyingKey{f.layer0.vk, f.other.vk}, g) },
		"arity":        func() (*big.Int, error) { return ModelID(keys[:1], g) },
	} {
		v, err := other()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if v.Cmp(id) == 0 {
			t.Errorf("model id does not depend on the %s", name)
		}
	}
	if _, err := ModelID(nil, g); err == nil {
		t.Error("model id of no keys")
	}
	if _, err := ModelID([]groth16.VerifyingKey{f.layer0.vk, f.commit.vk}, g); err == nil {
		t.Error("model id of keys with different commitment counts")
	}
	if _, err := ModelID([]groth16.VerifyingKey{f.aggregator2.VK}, g); err == nil {
		t.Error("model id of a BW6-761 key")
	}

	final, err := FinalModelID(f.aggregator2.VK, id)
	if err != nil {
		t.Fatal(err)
	}
	if final.BitLen() > ModelIDBits || final.Cmp(id) == 0 {
		t.Fatalf("final model id %v", final)
	}
	other, err := FinalModelID(f.aggregator2.VK, big.NewInt(1))
	if err != nil || other.Cmp(final) == 0 {
		t.Fatalf("final model id does not depend on the inner id (%v)", err)
	}
	if _, err := FinalModelID(f.layer0.vk, id); err == nil {
		t.Error("final model id of a BLS12-377 key")
	}
	if _, err := FinalModelID(f.aggregator2.VK, new(big.Int).Lsh(big.NewInt(1), ModelIDBits)); err == nil {
		t.Error("final model id of a 251-bit inner id")
	}
}

// TestAggregatorArity3 solves the aggregator of arity 3 on three chained
// segments of two circuits, and on the same segments out of order.
func TestAggregatorArity3(t *testing.T) {
	f := getFixture(t)
	ccs, err := CompileAggregator(3, SegmentShape{})
	if err != nil {
		t.Fatal(err)
	}
	checkCount(t, "aggregator k=3", ccs.GetNbConstraints())
	solve := func(c *chainFixture) error {
		a, err := AggregatorAssignment(c.proofs, c.keys, c.publics, c.graph)
		if err != nil {
			return err
		}
		w, err := frontend.NewWitness(a, ecc.BW6_761.ScalarField())
		if err != nil {
			return err
		}
		return ccs.IsSolved(w)
	}
	honest, err := newChain([]*toyCircuit{f.layer0, f.layer1, f.layer0}, 61, 62, 63, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := solve(honest); err != nil {
		t.Fatalf("honest segments: %v", err)
	}
	swapped := *honest
	swapped.proofs = []groth16.Proof{honest.proofs[0], honest.proofs[2], honest.proofs[1]}
	swapped.keys = []groth16.VerifyingKey{honest.keys[0], honest.keys[2], honest.keys[1]}
	swapped.publics = []SegmentPublic{honest.publics[0], honest.publics[2], honest.publics[1]}
	if err := solve(&swapped); err == nil {
		t.Error("aggregator of arity 3 accepts segments out of order")
	}
}

// BenchmarkAggregate measures Aggregate for two segments: native checks,
// witness, BW6-761 Groth16 proof and its verification.
func BenchmarkAggregate(b *testing.B) {
	f := getFixture(b)
	chain, err := newChain([]*toyCircuit{f.layer0, f.layer1}, 71, 72, 73, 74)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := Aggregate(chain.proofs, chain.keys, chain.publics, chain.graph, f.aggregator2); err != nil {
			b.Fatal(err)
		}
	}
}
