package committed

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/pcs"
)

// softmaxCircuit checks the softmax step and, when want is set, that
// its claims are the native ones.
type softmaxCircuit struct {
	stepBase
	Proofs []SoftmaxProof
	s      *native.Shape `gnark:"-"`
	want   []pcs.Claim   `gnark:"-"`
}

func (c *softmaxCircuit) Define(api frontend.API) error {
	t, err := c.begin(api)
	if err != nil {
		return err
	}
	ends, err := verifySoftmax(api, t, c.s, c.Proofs, nil, nil)
	if err != nil {
		return err
	}
	if c.want != nil {
		if err := assertNativeClaims(api, softmaxClaims(c.s, ends, c.Proofs), c.want); err != nil {
			return err
		}
	}
	c.end(api, t)
	return nil
}

// softmaxCircuits returns the softmax step's placeholder and the
// assignment of the run's proof as it is now, with the native claims
// want (nil: not checked).
func (r *segmentRun) softmaxCircuits(want []pcs.Claim) (frontend.Circuit, frontend.Circuit, error) {
	ph, as, err := r.stepBases(stepSoftmax)
	if err != nil {
		return nil, nil, err
	}
	return &softmaxCircuit{stepBase: ph, Proofs: PlaceholderSoftmax(r.shape), s: r.shape, want: want},
		&softmaxCircuit{stepBase: as, Proofs: ValueOfSoftmax(r.proof.Softmax), s: r.shape, want: want}, nil
}

// assertNativeClaims asserts that the gadget's claims are the native
// ones: the same number and commitments (an error otherwise), the same
// points and values.
func assertNativeClaims(api frontend.API, got []gpcs.Claim, want []pcs.Claim) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d claims, native %d", len(got), len(want))
	}
	for k := range got {
		g, w := &got[k], &want[k]
		if g.Commitment != w.Commitment || len(g.Point) != len(w.Point) {
			return fmt.Errorf("claim %d: commitment %d over %d coordinates, native %d over %d", k, g.Commitment, len(g.Point), w.Commitment, len(w.Point))
		}
		for i := range g.Point {
			api.AssertIsEqual(g.Point[i], field.BigInt(&w.Point[i]))
		}
		api.AssertIsEqual(g.Value, field.BigInt(&w.Value))
	}
	return nil
}

// softmaxElements lists every value of a softmax proof.
func softmaxElements(p *native.SoftmaxProof) []*fr.Element {
	var out []*fr.Element
	for i := range p.Zero.SumCheck.Rounds {
		for j := range p.Zero.SumCheck.Rounds[i] {
			out = append(out, &p.Zero.SumCheck.Rounds[i][j])
		}
	}
	for i := range p.Zero.Evaluations {
		out = append(out, &p.Zero.Evaluations[i])
	}
	for i := range p.Rows {
		out = append(out, &p.Rows[i])
	}
	for i := range p.OneHot.Rounds {
		for j := range p.OneHot.Rounds[i] {
			out = append(out, &p.OneHot.Rounds[i][j])
		}
	}
	for i := range p.OneHotEvals {
		out = append(out, &p.OneHotEvals[i])
	}
	return out
}

// TestSoftmaxRejectedByBoth: the softmax step of both segments on the
// same proofs; every value of the first and last attentions' proofs
// changed.
func TestSoftmaxRejectedByBoth(t *testing.T) {
	for _, last := range []bool{false, true} {
		t.Run(fmt.Sprintf("last=%v", last), func(t *testing.T) {
			r := sharedSegmentRun(t, last)
			if len(r.proof.Softmax) == 0 {
				t.Fatal("no softmax proof")
			}
			var tampers []tamper
			for _, k := range ends(len(r.proof.Softmax)) {
				for i, x := range softmaxElements(&r.proof.Softmax[k]) {
					tampers = append(tampers, tamper{fmt.Sprintf("Softmax[%d] value %d", k, i), x})
				}
			}
			n := checkStep(t, r, stepSoftmax, func() (frontend.Circuit, frontend.Circuit, error) {
				return r.softmaxCircuits(nil)
			}, tampers)
			t.Logf("softmax step, %d attention(s): %d R1CS", len(r.proof.Softmax), n)
		})
	}
}

// TestSoftmaxClaims: on the honest proof of both segments the gadget's
// claims are native Shape.SoftmaxClaims (commitments, points, values);
// a native claim's point coordinate or value changed is not.
func TestSoftmaxClaims(t *testing.T) {
	for _, last := range []bool{false, true} {
		t.Run(fmt.Sprintf("last=%v", last), func(t *testing.T) {
			r := sharedSegmentRun(t, last)
			st, err := r.replay(stepSoftmax)
			if err != nil {
				t.Fatal(err)
			}
			e, err := r.shape.VerifySoftmax(st.t, r.proof.Softmax)
			if err != nil {
				t.Fatal(err)
			}
			want := r.shape.SoftmaxClaims(e, r.proof.Softmax)
			if len(want) == 0 {
				t.Fatal("no native claim")
			}
			checkClaims(t, want, r.softmaxCircuits)
		})
	}
}

// checkClaims checks a step circuit that asserts its claims against
// want: it is solved, and not once a point coordinate or a value of
// want's first or last claim is changed.
func checkClaims(t *testing.T, want []pcs.Claim, circuits func([]pcs.Claim) (frontend.Circuit, frontend.Circuit, error)) {
	t.Helper()
	solve := func() error {
		ph, as, err := circuits(want)
		if err != nil {
			t.Fatal(err)
		}
		return test.IsSolved(ph, as, ecc.BLS12_377.ScalarField())
	}
	if err := solve(); err != nil {
		t.Fatalf("the gadget's claims are not the native ones: %v", err)
	}
	for _, k := range ends(len(want)) {
		c := &want[k]
		for name, x := range map[string]*fr.Element{"last coordinate": &c.Point[len(c.Point)-1], "value": &c.Value} {
			undo := bump(x)
			if err := solve(); err == nil {
				t.Errorf("native claim %d with its %s changed: accepted", k, name)
			}
			undo()
		}
	}
	t.Logf("%d claims equal to the native ones", len(want))
}
