package committed

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/model"
)

// requantCircuit replays a segment's transcript through VerifyLookups
// and VerifyRequants and asserts the native state after them.
type requantCircuit struct {
	lookupsCircuit
	Requant RequantProof

	rqs    []*model.Requant                  `gnark:"-"`
	shared map[*model.Requant]*model.Requant `gnark:"-"`
}

func (c *requantCircuit) Define(api frontend.API) error {
	t, err := c.lookups(api)
	if err != nil {
		return err
	}
	if _, _, err := VerifyRequants(api, t, c.l, c.rqs, c.shared, c.Requant); err != nil {
		return err
	}
	api.AssertIsEqual(t.State(), c.State)
	return nil
}

func (r *lookupsRun) requantCircuits() (*requantCircuit, *requantCircuit, error) {
	ph, as, err := r.circuits()
	if err != nil {
		return nil, nil, err
	}
	as.State = field.BigInt(&r.requantState)
	return &requantCircuit{lookupsCircuit: *ph, Requant: PlaceholderRequantProof(r.l, r.rqs), rqs: r.rqs, shared: r.shared},
		&requantCircuit{lookupsCircuit: *as, Requant: ValueOfRequantProof(r.proof), rqs: r.rqs, shared: r.shared}, nil
}

// TestRequantsRejectedByBoth: the honest proof ends the requantization
// step with the native state in both; the first and last accumulators,
// the first and last round of the sum-check (each value) and the claim
// on s changed end both in another state or are rejected.
func TestRequantsRejectedByBoth(t *testing.T) {
	r := sharedLookupsRun(t)
	placeholder, _, err := r.requantCircuits()
	if err != nil {
		t.Fatal(err)
	}
	cs := compileCircuit(t, placeholder)
	solved := func() error {
		_, assignment, err := r.requantCircuits()
		if err != nil {
			return err
		}
		return solveCompiled(cs, assignment)
	}
	if err := solved(); err != nil {
		t.Fatalf("the honest proof does not solve the gadget: %v", err)
	}
	t.Logf("lookups and requantizations: %d R1CS (%d requantizations)", cs.GetNbConstraints(), len(r.rqs))
	p := r.proof
	var names []string
	var elems []*fr.Element
	add := func(name string, x *fr.Element) { names, elems = append(names, name), append(elems, x) }
	add("Accumulators[0]", &p.Accumulators[0])
	add("Accumulators[last]", &p.Accumulators[len(p.Accumulators)-1])
	for _, i := range []int{0, len(p.Requant.Rounds) - 1} {
		for k := range p.Requant.Rounds[i] {
			add(fmt.Sprintf("Requant round %d value %d", i, k), &p.Requant.Rounds[i][k])
		}
	}
	add("RequantEval", &p.RequantEval)
	for i, x := range elems {
		undo := bump(x)
		if state, err := r.verifyRequantsNative(); err == nil && state.Equal(&r.requantState) {
			t.Errorf("%s: accepted by the native verifier", names[i])
		}
		if err := solved(); err == nil {
			t.Errorf("%s: accepted by the gadget", names[i])
		}
		undo()
	}
	t.Logf("%d values changed, each rejected by both", len(elems))
}
