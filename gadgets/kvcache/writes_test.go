package kvcache_test

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	gkvcache "github.com/veriformer/veriformer/gadgets/kvcache"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	npoly "github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/kvcache"
	ntranscript "github.com/veriformer/veriformer/transcript"
)

// writesCircuit verifies a claim on the written rows and checks the
// claim left on the new rows against them.
type writesCircuit struct {
	Proof    gkvcache.WritesProof
	Claim    poly.Claim
	Position frontend.Variable
	Live     frontend.Variable
	cfg      kvcache.Config `gnark:"-"`
	rows     []int64        `gnark:"-"`
}

func (c *writesCircuit) Define(api frontend.API) error {
	tr, err := transcript.New(api, "kvcache-test")
	if err != nil {
		return err
	}
	left, err := gkvcache.VerifyWrites(api, tr, c.cfg, c.Position, c.Live, c.Proof, c.Claim)
	if err != nil {
		return err
	}
	api.AssertIsEqual(poly.EvaluateDense(api, constantTable(c.rows, c.cfg.NewRows(), c.cfg.Width), left.Point), left.Value)
	return nil
}

// TestWritesBothFaces: a claim on the written rows W, proven natively,
// is accepted by both verifiers; each round value and y_X changed, the
// claimed value changed, the rows counted one more or one fewer and the
// rows placed at another position are rejected by both (the circuit
// takes the position and the count as variables: one circuit serves
// every turn).
func TestWritesBothFaces(t *testing.T) {
	type E = bls12377fr.Element
	rng := rand.New(rand.NewPCG(21, 22))
	scalar := ecc.BLS12_377.ScalarField()
	var one E
	one.SetOne()
	for _, c := range []struct {
		cfg  kvcache.Config
		live int
	}{
		{kvcache.Config{Context: 16, Width: 5, Position: 6, Rows: 4, Claims: 1}, 3},
		{kvcache.Config{Context: 8, Width: 3, Position: 0, Rows: 8, Claims: 1}, 8},
		{kvcache.Config{Context: 8, Width: 4, Position: 5, Claims: 1}, 1},
	} {
		cfg := c.cfg
		rows := randomInts(rng, cfg.NewRows()*cfg.Width, 1<<15)
		w, err := kvcache.Writes[E](cfg, rows, c.live)
		if err != nil {
			t.Fatal(err)
		}
		point := field.RandomVector[E](rng, cfg.RowVars()+cfg.ColVars())
		claim := npoly.Claim[E]{Point: point, Value: npoly.Evaluate[E](w, point)}
		proof, _, err := kvcache.ProveWrites(ntranscript.New[E]("kvcache-test"), cfg, rows, c.live, claim)
		if err != nil {
			t.Fatal(err)
		}
		nativeAccepts := func(position, live int, claim npoly.Claim[E]) bool {
			shape := cfg
			shape.Position = position
			left, err := kvcache.VerifyWrites(ntranscript.New[E]("kvcache-test"), shape, live, proof, claim)
			if err != nil {
				return false
			}
			v, err := npoly.EvaluateTensor[E](rows, []int{cfg.NewRows(), cfg.Width}, left.Point)
			return err == nil && v.Equal(&left.Value)
		}
		circuitAccepts := func(position, live int, claim npoly.Claim[E]) bool {
			placeholder := &writesCircuit{Proof: gkvcache.PlaceholderWritesProof(cfg), Claim: poly.Claim{Point: make([]frontend.Variable, len(point))}, cfg: cfg, rows: rows}
			assignment := &writesCircuit{Proof: gkvcache.ValueOfWritesProof(proof), Claim: claimsAssignment[E]([]npoly.Claim[E]{claim})[0], Position: position, Live: live, cfg: cfg, rows: rows}
			return test.IsSolved(placeholder, assignment, scalar) == nil
		}
		if !nativeAccepts(cfg.Position, c.live, claim) || !circuitAccepts(cfg.Position, c.live, claim) {
			t.Fatalf("%+v: honest writes rejected", cfg)
		}
		rejectedByBoth := func(what string, position, live int, claim npoly.Claim[E]) {
			t.Helper()
			if nativeAccepts(position, live, claim) {
				t.Errorf("%+v: %s: native accepts", cfg, what)
			}
			if circuitAccepts(position, live, claim) {
				t.Errorf("%+v: %s: circuit accepts", cfg, what)
			}
		}
		elements := []*E{&proof.New}
		for _, r := range proof.Shift.Rounds {
			for i := range r {
				elements = append(elements, &r[i])
			}
		}
		for _, x := range elements {
			saved := *x
			x.Add(x, &one)
			rejectedByBoth("a proof value changed", cfg.Position, c.live, claim)
			*x = saved
		}
		bad := claim
		bad.Value.Add(&bad.Value, &one)
		rejectedByBoth("the claimed value changed", cfg.Position, c.live, bad)
		if c.live < cfg.NewRows() {
			rejectedByBoth("one more row counted", cfg.Position, c.live+1, claim)
		}
		rejectedByBoth("one row fewer counted", cfg.Position, c.live-1, claim)
		if cfg.Position > 0 {
			rejectedByBoth("another position", cfg.Position-1, c.live, claim)
		}
	}
}
